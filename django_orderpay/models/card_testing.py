"""Card attempts refused by the card-testing limits, for staff to see (and to alert on)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .money import short_datetime

__all__ = ["CardAttemptRefusal", "LimitKind", "LimitScope"]

#: The most rows kept: each insert deletes those older than the newest this many.
#: An attack writes one row per counter and window (later refusals count on it),
#: and each counter takes its limit's attempts first, so this is weeks of attacks.
REFUSALS_KEPT = 10_000


class LimitScope(models.TextChoices):
    """Who or what a card-testing limit counts for."""

    ORDER = "order", _("Purchase")
    SHOPPER = "shopper", _("Shopper")
    ADDRESS = "address", _("Client address")


class LimitKind(models.TextChoices):
    """What a card-testing limit counts."""

    ATTEMPTS = "attempts", _("Card attempts")
    DECLINES = "declines", _("Declined cards")


class CardAttemptRefusal(models.Model):
    """A counter of the card-testing limits that refused card attempts, in one window.

    One row per counter and window: the first refusal writes it, later ones
    of the same window add to ``refusals`` and move ``last_refused_at``. The
    shopper is named by what the limit counted: the user, a digest of the
    session key (never the key), the client address (an IPv6 client by its
    /64), or the purchase.
    """

    first_refused_at = models.DateTimeField(
        _("first refused at"), default=timezone.now, editable=False, db_index=True
    )
    last_refused_at = models.DateTimeField(_("last refused at"), default=timezone.now)
    scope = models.CharField(_("counted per"), max_length=16, choices=LimitScope.choices)
    kind = models.CharField(_("limit"), max_length=16, choices=LimitKind.choices)
    limit = models.PositiveIntegerField(_("limit"))
    #: What was counted: ``user:<id>``, ``session:<digest>``, an address, or a purchase.
    counted = models.CharField(_("counted"), max_length=100)
    refusals = models.PositiveIntegerField(_("attempts refused"), default=1)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    address = models.CharField(_("client address"), max_length=64, blank=True)
    #: The purchase being paid (shop object, order or reference), when known.
    purchase = models.CharField(_("purchase"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("card attempt refusal")
        verbose_name_plural = _("card attempt refusals")
        ordering = ("-first_refused_at", "-pk")

    def __str__(self) -> str:
        return f"{self.get_scope_display()} {self.counted} {short_datetime(self.first_refused_at)}"
