"""The create-order body the benchmarks send: one raw-card charge, shaped as the samples."""

from __future__ import annotations

import itertools
from typing import Any

#: A Visa test card the emulator approves.
APPROVED_VISA = "4111111111111111"
TOKEN = "bench-token"

_sequence = itertools.count(1)


def next_reference_id(prefix: str) -> str:
    """A reference id never used before in this run (so no order is a repeat of another)."""
    return f"{prefix}-{next(_sequence):06d}"


def order_body(reference_id: str) -> dict[str, Any]:
    """``POST /orders`` paid at once by a raw Visa card: PAID at the emulator."""
    return {
        "reference_id": reference_id,
        "customer": {
            "name": "Jose da Silva",
            "email": "jose@example.com",
            "tax_id": "12345678909",
            "phones": [{"country": "55", "area": "11", "number": "999999999", "type": "MOBILE"}],
        },
        "items": [{"reference_id": "sku-1", "name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        "shipping": {
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
        },
        "charges": [
            {
                "reference_id": "ch-1",
                "description": "Pedido de teste",
                "amount": {"value": 500, "currency": "BRL"},
                "payment_method": {
                    "type": "CREDIT_CARD",
                    "installments": 1,
                    "capture": True,
                    "card": {
                        "number": APPROVED_VISA,
                        "exp_month": "12",
                        "exp_year": "2030",
                        "security_code": "123",
                        "holder": {"name": "Jose da Silva"},
                    },
                },
            }
        ],
    }


def authorized_then_paid(reference_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One order as the provider shows it before and after its charge is captured.

    The same order id, charge id and timestamps; only the charge's state moves
    (AUTHORIZED to PAID), as in a capture's answer or its notification.
    """
    import datetime as dt

    from django.utils import timezone

    from django_orderpay.testing.provider_json import charge_json, order_json, provider_id

    order_id = provider_id("ORDE_")
    charge_id = provider_id("CHAR_")
    created_at = timezone.now() - dt.timedelta(minutes=5)

    def order(status: str) -> dict[str, Any]:
        charge = charge_json(
            status=status, charge_id=charge_id, capture=False, created_at=created_at
        )
        return order_json(
            charges=[charge], order_id=order_id, reference_id=reference_id, created_at=created_at
        )

    return order("AUTHORIZED"), order("PAID")
