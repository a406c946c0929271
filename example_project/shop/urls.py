"""The shop's URLs (namespace ``shop``); mount with ``include("example_project.shop.urls")``."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import path
from django.views.i18n import set_language

from . import views

app_name = "shop"

urlpatterns = [
    path("", views.products, name="products"),
    path("cart/", views.cart, name="cart"),
    path("cart/add/<int:product_id>/", views.cart_add, name="cart_add"),
    path("checkout/", views.checkout, name="checkout"),
    path("orders/<uuid:reference>/", views.status, name="status"),
    path("orders/<uuid:reference>/status.json", views.status_json, name="status_json"),
    path("orders/<uuid:reference>/pay/", views.pay, name="pay"),
    path("orders/<uuid:reference>/pay/card/", views.pay_card, name="pay_card"),
    path("orders/<uuid:reference>/pay/saved-card/", views.pay_saved_card, name="pay_saved_card"),
    path("orders/<uuid:reference>/pay/app/", views.pay_in_app, name="pay_in_app"),
    path("orders/<uuid:reference>/pay/pix/", views.pay_pix, name="pay_pix"),
    path("orders/<uuid:reference>/pay/boleto/", views.pay_boleto, name="pay_boleto"),
    path(
        "orders/<uuid:reference>/pay/pix/simulate/",
        views.simulate_pix_payment,
        name="simulate_pix_payment",
    ),
    path(
        "orders/<uuid:reference>/pay/app/simulate/",
        views.simulate_app_payment,
        name="simulate_app_payment",
    ),
    path("accounts/login/", views.ShopLoginView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(next_page="shop:products"), name="logout"),
    # Django's own view: remembers the choice in a cookie, then back to ``next``.
    path("language/", set_language, name="set_language"),
]
