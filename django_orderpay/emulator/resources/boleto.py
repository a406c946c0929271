"""Boleto: a charge that WAITS for the payer, its barcode, its files, its payment and expiry.

``payment_method{type: BOLETO, boleto{due_date, instruction_lines?, holder}}``
makes a WAITING charge whose ``boleto`` carries an id, the 47-digit typeable
line (``barcode``, as PagBank names it) and its printed form; its first two
``links`` are the PDF and the PNG. The payer pays it later (the control plane,
or the button of the emulator's boleto page), which makes it PAID and
notifies the order; the clock cancels it (and notifies) once its due date
has passed unpaid. A paid boleto is refunded as any PAID charge.
"""

from __future__ import annotations

import datetime as dt
import html
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django_orderpay import rules

from ..serving.http import Response
from ..serving.language import language, money, words
from ..serving.language import mark as _
from ..state import errors, ids
from ..state.clock import PROVIDER_TZ
from ..state.store import Call, ChargeRecord, OrderRecord, SplitRecord, State
from ..state.validation import (
    check_int,
    field_path,
    item_path,
    reject_unknown,
    require_int,
    require_object,
    require_str,
    require_tax_id,
    validate_address,
    validate_amount,
)
from . import barcode as bars
from .cards import settled_response

BOLETO_KEYS = frozenset(
    {"due_date", "instruction_lines", "holder", "template", "days_until_expiration"}
)
INSTRUCTION_KEYS = frozenset({"line_1", "line_2"})
BOLETO_HOLDER_KEYS = frozenset({"name", "tax_id", "email", "address"})
PAYMENT_INSTRUCTIONS_KEYS = frozenset({"fine", "interest", "discounts"})
PENALTY_KEYS = frozenset({"date", "value"})
DISCOUNT_KEYS = frozenset({"due_date", "value"})
_DAY = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
LONGEST_TERM = dt.timedelta(days=rules.BOLETO_LONGEST_TERM_DAYS)


@dataclass(frozen=True)
class BoletoRequest:
    """A checked boleto charge request."""

    reference_id: str | None
    description: str | None
    amount: int
    currency: str
    due_date: dt.date
    boleto: dict[str, Any]
    payment_instructions: dict[str, Any] | None
    metadata: dict[str, Any] | None = None
    #: ``splits`` as sent (checked by the charge's rules): the payment is split so.
    splits: dict[str, Any] | None = None


def _due_date(boleto: dict[str, Any], path: str, now: datetime) -> dt.date:
    where = field_path(path, "due_date")
    text = require_str(boleto, "due_date", path, pattern=r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
    try:
        due = dt.date.fromisoformat(text)
    except ValueError:
        raise errors.invalid(where) from None
    today = now.astimezone(PROVIDER_TZ).date()
    if due < today:
        raise errors.invalid(where, "due_date_must_not_be_in_the_past")
    if due > today + LONGEST_TERM:
        raise errors.invalid(where, "due_date_too_far")
    return due


def validate_boleto(value: Any, path: str, now: datetime) -> tuple[dt.date, dict[str, Any]]:
    """``payment_method.boleto``: the due date, instruction lines and the payer (holder)."""
    boleto = require_object(value, path)
    reject_unknown(boleto, BOLETO_KEYS, path)
    due = _due_date(boleto, path, now)
    if boleto.get("instruction_lines") is not None:
        lines_path = field_path(path, "instruction_lines")
        lines = require_object(boleto["instruction_lines"], lines_path)
        reject_unknown(lines, INSTRUCTION_KEYS, lines_path)
        for key in sorted(INSTRUCTION_KEYS):
            require_str(lines, key, lines_path, limit="instruction_line", optional=True)
    require_str(boleto, "template", path, choices=rules.BOLETO_TEMPLATES, optional=True)
    if boleto.get("days_until_expiration") is not None:
        # The reference says a string, the docs' example sends "45" and answers 45.
        days = check_int(
            boleto["days_until_expiration"],
            field_path(path, "days_until_expiration"),
            minimum=0,
            maximum=rules.BOLETO_LONGEST_EXPIRATION_DAYS,
            digit_string=True,
        )
        boleto = {**boleto, "days_until_expiration": days}
    holder_path = field_path(path, "holder")
    holder = require_object(boleto.get("holder"), holder_path)
    reject_unknown(holder, BOLETO_HOLDER_KEYS, holder_path)
    require_str(holder, "name", holder_path, limit="boleto.holder.name")
    require_tax_id(holder, "tax_id", holder_path, check_digits=True)
    require_str(holder, "email", holder_path, limit="email", pattern=r"[^@\s]+@[^@\s]+\.[^@\s]+")
    validate_address(
        holder.get("address"), field_path(holder_path, "address"), country_as_written=True
    )
    return due, boleto


def _day(data: dict[str, Any], key: str, path: str) -> dt.date | None:
    text = require_str(data, key, path, pattern=_DAY, optional=True)
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise errors.invalid(field_path(path, key)) from None


def _percent(data: dict[str, Any], path: str, part: str) -> None:
    """``value``: a percentage times 100, 1 up to the part's limit (``40002`` otherwise)."""
    limit = rules.BOLETO_INSTRUCTION_LIMITS[part]
    require_int(data, "value", path, minimum=1, maximum=limit)


def _discounts(value: Any, path: str, due: dt.date) -> None:
    """``discounts``: the use case's list of ``{due_date, value}``, or the charge object's one
    ``{date, value}`` object; each until the due date at the latest."""
    if isinstance(value, dict):
        reject_unknown(value, PENALTY_KEYS, path)
        _percent(value, path, "discounts")
        day = _day(value, "date", path)
        if day is not None and day > due:
            raise errors.invalid(field_path(path, "date"), "discount_after_the_due_date")
        return
    if not isinstance(value, list) or not value:
        raise errors.invalid(path)
    for index, entry in enumerate(value):
        where = item_path(path, index)
        entry = require_object(entry, where)
        reject_unknown(entry, DISCOUNT_KEYS, where)
        _percent(entry, where, "discounts")
        day = _day(entry, "due_date", where)
        if day is not None and day > due:
            raise errors.invalid(field_path(where, "due_date"), "discount_after_the_due_date")


def validate_payment_instructions(value: Any, path: str, due: dt.date) -> dict[str, Any] | None:
    """``payment_instructions{fine?, interest?, discounts?}`` of a boleto due on ``due``.

    Each ``value`` is a percentage times 100 (fine and discounts 1 to 9999,
    interest 1 to 5999); fine and interest apply from the day after the due
    date, discounts until it. Taken and echoed (the bank applies them; the
    emulator's payer pays the amount).
    """
    if value is None:
        return None
    instructions = require_object(value, path)
    reject_unknown(instructions, PAYMENT_INSTRUCTIONS_KEYS, path)
    for key in ("fine", "interest"):
        if instructions.get(key) is None:
            continue
        part_path = field_path(path, key)
        part = require_object(instructions[key], part_path)
        reject_unknown(part, PENALTY_KEYS, part_path)
        _percent(part, part_path, key)
        day = _day(part, "date", part_path)
        if day is not None and day <= due:
            raise errors.invalid(field_path(part_path, "date"), "must_be_after_the_due_date")
    if instructions.get("discounts") is not None:
        _discounts(instructions["discounts"], field_path(path, "discounts"), due)
    return dict(instructions)


def parse_boleto_charge(
    charge: dict[str, Any],
    method: dict[str, Any],
    method_path: str,
    path: str,
    *,
    reference_id: str | None,
    description: str | None,
    metadata: dict[str, Any] | None,
    now: datetime,
) -> BoletoRequest:
    """A ``BOLETO`` charge: no card, no installments, no capture; a due date and a payer.

    ``payment_instructions`` sit on the charge (the use case) or inside
    ``payment_method`` (the charge object's table): both are taken.
    """
    reject_unknown(method, {"type", "boleto", "payment_instructions"}, method_path)
    amount = validate_amount(
        charge.get("amount"), field_path(path, "amount"), minimum=rules.BOLETO_MIN_AMOUNT
    )
    boleto_path = field_path(method_path, "boleto")
    due, boleto = validate_boleto(method.get("boleto"), boleto_path, now)
    instructions_path = field_path(path, "payment_instructions")
    sent = charge.get("payment_instructions")
    if method.get("payment_instructions") is not None:
        if sent is not None:
            raise errors.invalid(instructions_path, "payment_instructions_given_twice")
        sent, instructions_path = (
            method["payment_instructions"],
            field_path(method_path, "payment_instructions"),
        )
    instructions = validate_payment_instructions(sent, instructions_path, due)
    if instructions and boleto.get("template") == "PROPOSTA":
        # "Proposta: não permite juros/multas/desconto"
        where = field_path(boleto_path, "template")
        raise errors.invalid(where, "payment_instructions_need_template_cobranca")
    return BoletoRequest(
        reference_id=reference_id,
        description=description,
        amount=amount,
        currency=charge["amount"].get("currency") or "BRL",
        due_date=due,
        boleto=boleto,
        payment_instructions=instructions,
        metadata=metadata,
        splits=charge.get("splits"),
    )


#: The emulator's own payer document that PagBank's risk analysis refuses ("Todos os
#: boletos passam por análise de risco"): the boleto is DECLINED at creation, code 10000.
BOLETO_DECLINED_TAX_ID = "00000010154"
#: The docs' DECLINED boleto: refused before the bank saw it, as a card's anti-fraud.
RISK_DECLINED = {"code": "10000", "message": "NAO AUTORIZADO PELO PAGSEGURO"}


def _declined(order: OrderRecord, request: BoletoRequest, now: datetime) -> ChargeRecord:
    """The docs' DECLINED answer: no barcode; the boleto's fields in ``payment_method``."""
    sent = {k: v for k, v in request.boleto.items() if k != "template"}
    return ChargeRecord(
        id=ids.new_id("CHAR_"),
        order_id=order.id,
        account=order.account,
        status="DECLINED",
        created_at=now,
        amount=request.amount,
        currency=request.currency,
        payment_response=dict(RISK_DECLINED),
        payment_method={"type": "BOLETO", **sent},
        reference_id=request.reference_id,
        description=request.description,
        payment_instructions=request.payment_instructions,
    )


def execute_boleto(
    state: State, order: OrderRecord, request: BoletoRequest, now: datetime
) -> ChargeRecord:
    """Issue the boleto: a WAITING charge with its barcode and typeable line (DECLINED, by
    the risk analysis, for :data:`BOLETO_DECLINED_TAX_ID`)."""
    if request.boleto["holder"].get("tax_id") == BOLETO_DECLINED_TAX_ID:
        declined = _declined(order, request, now)
        declined.metadata = request.metadata
        state.charges[declined.id] = declined
        order.charge_ids.append(declined.id)
        return declined
    code = bars.barcode(amount=request.amount, due=request.due_date, free_field=ids.digits(25))
    line = bars.typeable_line(code)
    boleto: dict[str, Any] = {
        "id": str(uuid.uuid4()).upper(),
        "barcode": line,
        "formatted_barcode": bars.formatted(line),
        "due_date": request.due_date.isoformat(),
    }
    for key in ("instruction_lines", "holder", "days_until_expiration"):
        if request.boleto.get(key) is not None:
            boleto[key] = request.boleto[key]
    charge = ChargeRecord(
        id=ids.new_id("CHAR_"),
        order_id=order.id,
        account=order.account,
        status="WAITING",
        created_at=now,
        amount=request.amount,
        currency=request.currency,
        payment_response=settled_response(),
        payment_method={"type": "BOLETO", "boleto": boleto},
        reference_id=request.reference_id,
        description=request.description,
        boleto_code=code,
        due_date=request.due_date,
        payment_instructions=request.payment_instructions,
    )
    charge.metadata = request.metadata
    state.charges[charge.id] = charge
    order.charge_ids.append(charge.id)
    state.waiting_boletos.add(charge.id)
    if request.splits is not None:
        split = SplitRecord(ids.new_id("SPLI_"), order.account, charge.id, now, request.splits)
        state.splits[split.id] = split
        charge.split_id = split.id
    return charge


def boleto_links(charge: ChargeRecord, base_url: str) -> list[dict[str, str]]:
    """The PDF and the PNG, first in ``links`` (where the official plugins read them)."""
    href = f"{base_url}/boletos/{boleto_id(charge)}"
    return [
        {"rel": "SELF", "href": f"{href}/pdf", "media": "application/pdf", "type": "GET"},
        {"rel": "SELF", "href": f"{href}/png", "media": "image/png", "type": "GET"},
    ]


def boleto_id(charge: ChargeRecord) -> str:
    return str(charge.payment_method["boleto"]["id"])


def pay_boleto(state: State, charge: ChargeRecord, now: datetime) -> None:
    """The payer pays the whole boleto: PAID (not notified here)."""
    if charge.status != "WAITING":
        raise errors.invalid("boleto", f"boleto_is_{charge.status.lower()}")
    charge.status, charge.paid_at, charge.paid = "PAID", now, charge.amount
    state.waiting_boletos.discard(charge.id)


def is_past_due(charge: ChargeRecord, now: datetime) -> bool:
    """Unpaid after the last moment of its due date, São Paulo time, or of the
    ``days_until_expiration`` after it (the docs' boleto takes fines and interest then)."""
    if charge.due_date is None:
        return False
    days = charge.payment_method.get("boleto", {}).get("days_until_expiration") or 0
    return now.astimezone(PROVIDER_TZ).date() > charge.due_date + dt.timedelta(days=days)


def expire_boletos(state: State, now: datetime, base_url: str) -> None:
    """Cancel every WAITING boleto past its due date, and notify its order."""
    from .render import notify_order

    for charge_id in sorted(state.waiting_boletos):
        charge = state.charges[charge_id]
        if charge.status == "WAITING" and is_past_due(charge, now):
            charge.status = "CANCELED"
            state.waiting_boletos.discard(charge_id)
            notify_order(state, state.orders[charge.order_id], base_url)


def find_boleto(state: State, boleto: str) -> ChargeRecord:
    """The boleto charge whose ``boleto.id`` is ``boleto`` (anyone holding the link may see it)."""
    for charge in state.charges.values():
        if charge.boleto_code is not None and boleto_id(charge) == boleto:
            return charge
    raise errors.not_found("boleto")


def boleto_pdf(state: State, call: Call) -> Response:
    """``GET /boletos/{id}/pdf``: the boleto to print."""
    from ..serving.images import boleto_pdf as draw

    charge = find_boleto(state, call.params[0])
    boleto = charge.payment_method["boleto"]
    lines = list((boleto.get("instruction_lines") or {}).values())
    pdf = draw(
        code=charge.boleto_code or "",
        line=boleto["formatted_barcode"],
        amount=charge.amount,
        due=charge.due_date.strftime("%d/%m/%Y") if charge.due_date else "",
        payer=str((boleto.get("holder") or {}).get("name", "")),
        lines=[str(line) for line in lines],
    )
    return Response(200, pdf, [("Content-Type", "application/pdf")])


def boleto_png(state: State, call: Call) -> Response:
    """``GET /boletos/{id}/png``: the barcode's bars."""
    from ..serving.images import boleto_png as draw

    charge = find_boleto(state, call.params[0])
    return Response(200, draw(charge.boleto_code or ""), [("Content-Type", "image/png")])


#: The page's words, in the payer's language (see :mod:`..serving.language`).
HEADING = _("Boleto (emulator)")
TYPEABLE_LINE = _("Typeable line:")
AMOUNT_DUE = _("Amount: %(amount)s · Due date: %(due)s")
BOLETO_STATUS = _("Status:")
BARCODE_PNG = _("Barcode (PNG)")
PAY_BOLETO = _("Pay this boleto")

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>Boleto {line}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 2rem auto">
<h1>{heading}</h1>
<p>{typeable_line} <code data-boleto-line>{line}</code></p>
<p>{amount_due}</p>
<p>{status_words} <strong data-boleto-status>{status}</strong></p>
<p><a href="{pdf}">PDF</a> &middot; <a href="{png}">{barcode_png}</a></p>
{form}
</body></html>
"""
PAY_FORM = """<form method="post" action="{action}">
<button type="submit" data-boleto-pay>{pay_words}</button></form>"""


def boleto_page(state: State, call: Call) -> Response:
    """``GET /boletos/{id}``: the payer's view, with a button that pays it (the demo's bank)."""
    charge = find_boleto(state, call.params[0])
    boleto = charge.payment_method["boleto"]
    href = f"{call.base_url}/boletos/{boleto['id']}"
    lang, gettext = language(call.request), words(call.request).gettext
    form = ""
    if charge.status == "WAITING":
        form = PAY_FORM.format(
            action=html.escape(f"{href}/pay"), pay_words=html.escape(gettext(PAY_BOLETO))
        )
    due = boleto["due_date"]
    if lang == "pt-br" and len(due) == 10:
        due = f"{due[8:10]}/{due[5:7]}/{due[:4]}"  # 2026-11-30 -> 30/11/2026
    page = PAGE.format(
        lang=lang,
        heading=html.escape(gettext(HEADING)),
        typeable_line=html.escape(gettext(TYPEABLE_LINE)),
        line=html.escape(boleto["formatted_barcode"]),
        amount_due=html.escape(
            gettext(AMOUNT_DUE) % {"amount": money(charge.amount, lang), "due": due}
        ),
        status_words=html.escape(gettext(BOLETO_STATUS)),
        status=html.escape(charge.status),
        pdf=html.escape(f"{href}/pdf"),
        png=html.escape(f"{href}/png"),
        barcode_png=html.escape(gettext(BARCODE_PNG)),
        form=form,
    )
    return Response(200, page.encode(), [("Content-Type", "text/html; charset=utf-8")])


def pay_from_page(state: State, call: Call) -> Response:
    """``POST /boletos/{id}/pay``: the page's button; 303 back to the page."""
    from .render import notify_order

    charge = find_boleto(state, call.params[0])
    pay_boleto(state, charge, call.now)
    notify_order(state, state.orders[charge.order_id], call.base_url)
    location = f"{call.base_url}/boletos/{boleto_id(charge)}"
    return Response(303, b"", [("Location", location)])


def pay_from_control_plane(state: State, call: Call) -> Response:
    """``POST /_emulator/boletos/{id}/pay`` (a boleto id or its charge's ``CHAR_`` id)."""
    from .render import charge_json, notify_order

    key = call.params[0]
    charge = state.charges.get(key) if key.startswith("CHAR_") else None
    if charge is None or charge.payment_method.get("type") != "BOLETO":
        charge = find_boleto(state, key)
    pay_boleto(state, charge, call.now)
    order = state.orders[charge.order_id]
    notify_order(state, order, call.base_url)
    return Response.json(200, charge_json(charge, call.base_url, order=order))
