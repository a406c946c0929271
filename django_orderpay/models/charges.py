"""The charge mirror and its split."""

from __future__ import annotations

import datetime as dt

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .base import ProviderMirror
from .orders import Order
from .states import OPEN_CHARGE_STATUSES, ChargeStatus, effective_charge_status


class RecurringType(models.TextChoices):
    INITIAL = "INITIAL", _("Initial")
    SUBSEQUENT = "SUBSEQUENT", _("Subsequent")
    UNSCHEDULED = "UNSCHEDULED", _("Unscheduled")
    STANDING_ORDER = "STANDING ORDER", _("Standing order")


class PaymentMethodType(models.TextChoices):
    """``payment_method.type`` of a charge (a value this version does not know is kept too)."""

    CREDIT_CARD = "CREDIT_CARD", _("Credit card")
    DEBIT_CARD = "DEBIT_CARD", _("Debit card")
    BOLETO = "BOLETO", _("Boleto")
    PIX = "PIX", _("Pix")


class SplitMethod(models.TextChoices):
    FIXED = "FIXED", _("Fixed amounts")
    PERCENTAGE = "PERCENTAGE", _("Percentages")


class Charge(ProviderMirror):
    """A provider charge (``CHAR_...``) of an order.

    Amounts are integer cents: ``amount_value`` is what was asked,
    ``amount_paid`` and ``amount_refunded`` come from ``amount.summary`` and
    never shrink locally, whatever order copies arrive in.
    """

    order = models.ForeignKey(
        Order, verbose_name=_("order"), on_delete=models.CASCADE, related_name="charges"
    )
    reference_id = models.CharField(_("reference id"), max_length=64, blank=True, db_index=True)
    status = models.CharField(
        _("status"), max_length=32, choices=ChargeStatus.choices, db_index=True
    )
    amount_value = models.PositiveIntegerField(_("amount (cents)"))
    amount_paid = models.PositiveIntegerField(_("paid (cents)"), default=0)
    amount_refunded = models.PositiveIntegerField(_("refunded (cents)"), default=0)
    currency = models.CharField(_("currency"), max_length=3, default="BRL")
    payment_method = models.CharField(
        _("payment method"),
        max_length=32,
        choices=PaymentMethodType.choices,
        blank=True,
        db_index=True,
    )
    #: A boleto's due date (the day it may still be paid), else None.
    due_date = models.DateField(_("due date"), null=True, blank=True)
    installments = models.PositiveSmallIntegerField(_("installments"), default=1)
    capture = models.BooleanField(_("capture"), default=True)
    capture_before = models.DateTimeField(_("capture before"), null=True, blank=True)
    payment_response_code = models.CharField(_("payment response code"), max_length=16, blank=True)
    payment_response_message = models.CharField(
        _("payment response message"), max_length=255, blank=True
    )
    card_brand = models.CharField(_("card brand"), max_length=20, blank=True)
    card_first_digits = models.CharField(_("card first digits"), max_length=6, blank=True)
    card_last_digits = models.CharField(_("card last digits"), max_length=4, blank=True)
    card_token = models.ForeignKey(
        "django_orderpay.CardToken",
        verbose_name=_("card token"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="charges",
    )
    recurring_type = models.CharField(
        _("recurring type"), max_length=32, choices=RecurringType.choices, blank=True
    )
    brand_reference_id = models.CharField(_("brand reference id"), max_length=64, blank=True)
    split_method = models.CharField(
        _("split method"), max_length=32, choices=SplitMethod.choices, blank=True
    )
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), null=True, blank=True, db_index=True)

    class Meta:
        verbose_name = _("charge")
        verbose_name_plural = _("charges")
        ordering = ("created_at", "pk")
        permissions = [
            ("cancel_charge", _("Can cancel or refund a charge")),
            ("capture_charge", _("Can capture an authorized charge")),
        ]

    @property
    def payment_response(self) -> dict:
        return dict(self.data.get("payment_response") or {})

    @property
    def buyer_interest(self) -> int:
        """Cents of the buyer's interest inside the amount (an installment plan's), else 0."""
        amount = self.data.get("amount") if isinstance(self.data, dict) else None
        fees = amount.get("fees") if isinstance(amount, dict) else None
        buyer = fees.get("buyer") if isinstance(fees, dict) else None
        interest = buyer.get("interest") if isinstance(buyer, dict) else None
        total = interest.get("total") if isinstance(interest, dict) else None
        return total if isinstance(total, int) and not isinstance(total, bool) else 0

    @property
    def boleto(self) -> dict:
        """``payment_method.boleto``: ``id``, ``barcode``, ``formatted_barcode``, ``due_date``..."""
        return dict((self.data.get("payment_method") or {}).get("boleto") or {})

    @property
    def pix(self) -> dict:
        """``payment_method.pix`` of a paid Pix charge: ``end_to_end_id``, ``holder``."""
        return dict((self.data.get("payment_method") or {}).get("pix") or {})

    @property
    def pdf_url(self) -> str | None:
        """The boleto's PDF (its link with media ``application/pdf``)."""
        return self.link_of_media("application/pdf")

    @property
    def image_url(self) -> str | None:
        """The boleto's image (its link with media ``image/png``)."""
        return self.link_of_media("image/png")

    @property
    def is_final(self) -> bool:
        """No change can come without someone acting (refunds aside)."""
        return self.status not in OPEN_CHARGE_STATUSES

    @property
    def effective_status(self) -> str:
        """The status as the shop should read it: a partially refunded charge is PAID."""
        return effective_charge_status(self.status, self.amount_paid, self.amount_refunded)

    @property
    def is_partially_refunded(self) -> bool:
        """Part of the paid amount was given back, and part kept (PAID or CANCELED)."""
        return 0 < self.amount_refunded < self.amount_paid

    @property
    def status_label(self) -> str:
        """The status in words, "Partially refunded" where that is what it means."""
        if self.is_partially_refunded:
            return str(_("Partially refunded"))
        return str(self.get_status_display())

    @property
    def refundable_amount(self) -> int:
        """Cents that a cancel call may still give back (0 unless paid, even partly refunded)."""
        if self.effective_status != ChargeStatus.PAID:
            return 0
        return max(self.amount_paid - self.amount_refunded, 0)

    def can_capture(self, now: dt.datetime | None = None) -> bool:
        """An authorised charge can be captured until ``capture_before``."""
        if self.status != ChargeStatus.AUTHORIZED:
            return False
        return self.capture_before is None or (now or timezone.now()) < self.capture_before

    def can_cancel(self) -> bool:
        """Authorised charges can be voided; paid ones refunded while money remains."""
        if self.status == ChargeStatus.AUTHORIZED:
            return True
        return self.refundable_amount > 0


class Split(ProviderMirror):
    """The split record (``SPLI_...``) of a charge paid with ``splits``.

    Created from the charge's ``SPLIT`` link when the charge is synced;
    ``status`` and ``data`` fill in when the split itself is fetched
    (:func:`django_orderpay.sync.sync_split`).
    """

    charge = models.OneToOneField(
        Charge, verbose_name=_("charge"), on_delete=models.CASCADE, related_name="split"
    )
    method = models.CharField(_("method"), max_length=32, choices=SplitMethod.choices, blank=True)
    status = models.CharField(_("status"), max_length=32, blank=True)
    created_at = models.DateTimeField(_("created at"), null=True, blank=True)

    class Meta:
        verbose_name = _("split")
        verbose_name_plural = _("splits")

    @property
    def receivers(self) -> list[dict]:
        return list(self.data.get("receivers") or [])
