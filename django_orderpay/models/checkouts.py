"""The mirror of PagBank's hosted Checkout: a page (or payment link) that makes orders."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .accounts import account_foreign_key
from .base import ProviderMirror
from .shop_objects import ShopObjectOwned


class CheckoutStatus(models.TextChoices):
    """A checkout's ``status``: payable, switched off by the shop, or past its time."""

    ACTIVE = "ACTIVE", _("Active")
    INACTIVE = "INACTIVE", _("Inactive")
    EXPIRED = "EXPIRED", _("Expired")


class CheckoutQuerySet(models.QuerySet):
    def not_final(self) -> CheckoutQuerySet:
        """Checkouts whose state may still change at the provider: not EXPIRED yet."""
        return self.exclude(status=CheckoutStatus.EXPIRED)

    def past_expiry(self, now: dt.datetime | None = None) -> CheckoutQuerySet:
        """Checkouts the mirror still shows payable though their time has run out."""
        return self.not_final().filter(expires_at__lte=now or timezone.now())


class Checkout(ShopObjectOwned, ProviderMirror):
    """A PagBank checkout (``CHEC_...``): the page the shopper pays on, and its orders.

    Each payment made on the page is an order of its own (``orders``), mirrored
    as any order and linked here once the provider shows it was made through
    this checkout. ``pay_url`` is the page (the ``PAY`` link); ``amount_value``
    what the page charges before card interest (items, additional amount and
    fixed shipping, less the discount). ``paid_at`` is when a payment through
    it was first seen paid, ``expired_announced_at`` when it was announced as
    expired unpaid: each signal is sent once.
    """

    reference_id = models.CharField(_("reference id"), max_length=64, blank=True, db_index=True)
    status = models.CharField(
        _("status"),
        max_length=16,
        choices=CheckoutStatus.choices,
        default=CheckoutStatus.ACTIVE,
        db_index=True,
    )
    pay_url = models.CharField(_("payment page"), max_length=1000, blank=True)
    amount_value = models.PositiveIntegerField(_("amount (cents)"), default=0)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(_("created at"), null=True, blank=True, db_index=True)
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    expired_announced_at = models.DateTimeField(_("expiry announced at"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="orderpay_checkouts",
    )
    #: The connected account it was created for; empty: the settings' TOKEN.
    account = account_foreign_key("checkouts")

    objects = CheckoutQuerySet.as_manager()

    class Meta:
        verbose_name = _("checkout")
        verbose_name_plural = _("checkouts")
        ordering = ("-created_at", "-pk")
        indexes = [
            models.Index(fields=["content_type", "object_id"], name="orderpay_checkout_shop_obj"),
        ]
        permissions = [
            ("inactivate_checkout", _("Can inactivate or activate a checkout")),
            ("refresh_checkout", _("Can refresh a checkout from the provider")),
        ]

    @property
    def redirect_url(self) -> str:
        return str(self.data.get("redirect_url") or "")

    @property
    def is_paid(self) -> bool:
        """Whether a payment made through it was seen paid (see ``paid_at``)."""
        return self.paid_at is not None

    def is_expired(self, now: dt.datetime | None = None) -> bool:
        """EXPIRED at the provider, or past its time by our clock (not synced since)."""
        if self.status == CheckoutStatus.EXPIRED:
            return True
        return self.expires_at is not None and (now or timezone.now()) >= self.expires_at

    def is_payable(self, now: dt.datetime | None = None) -> bool:
        """Whether its page takes payments now (as far as the mirror knows)."""
        return self.status == CheckoutStatus.ACTIVE and not self.is_expired(now)
