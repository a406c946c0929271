"""An order's Pix QR code: what the payer scans or pastes to pay."""

from __future__ import annotations

import datetime as dt

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .base import ProviderMirror, link_href
from .orders import Order


class QrCode(ProviderMirror):
    """A Pix QR code (``QRCO_...``) of an order: one payment, until ``expires_at``.

    ``text`` is the BR Code "copia e cola" a banking app reads; ``image_url``
    the provider's PNG of it. The order has no charge until the QR is paid;
    then a PAID charge of ``payment_method.type`` PIX appears on it.
    """

    order = models.ForeignKey(
        Order, verbose_name=_("order"), on_delete=models.CASCADE, related_name="qr_codes"
    )
    amount_value = models.PositiveIntegerField(_("amount (cents)"))
    text = models.TextField(_("Pix copy and paste code"), blank=True)
    image_url = models.CharField(_("image URL"), max_length=1000, blank=True)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True, db_index=True)

    class Meta:
        verbose_name = _("Pix QR code")
        verbose_name_plural = _("Pix QR codes")
        ordering = ("pk",)

    @property
    def arrangements(self) -> list[str]:
        """Where it can be paid: ``PIX`` (any bank's app) or ``PAGBANK`` (its app only)."""
        return list(self.data.get("arrangements") or [])

    @property
    def base64_url(self) -> str | None:
        """The provider's link to the image as base64 text (``QRCODE.BASE64``)."""
        return link_href(self.data, rel="QRCODE.BASE64")

    def is_expired(self, now: dt.datetime | None = None) -> bool:
        return self.expires_at is not None and (now or timezone.now()) >= self.expires_at
