from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    name = "example_project.shop"
    label = "shop"
    verbose_name = _("Example shop")
    default_auto_field = "django.db.models.BigAutoField"
