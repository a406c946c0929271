"""What every mirror of a provider object has in common."""

from __future__ import annotations

from functools import cache

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

#: The longest error text kept on a row (an operation's, a notification delivery's).
ERROR_TEXT_KEPT = 2000


def attname(model: type[models.Model], name: str) -> str:
    """The attribute a concrete field's value lives in (``card_token`` -> ``card_token_id``)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{name} is a relation, not a column")
    return field.attname


@cache
def known_values(choices: type[models.Choices]) -> frozenset[str]:
    """The values of ``choices``, kept: Django's ``Choices.values`` builds a new
    list, every label with it, on each read, and a sync reads it per field."""
    return frozenset(str(value) for value in choices.values)


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
        return link_href(self.data, rel=rel)

    def link_of_media(self, media: str) -> str | None:
        """The ``href`` of the provider link of ``media`` type (a boleto's PDF) in ``data``."""
        return link_href(self.data, media=media)


def link_href(data: dict, *, rel: str | None = None, media: str | None = None) -> str | None:
    """The ``href`` of the first of ``data["links"]`` with that ``rel`` and/or ``media``."""
    for link in data.get("links") or ():
        if not isinstance(link, dict):
            continue
        if (rel is None or link.get("rel") == rel) and (
            media is None or link.get("media") == media
        ):
            href = link.get("href")
            return href if isinstance(href, str) else None
    return None
