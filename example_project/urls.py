"""The example shop's URLs: the shop at ``/``, the admin, notifications, the emulator."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("orderpay/", include("django_orderpay.urls")),
    path("", include("example_project.shop.urls")),
]

if getattr(settings, "SHOP_SERVE_EMULATOR", False):
    # The provider's twin, in this very process: the demo needs nothing else running.
    urlpatterns.insert(0, path("emulator/", include("django_orderpay.emulator.urls")))
