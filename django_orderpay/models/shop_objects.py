"""The shop's own object a row belongs to: its purchase, passed as ``shop_object``."""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils.translation import gettext_lazy as _


class ShopObjectOwned(models.Model):
    """A generic relation to any model of the shop's; empty when none was given."""

    content_type = models.ForeignKey(
        ContentType,
        verbose_name=_("shop object type"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    object_id = models.CharField(_("shop object id"), max_length=64, blank=True)
    shop_object = GenericForeignKey("content_type", "object_id")

    class Meta:
        abstract = True

    def claim(self, user: Any, shop_object: models.Model | None) -> None:
        """Attach the shop's user and object, each only where the row has none yet.

        The row's ``user`` is its own field (each model names its reverse
        relation). Raises ``ValueError`` for an unsaved ``shop_object``.
        """
        authenticated = user is not None and getattr(user, "is_authenticated", False)
        if authenticated and getattr(self, "user_id", None) is None:
            self.user = user
        if shop_object is not None and self.content_type_id is None:
            if shop_object.pk is None:
                raise ValueError(f"shop_object must be saved before it can own {self}")
            self.content_type = ContentType.objects.get_for_model(shop_object)
            self.object_id = str(shop_object.pk)
