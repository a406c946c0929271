"""The control plane under ``/_emulator/``: what a test or a demo may do to the world.

JSON in and out, no bearer token; errors in the provider's shape naming the
field. Listed in ``docs/emulator.md``.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from ..resources.boleto import expire_boletos
from ..resources.charges import find_charge, resolve_analysis
from ..resources.render import charge_json, notify_order
from ..serving.http import Response
from ..state import errors
from ..state import retention as remembered
from ..state.clock import timestamp
from ..state.store import Call, State
from ..state.validation import check_int, reject_unknown, require_int, require_str
from .faults import KINDS
from .latency import MAX_LATENCY, Latency

RESOLUTIONS = ("PAID", "DECLINED")


#: Upper bounds (seconds) of the control plane's waits: a fault's delay and a flush's
#: timeout. Past a timeout is the point, but an hour is past every client's.
MAX_FAULT_DELAY = 3600.0
MAX_FLUSH_TIMEOUT = 300.0


def _number(
    payload: dict[str, Any],
    key: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float | None:
    """An optional finite JSON number (integer or fraction, not a boolean) within the bounds."""
    value = payload.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise errors.invalid(key)
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        raise errors.invalid(key) from None
    if not math.isfinite(number):
        raise errors.invalid(key)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise errors.invalid(key)
    return number


def reset_world(state: State) -> None:
    """Forget every order, charge, card, split, deeplink, idempotent answer, delivery and
    fault, and put the clock back to real time. Tokens, accounts and the key pair stay."""
    state.clear()
    state.options = state.initial_options
    state.latency = state.initial_latency
    state.retention = state.initial_retention
    state.notifier.reset()
    state.faults.reset()
    state.clock.reset()


def get_options(state: State, call: Call) -> Response:
    """``GET /_emulator/options``: the behaviours chosen where the real API is unsettled."""
    return Response.json(200, {"options": state.options.as_json()})


def set_options(state: State, call: Call) -> Response:
    """``POST /_emulator/options`` ``{"partial_refund_status": "CANCELED", ...}``: 200, all."""
    try:
        state.options = state.options.changed(call.payload)
    except (TypeError, ValueError) as exc:
        raise errors.invalid("options", str(exc)) from None
    return Response.json(200, {"options": state.options.as_json()})


def reset(state: State, call: Call) -> Response:
    """``POST /_emulator/reset``."""
    reset_world(state)
    return Response.json(200, {"reset": True})


def list_notifications(state: State, call: Call) -> Response:
    """``GET /_emulator/notifications``: every delivery, oldest first, with its attempts."""
    return Response.json(200, {"deliveries": state.notifier.deliveries()})


def flush_notifications(state: State, call: Call) -> Response:
    """``POST /_emulator/notifications/flush`` ``{"timeout"?: S}``: deliver what is pending now."""
    reject_unknown(call.payload, {"timeout"}, "")
    timeout = _number(call.payload, "timeout", minimum=0, maximum=MAX_FLUSH_TIMEOUT)
    flushed = state.notifier.flush(5.0 if timeout is None else timeout)
    return Response.json(200, {"flushed": flushed, "deliveries": state.notifier.deliveries()})


def drop_notifications(state: State, call: Call) -> Response:
    """``POST /_emulator/notifications/drop`` ``{"count": N}``: lose the next N deliveries."""
    reject_unknown(call.payload, {"count"}, "")
    count = require_int(call.payload, "count", "", minimum=1, maximum=10_000)
    state.notifier.drop_next(count or 1)
    return Response.json(200, {"dropping": count})


def resolve_charge(state: State, call: Call) -> Response:
    """``POST /_emulator/charges/{id}/resolve`` ``{"status": "PAID"|"DECLINED"}``: end an analysis.

    Approval makes the charge PAID (AUTHORIZED if it was sent with ``capture``
    false); refusal answers 10000 NAO AUTORIZADO PELO PAGSEGURO. The order's
    notification URLs hear of it.
    """
    reject_unknown(call.payload, {"status"}, "")
    status = require_str(call.payload, "status", "", choices=RESOLUTIONS)
    charge = find_charge(state, call.params[0], None)
    resolve_analysis(charge, status or "", call.now)
    order = state.orders[charge.order_id]
    notify_order(state, order, call.base_url)
    return Response.json(200, charge_json(charge, call.base_url, order=order))


def clock_state(state: State) -> dict[str, str]:
    return {"now": timestamp(state.clock.now())}


def get_clock(state: State, call: Call) -> Response:
    """``GET /_emulator/clock``: ``{"now": timestamp}``."""
    return Response.json(200, clock_state(state))


def move_clock(state: State, call: Call) -> Response:
    """``POST /_emulator/clock`` ``{"advance_seconds": N}`` or ``{"now": iso 8601 with offset}``.

    The clock stays within 2000-2999 (``clock.EARLIEST``..``LATEST``): 40002 past that.
    """
    reject_unknown(call.payload, {"advance_seconds", "now"}, "")
    advance = _number(call.payload, "advance_seconds")
    moment = require_str(call.payload, "now", "", optional=True)
    if advance is None and moment is None:
        raise errors.required("advance_seconds")
    if advance is not None and moment is not None:
        raise errors.invalid("now", "give_either_advance_seconds_or_now")
    if advance is not None:
        try:
            state.clock.advance(advance)
        except ValueError:
            raise errors.invalid("advance_seconds", "clock_out_of_range") from None
    else:
        try:
            parsed = datetime.fromisoformat(moment or "")
        except ValueError:
            raise errors.invalid("now") from None
        if parsed.tzinfo is None:
            raise errors.invalid("now", "timestamp_needs_utc_offset")
        try:
            state.clock.set(parsed)
        except ValueError:
            raise errors.invalid("now", "clock_out_of_range") from None
    # What the new time ends (a boleto past due) happens now, with its notification.
    expire_boletos(state, state.clock.now(), call.base_url)
    return Response.json(200, clock_state(state))


def faults_state(state: State) -> dict[str, Any]:
    return {"faults": state.faults.pending(), "kinds": dict(KINDS)}


def list_faults(state: State, call: Call) -> Response:
    """``GET /_emulator/faults``: what is still queued, and the kinds there are."""
    return Response.json(200, faults_state(state))


def inject_fault(state: State, call: Call) -> Response:
    """``POST /_emulator/faults`` ``{"kind", "count"?: 1, "delay"?: 30, "path_prefix"?}``.

    ``delay`` is 0 to 3600 seconds (``MAX_FAULT_DELAY``).
    """
    payload = call.payload
    reject_unknown(payload, {"kind", "count", "delay", "path_prefix"}, "")
    kind = require_str(payload, "kind", "", choices=tuple(KINDS))
    count = 1
    if payload.get("count") is not None:
        count = check_int(payload["count"], "count", minimum=1, maximum=10_000)
    delay = _number(payload, "delay", minimum=0, maximum=MAX_FAULT_DELAY)
    path_prefix = require_str(payload, "path_prefix", "", pattern=r"/.*", optional=True)
    state.faults.inject(
        kind or "", count, delay=30.0 if delay is None else delay, path_prefix=path_prefix
    )
    return Response.json(201, faults_state(state))


def clear_faults(state: State, call: Call) -> Response:
    """``DELETE /_emulator/faults``: forget every queued fault."""
    state.faults.reset()
    return Response.json(200, faults_state(state))


def list_orders(state: State, call: Call) -> Response:
    """``GET /_emulator/orders``: every order's id, oldest first (all merchants)."""
    return Response.json(200, {"orders": list(state.orders)})


def list_accounts(state: State, call: Call) -> Response:
    """``GET /_emulator/accounts``: each merchant's ``ACCO_`` id and its token's last 4."""
    accounts = [
        {"id": account, "token_hint": f"...{token[-4:]}"}
        for token, account in state.accounts.items()
    ]
    return Response.json(200, {"accounts": accounts})


def latency_state(state: State) -> dict[str, Any]:
    return {"latency": state.latency.as_json()}


def get_latency(state: State, call: Call) -> Response:
    """``GET /_emulator/latency``: ``{"latency": {"seconds", "path_prefix"}}``."""
    return Response.json(200, latency_state(state))


def set_latency(state: State, call: Call) -> Response:
    """``POST /_emulator/latency`` ``{"seconds": 0.1, "path_prefix"?: "/orders"}``.

    Every provider answer (whose path starts with ``path_prefix``) is held
    back ``seconds`` (0 to ``MAX_LATENCY``; 0 turns it off) before it is sent.
    """
    reject_unknown(call.payload, {"seconds", "path_prefix"}, "")
    seconds = _number(call.payload, "seconds", minimum=0, maximum=MAX_LATENCY)
    if seconds is None:
        raise errors.required("seconds")
    path_prefix = require_str(call.payload, "path_prefix", "", pattern=r"/.*", optional=True)
    state.latency = Latency(seconds, path_prefix)
    return Response.json(200, latency_state(state))


def retention_state(state: State) -> dict[str, Any]:
    return {"retention": state.retention.as_json(), "kept": remembered.kept(state)}


def get_retention(state: State, call: Call) -> Response:
    """``GET /_emulator/retention``: how many orders are kept, and how much is kept now."""
    return Response.json(200, retention_state(state))


def set_retention(state: State, call: Call) -> Response:
    """``POST /_emulator/retention`` ``{"orders": N}``: keep the newest N orders, forget older."""
    reject_unknown(call.payload, {"orders"}, "")
    orders = require_int(
        call.payload, "orders", "", minimum=1, maximum=remembered.MAX_RETAINED_ORDERS
    )
    state.retention = remembered.Retention(orders or 1)
    remembered.trim(state)
    return Response.json(200, retention_state(state))
