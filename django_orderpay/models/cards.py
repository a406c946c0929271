"""Stored-card tokens: what identifies a card, never the card itself."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..rules import card_brand_name
from .accounts import ConnectedAccount, account_foreign_key
from .base import ProviderMirror


class CardTokenQuerySet(models.QuerySet["CardToken"]):
    def active(self) -> CardTokenQuerySet:
        """The tokens that may still pay: neither removed by their owner nor replaced."""
        return self.filter(removed_at__isnull=True)

    def payable(
        self, *, owner_id: int | str, account: ConnectedAccount | None
    ) -> CardTokenQuerySet:
        """The active tokens of the user ``owner_id`` that may pay ``account``'s orders
        (None: the settings' ``TOKEN``): those stored with that account alone, as PagBank
        lets a stored card be charged only by the account that stored it."""
        return self.active().filter(
            user_id=owner_id, account_id=account.pk if account is not None else None
        )


class CardToken(ProviderMirror):
    """A stored-card token (``CARD_...``) and the card's printable facts.

    Holds brand, first six and last four digits, expiry and holder name; the
    number and security code never reach this table. ``brand_reference_id``
    and ``initial_amount`` come from the Elo INITIAL recurrence charge, so a
    SUBSEQUENT charge can be built from the token alone. ``data`` is the
    ``payment_method.card`` object of the last charge that used the token.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        # A stored card is the user's: it goes with them. Charges keep their
        # own brand and digits columns.
        on_delete=models.CASCADE,
        related_name="orderpay_card_tokens",
    )
    brand = models.CharField(_("brand"), max_length=20, blank=True)
    first_digits = models.CharField(_("first digits"), max_length=6, blank=True)
    last_digits = models.CharField(_("last digits"), max_length=4, blank=True)
    exp_month = models.CharField(_("expiry month"), max_length=2, blank=True)
    exp_year = models.CharField(_("expiry year"), max_length=4, blank=True)
    holder_name = models.CharField(_("holder name"), max_length=120, blank=True)
    brand_reference_id = models.CharField(_("brand reference id"), max_length=64, blank=True)
    initial_amount = models.PositiveIntegerField(
        _("initial recurrence amount (cents)"), null=True, blank=True
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    #: When the owner removed it, or a newer token of the same card replaced it:
    #: it is then offered nowhere and pays nothing (the provider keeps its copy,
    #: which it has no call to delete).
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)
    #: The account it was stored with: it pays only that account's orders.
    account = account_foreign_key("card_tokens")

    objects = CardTokenQuerySet.as_manager()

    class Meta:
        verbose_name = _("card token")
        verbose_name_plural = _("card tokens")
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        brand = card_brand_name(self.brand) if self.brand else "card"
        return f"{brand} {self.first_digits}******{self.last_digits}".strip()

    @property
    def label(self) -> str:
        """What a shopper reads: ``Visa •••• 1111 (12/2030)``, the last digits only.

        The one way a shop shows a card to its owner (the saved-card form, its
        messages, the cards page), so a card reads the same everywhere.
        """
        brand = card_brand_name(self.brand) if self.brand else str(_("Card"))
        expiry = f" ({self.exp_month}/{self.exp_year})" if self.exp_month and self.exp_year else ""
        return f"{brand} •••• {self.last_digits}{expiry}"

    @property
    def is_active(self) -> bool:
        return self.removed_at is None

    def same_card(self) -> models.Q:
        """The other tokens of this card for this owner (brand, digits and expiry alike)."""
        return models.Q(
            user_id=self.user_id,
            account_id=self.account_id,
            brand=self.brand,
            first_digits=self.first_digits,
            last_digits=self.last_digits,
            exp_month=self.exp_month,
            exp_year=self.exp_year,
        ) & ~models.Q(pk=self.pk)

    @property
    def has_recurrence(self) -> bool:
        """Whether a SUBSEQUENT charge can be built from this token."""
        return bool(self.brand_reference_id)
