"""Records to the provider's JSON, field for field as the samples show, and notifications.

Every ``links`` href is absolute on the base URL the caller reached the
emulator at. A notification body is exactly what ``GET /orders/{id}`` would
answer at that moment.
"""

from __future__ import annotations

import json
from typing import Any

from django_orderpay.cardcrypto import authenticity_token

from ..state.clock import timestamp
from ..state.jsonbody import copy_json
from ..state.store import ChargeRecord, OrderRecord, SplitRecord, State
from .boleto import boleto_links
from .pix import qr_code_json
from .splits import COMPLETED, build_split_record

CANCELLABLE = ("AUTHORIZED", "PAID")


def link(rel: str, href: str, method: str) -> dict[str, str]:
    """One ``links[]`` entry."""
    return {"rel": rel, "href": href, "media": "application/json", "type": method}


def charge_links(charge: ChargeRecord, base_url: str) -> list[dict[str, str]]:
    """A boleto's PDF and PNG first; SELF; CHARGE.CANCEL while AUTHORIZED or PAID;
    CHARGE.CAPTURE while AUTHORIZED; SPLIT."""
    href = f"{base_url}/charges/{charge.id}"
    links = boleto_links(charge, base_url) if charge.boleto_code is not None else []
    links.append(link("SELF", href, "GET"))
    if charge.status in CANCELLABLE:
        links.append(link("CHARGE.CANCEL", f"{href}/cancel", "POST"))
    if charge.status == "AUTHORIZED":
        links.append(link("CHARGE.CAPTURE", f"{href}/capture", "POST"))
    if charge.split_id is not None:
        links.append(link("SPLIT", f"{base_url}/splits/{charge.split_id}", "GET"))
    return links


def charge_json(
    charge: ChargeRecord, base_url: str, *, order: OrderRecord | None = None
) -> dict[str, Any]:
    """The Charge as an order shows it, or as ``GET /charges/{id}`` answers it (``order``
    given: it also carries the order's ``notification_urls``)."""
    answer: dict[str, Any] = {"id": charge.id}
    if charge.reference_id is not None:
        answer["reference_id"] = charge.reference_id
    answer["status"] = charge.status
    answer["created_at"] = timestamp(charge.created_at)
    if charge.paid_at is not None:
        answer["paid_at"] = timestamp(charge.paid_at)
    if charge.description is not None:
        answer["description"] = charge.description
    answer["amount"] = {"value": charge.amount, "currency": charge.currency}
    if charge.amount_fees is not None:  # an installment plan's interest, paid by the buyer
        answer["amount"]["fees"] = copy_json(charge.amount_fees)
    answer["amount"]["summary"] = {
        "total": charge.amount,
        "paid": charge.paid,
        "refunded": charge.refunded,
    }
    answer["payment_response"] = copy_json(charge.payment_response)
    method: dict[str, Any] = {}
    for key, value in charge.payment_method.items():
        method[key] = copy_json(value)
        # capture_before follows capture, and only while there is something to capture.
        if key == "capture" and charge.status == "AUTHORIZED" and charge.capture_before:
            method["capture_before"] = timestamp(charge.capture_before)
    answer["payment_method"] = method
    if charge.recurring is not None:
        answer["recurring"] = dict(charge.recurring)
    if charge.payment_instructions is not None:
        answer["payment_instructions"] = copy_json(charge.payment_instructions)
    if charge.metadata is not None:
        answer["metadata"] = dict(charge.metadata)
    if charge.sub_merchant is not None:
        answer["sub_merchant"] = copy_json(charge.sub_merchant)
    if order is not None:
        answer["notification_urls"] = list(order.notification_urls)
    answer["links"] = charge_links(charge, base_url)
    return answer


def order_json(state: State, order: OrderRecord, base_url: str) -> dict[str, Any]:
    """The Order as ``GET /orders/{id}`` answers it (``charges`` empty until there is one)."""
    answer: dict[str, Any] = {"id": order.id}
    if order.reference_id is not None:
        answer["reference_id"] = order.reference_id
    answer["created_at"] = timestamp(order.created_at)
    for key in ("customer", "items", "shipping"):
        value = getattr(order, key)
        if value is not None:
            answer[key] = copy_json(value)
    if order.deeplink_id is not None:
        answer["deep_links"] = [state.deeplinks[order.deeplink_id].to_response()]
    if order.qr_code_ids:
        answer["qr_codes"] = [qr_code_json(state.qr_codes[q], base_url) for q in order.qr_code_ids]
    # An order without a charge answers "charges": [], as the docs' create and Pix answers do.
    answer["charges"] = [charge_json(state.charges[cid], base_url) for cid in order.charge_ids]
    answer["notification_urls"] = list(order.notification_urls)
    if order.metadata is not None:
        answer["metadata"] = dict(order.metadata)
    href = f"{base_url}/orders/{order.id}"
    answer["links"] = [link("SELF", href, "GET"), link("PAY", f"{href}/pay", "POST")]
    return answer


def split_status(charge: ChargeRecord) -> str:
    """Our reading of a split's status from its charge's (the provider's list is undocumented)."""
    if charge.status == "PAID":
        return COMPLETED
    if charge.status in ("DECLINED", "CANCELED"):
        return "CANCELED"
    return "PENDING"


def split_json(state: State, split: SplitRecord, base_url: str) -> dict[str, Any]:
    """The Split as ``GET /splits/{id}`` answers it."""
    return build_split_record(
        split.splits,
        split_id=split.id,
        created_at=split.created_at,
        merchant_account=split.account,
        base_url=base_url,
        status=split_status(state.charges[split.charge_id]),
        released=split.released,
    )


def body_bytes(payload: Any) -> bytes:
    """JSON as the emulator serialises every answer (``Response.json``'s form)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def notify_order(state: State, order: OrderRecord, base_url: str) -> None:
    """Queue the whole Order to each of its ``notification_urls`` and its charges' own,
    signed for its merchant.

    An order a checkout's page made names the checkout in ``x-product-id``,
    and the checkout itself is notified too (:mod:`.checkouts`).
    """
    checkout = state.checkouts.get(order.checkout_id) if order.checkout_id else None
    urls = list(order.notification_urls)
    for charge_id in order.charge_ids:
        urls += [url for url in state.charges[charge_id].notification_urls if url not in urls]
    if urls:
        body = body_bytes(order_json(state, order, base_url))
        token = state.signing_token(order)
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["x-authenticity-token"] = authenticity_token(token, body)
        if order.checkout_id is not None:
            headers["x-product-id"] = order.checkout_id
        for url in urls:
            state.notifier.submit(url, body, headers)
    if checkout is not None:
        from .checkouts import notify_checkout  # checkouts renders orders with this module

        notify_checkout(state, checkout, base_url)
