"""django-orderpay's URLconf: ``path("orderpay/", include("django_orderpay.urls"))``.

Then the provider posts to ``/orderpay/notifications/`` (set that absolute
URL, trailing slash included, as ``ORDERPAY["NOTIFICATION_URL"]``), and
``reverse("orderpay:notifications")`` names it. ``installments/`` answers the
card checkout's installment plans (``checkout.js`` asks it as the card is typed),
``3ds-session/`` a fresh 3-D Secure session before each authentication.
"""

from __future__ import annotations

from django.urls import path

from .checkout_views import installment_plans_view, threeds_session_view
from .notifications.views import NotificationView

app_name = "orderpay"

urlpatterns = [
    path("notifications/", NotificationView.as_view(), name="notifications"),
    path("installments/", installment_plans_view, name="installment_plans"),
    path("3ds-session/", threeds_session_view, name="threeds_session"),
]
