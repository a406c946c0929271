"""Checkouts: create, get (with the orders paid through it), activate, inactivate; expiry.

A checkout is PagBank's hosted payment page for one purchase (or a payment
link): ``POST /checkouts`` answers it ``ACTIVE`` with its ``PAY`` link, the
page (:mod:`.checkout_page`) takes card, Pix and boleto and makes an order
for each payment through the Orders API's own code (:mod:`.checkout_payment`).
``GET /checkouts/{id}`` lists those orders (``offset``, ``limit``: 10 by
default, 100 at most). The merchant switches it off and on
(``/inactivate``, ``/activate``); once the emulator's clock passes its
``expiration_date`` (two hours after creation by default) it is ``EXPIRED``
for good, and its ``notification_urls`` are told.

Its own notifications carry the checkout (as ``GET`` answers it, without
its orders), signed like the orders' (``x-authenticity-token``) and with
``x-product-id`` naming it; they are sent when its status changes and when
a payment made through it changes (the payment's order is notified to
``payment_notification_urls`` as any order, with the same ``x-product-id``).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs

from django_orderpay import rules
from django_orderpay.cardcrypto import authenticity_token

from ..serving.http import Response
from ..state import ids
from ..state.store import Call, CheckoutRecord, State
from .checkout_rules import CheckoutError, not_found, parse_checkout
from .render import body_bytes, order_json

#: Orders a ``GET`` lists when ``limit`` is not given, and the most it may ask for.
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
#: The header PagBank names the checkout with on its notifications (and its orders').
PRODUCT_HEADER = "x-product-id"


def checkout_timestamp(moment: datetime) -> str:
    """The Checkout API's timestamps: seconds, in the provider's ``-03:00``."""
    return moment.astimezone(rules.PROVIDER_TZ).isoformat(timespec="seconds")


def pay_url(record: CheckoutRecord, base_url: str) -> str:
    """The page the shopper pays on (PagBank's ``pagamento?code=``)."""
    return f"{base_url}/pagamento?code={record.code}"


def _link(rel: str, href: str, method: str) -> dict[str, str]:
    return {"rel": rel, "href": href, "method": method}


def checkout_links(record: CheckoutRecord, base_url: str) -> list[dict[str, str]]:
    """PAY and SELF; INACTIVATE while ACTIVE, ACTIVATE while INACTIVE (as the docs' order)."""
    href = f"{base_url}/checkouts/{record.id}"
    links = [_link("PAY", pay_url(record, base_url), "GET"), _link("SELF", href, "GET")]
    if record.status == "ACTIVE":
        links.append(_link("INACTIVATE", f"{href}/inactivate", "POST"))
    elif record.status == "INACTIVE":
        links.append(_link("ACTIVATE", f"{href}/activate", "POST"))
    return links


def checkout_json(
    state: State, record: CheckoutRecord, base_url: str, *, orders: slice | None = None
) -> dict[str, Any]:
    """The checkout as the API answers it; ``orders`` (a slice) adds its orders, as ``GET``."""
    body = record.body
    answer: dict[str, Any] = {"id": record.id}
    if "reference_id" in body:
        answer["reference_id"] = body["reference_id"]
    answer["expiration_date"] = checkout_timestamp(record.expires_at)
    answer["created_at"] = checkout_timestamp(record.created_at)
    answer["status"] = record.status
    answer.update({key: value for key, value in body.items() if key != "reference_id"})
    if orders is not None:
        known = [oid for oid in record.order_ids if oid in state.orders]
        answer["orders"] = [order_json(state, state.orders[oid], base_url) for oid in known[orders]]
    answer["links"] = checkout_links(record, base_url)
    return answer


def find_checkout(state: State, checkout_id: str, account: str | None) -> CheckoutRecord:
    """The checkout, if it is ``account``'s; else ``checkout_not_found``, in the status
    ``Options.checkout_not_found_status`` picks (None: anyone's, for the control plane: 404)."""
    record = state.checkouts.get(checkout_id)
    if record is None or (account is not None and record.account != account):
        raise not_found(404 if account is None else state.options.checkout_not_found_status)
    return record


def find_by_code(state: State, code: str) -> CheckoutRecord | None:
    """The checkout whose ``PAY`` link holds ``code`` (the page's only key)."""
    for record in state.checkouts.values():
        if secrets.compare_digest(record.code, code):
            return record
    return None


def notify_checkout(state: State, record: CheckoutRecord, base_url: str) -> None:
    """Queue the checkout to each of its ``notification_urls``, signed for its merchant."""
    urls = record.body.get("notification_urls") or ()
    if not urls:
        return
    body = body_bytes(checkout_json(state, record, base_url))
    headers = {"Content-Type": "application/json", PRODUCT_HEADER: record.id}
    token = state.signing_token(record)
    if token is not None:
        headers["x-authenticity-token"] = authenticity_token(token, body)
    for url in urls:
        state.notifier.submit(url, body, headers)


def is_expired(record: CheckoutRecord, now: datetime) -> bool:
    return record.status == "EXPIRED" or now >= record.expires_at


def expire_checkouts(state: State, now: datetime, base_url: str) -> None:
    """Every checkout past its ``expiration_date`` becomes EXPIRED, and is notified."""
    for checkout_id in sorted(state.open_checkouts):
        record = state.checkouts.get(checkout_id)
        if record is None:
            state.open_checkouts.discard(checkout_id)
        elif now >= record.expires_at:
            expire(state, record, base_url)


def expire(state: State, record: CheckoutRecord, base_url: str) -> None:
    """Make ``record`` EXPIRED now (whatever its orders hold) and notify it."""
    record.status = "EXPIRED"
    state.open_checkouts.discard(record.id)
    notify_checkout(state, record, base_url)


def create_checkout(state: State, call: Call) -> Response:
    """``POST /checkouts``: 201, the checkout, ACTIVE, with its PAY link."""
    body, expires_at = parse_checkout(
        call.payload, call.now, recurrent_allowed=state.options.recurrent_checkout
    )
    record = CheckoutRecord(
        id=ids.new_id("CHEC_"),
        account=call.merchant,
        created_at=call.now,
        expires_at=expires_at,
        code=secrets.token_hex(16).upper(),
        body=body,
        client_id=call.client_id,
    )
    state.checkouts[record.id] = record
    state.open_checkouts.add(record.id)
    return Response.json(201, checkout_json(state, record, call.base_url))


def _page_of_orders(call: Call) -> slice:
    """``offset`` and ``limit`` of ``GET /checkouts/{id}`` (``limit`` 1-100, 10 by default)."""
    query = parse_qs(call.request.query)
    bounds = {}
    for name, default, high in (("offset", 0, 10**6), ("limit", DEFAULT_LIMIT, MAX_LIMIT)):
        values = query.get(name)
        if not values:
            bounds[name] = default
            continue
        low = 1 if name == "limit" else 0
        if not rules.is_digits(values[0], range(1, 8)) or not low <= int(values[0]) <= high:
            raise CheckoutError("invalid_value", name)
        bounds[name] = int(values[0])
    return slice(bounds["offset"], bounds["offset"] + bounds["limit"])


def get_checkout(state: State, call: Call) -> Response:
    """``GET /checkouts/{id}``: 200, the checkout and the orders paid through it."""
    record = find_checkout(state, call.params[0], call.merchant)
    orders = _page_of_orders(call)
    return Response.json(200, checkout_json(state, record, call.base_url, orders=orders))


def _switch(state: State, call: Call, status: str) -> Response:
    record = find_checkout(state, call.params[0], call.merchant)
    if is_expired(record, call.now):
        raise CheckoutError("checkout_expired", "checkout_id")
    if record.status != status:
        record.status = status
        notify_checkout(state, record, call.base_url)
    return Response.json(200, checkout_json(state, record, call.base_url))


def activate_checkout(state: State, call: Call) -> Response:
    """``POST /checkouts/{id}/activate``: an INACTIVE checkout payable again (not once EXPIRED)."""
    return _switch(state, call, "ACTIVE")


def inactivate_checkout(state: State, call: Call) -> Response:
    """``POST /checkouts/{id}/inactivate``: the page stops taking payments until activated."""
    return _switch(state, call, "INACTIVE")
