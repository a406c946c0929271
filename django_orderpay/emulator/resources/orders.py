"""Orders: create (with charges, or with Pix QR codes and/or a deeplink, or neither), get, pay."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs

from ..serving.http import Response
from ..state import errors, ids
from ..state.store import Call, OrderRecord, State
from ..state.validation import (
    reject_unknown,
    require_str,
    validate_customer,
    validate_items,
    validate_metadata,
    validate_notification_urls,
    validate_shipping,
)
from .charges import execute
from .deeplinks import build_deeplink, validate_deep_links
from .payment import parse_charges
from .pix import build_qr_codes, validate_qr_codes
from .render import notify_order, order_json

ORDER_KEYS = frozenset(
    {
        "reference_id",
        "customer",
        "items",
        "shipping",
        "notification_urls",
        "charges",
        "deep_links",
        "metadata",
        "qr_codes",
        "qr_code",
    }
)

#: A charge in one of these states holds (or may still take) the buyer's money:
#: an order that has one cannot be paid again (our rule against double charging).
OPEN_STATUSES = ("PAID", "AUTHORIZED", "IN_ANALYSIS")


def find_order(state: State, order_id: str, account: str | None) -> OrderRecord:
    """The order, if it belongs to ``account`` (None: any merchant's); else 404."""
    order = state.orders.get(order_id)
    if order is None or (account is not None and order.account != account):
        raise errors.not_found("order")
    return order


def has_open_charge(state: State, order: OrderRecord) -> bool:
    """True when a charge of the order is PAID, AUTHORIZED or IN_ANALYSIS."""
    return any(state.charges[cid].status in OPEN_STATUSES for cid in order.charge_ids)


def create_order(state: State, call: Call) -> Response:
    """``POST /orders``: 201, the Order; charges run at once, a deeplink is generated."""
    order = open_order(
        state,
        call.payload,
        account=call.merchant,
        now=call.now,
        base_url=call.base_url,
        client_id=call.client_id,
    )
    return Response.json(201, order_json(state, order, call.base_url))


def open_order(
    state: State,
    body: dict[str, Any],
    *,
    account: str,
    now: datetime,
    base_url: str,
    checkout_id: str | None = None,
    notification_urls: list[str] | None = None,
    client_id: str | None = None,
) -> OrderRecord:
    """Validate an Orders API body, create the order, run its charges and notify it.

    ``POST /orders``'s work, shared with a checkout's page (``checkout_id``),
    whose orders are notified to its ``payment_notification_urls``
    (``notification_urls``: any number of them, checked by the checkout).
    ``client_id``: the Connect application whose seller's token made it.
    """
    reject_unknown(body, ORDER_KEYS, "")
    reference_id = require_str(body, "reference_id", "", limit="reference_id", optional=True)
    validate_customer(body.get("customer"), short_tax_ids=state.options.short_tax_ids)
    validate_items(body.get("items"))
    if body.get("shipping") is not None:
        validate_shipping(body["shipping"])
    if notification_urls is None:
        validate_notification_urls(body.get("notification_urls"))
        notification_urls = list(body.get("notification_urls") or [])
    metadata = validate_metadata(body.get("metadata"))
    if body.get("charges") is not None and body.get("deep_links") is not None:
        raise errors.invalid("deep_links", "deep_links_not_allowed_with_charges")
    if body.get("charges") is not None and body.get("qr_codes") is not None:
        raise errors.invalid("qr_codes", "qr_codes_not_allowed_with_charges")
    qr_codes = []
    if body.get("qr_codes") is not None:
        qr_codes = validate_qr_codes(body["qr_codes"], now=now, account=account)
    requests = []
    if body.get("charges") is not None:
        requests = parse_charges(body["charges"], account=account, state=state)
    if body.get("deep_links") is not None:
        validate_deep_links(body["deep_links"])

    order = OrderRecord(
        id=ids.new_id("ORDE_"),
        account=account,
        created_at=now,
        reference_id=reference_id,
        customer=copy.deepcopy(body["customer"]),
        items=copy.deepcopy(body["items"]),
        shipping=copy.deepcopy(body.get("shipping")),
        notification_urls=notification_urls,
        metadata=metadata,
        client_id=client_id,
        checkout_id=checkout_id,
    )
    state.orders[order.id] = order
    if body.get("deep_links") is not None:
        deeplink = build_deeplink(
            body["deep_links"][0], order_id=order.id, created_at=now, base_url=base_url
        )
        state.deeplinks[deeplink.id] = deeplink
        order.deeplink_id = deeplink.id
    build_qr_codes(state, order, qr_codes)
    for request in requests:
        execute(state, order, request, now)
    if requests:
        notify_order(state, order, base_url)
    return order


def get_order(state: State, call: Call) -> Response:
    """``GET /orders/{id}``: 200, the Order."""
    order = find_order(state, call.params[0], call.merchant)
    return Response.json(200, order_json(state, order, call.base_url))


def find_order_by_charge(state: State, call: Call) -> Response:
    """``GET /orders?charge_id={CHAR_id}``: 200, the Order the charge belongs to (this
    merchant's; 404 as for an unknown one otherwise)."""
    query = parse_qs(call.request.query, keep_blank_values=True)
    charge_id = (query.get("charge_id") or [""])[-1]
    if not charge_id:
        raise errors.required("charge_id")
    charge = state.charges.get(charge_id)
    if charge is None or charge.account != call.merchant:
        raise errors.not_found("order")
    order = find_order(state, charge.order_id, call.merchant)
    return Response.json(200, order_json(state, order, call.base_url))


def pay_order(state: State, call: Call) -> Response:
    """``POST /orders/{id}/pay`` body ``{"charges": [...]}``: 201, the Order.

    Refused (40002 naming ``charges``) while the order holds a PAID,
    AUTHORIZED or IN_ANALYSIS charge; paying again after a decline is fine.
    """
    order = find_order(state, call.params[0], call.merchant)
    reject_unknown(call.payload, {"charges"}, "")
    requests = parse_charges(call.payload.get("charges"), account=call.merchant, state=state)
    if has_open_charge(state, order):
        raise errors.invalid("charges", "order_already_paid")
    for request in requests:
        execute(state, order, request, call.now)
    notify_order(state, order, call.base_url)
    return Response.json(201, order_json(state, order, call.base_url))
