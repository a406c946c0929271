"""The control plane's checkout calls: pay one without a browser, expire one now, list them.

``POST /_emulator/checkouts/{id}/pay`` pays through the same code as the page
(:func:`~.checkout_payment.pay_checkout`), with a raw test card instead of
an encrypted one and without 3-D Secure (so debit, which needs it, is the
page's only): ``{"method": "CREDIT_CARD" | "PIX" | "BOLETO", "card_number"?,
"installments"?, "customer"?, "address"?, "pay_pix"?: true}``. A Pix is
paid at once unless ``pay_pix`` is false; a boleto waits
(``/_emulator/boletos/{id}/pay``). Answers the order, as ``GET /orders``.
"""

from __future__ import annotations

from typing import Any

from django_orderpay import rules

from ..serving.http import Response
from ..state import errors
from ..state.store import Call, State
from ..state.validation import (
    reject_unknown,
    require_bool,
    require_int,
    require_object,
    require_str,
)
from .checkout_payment import PageError, PagePayment, pay_checkout
from .checkouts import checkout_json, expire, find_checkout
from .pix_payment import pay_qr_code
from .render import notify_order, order_json

PAY_KEYS = frozenset(
    {"method", "card_number", "installments", "customer", "address", "pay_pix", "shipping_service"}
)
#: A customer for a checkout that names none (the sandbox's documented CPF).
TEST_CUSTOMER = {"name": "Jose da Silva", "email": "jose@example.com", "tax_id": "12345678909"}
TEST_ADDRESS = {
    "street": "Avenida Brigadeiro Faria Lima",
    "number": "1384",
    "locality": "Pinheiros",
    "city": "Sao Paulo",
    "region_code": "SP",
    "postal_code": "01452002",
}
APPROVED_CARD = "4111111111111111"


def list_checkouts(state: State, call: Call) -> Response:
    """``GET /_emulator/checkouts``: every merchant's checkout ids, oldest first."""
    return Response.json(200, {"checkouts": list(state.checkouts)})


def _card(number: str, name: str, year: int) -> dict[str, Any]:
    holder = "".join(char for char in name if char.isalpha() or char == " ")[:30].strip()
    return {
        "number": number,
        "exp_month": "12",
        "exp_year": str(year),
        "security_code": "123",
        "holder": {"name": holder or "Jose da Silva"},
    }


def pay(state: State, call: Call) -> Response:
    """``POST /_emulator/checkouts/{id}/pay``: a shopper pays it now; 201, the order."""
    record = find_checkout(state, call.params[0], None)
    body = call.payload
    reject_unknown(body, PAY_KEYS, "")
    method = require_str(body, "method", "", choices=("CREDIT_CARD", "PIX", "BOLETO"))
    number = require_str(body, "card_number", "", pattern=r"[0-9]{13,19}", optional=True)
    installments = require_int(body, "installments", "", minimum=1, maximum=18, optional=True)
    typed = require_object(body["customer"], "customer") if body.get("customer") else {}
    address = require_object(body["address"], "address") if body.get("address") else None
    service = require_str(body, "shipping_service", "", optional=True)
    customer = {**TEST_CUSTOMER, **(record.body.get("customer") or {}), **typed}
    if (
        method == "BOLETO"
        and address is None
        and not (record.body.get("shipping") or {}).get("address")
    ):
        address = TEST_ADDRESS
    card = None
    if method == "CREDIT_CARD":
        year = rules.provider_today(call.now).year + 5
        card = _card(number or APPROVED_CARD, customer["name"], year)
    payment = PagePayment(
        method=method or "",
        customer=customer,
        address=address,
        card=card,
        installments=installments or 1,
        shipping_service=service,
    )
    try:
        order = pay_checkout(state, record, payment, now=call.now, base_url=call.base_url)
    except PageError as error:
        raise errors.invalid(error.field or "checkout", error.code) from None
    if order.qr_code_ids and require_bool(body, "pay_pix", "", optional=True) is not False:
        pay_qr_code(state, state.qr_codes[order.qr_code_ids[0]], call.now)
        notify_order(state, order, call.base_url)
    return Response.json(201, order_json(state, order, call.base_url))


def expire_now(state: State, call: Call) -> Response:
    """``POST /_emulator/checkouts/{id}/expire``: its time runs out now (notified); 200."""
    record = find_checkout(state, call.params[0], None)
    if record.status != "EXPIRED":
        record.expires_at = min(record.expires_at, call.now)
        expire(state, record, call.base_url)
    return Response.json(200, checkout_json(state, record, call.base_url))
