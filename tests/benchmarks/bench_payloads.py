"""5. Payload validation: ``payloads.Order(...).to_dict()`` against the same body as a dict literal.

Ours builds the frozen dataclasses of a one-charge, raw-card order and calls
``to_dict()``, which validates every field (lengths, digits, CPF check
digits, e-mail, Luhn, expiry, amounts) before shaping the JSON. The bare side
is :func:`.bodies.order_body`: the same JSON written out as a dict literal,
unchecked. The check insists both give the same dict.
"""

from __future__ import annotations

from typing import Any

from django_orderpay import payloads

from .bodies import APPROVED_VISA, order_body
from .harness import Case, Comparison, compare, expect

ITERATIONS = 5000
WARMUP = 500
REFERENCE_ID = "bench-payloads"


def build_order(reference_id: str) -> dict[str, Any]:
    """The body of :func:`.bodies.order_body`, through the builders."""
    return payloads.Order(
        reference_id=reference_id,
        customer=payloads.Customer(
            name="Jose da Silva",
            email="jose@example.com",
            tax_id="12345678909",
            phones=(payloads.Phone(area="11", number="999999999"),),
        ),
        items=(payloads.Item(reference_id="sku-1", name="Camiseta", quantity=1, unit_amount=500),),
        shipping=payloads.Shipping(
            payloads.Address(
                street="Avenida Brigadeiro Faria Lima",
                number="1384",
                complement="apto 12",
                locality="Pinheiros",
                city="Sao Paulo",
                region_code="SP",
                postal_code="01452002",
            )
        ),
        charges=(
            payloads.Charge(
                reference_id="ch-1",
                description="Pedido de teste",
                amount=payloads.Amount(500),
                payment_method=payloads.PaymentMethod(
                    card=payloads.Card.raw(APPROVED_VISA, 12, 2030, "123", "Jose da Silva"),
                    installments=1,
                    capture=True,
                ),
            ),
        ),
    ).to_dict()


def _check(body: dict[str, Any]) -> None:
    expect(body == order_body(REFERENCE_ID), "the builders and the literal differ")


def run() -> list[Comparison]:
    return [
        compare(
            "Build + validate an order body",
            Case(
                "payloads.Order.to_dict()",
                build_order,
                prepare=lambda: REFERENCE_ID,
                check=_check,
            ),
            Case("dict literal", order_body, prepare=lambda: REFERENCE_ID, check=_check),
            iterations=ITERATIONS,
            warmup=WARMUP,
        )
    ]
