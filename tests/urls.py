from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("emulator/", include("django_orderpay.emulator.urls")),
    path("orderpay/", include("django_orderpay.urls")),
    path("shop/", include("example_project.shop.urls")),
    path("captcha/", include("captcha.urls")),
]
