"""A payment through a checkout: the order its page makes, through the Orders API's own code.

The page (or a test, through the control plane) says how the shopper pays
(:class:`PagePayment`); :func:`pay_checkout` turns that into the body of
``POST /orders`` (the checkout's items, the shopper's details, a charge or a
Pix QR code of the checkout's total) and hands it to
:func:`~.orders.open_order`, so it is validated, charged and notified as any
order: the card table, 3-D Secure, boleto and Pix rules all apply. The order
remembers its checkout (``x-product-id`` on its notifications, the
checkout's ``orders``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django_orderpay import rules

from ..state.store import CheckoutRecord, OrderRecord, State
from .checkout_rules import total_of
from .checkouts import is_expired
from .fees import plans
from .orders import open_order

#: What the emulator charges a calculated shipping by service (the real one asks the carriers).
CALCULATED_SHIPPING = {"PAC": 2_000, "SEDEX": 3_500}
#: A boleto made on the page is due this many days later.
BOLETO_DAYS = 3
#: Installments a card may be paid in when the checkout does not limit them.
DEFAULT_INSTALLMENTS_LIMIT = rules.MAX_INSTALLMENTS
#: Interest-free installments when the checkout does not say (the buyer pays the rest).
DEFAULT_INTEREST_FREE = 1


class PageError(Exception):
    """Why the page can't take this payment: ``code`` (its message), ``field`` at fault."""

    def __init__(self, code: str, field: str = "") -> None:
        self.code = code
        self.field = field
        super().__init__(f"{code} ({field})" if field else code)


@dataclass(frozen=True)
class PagePayment:
    """What the shopper chose and typed: the method, their details, and the card (if any).

    ``card`` is the Orders API's ``card`` object (``encrypted`` and
    ``holder``, from the page's SDK, or a raw test card from the control
    plane); it is passed on, never kept.
    """

    method: str
    customer: dict[str, Any] = field(default_factory=dict)
    address: dict[str, Any] | None = None
    card: dict[str, Any] | None = None
    installments: int = 1
    authentication_id: str | None = None
    shipping_service: str | None = None

    def __repr__(self) -> str:  # never print the card
        return f"PagePayment(method={self.method!r}, installments={self.installments!r})"


def accepted_methods(record: CheckoutRecord) -> list[str]:
    """The payment methods the page offers: the checkout's, else all four."""
    listed = [method["type"] for method in record.body.get("payment_methods") or ()]
    return listed or list(rules.CHECKOUT_PAYMENT_METHODS)


def card_options(record: CheckoutRecord, method: str) -> tuple[int, int]:
    """``(installments limit, interest-free installments)`` of ``method`` on this checkout."""
    if method == "DEBIT_CARD":
        return 1, 1
    limit, free = DEFAULT_INSTALLMENTS_LIMIT, DEFAULT_INTEREST_FREE
    for config in record.body.get("payment_methods_configs") or ():
        if config["type"] != method:
            continue
        for option in config["config_options"]:
            if option["option"] == "INSTALLMENTS_LIMIT":
                limit = int(option["value"])
            else:
                free = int(option["value"])
    if record.body.get("recurrence_plan") is not None:
        limit = 1
    return limit, min(free, limit)


def shipping_amount(record: CheckoutRecord, service: str | None) -> int:
    """The shipping the shopper pays: fixed, free, or calculated for ``service``."""
    shipping = record.body.get("shipping") or {}
    if shipping.get("type") != "CALCULATE":
        return int(shipping.get("amount") or 0)
    chosen = shipping.get("service_type") or service or "PAC"
    if chosen not in CALCULATED_SHIPPING:
        raise PageError("invalid_shipping_service", "shipping_service")
    return CALCULATED_SHIPPING[chosen]


def amount_due(record: CheckoutRecord, service: str | None = None) -> int:
    """The checkout's total with the shipping chosen (before any card interest)."""
    calculated = 0
    if (record.body.get("shipping") or {}).get("type") == "CALCULATE":
        calculated = shipping_amount(record, service)
    return total_of(record.body) + calculated


def card_plans(record: CheckoutRecord, method: str, amount: int) -> list[dict[str, Any]]:
    """The installment plans the page offers for ``amount`` (each at least R$ 5,00), priced
    by the emulator's fee table, as ``/charges/fees/calculate`` answers them."""
    limit, free = card_options(record, method)
    return plans(amount, limit, free)


def _customer(record: CheckoutRecord, typed: dict[str, Any]) -> dict[str, Any]:
    fixed = dict(record.body.get("customer") or {})
    if not record.body.get("customer_modifiable", True):
        chosen = fixed
    else:
        chosen = {**fixed, **{key: value for key, value in typed.items() if value}}
    for name in ("name", "email", "tax_id"):
        if not isinstance(chosen.get(name), str) or not chosen[name].strip():
            raise PageError("customer_required", f"customer.{name}")
    customer: dict[str, Any] = {
        "name": chosen["name"].strip(),
        "email": chosen["email"].strip().lower(),
        "tax_id": "".join(char for char in chosen["tax_id"] if char.isalnum()).upper(),
    }
    phone = chosen.get("phone")
    if isinstance(phone, dict) and phone.get("area") and phone.get("number"):
        customer["phones"] = [
            {"country": "55", "area": phone["area"], "number": phone["number"], "type": "MOBILE"}
        ]
    return customer


def _address(record: CheckoutRecord, typed: dict[str, Any] | None) -> dict[str, Any] | None:
    shipping = record.body.get("shipping") or {}
    given = shipping.get("address")
    if given is not None and not shipping.get("address_modifiable", True):
        return dict(given)
    if typed:
        address = {key: value for key, value in typed.items() if value}
        address.setdefault("country", "BRA")
        return address
    return dict(given) if given is not None else None


def _items(record: CheckoutRecord) -> list[dict[str, Any]]:
    """The checkout's items as an order's: a name is required there, so one is found."""
    items = []
    for position, item in enumerate(record.body["items"], start=1):
        name = item.get("name") or item.get("description") or f"Item {position}"
        entry = {
            "name": name[:200],
            "quantity": item["quantity"],
            "unit_amount": item["unit_amount"],
        }
        if item.get("reference_id"):
            entry = {"reference_id": item["reference_id"], **entry}
        items.append(entry)
    return items


def _card_charge(record: CheckoutRecord, payment: PagePayment, amount: int) -> dict[str, Any]:
    if payment.card is None:
        raise PageError("card_required", "card")
    plans = {plan["installments"]: plan for plan in card_plans(record, payment.method, amount)}
    plan = plans.get(payment.installments)
    if plan is None:
        raise PageError("invalid_installments", "installments")
    method: dict[str, Any] = {
        "type": payment.method,
        "installments": payment.installments,
        "capture": True,
        "card": dict(payment.card),
    }
    if payment.authentication_id:
        method["authentication_method"] = {"type": "THREEDS", "id": payment.authentication_id}
    charge: dict[str, Any] = {"amount": {"value": plan["amount"]["value"], "currency": "BRL"}}
    if "fees" in plan["amount"]:
        charge["amount"]["fees"] = plan["amount"]["fees"]
    if record.body.get("soft_descriptor"):
        method["soft_descriptor"] = record.body["soft_descriptor"]
    charge["payment_method"] = method
    if record.body.get("recurrence_plan") is not None:
        charge["recurring"] = {"type": "INITIAL"}
    return charge


def _boleto_charge(
    customer: dict[str, Any], address: dict[str, Any] | None, amount: int, now: datetime
) -> dict[str, Any]:
    if address is None:
        raise PageError("address_required", "address")
    due = rules.provider_today(now) + timedelta(days=BOLETO_DAYS)
    holder = {key: customer[key] for key in ("name", "tax_id", "email")}
    holder["address"] = dict(address)
    return {
        "amount": {"value": amount, "currency": "BRL"},
        "payment_method": {
            "type": "BOLETO",
            "boleto": {"due_date": due.isoformat(), "holder": holder},
        },
    }


def order_body(record: CheckoutRecord, payment: PagePayment, now: datetime) -> dict[str, Any]:
    """The ``POST /orders`` body of this payment (:class:`PageError` if it can't be made)."""
    if payment.method not in accepted_methods(record):
        raise PageError("method_not_accepted", "method")
    customer = _customer(record, payment.customer)
    address = _address(record, payment.address)
    amount = amount_due(record, payment.shipping_service)
    body: dict[str, Any] = {}
    if record.body.get("reference_id"):
        body["reference_id"] = record.body["reference_id"]
    body["customer"] = customer
    body["items"] = _items(record)
    if address is not None and record.body.get("shipping") is not None:
        body["shipping"] = {"address": address}
    if payment.method in rules.CHECKOUT_CARD_METHODS:
        body["charges"] = [_card_charge(record, payment, amount)]
    elif payment.method == "BOLETO":
        body["charges"] = [_boleto_charge(customer, address, amount, now)]
    else:
        body["qr_codes"] = [{"amount": {"value": amount}}]
    for charge in body.get("charges", ()):
        if record.body.get("reference_id"):
            charge["reference_id"] = record.body["reference_id"]
    return body


def pay_checkout(
    state: State, record: CheckoutRecord, payment: PagePayment, *, now: datetime, base_url: str
) -> OrderRecord:
    """Make the order of ``payment`` through ``record`` (charged and notified as any order).

    :class:`PageError` when the checkout can't be paid (inactive, expired,
    a method it does not take, a detail missing); the Orders API's own
    refusals (a bad card, a holder's name) as its ``ProviderError``.
    """
    if is_expired(record, now):
        raise PageError("checkout_expired")
    if record.status != "ACTIVE":
        raise PageError("checkout_inactive")
    body = order_body(record, payment, now)
    order = open_order(
        state,
        body,
        account=record.account,
        now=now,
        base_url=base_url,
        checkout_id=record.id,
        notification_urls=list(record.body.get("payment_notification_urls") or ()),
        client_id=record.client_id,
    )
    record.order_ids.append(order.id)
    return order
