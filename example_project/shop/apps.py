from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    name = "example_project.shop"
    label = "shop"
    verbose_name = _("Example shop")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django_orderpay.signals import payment_duplicated

        from .duplicates import refund_duplicate_payment

        payment_duplicated.connect(refund_duplicate_payment, dispatch_uid="shop-refund-duplicate")
