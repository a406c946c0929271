"""The samples' one-step create body built through the payload builders (no tests of its own).

``order().to_dict()`` must equal :func:`django_orderpay.testing.samples.order_request`,
the body written out as a literal: ``tests/test_payloads.py`` checks it, and
the payload benchmark times one against the other. Keywords change fields as
``dataclasses.replace`` would.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django_orderpay import rules
from django_orderpay.payloads import (
    Address,
    Amount,
    BoletoHolder,
    BoletoPayment,
    Card,
    ChargeRequest,
    Customer,
    Holder,
    Item,
    OrderRequest,
    PaymentMethod,
    Phone,
    Shipping,
)

CARD_NUMBER = "4111111111111111"


def customer() -> Customer:
    return Customer(
        name="Jose da Silva",
        email="jose@example.com",
        tax_id="12345678909",
        phones=[Phone(area="11", number="999999999")],
    )


def address() -> Address:
    return Address(
        street="Avenida Brigadeiro Faria Lima",
        number="1384",
        complement="apto 12",
        locality="Pinheiros",
        city="Sao Paulo",
        region_code="SP",
        postal_code="01452002",
    )


def raw_card(**changes: Any) -> Card:
    card = Card.raw(
        CARD_NUMBER, 12, 2030, "123", Holder("Jose da Silva", "12345678909"), store=True
    )
    return _replaced(card, changes)


def charge(card: Card | None = None, **changes: Any) -> ChargeRequest:
    built = ChargeRequest(
        reference_id="ch-00001",
        description="Pedido ex-00001",
        amount=500,
        payment_method=PaymentMethod(card=card or raw_card()),
    )
    return _replaced(built, changes)


def order(**changes: Any) -> OrderRequest:
    built = OrderRequest(
        reference_id="ex-00001",
        customer=customer(),
        items=[Item(reference_id="sku-1", name="Camiseta", quantity=1, unit_amount=500)],
        shipping=Shipping(address()),
        notification_urls=["https://shop.example.com/orderpay/notifications/"],
        charges=[charge()],
    )
    return _replaced(built, changes)


def _replaced(built: Any, changes: dict[str, Any]) -> Any:
    # No copy when nothing changes: the payload benchmark times order() alone.
    return dataclasses.replace(built, **changes) if changes else built


def boleto_charge(amount: int = 500, *, days: int = 3, reference_id: str = "ch-1") -> ChargeRequest:
    """A boleto charge of ``amount`` due in ``days`` days (São Paulo), to the samples' buyer."""
    buyer = customer()
    method = BoletoPayment(
        due_date=rules.provider_today() + dt.timedelta(days=days),
        holder=BoletoHolder(buyer.name, buyer.tax_id, buyer.email, address()),
        instruction_lines=("Pagamento processado para DESC Fatura",),
    )
    return ChargeRequest(amount=Amount(amount), payment_method=method, reference_id=reference_id)
