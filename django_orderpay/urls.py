"""django-orderpay's URLconf: ``path("orderpay/", include("django_orderpay.urls"))``.

Then the provider posts to ``/orderpay/notifications/`` (set that absolute
URL, trailing slash included, as ``ORDERPAY["NOTIFICATION_URL"]``), and
``reverse("orderpay:notifications")`` names it. ``installments/`` answers the
card checkout's installment plans (``checkout.js`` asks it as the card is typed),
``3ds-session/`` a fresh 3-D Secure session before each authentication.
``connect/authorize/`` and ``connect/callback/`` are PagBank Connect's
authorisation (``docs/connect.md``).
``checkouts/<signed id>/pay/`` sends a shopper to a hosted checkout's page
(``hosted_checkout.checkout_link``).
"""

from __future__ import annotations

from django.urls import path

from .checkout_views import installment_plans_view, threeds_session_view
from .connect.views import ConnectCallbackView, ConnectStartView
from .hosted_checkout import checkout_pay_view
from .notifications.views import NotificationView

app_name = "orderpay"

urlpatterns = [
    path("notifications/", NotificationView.as_view(), name="notifications"),
    path("installments/", installment_plans_view, name="installment_plans"),
    path("connect/authorize/", ConnectStartView.as_view(), name="connect_start"),
    path("connect/callback/", ConnectCallbackView.as_view(), name="connect_callback"),
    path("3ds-session/", threeds_session_view, name="threeds_session"),
    path("checkouts/<str:token>/pay/", checkout_pay_view, name="checkout-pay"),
]
