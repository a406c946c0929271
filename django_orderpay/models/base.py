"""What every mirror of a provider object has in common."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def attname(model: type[models.Model], name: str) -> str:
    """The attribute a concrete field's value lives in (``card_token`` -> ``card_token_id``)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{name} is a relation, not a column")
    return field.attname


class ProviderMirror(models.Model):
    """A local copy of one provider object: its id and its last JSON.

    Columns next to these two exist only for what a shop filters or joins on;
    anything else is read from ``data``.
    """

    provider_id = models.CharField(_("provider id"), max_length=64, unique=True)
    data = models.JSONField(_("provider JSON"), default=dict, blank=True)
    # Set explicitly by sync (bulk_update skips auto_now).
    synced_at = models.DateTimeField(_("synced at"), default=timezone.now, editable=False)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.provider_id

    def link(self, rel: str) -> str | None:
        """The ``href`` of the provider link named ``rel`` in ``data``, if any."""
        for link in self.data.get("links") or ():
            if isinstance(link, dict) and link.get("rel") == rel:
                return link.get("href")
        return None
