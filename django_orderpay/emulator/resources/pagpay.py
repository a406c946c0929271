"""The sandbox's deeplink pay simulator: pay a deeplink order with balance or a card.

These routes stand in for the payer's mobile app, not for the merchant, so
they take no bearer token (the deeplink id in the path is the capability, as
the ``r=`` parameter of the deeplink URL is). Errors come in the simulator's
own shape, ``{"errors": [{"code", "message"}]}``. A payment answers as the
sandbox does: the bare JSON string ``"PAID"`` or ``"DECLINED"``; the charge
itself reaches the merchant by notification (or by fetching the order).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from django_orderpay import rules

from ..serving.http import Response
from ..state.errors import SimulationError
from ..state.store import Call, State
from .cards import ANTIFRAUD_DECLINED, SUCCESS, Card, Outcome, outcome_for
from .charges import add_charge
from .deeplinks import (
    Deeplink,
    check_simulation,
    parse_balance_simulation,
    parse_card_simulation,
)
from .orders import has_open_charge
from .render import notify_order


def find_deeplink(state: State, deeplink_id: str) -> Deeplink:
    deeplink = state.deeplinks.get(deeplink_id)
    if deeplink is None:
        raise SimulationError.not_found()
    return deeplink


def pay_deeplink(
    state: State,
    call: Call,
    deeplink: Deeplink,
    *,
    payment_method: dict[str, Any],
    outcome: Outcome,
    brand: str | None = None,
) -> Response:
    order = state.orders[deeplink.order_id]
    # Paid through the app, or still held by a charge: either way no second payment.
    if has_open_charge(state, order):
        raise SimulationError.already_paid()
    check_simulation(deeplink, call.now, deeplink.amount)
    record = add_charge(
        state,
        order,
        amount=deeplink.amount,
        currency="BRL",
        payment_method=payment_method,
        outcome=outcome,
        now=call.now,
        brand=brand,
    )
    if record.status == "PAID":
        deeplink.paid = True
    notify_order(state, order, call.base_url)
    return Response.json(200, record.status)


def pay_with_balance(state: State, call: Call) -> Response:
    """``POST /pagpay/balance/{id}`` ``{"status": "PAID"|"DECLINED"}``: 200, the charge's status.

    The charge's ``payment_method.type`` is ``ACCOUNT_BALANCE`` (our name: the
    provider's is undocumented); a DECLINED balance payment answers 10000.
    """
    deeplink = find_deeplink(state, call.params[0])
    status = parse_balance_simulation(call.payload)
    return pay_deeplink(
        state,
        call,
        deeplink,
        payment_method={"type": "ACCOUNT_BALANCE"},
        outcome=SUCCESS if status == "PAID" else ANTIFRAUD_DECLINED,
    )


def pay_with_card(state: State, call: Call) -> Response:
    """``POST /pagpay/credit-card/{id}`` ``{"card_number": "..."}``: 200, the charge's status.

    The card's outcome follows the emulator's card table (the IN_ANALYSIS card
    included); the app knows the expiry, so no expiry is checked here.
    """
    deeplink = find_deeplink(state, call.params[0])
    number = parse_card_simulation(call.payload)
    if rules.card_brand(number) is None:
        raise SimulationError.bad_request("card_number is of a brand the provider does not take")
    card = Card(number, None, None, None)
    return pay_deeplink(
        state,
        call,
        deeplink,
        payment_method={
            "type": "CREDIT_CARD",
            "installments": 1,
            "capture": True,
            "card": card.to_response(token_id=None, store=False),
        },
        outcome=outcome_for(number, None, None, call.now),
        brand=card.brand,
    )


def download_page(state: State, call: Call) -> Response:
    """``GET /pagpay/download?f=order&r={id}``: what the deeplink URL opens.

    The real URL opens the provider's app. The emulator answers a browser with
    a page that pays or refuses (its stand-in for the app), anyone else with
    the deeplink's state and where to simulate its payment, as JSON.
    """
    from .pagpay_page import app_page, wants_html

    query = parse_qs(call.request.query)
    deeplink = find_deeplink(state, (query.get("r") or [""])[0])
    order = state.orders[deeplink.order_id]
    if deeplink.paid or has_open_charge(state, order):
        status = "PAID"
    elif deeplink.is_expired(call.now):
        status = "EXPIRED"
    else:
        status = "OPEN"
    if wants_html(call):
        return app_page(state, call, deeplink, status)
    return Response.json(
        200,
        {
            "id": deeplink.id,
            "order_id": order.id,
            "status": status,
            **deeplink.to_response(),
            "simulate": {
                "balance": f"{call.base_url}/pagpay/balance/{deeplink.id}",
                "credit_card": f"{call.base_url}/pagpay/credit-card/{deeplink.id}",
            },
        },
    )
