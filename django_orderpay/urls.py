"""django-orderpay's URLconf: ``path("orderpay/", include("django_orderpay.urls"))``.

Then the provider posts to ``/orderpay/notifications/`` (set that absolute
URL, trailing slash included, as ``ORDERPAY["NOTIFICATION_URL"]``), and
``reverse("orderpay:notifications")`` names it.
"""

from __future__ import annotations

from django.urls import path

from .notifications.views import NotificationView

app_name = "orderpay"

urlpatterns = [
    path("notifications/", NotificationView.as_view(), name="notifications"),
]
