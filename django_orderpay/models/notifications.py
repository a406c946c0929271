"""The log of every notification delivery received from the provider."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from django_orderpay.redaction import redact_headers

from .accounts import account_foreign_key
from .money import short_datetime

__all__ = ["DeliveryOutcome", "NotificationDelivery", "redact_headers"]

#: Bytes kept of a body refused before processing (unverified, not JSON):
#: enough to see what it was, not a free store for whoever posts.
UNVERIFIED_BODY_KEPT = 16 * 1024
#: Characters kept of the request's headers in all (names and values), and of
#: one value: the provider sends a dozen short headers; a stranger, anything.
HEADERS_KEPT = 8 * 1024
HEADER_VALUE_KEPT = 1024
#: The header that says how many were left out, and what a cut value ends with.
HEADERS_LEFT_OUT = "x-orderpay-headers-left-out"
CUT = "…[cut]"


class DeliveryOutcome(models.TextChoices):
    RECEIVED = "received", _("Received")
    PROCESSED = "processed", _("Processed")
    DUPLICATE = "duplicate", _("Duplicate")
    IGNORED = "ignored", _("Ignored")
    REJECTED = "rejected", _("Rejected")
    FAILED = "failed", _("Failed")


class NotificationDelivery(models.Model):
    """One HTTP request that reached the notifications view, as it arrived.

    Written before (and outside) processing, so a delivery is never lost
    even when processing fails. ``valid`` is True when its token matched,
    False when it did not, ``None`` when there was none to check (the header
    missing, or verification off: the order is then re-fetched, never
    trusted); ``dedupe_key`` is the SHA-256 of the whole body and
    ``body_size`` its length: a request refused at the door keeps only the
    start of its body (``UNVERIFIED_BODY_KEPT`` bytes); ``order_provider_id``
    is the ``ORDE_`` id the body names.
    """

    received_at = models.DateTimeField(
        _("received at"), default=timezone.now, editable=False, db_index=True
    )
    body = models.BinaryField(_("raw body"), default=b"")
    body_size = models.PositiveIntegerField(_("body size (bytes)"), default=0)
    headers = models.JSONField(_("headers"), default=dict, blank=True)
    remote_addr = models.GenericIPAddressField(_("remote address"), null=True, blank=True)
    content_type = models.CharField(_("content type"), max_length=255, blank=True)
    valid = models.BooleanField(_("valid"), null=True, blank=True)
    outcome = models.CharField(
        _("outcome"),
        max_length=16,
        choices=DeliveryOutcome.choices,
        default=DeliveryOutcome.RECEIVED,
    )
    error = models.TextField(_("error"), blank=True)
    traceback = models.TextField(_("traceback"), blank=True)
    order_provider_id = models.CharField(_("order provider id"), max_length=64, blank=True)
    # No index of its own: the partial unique one (Meta) is what finds a body's
    # processed copy. Migration 0005 says why it drops the old one by hand.
    dedupe_key = models.CharField(_("dedupe key"), max_length=128, blank=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    processed_at = models.DateTimeField(_("processed at"), null=True, blank=True)
    #: The connected account it was routed to (empty: the default account). No
    #: index: every delivery is an insert, and nothing looks deliveries up by account.
    account = account_foreign_key(db_index=False)
    #: Whose token its ``x-authenticity-token`` matched: ``account`` (the connected
    #: account's access token) or ``application`` (the Connect application's); empty
    #: for the default account's tokens, or when nothing matched.
    signed_with = models.CharField(_("signed with"), max_length=16, blank=True)

    class Meta:
        verbose_name = _("notification delivery")
        verbose_name_plural = _("notification deliveries")
        ordering = ("-received_at", "-pk")
        constraints = [
            # The claim that applies a notification once: a second copy of the
            # same body can't also be processed; its insert or update waits for
            # the first copy's transaction, then finds it (a duplicate).
            models.UniqueConstraint(
                fields=["dedupe_key"],
                condition=models.Q(outcome=DeliveryOutcome.PROCESSED),
                name="orderpay_delivery_processed_once",
            )
        ]
        # Every delivery is an insert, so the table carries only the indexes
        # something reads (each costs every insert): the unique one above also
        # finds a body's processed copy; the waiting ones (a worker's drain,
        # orderpay_replay) are the few rows of a partial index, oldest first.
        # Declared here rather than with db_index, which on PostgreSQL adds a
        # second, LIKE-only index to every CharField.
        indexes = [
            models.Index(
                fields=["id"],
                condition=models.Q(outcome__in=[DeliveryOutcome.RECEIVED, DeliveryOutcome.FAILED]),
                name="orderpay_delivery_waiting",
            ),
            models.Index(fields=["order_provider_id"], name="orderpay_delivery_order"),
        ]

    def __str__(self) -> str:
        # In the project's time zone and words, as the admin's list shows the same delivery.
        received = short_datetime(self.received_at)
        return f"{self.order_provider_id or '?'} {self.get_outcome_display()} {received}"

    @property
    def body_text(self) -> str:
        """The body as text (undecodable bytes replaced), for display."""
        return bytes(self.body).decode("utf-8", errors="replace")
