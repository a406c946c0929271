"""Pix: an order's QR codes, their JSON and images, and a paid Pix's refund window.

An order created with ``qr_codes`` has no charge until its QR code is paid;
then a PAID charge of ``payment_method.type`` PIX appears and the order is
notified. One QR code per order, one payment per QR code, until its
``expiration_date`` by the emulator's clock (default: 23:59:59 of the next
day in São Paulo). Refunds of a paid Pix are taken for 90 days (``charges.refund_window``).
"""

from __future__ import annotations

import copy
import uuid
from datetime import datetime, time, timedelta
from typing import Any

from django_orderpay import rules

from ..serving.http import Response
from ..state import errors
from ..state.clock import PROVIDER_TZ
from ..state.store import Call, OrderRecord, QrCodeRecord, State
from ..state.validation import (
    field_path,
    item_path,
    reject_unknown,
    require_list,
    require_object,
    validate_amount,
)
from .brcode import brcode
from .splits import check_liable, validate_splits

QR_CODE_KEYS = frozenset({"amount", "expiration_date", "arrangements", "splits"})
#: The location host in the BR Code, as PagBank's payloads carry it.
LOCATION_HOST = "api.pagseguro.com/pix/v2"
#: Who the payer's bank shows as the receiver (the merchant's registered name in production).
MERCHANT_NAME = "Loja Exemplo"
MERCHANT_CITY = "Sao Paulo"


def default_expiry(now: datetime) -> datetime:
    """23:59:59 of the day after ``now``, in São Paulo."""
    local = now.astimezone(PROVIDER_TZ)
    return datetime.combine(local.date() + timedelta(days=1), time(23, 59, 59), PROVIDER_TZ)


def _expiry(value: Any, path: str, now: datetime) -> datetime:
    where = field_path(path, "expiration_date")
    if value is None:
        return default_expiry(now)
    if not isinstance(value, str):
        raise errors.invalid(where)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise errors.invalid(where) from None
    if moment.tzinfo is None or moment <= now:
        raise errors.invalid(where, "expiration_date_must_be_in_the_future_with_an_offset")
    return moment


def validate_qr_codes(value: Any, *, now: datetime, account: str) -> list[dict[str, Any]]:
    """``qr_codes``: exactly one ``{amount{value}, expiration_date?, arrangements?, splits?}``.

    ``splits`` (the order object's ``qr_codes.splits``) follow a charge's rules, over the QR
    code's amount; a liable receiver is refused (credit cards only). Answers the checked
    entries with their expiry resolved.
    """

    entries = require_list({"qr_codes": value}, "qr_codes", "", min_items=1, max_items=1) or []
    checked = []
    for index, entry in enumerate(entries):
        path = item_path("qr_codes", index)
        entry = require_object(entry, path)
        reject_unknown(entry, QR_CODE_KEYS, path)
        amount = validate_amount(entry.get("amount"), field_path(path, "amount"))
        arrangements = entry.get("arrangements")
        if arrangements is None:
            arrangements = ["PIX"]
        where = field_path(path, "arrangements")
        if not isinstance(arrangements, list) or not arrangements:
            raise errors.invalid(where)
        for position, name in enumerate(arrangements):
            if name not in rules.PIX_ARRANGEMENTS:
                raise errors.invalid(item_path(where, position))
        splits = entry.get("splits")
        if splits is not None:
            splits_path = field_path(path, "splits")
            liable = validate_splits(
                splits,
                charge_amount=amount,
                merchant_account=account,
                recurring=False,
                path=splits_path,
            )
            if liable is not None:
                check_liable(liable, payment_type="PIX", authentication_type=None, method_path="")
        checked.append(
            {
                "amount": amount,
                "expires_at": _expiry(entry.get("expiration_date"), path, now),
                "arrangements": list(arrangements),
                "splits": splits,
            }
        )
    return checked


def build_qr_codes(state: State, order: OrderRecord, checked: list[dict[str, Any]]) -> None:
    """Make the order's QR codes, each with its BR Code text."""
    for entry in checked:
        key = str(uuid.uuid4()).upper()
        record = QrCodeRecord(
            id=f"QRCO_{key}",
            order_id=order.id,
            account=order.account,
            amount=entry["amount"],
            expires_at=entry["expires_at"],
            arrangements=entry["arrangements"],
            text=brcode(
                location=f"{LOCATION_HOST}/{key}",
                amount=entry["amount"],
                merchant=MERCHANT_NAME,
                city=MERCHANT_CITY,
            ),
            splits=entry["splits"],
        )
        state.qr_codes[record.id] = record
        order.qr_code_ids.append(record.id)


def qr_code_json(record: QrCodeRecord, base_url: str) -> dict[str, Any]:
    """``qr_codes[]`` of an Order answer."""
    href = f"{base_url}/qrcode/{record.id}"
    answer: dict[str, Any] = {
        "id": record.id,
        "expiration_date": record.expires_at.astimezone(PROVIDER_TZ).isoformat(timespec="seconds"),
        "amount": {"value": record.amount},
        "text": record.text,
        "arrangements": list(record.arrangements),
        "links": [
            {"rel": "QRCODE.PNG", "href": f"{href}/png", "media": "image/png", "type": "GET"},
            {
                "rel": "QRCODE.BASE64",
                "href": f"{href}/base64",
                "media": "text/plain",
                "type": "GET",
            },
        ],
    }
    if record.splits is not None:
        answer["splits"] = copy.deepcopy(record.splits)
    return answer


def find_qr_code(state: State, qr_code_id: str, account: str | None) -> QrCodeRecord:
    record = state.qr_codes.get(qr_code_id)
    if record is None or (account is not None and record.account != account):
        raise errors.not_found("qr_code")
    return record


def qr_png(state: State, call: Call) -> Response:
    """``GET /qrcode/{id}/png``: the QR code as a PNG a phone can scan."""
    from ..serving.images import qr_code_png

    record = find_qr_code(state, call.params[0], None)
    return Response(200, qr_code_png(record.text), [("Content-Type", "image/png")])


def qr_base64(state: State, call: Call) -> Response:
    """``GET /qrcode/{id}/base64``: the same PNG as base64 text."""
    import base64

    from ..serving.images import qr_code_png

    record = find_qr_code(state, call.params[0], None)
    text = base64.b64encode(qr_code_png(record.text))
    return Response(200, text, [("Content-Type", "text/plain")])
