"""Request bodies and fixtures the services' tests share (no tests of its own).

Every services test runs against the ``orderpay_emulator`` fixture: real HTTP
to the emulator on 127.0.0.1, never a mock of our own code.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

APPROVED_VISA = "4111111111111111"
DECLINED_VISA = "4929291898380766"
APPROVED_ELO = "4514161122113757"
CVV = "123"
OTHER_ACCOUNT = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
NOTIFY_URL = "https://shop.example.com/orderpay/notifications/"

CUSTOMER = {
    "name": "Jose da Silva",
    "email": "jose@example.com",
    "tax_id": "12345678909",
    "phones": [{"country": "55", "area": "11", "number": "999999999", "type": "MOBILE"}],
}
SHIPPING = {
    "address": {
        "street": "Avenida Brigadeiro Faria Lima",
        "number": "1384",
        "complement": "apto 12",
        "locality": "Pinheiros",
        "city": "Sao Paulo",
        "region_code": "SP",
        "country": "BRA",
        "postal_code": "01452002",
    }
}


def raw_card(number: str = APPROVED_VISA, **extra: Any) -> dict[str, Any]:
    """``payment_method.card`` with the full card data."""
    card = {
        "number": number,
        "exp_month": "12",
        "exp_year": "2030",
        "security_code": CVV,
        "holder": {"name": "Jose da Silva"},
    }
    card.update(extra)
    return card


def charge(
    amount: int = 500,
    card: dict[str, Any] | None = None,
    *,
    capture: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """One ``charges[]`` entry paid by credit card."""
    entry = {
        "description": "Pedido de teste",
        "amount": {"value": amount, "currency": "BRL"},
        "payment_method": {
            "type": "CREDIT_CARD",
            "installments": 1,
            "capture": capture,
            "card": card if card is not None else raw_card(),
        },
    }
    entry.update(extra)
    return entry


def order_payload(
    reference_id: str = "ex-00001",
    *,
    charges: list[dict[str, Any]] | None = None,
    items: int = 1,
    unit_amount: int = 500,
    **extra: Any,
) -> dict[str, Any]:
    """A create-order body as the samples show it; no charges unless given."""
    body: dict[str, Any] = {
        "reference_id": reference_id,
        "customer": copy.deepcopy(CUSTOMER),
        "items": [
            {
                "reference_id": f"sku-{n}",
                "name": f"Camiseta {n}",
                "quantity": 1,
                "unit_amount": unit_amount,
            }
            for n in range(1, items + 1)
        ],
        "shipping": copy.deepcopy(SHIPPING),
        "notification_urls": [NOTIFY_URL],
    }
    if charges is not None:
        body["charges"] = charges
    body.update(extra)
    return body


@pytest.fixture
def buyer(django_user_model):
    return django_user_model.objects.create_user("buyer", "buyer@example.com")


@pytest.fixture
def other_buyer(django_user_model):
    return django_user_model.objects.create_user("other", "other@example.com")
