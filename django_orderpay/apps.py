from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OrderPayConfig(AppConfig):
    name = "django_orderpay"
    label = "django_orderpay"
    verbose_name = _("Order payments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the system checks (see checks.py) once the module exists.
        from importlib import import_module
        from importlib.util import find_spec

        if find_spec("django_orderpay.checks"):
            import_module("django_orderpay.checks")
