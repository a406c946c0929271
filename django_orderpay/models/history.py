"""The append-only history of each charge's status."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .charges import Charge


class ChangeSource(models.TextChoices):
    """Where the state that caused a change came from."""

    API = "api", _("API call")
    NOTIFICATION = "notification", _("Notification")
    SYNC = "sync", _("Sync")


class AppendOnlyError(RuntimeError):
    """Raised on an attempt to rewrite history."""


class ChargeStatusChangeQuerySet(models.QuerySet):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("charge status history is append-only")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        # Refused before Django opens its transaction, so the caller's
        # transaction stays usable.
        raise AppendOnlyError("charge status history is append-only")


class ChargeStatusChange(models.Model):
    """One status transition of a charge; ``old_status`` is ``""`` when first seen."""

    charge = models.ForeignKey(
        Charge, verbose_name=_("charge"), on_delete=models.CASCADE, related_name="status_changes"
    )
    old_status = models.CharField(_("old status"), max_length=32, blank=True)
    new_status = models.CharField(_("new status"), max_length=32)
    source = models.CharField(_("source"), max_length=16, choices=ChangeSource.choices)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    objects = ChargeStatusChangeQuerySet.as_manager()

    class Meta:
        verbose_name = _("charge status change")
        verbose_name_plural = _("charge status changes")
        ordering = ("created_at", "pk")

    def __str__(self) -> str:
        return f"{self.old_status or '-'} -> {self.new_status} ({self.source})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("charge status history is append-only")
        super().save(*args, **kwargs)
