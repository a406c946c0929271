"""The order mirror and its deeplink."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .accounts import account_foreign_key
from .base import ProviderMirror
from .shop_objects import ShopObjectOwned
from .states import OPEN_CHARGE_STATUSES, ChargeStatus, OrderStatus


class OrderQuerySet(models.QuerySet):
    def not_final(self) -> OrderQuerySet:
        """Orders whose state may still change at the provider on its own.

        That is orders without charges yet, orders with a charge that is
        waiting, in analysis or authorised, and orders with an operation whose
        outcome is unknown: the ones worth re-fetching when a notification may
        have been missed.
        """
        from .operations import OPEN_OPERATION_STATES  # operations imports this module

        return self.filter(
            Q(status=OrderStatus.CREATED)
            | Q(charges__status__in=OPEN_CHARGE_STATUSES)
            | Q(operations__state__in=OPEN_OPERATION_STATES)
        ).distinct()


class Order(ShopObjectOwned, ProviderMirror):
    """A provider order (``ORDE_...``).

    ``status`` is derived from the charges by
    :func:`~django_orderpay.models.states.derive_order_status`; the provider
    has no order status. The shop links an order to its own object either by
    ``reference_id`` or by the generic relation ``shop_object``.
    """

    reference_id = models.CharField(_("reference id"), max_length=64, blank=True, db_index=True)
    status = models.CharField(
        _("status"),
        max_length=16,
        choices=OrderStatus.choices,
        default=OrderStatus.CREATED,
        db_index=True,
    )
    customer_name = models.CharField(_("customer name"), max_length=120, blank=True)
    customer_email = models.CharField(_("customer e-mail"), max_length=255, blank=True)
    customer_tax_id = models.CharField(_("customer tax id"), max_length=14, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="orderpay_orders",
    )
    created_at = models.DateTimeField(_("created at"), null=True, blank=True, db_index=True)
    #: The connected account it belongs to; empty: the settings' TOKEN (the default account).
    account = account_foreign_key("orders")
    #: The hosted checkout whose page made it (None for an order the shop created).
    checkout = models.ForeignKey(
        "django_orderpay.Checkout",
        verbose_name=_("checkout"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="orders",
    )
    #: When the provider first answered 404 for this order (``orderpay_sync``): it
    #: is reported once and no longer fetched by every run (an emulator restarted
    #: without its state file, a sandbox order after the sandbox was reset).
    provider_missing_since = models.DateTimeField(
        _("unknown to the provider since"), null=True, blank=True
    )

    objects = OrderQuerySet.as_manager()

    class Meta:
        verbose_name = _("order")
        verbose_name_plural = _("orders")
        ordering = ("-created_at", "-pk")
        indexes = [
            models.Index(fields=["content_type", "object_id"], name="orderpay_order_shop_obj"),
        ]
        permissions = [("refresh_order", _("Can refresh an order from the provider"))]

    @property
    def notification_urls(self) -> list[str]:
        return list(self.data.get("notification_urls") or [])

    @property
    def items_total(self) -> int:
        """Sum of ``quantity * unit_amount`` over the order's items, in cents."""
        return sum(
            int(item.get("quantity", 0)) * int(item.get("unit_amount", 0))
            for item in self.data.get("items") or ()
        )

    @property
    def total_paid(self) -> int:
        """Cents paid over all charges (use ``prefetch_related("charges")`` in lists)."""
        return sum(charge.amount_paid for charge in self.charges.all())

    @property
    def total_refunded(self) -> int:
        """Cents refunded over all charges (use ``prefetch_related("charges")`` in lists)."""
        return sum(charge.amount_refunded for charge in self.charges.all())

    @property
    def is_paid(self) -> bool:
        return self.status == OrderStatus.PAID


#: Deeplinks expire at the end of the day after creation, in the provider's
#: time zone (Brasilia, -03:00 with no daylight saving since 2019).
PROVIDER_TIMEZONE = dt.timezone(dt.timedelta(hours=-3), "BRT")


def deeplink_expiry(created_at: dt.datetime) -> dt.datetime:
    """The last instant a deeplink created at ``created_at`` can be paid."""
    local_day = created_at.astimezone(PROVIDER_TIMEZONE).date()
    next_day = local_day + dt.timedelta(days=1)
    return dt.datetime.combine(next_day, dt.time.max, tzinfo=PROVIDER_TIMEZONE)


class DeepLink(models.Model):
    """An order's deep link (``deep_links[0]``), paid in the provider's app.

    Spelt ``DeepLink`` as the API's ``deep_links`` and the request builder
    (``payloads.DeepLink``); attributes keep the one word (``order.deeplink``,
    ``deeplink_id``), as do the functions (``simulate_deeplink_payment``).

    ``deeplink_id`` is the ``r=`` query parameter of ``url``: the id the
    provider's pay simulator and the app use.
    """

    order = models.OneToOneField(
        Order, verbose_name=_("order"), on_delete=models.CASCADE, related_name="deeplink"
    )
    deeplink_id = models.CharField(_("deeplink id"), max_length=128, unique=True)
    url = models.URLField(_("url"), max_length=1000)
    amount_value = models.PositiveIntegerField(_("amount (cents)"))
    redirect_url = models.CharField(_("redirect url"), max_length=1000, blank=True)
    expires_at = models.DateTimeField(_("expires at"))
    data = models.JSONField(_("provider JSON"), default=dict, blank=True)
    synced_at = models.DateTimeField(_("synced at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("deeplink")
        verbose_name_plural = _("deeplinks")

    def __str__(self) -> str:
        return self.deeplink_id

    def is_expired(self, now: dt.datetime | None = None) -> bool:
        return (now or timezone.now()) > self.expires_at

    def is_paid(self) -> bool:
        """Whether the order holds a paid charge (a deeplink takes one payment)."""
        return self.order.charges.filter(status=ChargeStatus.PAID).exists()
