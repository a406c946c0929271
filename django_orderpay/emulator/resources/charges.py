"""Charges: authorisation by card outcome, capture, cancel/refund, analysis resolution.

Transitions (the provider documents some; the rest are ours, in
``docs/emulator.md``): a new charge is PAID (``capture`` true), AUTHORIZED
(``capture`` false), DECLINED or IN_ANALYSIS. AUTHORIZED -> PAID by capture
(until ``capture_before``), AUTHORIZED -> CANCELED by cancel (a void).
PAID stays PAID on a partial refund (``amount.summary.refunded`` grows) and
ends CANCELED when the refunds reach the paid amount. IN_ANALYSIS -> PAID
(or AUTHORIZED) / DECLINED only through the control plane.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django_orderpay import rules

from ..serving.http import Response
from ..state import errors, ids
from ..state.store import Call, ChargeRecord, OrderRecord, SplitRecord, State, StoredCard
from ..state.validation import reject_unknown, validate_amount
from .boleto import BoletoRequest, execute_boleto
from .cards import ANTIFRAUD_DECLINED, APPROVED, SUCCESS, Outcome, outcome_for
from .payment import ChargeRequest
from .render import charge_json, notify_order
from .splits import validate_refund_splits
from .threeds import threeds_outcome

#: How long an authorisation may be captured (``payment_method.capture_before``):
#: "de 6 até 29 dias", 29 for Visa, Mastercard and Elo, 6 for Amex and Hipercard.
CAPTURE_WINDOW = timedelta(days=29)
SHORT_CAPTURE_WINDOW = timedelta(days=6)
SHORT_CAPTURE_BRANDS = frozenset({"amex", "hipercard"})
#: The Mastercard "merchant advice code" an issuer's decline reason comes with:
#: 01 new account information (an expired card), 02 try again later (funds).
MERCHANT_ADVICE = {"54": "01", "51": "02"}


def refund_window(charge: ChargeRecord) -> timedelta:
    """How long after its payment ``charge`` may be refunded ("cancelando uma cobrança")."""
    kind = charge.payment_method.get("type")
    if kind == "PIX":
        return timedelta(days=rules.PIX_REFUND_DAYS)
    if kind == "DEBIT_CARD" and charge.brand == "mastercard":
        return timedelta(days=rules.MASTERCARD_DEBIT_REFUND_DAYS)
    return timedelta(days=rules.REFUND_DAYS)


def check_refund_window(charge: ChargeRecord, now: datetime) -> None:
    """A refund after the charge's window is 40007 (voiding an authorisation is not a refund)."""
    if charge.paid_at is not None and now > charge.paid_at + refund_window(charge):
        days = refund_window(charge).days
        raise errors.unable_refund(f"the {days}-day refund window has passed")


def capture_window(brand: str | None) -> timedelta:
    """How long an authorisation by a card of ``brand`` may wait for its capture."""
    return SHORT_CAPTURE_WINDOW if brand in SHORT_CAPTURE_BRANDS else CAPTURE_WINDOW


def payment_response(outcome: Outcome, *, brand_reference_id: str | None = None) -> dict[str, Any]:
    """``payment_response`` for ``outcome``: approvals carry the NSU and authorisation code."""
    nsu = ids.nsu()
    answer: dict[str, Any] = {"code": outcome.code, "message": outcome.message, "reference": nsu}
    if brand_reference_id is not None:
        answer["brand_reference_id"] = brand_reference_id
    if outcome.result == APPROVED:
        answer["raw_data"] = {
            "authorization_code": ids.authorization_code(),
            "nsu": nsu,
            "reason_code": outcome.reason_code,
        }
    elif outcome.reason_code is not None:
        # An issuer's decline, as PagBank shows one: no authorisation, but the
        # NSU, the issuer's reason and the brand's advice to the merchant.
        answer["raw_data"] = {
            "authorization_code": None,
            "nsu": nsu,
            "reason_code": outcome.reason_code,
            "merchant_advice_code": MERCHANT_ADVICE.get(outcome.reason_code, "03"),
        }
    return answer


def apply_outcome(charge: ChargeRecord, outcome: Outcome, now: datetime) -> None:
    """Set the charge's status and ``payment_response`` from the network's answer."""
    if outcome.result == APPROVED:
        # The Elo network answers the recurrence's NRID on the INITIAL charge.
        initial = (charge.recurring or {}).get("type") == "INITIAL"
        nrid = ids.brand_reference_id() if initial and charge.brand == "elo" else None
        charge.payment_response = payment_response(outcome, brand_reference_id=nrid)
        if charge.capture:
            charge.status, charge.paid_at, charge.paid = "PAID", now, charge.amount
        else:
            charge.status = "AUTHORIZED"
            charge.capture_before = now + capture_window(charge.brand)
    else:
        charge.payment_response = payment_response(outcome)
        charge.status = outcome.result  # DECLINED or IN_ANALYSIS


def add_charge(
    state: State,
    order: OrderRecord,
    *,
    amount: int,
    currency: str,
    payment_method: dict[str, Any],
    outcome: Outcome,
    now: datetime,
    capture: bool = True,
    brand: str | None = None,
    reference_id: str | None = None,
    description: str | None = None,
    recurring: dict[str, Any] | None = None,
) -> ChargeRecord:
    """A new charge on ``order`` with the network's ``outcome`` applied."""
    charge = ChargeRecord(
        id=ids.new_id("CHAR_"),
        order_id=order.id,
        account=order.account,
        status="",
        created_at=now,
        amount=amount,
        currency=currency,
        payment_response={},
        payment_method=payment_method,
        reference_id=reference_id,
        description=description,
        capture=capture,
        recurring=recurring,
        brand=brand,
    )
    apply_outcome(charge, outcome, now)
    state.charges[charge.id] = charge
    order.charge_ids.append(charge.id)
    return charge


def execute(
    state: State, order: OrderRecord, request: ChargeRequest | BoletoRequest, now: datetime
) -> ChargeRecord:
    """Send one checked charge request to the (emulated) network; store its card if asked.

    A boleto is issued instead: WAITING for its payer.
    """
    if isinstance(request, BoletoRequest):
        return execute_boleto(state, order, request, now)
    card = request.card
    token_id = card.token
    if request.store and token_id is None:
        stored = StoredCard(
            ids.new_id("CARD_"), order.account, card.number, card.exp_month or "",
            card.exp_year or "", card.holder_name,
        )  # fmt: skip
        state.cards[stored.id] = stored
        token_id = stored.id
    payment_method = {
        "type": request.payment_type,
        "installments": request.installments,
        "capture": request.capture,
        "card": card.to_response(token_id=token_id, store=request.store),
        "soft_descriptor": request.soft_descriptor,
    }
    if request.holder is not None:
        payment_method["holder"] = dict(request.holder)
    authentication = request.authentication
    if authentication is not None:
        payment_method["authentication_method"] = dict(authentication.answer)
    outcome = outcome_for(card.number, card.exp_month, card.exp_year, now)
    if outcome == SUCCESS:
        outcome = (
            threeds_outcome(
                card.number,
                request.amount,
                authentication,
                request.payment_type,
                debit_not_authenticated=state.options.debit_not_authenticated,
            )
            or outcome
        )
    charge = add_charge(
        state,
        order,
        amount=request.amount,
        currency=request.currency,
        payment_method=payment_method,
        outcome=outcome,
        now=now,
        capture=request.capture,
        brand=card.brand,
        reference_id=request.reference_id,
        description=request.description,
        recurring=request.recurring,
    )
    charge.metadata = request.metadata
    charge.amount_fees = request.amount_fees
    raw_data = charge.payment_response.get("raw_data")
    if card.wallet is not None and isinstance(raw_data, dict) and outcome.result == APPROVED:
        # The wallet pages: Visa 05 "transação autenticada", Mastercard 242 (liability shift).
        raw_data["security_level_indicator"] = "242" if card.brand == "mastercard" else "05"
    charge.sub_merchant = request.sub_merchant
    charge.notification_urls = request.notification_urls
    if authentication is not None and authentication.authentication is not None:
        authentication.authentication.used_by = charge.id  # an id pays one charge
    if card.wallet_digest is not None:
        state.wallet_keys[card.wallet_digest] = None  # a wallet's key pays once
    if request.splits is not None:
        split = SplitRecord(ids.new_id("SPLI_"), order.account, charge.id, now, request.splits)
        state.splits[split.id] = split
        charge.split_id = split.id
    return charge


#: A capture's body; a cancel's may also say how a split charge's refund is shared.
AMOUNT_ONLY = frozenset({"amount"})
CANCEL_KEYS = frozenset({"amount", "splits"})


def find_charge(state: State, charge_id: str, account: str | None) -> ChargeRecord:
    """The charge, if it belongs to ``account`` (None: any merchant's); else 404."""
    charge = state.charges.get(charge_id)
    if charge is None or (account is not None and charge.account != account):
        raise errors.not_found("charge")
    return charge


def _requested_amount(payload: dict[str, Any], keys: frozenset[str] = AMOUNT_ONLY) -> int | None:
    """``{"amount": {"value": N}}`` of a capture or cancel; None (the whole amount) if absent."""
    reject_unknown(payload, keys, "")
    if payload.get("amount") is None:
        return None
    return validate_amount(payload["amount"], "amount")


def capture(charge: ChargeRecord, amount: int | None, now: datetime) -> None:
    """Capture an AUTHORIZED charge, all of it or ``amount`` (at most the authorised amount)."""
    if charge.status != "AUTHORIZED":
        raise errors.unable_capture(f"charge is {charge.status}")
    if charge.capture_before is not None and now > charge.capture_before:
        raise errors.unable_capture("authorization expired")
    value = charge.amount if amount is None else amount
    if value > charge.amount:
        raise errors.unable_capture("amount exceeds the authorized amount")
    charge.status, charge.paid_at, charge.paid = "PAID", now, value


def cancel(charge: ChargeRecord, amount: int | None, *, partial_status: str = "PAID") -> None:
    """Void an AUTHORIZED charge, or refund a PAID one in full or in part.

    ``partial_status`` is what a partial refund leaves the charge in: PAID
    (the spec's reading) or CANCELED (what the official plugin expects);
    either way the rest can still be refunded, and a refund reaching the paid
    amount makes it CANCELED.
    """
    if charge.status == "AUTHORIZED":
        if amount is not None and amount > charge.amount:
            raise errors.unable_refund("amount exceeds the authorized amount")
        charge.status = "CANCELED"
        return
    partly_refunded = charge.status == "CANCELED" and 0 < charge.refunded < charge.paid
    if charge.status != "PAID" and not partly_refunded:
        raise errors.unable_refund(f"charge is {charge.status}")
    refundable = charge.paid - charge.refunded
    value = refundable if amount is None else amount
    if value > refundable:
        raise errors.unable_refund("amount exceeds the refundable amount")
    charge.refunded += value
    charge.status = "CANCELED" if charge.refunded == charge.paid else partial_status


def resolve_analysis(charge: ChargeRecord, status: str, now: datetime) -> None:
    """End an IN_ANALYSIS charge: ``PAID`` approves it (AUTHORIZED if not captured)."""
    if charge.status != "IN_ANALYSIS":
        raise errors.invalid("status", "charge_not_in_analysis")
    apply_outcome(charge, SUCCESS if status == "PAID" else ANTIFRAUD_DECLINED, now)


def _changed(state: State, call: Call, charge: ChargeRecord) -> Response:
    order = state.orders[charge.order_id]
    notify_order(state, order, call.base_url)
    return Response.json(201, charge_json(charge, call.base_url, order=order))


def get_charge(state: State, call: Call) -> Response:
    """``GET /charges/{id}``: the Charge with its order's ``notification_urls`` (as PagBank's)."""
    charge = find_charge(state, call.params[0], call.merchant)
    order = state.orders[charge.order_id]
    return Response.json(200, charge_json(charge, call.base_url, order=order))


def capture_charge(state: State, call: Call) -> Response:
    """``POST /charges/{id}/capture`` body ``{"amount": {"value": N}}``: 201, the Charge."""
    charge = find_charge(state, call.params[0], call.merchant)
    capture(charge, _requested_amount(call.payload), call.now)
    return _changed(state, call, charge)


def cancel_charge(state: State, call: Call) -> Response:
    """``POST /charges/{id}/cancel`` body ``{"amount": {"value": N}}``: 201, the Charge."""
    charge = find_charge(state, call.params[0], call.merchant)
    requested = _requested_amount(call.payload, CANCEL_KEYS)
    if call.payload.get("splits") is not None:
        split = state.splits.get(charge.split_id or "")
        if split is None:
            raise errors.invalid("splits", "charge_has_no_split")
        refund = requested if requested is not None else charge.paid - charge.refunded
        validate_refund_splits(call.payload["splits"], split.splits, refund)
    check_refund_window(charge, call.now)
    cancel(charge, requested, partial_status=state.options.partial_refund_status)
    return _changed(state, call, charge)
