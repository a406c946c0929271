"""The names a docs block may use (its ``context``), made as a reader's project would.

``view``: the ``request`` of a logged-in shopper posting an encrypted card, a
valid ``form`` of it, the shop's ``purchase`` (this project's ``shop.Purchase``),
its ``order`` (created, not paid yet) and ``total`` (cents), the ``encrypted``
card and its holder's ``name``, an ``authentication_id`` as the SDK answers one.
``settings``: what a settings.py has above the block (``INSTALLED_APPS``,
``ORDERPAY``), with the environment variables it reads set.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.test import RequestFactory


def _view(django_user_model: Any, **_: Any) -> dict[str, Any]:
    from shop.models import Purchase

    from django_orderpay import payloads, services
    from django_orderpay.cardcrypto import encrypt_card
    from django_orderpay.forms import CardPaymentForm

    user = django_user_model.objects.create_user("maria", email="maria@example.com")
    purchase = Purchase.objects.create(
        user=user,
        description="Camiseta",
        total=500,
        customer_name="Maria Souza",
        customer_email="maria@example.com",
        customer_tax_id="12345678909",
    )
    posted = {
        "encrypted_card": encrypt_card(
            services.get_public_key(),
            number="4111111111111111",
            exp_month="12",
            exp_year="2030",
            security_code="123",
            holder="Maria Souza",
        ),
        "holder_name": "Maria Souza",
        "installments": "1",
    }
    request = RequestFactory().post(f"/purchases/{purchase.pk}/pay/", posted)
    request.user = user
    form = CardPaymentForm(request.POST, user=user, amount=purchase.total, request=request)
    assert form.is_valid(), form.errors
    order = services.create_order(
        payloads.OrderRequest(
            reference_id=purchase.reference_id,
            customer=payloads.Customer(
                name=purchase.customer_name,
                email=purchase.customer_email,
                tax_id=purchase.customer_tax_id,
            ),
            items=[payloads.Item(name=purchase.description, quantity=1, unit_amount=500)],
        ),
        user=user,
        shop_object=purchase,
    )
    return {
        "request": request,
        "form": form,
        "purchase": purchase,
        "order": order,
        "total": purchase.total,
        "encrypted": posted["encrypted_card"],
        "name": posted["holder_name"],
        "authentication_id": f"3DS_{str(uuid.uuid4()).upper()}",
    }


def _settings(monkeypatch: pytest.MonkeyPatch, **_: Any) -> dict[str, Any]:
    for name in ("ORDERPAY_TOKEN", "PAGBANK_TOKEN"):
        monkeypatch.setenv(name, "token-from-the-environment")
    return {
        "INSTALLED_APPS": ["django.contrib.contenttypes", "rest_framework", "django_orderpay"],
        "ORDERPAY": {"TOKEN": "token-from-the-environment"},
    }


CONTEXTS: dict[str, Callable[..., dict[str, Any]]] = {"view": _view, "settings": _settings}
