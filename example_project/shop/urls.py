"""The shop's URLs (namespace ``shop``); mount with ``include("example_project.shop.urls")``."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import path
from django.views.i18n import set_language

from . import account_views, card_views, demo_views, payment_views, seller_views, views

app_name = "shop"

urlpatterns = [
    path("", views.products, name="products"),
    path("cart/", views.cart, name="cart"),
    path("cart/add/<int:product_id>/", views.cart_add, name="cart_add"),
    path("checkout/", views.checkout, name="checkout"),
    path("orders/<uuid:reference>/", payment_views.status, name="status"),
    path("orders/<uuid:reference>/status.json", payment_views.status_json, name="status_json"),
    path("orders/<uuid:reference>/pay/", payment_views.pay, name="pay"),
    path("orders/<uuid:reference>/pay/card/", payment_views.pay_card, name="pay_card"),
    path(
        "orders/<uuid:reference>/pay/saved-card/",
        payment_views.pay_saved_card,
        name="pay_saved_card",
    ),
    path("orders/<uuid:reference>/pay/debit/", card_views.pay_debit, name="pay_debit"),
    path("orders/<uuid:reference>/pay/app/", payment_views.pay_in_app, name="pay_in_app"),
    path("orders/<uuid:reference>/pay/pix/", payment_views.pay_pix, name="pay_pix"),
    path("orders/<uuid:reference>/pay/boleto/", payment_views.pay_boleto, name="pay_boleto"),
    path(
        "orders/<uuid:reference>/pay/pagbank/", payment_views.pay_on_pagbank, name="pay_on_pagbank"
    ),
    path(
        "orders/<uuid:reference>/pay/pix/simulate/",
        payment_views.simulate_pix_payment,
        name="simulate_pix_payment",
    ),
    path(
        "orders/<uuid:reference>/pay/app/simulate/",
        payment_views.simulate_app_payment,
        name="simulate_app_payment",
    ),
    path(
        "orders/<uuid:reference>/demo/resolve-analysis/",
        demo_views.resolve_analysis,
        name="resolve_analysis",
    ),
    path("accounts/purchases/", account_views.purchases, name="purchases"),
    path("accounts/cards/", account_views.cards, name="cards"),
    path("accounts/cards/add/", card_views.add_card, name="add_card"),
    path("seller/", seller_views.seller_home, name="seller"),
    path("seller/connect/", seller_views.SellerConnectView.as_view(), name="seller_connect"),
    path("accounts/login/", views.ShopLoginView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(next_page="shop:products"), name="logout"),
    # Django's own view: remembers the choice in a cookie, then back to ``next``.
    path("language/", set_language, name="set_language"),
]
