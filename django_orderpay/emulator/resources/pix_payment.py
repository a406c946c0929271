"""Paying a Pix: the payer's bank pays an order's QR code, as the sandbox's ``/pix/pay`` does.

The payment makes a PAID charge of ``payment_method.type`` PIX on the order,
and notifies it. A QR code is paid once, before it expires, and only while
the order holds no other open charge.
"""

from __future__ import annotations

from datetime import datetime

from ..serving.http import Response
from ..state import errors, ids
from ..state.clock import PROVIDER_TZ
from ..state.store import Call, ChargeRecord, QrCodeRecord, SplitRecord, State
from ..state.validation import reject_unknown, require_str
from .cards import SUCCESS, settled_response
from .charges import add_charge
from .orders import has_open_charge
from .pix import find_qr_code
from .render import charge_json, notify_order


def pay_qr_code(state: State, record: QrCodeRecord, now: datetime) -> ChargeRecord:
    """The payer's bank pays ``record``: a PAID PIX charge on its order (not notified here)."""
    if record.charge_id is not None:
        raise errors.invalid("qr_code", "qr_code_already_paid")
    if record.is_expired(now):
        raise errors.invalid("qr_code", "qr_code_expired")
    order = state.orders[record.order_id]
    if has_open_charge(state, order):
        raise errors.invalid("qr_code", "order_already_paid")
    charge = add_charge(
        state,
        order,
        amount=record.amount,
        currency="BRL",
        payment_method={
            "type": "PIX",
            "pix": {
                "end_to_end_id": ids.end_to_end_id(
                    now.astimezone(PROVIDER_TZ).strftime("%Y%m%d%H%M")
                ),
                "holder": {"name": "Pagador de Teste", "tax_id": "***.456.789-**"},
            },
        },
        outcome=SUCCESS,
        now=now,
    )
    charge.payment_response = settled_response()
    record.charge_id = charge.id
    if record.splits is not None:
        split = SplitRecord(ids.new_id("SPLI_"), order.account, charge.id, now, record.splits)
        state.splits[split.id] = split
        charge.split_id = split.id
    return charge


def simulate_payment(state: State, call: Call) -> Response:
    """``POST /pix/pay/{QRCO_id}`` (the sandbox's): 200; the charge comes by notification."""
    reject_unknown(call.payload, {"status", "tx_id"}, "")
    require_str(call.payload, "status", "", choices=("PAID",), optional=True)
    record = find_qr_code(state, call.params[0], call.merchant)
    charge = pay_qr_code(state, record, call.now)
    notify_order(state, state.orders[record.order_id], call.base_url)
    return Response.json(200, {"qr_code_id": record.id, "charge_id": charge.id, "status": "PAID"})


def pay_from_control_plane(state: State, call: Call) -> Response:
    """``POST /_emulator/qr_codes/{id}/pay``: a payer pays it now (any merchant's)."""
    record = find_qr_code(state, call.params[0], None)
    charge = pay_qr_code(state, record, call.now)
    order = state.orders[record.order_id]
    notify_order(state, order, call.base_url)
    return Response.json(200, charge_json(charge, call.base_url, order=order))
