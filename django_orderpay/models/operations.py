"""The durable record of every money-moving call: written and committed before it leaves.

A payment API call can end three ways: the provider did it, the provider
refused it with nothing done, or nobody knows (a timeout, a reset, a 5xx, a
409 for a key already in use). Only the first two are answers. An
:class:`Operation` row remembers each create, pay, capture and cancel with
its idempotency key *before* the request is sent, so that a repeat of the
same operation (a client retry, a customer pressing "pay" again, a worker
re-running a task, another process) is sent with the same key while the
outcome is unknown, and a new key is made only once the earlier operation
is known to be finished. The pattern is Stripe's idempotency keys with
recovery points, and Saleor's transaction events: see ``docs/services.md``,
"When the network fails".

Services write these rows; ``sync`` and the notification path settle them
from the provider's state (the order adopted by its ``reference_id``, the
new charge of a pay, the captured or refunded sums); ``orderpay_sync``
re-sends what is still open.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .accounts import account_foreign_key
from .charges import Charge
from .orders import Order
from .shop_objects import ShopObjectOwned


class OperationKind(models.TextChoices):
    """Which call an operation makes (the provider's endpoint)."""

    CREATE = "create", _("Create order")  # POST /orders
    PAY = "pay", _("Pay order")  # POST /orders/{id}/pay
    CAPTURE = "capture", _("Capture charge")  # POST /charges/{id}/capture
    CANCEL = "cancel", _("Cancel or refund charge")  # POST /charges/{id}/cancel


class OperationState(models.TextChoices):
    """Where an operation stands; ``succeeded`` and ``refused`` are final."""

    SENDING = "sending", _("Sending")
    SUCCEEDED = "succeeded", _("Succeeded")
    REFUSED = "refused", _("Refused")
    UNKNOWN = "unknown", _("Outcome unknown")


#: States in which the provider may have acted without our knowing: a repeat
#: reuses the key, and sync, notifications and ``orderpay_sync`` settle them.
OPEN_OPERATION_STATES = frozenset({OperationState.SENDING, OperationState.UNKNOWN})


class OperationQuerySet(models.QuerySet):
    def open(self) -> OperationQuerySet:
        """Operations whose outcome is not known yet."""
        return self.filter(state__in=OPEN_OPERATION_STATES)


#: The output field of :func:`has_open_operations`, made once (a field costs
#: about as much to build as the rest of the expression).
_BOOLEAN = models.BooleanField()


def has_open_operations(order_pk: int) -> RawSQL:
    """Whether the order ``order_pk`` has open operations, as an SQL ``EXISTS`` to annotate with.

    ``Exists(Operation.objects.open().filter(order=...))`` written out: every
    sync asks it with its charges' lock, and Django took about a millisecond
    to resolve that expression each time (measured on PostgreSQL), as long
    as the query itself.
    """
    is_open, states = open_state_sql()
    # Only the table's name and placeholders are formatted in; values are parameters.
    sql = (
        f"EXISTS (SELECT 1 FROM {Operation._meta.db_table}"  # noqa: S608
        f" WHERE order_id = %s AND {is_open})"
    )
    return RawSQL(sql, [order_pk, *states], _BOOLEAN)  # noqa: S611


def open_state_sql() -> tuple[str, list[str]]:
    """What :meth:`OperationQuerySet.open` says, for queries written out: SQL and its parameters."""
    states = [str(state) for state in sorted(OPEN_OPERATION_STATES)]
    return f"state IN ({', '.join(['%s'] * len(states))})", states


class Operation(ShopObjectOwned):
    """One money-moving call to the provider and what became of it.

    ``scope`` names the logical operation (``cancel:CHAR_...:300``,
    ``create:<user>:<reference_id>``); ``sequence`` counts the operations of
    that scope, so the next operation after a finished one gets a new key.
    ``body`` is the request as sent, without card secrets; ``replayable``
    says nothing was taken out, so the request can be sent again as it was.
    ``basis`` is what the local mirror showed when the call started (the
    refunded sum, the known charges), which settling compares against.
    ``reported`` says a caller has been given the outcome: a succeeded
    operation nobody has heard of answers the next repeat instead of acting.
    ``unheard_calls`` counts the calls told the outcome was unknown that have
    not called again: until ``unheard_until`` a succeeded operation answers a
    repeat too (one each), even after another caller heard it.
    """

    kind = models.CharField(_("kind"), max_length=10, choices=OperationKind.choices)
    scope = models.CharField(_("scope"), max_length=200)
    sequence = models.PositiveIntegerField(_("sequence"), default=0)
    #: ``reference_id`` for a create, ``ORDE_`` for a pay, ``CHAR_`` otherwise.
    target = models.CharField(_("target"), max_length=64, blank=True, db_index=True)
    amount = models.PositiveIntegerField(_("amount (cents)"), null=True, blank=True)
    idempotency_key = models.CharField(_("idempotency key"), max_length=255, unique=True)
    body_digest = models.CharField(_("body digest"), max_length=64)
    body = models.JSONField(_("request body (no card secrets)"), default=dict, blank=True)
    replayable = models.BooleanField(_("replayable"), default=False)
    basis = models.JSONField(_("basis"), default=dict, blank=True)
    state = models.CharField(
        pgettext_lazy("operation", "state"),
        max_length=10,
        choices=OperationState.choices,
        default=OperationState.SENDING,
        db_index=True,
    )
    reported = models.BooleanField(_("reported to a caller"), default=False)
    calls = models.PositiveIntegerField(_("calls"), default=0)
    unheard_calls = models.PositiveIntegerField(_("calls owed the outcome"), default=0)
    unheard_until = models.DateTimeField(_("owed until"), null=True, blank=True)
    error = models.TextField(_("last error"), blank=True)
    order = models.ForeignKey(
        Order,
        verbose_name=_("order"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="operations",
    )
    charge = models.ForeignKey(
        Charge,
        verbose_name=_("charge"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="operations",
    )
    # Who and what a created order belongs to, for the order adopted later; the
    # shop object of every operation (its order's), for the one-in-flight rule.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    #: The account the call is made for (its token); empty: the default account.
    account = account_foreign_key()
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)

    objects = OperationQuerySet.as_manager()

    class Meta:
        verbose_name = _("operation")
        verbose_name_plural = _("operations")
        ordering = ("-created_at", "-pk")
        constraints = [
            models.UniqueConstraint(fields=["scope", "sequence"], name="orderpay_operation_seq"),
        ]
        indexes = [
            models.Index(fields=["state", "created_at"], name="orderpay_operation_open"),
            # A payment looks for its shop object's operations in flight.
            models.Index(fields=["content_type", "object_id"], name="orderpay_operation_object"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.target} ({self.get_state_display()})"

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_OPERATION_STATES
