"""The hosted checkout page: where a checkout's ``PAY`` link sends the shopper.

``GET /pagamento?code=...`` shows the checkout (items, shipping, total) and
takes the shopper's details and a payment: a card (encrypted in the
browser by the emulator's SDK and authenticated with its 3-D Secure, as
PagBank's page does; debit always, credit whenever the card takes part),
Pix (its QR code, and a button standing in for the shopper's bank app) or
boleto (its typeable line and PDF). ``POST /pagamento/{code}`` makes the
order (:mod:`.checkout_payment`); the page then sends the shopper to the
checkout's ``redirect_url`` (a page of its own when there is none). No
token on these routes: the code in the link is what the shopper holds. The
page speaks English or Brazilian Portuguese (:mod:`.checkout_words`).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from django_orderpay import rules

from ..serving.http import Response
from ..state.errors import ProviderError
from ..state.store import Call, CheckoutRecord, State
from .checkout_payment import (
    CALCULATED_SHIPPING,
    PageError,
    PagePayment,
    accepted_methods,
    amount_due,
    card_plans,
    pay_checkout,
)
from .checkout_words import LANGUAGES, WORDS, language_of, money
from .checkouts import find_by_code, is_expired
from .orders import OPEN_STATUSES
from .pix import qr_code_json
from .pix_payment import pay_qr_code
from .render import notify_order
from .threeds import new_session

SCRIPT = Path(__file__).resolve().parent.parent / "static" / "hosted_checkout.js"
HTML = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]
PAYMENT_KEYS = frozenset(
    {
        "method",
        "customer",
        "address",
        "card",
        "installments",
        "authentication_id",
        "shipping_service",
        "language",
    }
)
ADDRESS_KEYS = ("postal_code", "street", "number", "complement", "locality", "city", "region_code")
#: The label a refused Orders API field is shown with, by its last segment.
FIELD_LABELS = {
    "name": "name",
    "email": "email",
    "tax_id": "tax_id",
    "number": "card_number",
    "holder": "holder",
    "street": "street",
    "locality": "locality",
    "city": "city",
    "region_code": "region_code",
    "postal_code": "postal_code",
    "complement": "complement",
}

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #1d2733; background: #f4f6f8; }
header { background: #1b9e3e; color: #fff; padding: .8rem 1.2rem; display: flex;
  justify-content: space-between; align-items: center; }
header a { color: #fff; }
main { max-width: 34rem; margin: 1.5rem auto; background: #fff; padding: 1.2rem 1.5rem;
  border-radius: 8px; }
h1 { font-size: 1.4rem; margin-top: 0; }
h2 { font-size: 1.1rem; }
table { width: 100%; border-collapse: collapse; }
td { padding: .25rem 0; } td:last-child { text-align: right; }
tr.total td { font-weight: bold; border-top: 1px solid #ccd3da; }
fieldset { border: 1px solid #ccd3da; border-radius: 6px; margin: 1rem 0; }
label { display: block; margin: .5rem 0 .2rem; }
input, select, textarea { font-size: 1rem; padding: .35rem; width: 100%; box-sizing: border-box; }
input[type=radio] { width: auto; }
.methods label { display: inline-block; margin-right: 1rem; }
.row { display: flex; gap: .6rem; } .row > div { flex: 1; }
button { font-size: 1.05rem; padding: .6rem 1.2rem; background: #1b9e3e; color: #fff;
  border: 0; border-radius: 6px; cursor: pointer; }
button[disabled] { opacity: .6; }
[role=alert] { color: #a4262c; min-height: 1.2rem; }
.note { color: #5a6675; font-size: .85rem; }
.notice { background: #fff4ce; padding: .5rem; border-radius: 4px; }
img.qr { display: block; width: 220px; height: 220px; margin: .5rem auto; }
"""


def _language(call: Call) -> str:
    query = parse_qs(call.request.query)
    asked = (query.get("lang") or [""])[0]
    return language_of(asked, call.request.header("Accept-Language"))


def _code(call: Call) -> str:
    return (parse_qs(call.request.query).get("code") or [""])[0]


def _page(language: str, title: str, body: str, status: int = 200) -> Response:
    page = (
        f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)} · PagBank</title><style>{STYLE}</style></head>"
        f"<body><header><strong>PagBank</strong><small>{WORDS[language]['emulator']}</small>"
        "</header>"
        f"<main>{body}</main></body></html>"
    )
    return Response(status, page.encode(), list(HTML))


def _message_page(language: str, key: str, back: str | None, status: int = 200) -> Response:
    words = WORDS[language]
    body = f'<h1 data-testid="checkout-message">{html.escape(words[key])}</h1>'
    if back:
        body += f'<p><a href="{html.escape(back)}">{html.escape(words["back"])}</a></p>'
    return _page(language, words[key], body, status)


def _field(name: str, label: str, value: Any = "", **attributes: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{html.escape(v)}"' for key, v in attributes.items())
    shown = html.escape(str(value or ""))
    return (
        f'<div><label for="f-{name}">{html.escape(label)}</label>'
        f'<input id="f-{name}" name="{name}" value="{shown}"{extra}></div>'
    )


def _summary(record: CheckoutRecord, words: dict[str, str], language: str) -> str:
    body = record.body
    rows = []
    for position, item in enumerate(body["items"], start=1):
        name = item.get("name") or item.get("description") or f"Item {position}"
        amount = money(item["quantity"] * item["unit_amount"], language)
        rows.append(
            f"<tr><td>{html.escape(name)} &times; {item['quantity']}</td><td>{amount}</td></tr>"
        )
    shipping = body.get("shipping")
    if shipping is not None:
        if shipping["type"] == "FREE":
            cost = words["free"]
        elif shipping["type"] == "FIXED":
            cost = money(shipping["amount"], language)
        else:
            cost = " / ".join(f"{s} {money(v, language)}" for s, v in CALCULATED_SHIPPING.items())
        rows.append(f"<tr><td>{words['shipping']}</td><td data-testid=shipping>{cost}</td></tr>")
    if body.get("additional_amount"):
        amount = money(body["additional_amount"], language)
        rows.append(f"<tr><td>{words['additional']}</td><td>{amount}</td></tr>")
    if body.get("discount_amount"):
        amount = money(body["discount_amount"], language)
        rows.append(f"<tr><td>{words['discount']}</td><td>- {amount}</td></tr>")
    total = money(amount_due(record, _default_service(record)), language)
    rows.append(
        f'<tr class="total"><td>{words["total"]}</td><td data-testid="total">{total}</td></tr>'
    )
    return f"<h2>{words['summary']}</h2><table>{''.join(rows)}</table>"


def _default_service(record: CheckoutRecord) -> str | None:
    shipping = record.body.get("shipping") or {}
    if shipping.get("type") != "CALCULATE":
        return None
    return shipping.get("service_type") or "PAC"


def _services(record: CheckoutRecord) -> list[str]:
    """The shipping services the shopper may choose ([""] when the price is not calculated)."""
    shipping = record.body.get("shipping") or {}
    if shipping.get("type") != "CALCULATE":
        return [""]
    if shipping.get("service_type"):
        return [str(shipping["service_type"])]
    return list(CALCULATED_SHIPPING)


def _customer_fields(record: CheckoutRecord, words: dict[str, str]) -> str:
    customer = record.body.get("customer") or {}
    if not record.body.get("customer_modifiable", True):
        return ""
    fields = [
        _field("name", words["name"], customer.get("name"), autocomplete="name"),
        _field("email", words["email"], customer.get("email"), autocomplete="email", type="email"),
        _field("tax_id", words["tax_id"], customer.get("tax_id"), inputmode="numeric"),
    ]
    return f"<fieldset><legend>{words['your_details']}</legend>{''.join(fields)}</fieldset>"


def _address_fields(record: CheckoutRecord, words: dict[str, str], methods: list[str]) -> str:
    shipping = record.body.get("shipping")
    given = (shipping or {}).get("address") or {}
    fixed = shipping is not None and not shipping.get("address_modifiable", True)
    needs_shipping = shipping is not None and not fixed
    if fixed and "BOLETO" not in methods:
        return ""
    if not needs_shipping and "BOLETO" not in methods:
        return ""
    # Always for a shipping the shopper gives; for a boleto (its payer's address) otherwise.
    required_for = "ALL" if needs_shipping else "BOLETO"
    fields = "".join(
        _field(name, words[name], given.get(name), autocomplete="off") for name in ADDRESS_KEYS
    )
    return (
        f'<fieldset id="address" data-required-for="{required_for}">'
        f"<legend>{words['address']}</legend>{fields}</fieldset>"
    )


def _service_field(record: CheckoutRecord, words: dict[str, str], language: str) -> str:
    services = _services(record)
    if services == [""] or len(services) == 1:
        return ""
    options = "".join(
        f'<option value="{s}">{s} ({money(CALCULATED_SHIPPING[s], language)})</option>'
        for s in services
    )
    return (
        f'<div><label for="f-shipping_service">{words["shipping_service"]}</label>'
        f'<select id="f-shipping_service" name="shipping_service">{options}</select></div>'
    )


def _method_fields(methods: list[str], words: dict[str, str]) -> str:
    radios = "".join(
        f'<label><input type="radio" name="method" value="{method}"'
        f'{" checked" if position == 0 else ""} data-testid="method-{method}"> '
        f"{html.escape(words[method])}</label>"
        for position, method in enumerate(methods)
    )
    return f'<fieldset class="methods"><legend>{words["method"]}</legend>{radios}</fieldset>'


def _card_fields(words: dict[str, str]) -> str:
    return (
        f'<fieldset id="card"><legend>{words["CREDIT_CARD"]} / {words["DEBIT_CARD"]}</legend>'
        + _field("holder", words["holder"], autocomplete="cc-name")
        + _field("card_number", words["card_number"], autocomplete="cc-number", inputmode="numeric")
        + '<div class="row">'
        + _field("exp_month", words["exp_month"], inputmode="numeric", maxlength="2")
        + _field("exp_year", words["exp_year"], inputmode="numeric", maxlength="4")
        + _field("security_code", words["security_code"], inputmode="numeric", maxlength="4")
        + "</div>"
        + f'<div id="installments-row"><label for="f-installments">{words["installments"]}</label>'
        + '<select id="f-installments" name="installments"></select></div></fieldset>'
    )


def _plans(record: CheckoutRecord, methods: list[str]) -> dict[str, Any]:
    """The card plans and total for each shipping service the shopper may pick."""
    answer: dict[str, Any] = {}
    for service in _services(record):
        amount = amount_due(record, service or None)
        plans = {
            method: [
                {
                    "installments": plan["installments"],
                    "share": plan["installment_value"],
                    "total": plan["amount"]["value"],
                    "interest_free": plan["interest_free"],
                }
                for plan in card_plans(record, method, amount)
            ]
            for method in methods
            if method in rules.CHECKOUT_CARD_METHODS
        }
        answer[service] = {"amount": amount, "plans": plans}
    return answer


def _has_payment(state: State, record: CheckoutRecord) -> bool:
    for order_id in record.order_ids:
        order = state.orders.get(order_id)
        if order is not None and any(
            state.charges[cid].status in OPEN_STATUSES for cid in order.charge_ids
        ):
            return True
    return False


def checkout_page(state: State, call: Call) -> Response:
    """``GET /pagamento?code=...``: the page, or why it can't take a payment now."""
    language = _language(call)
    record = find_by_code(state, _code(call))
    if record is None:
        return _message_page(language, "checkout_not_found", None, 404)
    back = record.body.get("return_url")
    if is_expired(record, call.now):
        return _message_page(language, "checkout_expired", back)
    if record.status != "ACTIVE":
        return _message_page(language, "checkout_inactive", back)
    words = WORDS[language]
    methods = accepted_methods(record)
    other = LANGUAGES[1 - LANGUAGES.index(language)]
    config = {
        "payUrl": f"{call.base_url}/pagamento/{record.code}",
        "publicKey": state.keys.public_key,
        "session": new_session(state, record.account, call.now).id,
        "language": language,
        "words": words,
        "services": _plans(record, methods),
        "customer": record.body.get("customer") or {},
        "address": (record.body.get("shipping") or {}).get("address") or {},
    }
    notice = ""
    if _has_payment(state, record):
        notice = f'<p class="notice" data-testid="paid-already">{words["paid_already"]}</p>'
    switch = f"?code={quote(record.code)}&amp;lang={other}"
    body = (
        f'<p><a href="{switch}" data-testid="language">{words["other_language"]}</a></p>'
        f'<h1>{words["title"]}</h1><p class="note">{words["emulator_note"]}</p>{notice}'
        + _summary(record, words, language)
        + '<form id="pay" novalidate>'
        + _customer_fields(record, words)
        + _service_field(record, words, language)
        + _method_fields(methods, words)
        + _address_fields(record, words, methods)
        + _card_fields(words)
        + '<p role="alert" id="problem" data-testid="problem"></p>'
        + '<button type="submit" id="submit" data-testid="pay"></button></form>'
        + f'<section id="pix" hidden><h2>{words["pix_title"]}</h2><p>{words["pix_hint"]}</p>'
        + '<img class="qr" id="pix-image" alt="QR code">'
        + f'<label for="pix-text">{words["pix_code"]}</label>'
        + '<textarea id="pix-text" rows="4" readonly></textarea>'
        + f'<p><button type="button" id="pix-pay" data-testid="pix-pay">{words["pix_pay"]}'
        + "</button></p></section>"
        + f'<section id="boleto" hidden><h2>{words["boleto_title"]}</h2>'
        + f"<p>{words['boleto_hint']}</p><p>{words['boleto_line']}: "
        + '<code id="boleto-line" data-testid="boleto-line"></code></p>'
        + f'<p><a id="boleto-pdf" target="_blank" rel="noopener">{words["boleto_pdf"]}</a></p>'
        + f'<p><a id="boleto-back" data-testid="back">{words["back"]}</a></p></section>'
        + '<script type="application/json" id="checkout-config">'
        + json.dumps(config).replace("</", "<\\/")
        + "</script>"
        + f'<script src="{html.escape(call.base_url)}/sdk/pagseguro.js"></script>'
        + f'<script src="{html.escape(call.base_url)}/pagamento/checkout.js"></script>'
    )
    return _page(language, words["title"], body)


def checkout_script(state: State, call: Call) -> Response:
    """``GET /pagamento/checkout.js``: the page's script."""
    return Response(200, SCRIPT.read_bytes(), [("Content-Type", "application/javascript")])


def done_page(state: State, call: Call) -> Response:
    """``GET /pagamento/done?code=...``: where a paid shopper lands with no ``redirect_url``."""
    language = _language(call)
    record = find_by_code(state, _code(call))
    if record is None:
        return _message_page(language, "checkout_not_found", None, 404)
    words = WORDS[language]
    body = (
        f'<h1 data-testid="checkout-message">{words["done_title"]}</h1><p>{words["done_text"]}</p>'
    )
    back = record.body.get("return_url")
    if back:
        body += f'<p><a href="{html.escape(back)}">{words["back"]}</a></p>'
    return _page(language, words["done_title"], body)


def _next(record: CheckoutRecord, base_url: str, language: str) -> str:
    """Where the shopper goes once paid: the checkout's ``redirect_url``, else our page."""
    target = record.body.get("redirect_url")
    if target:
        return str(target)
    return f"{base_url}/pagamento/done?code={quote(record.code)}&lang={language}"


def _problem(language: str, code: str, field: str = "", status: int = 400) -> Response:
    words = WORDS[language]
    if code == "invalid_field":
        label = FIELD_LABELS.get(field.rsplit(".", 1)[-1], "")
        message = words["invalid_field"].format(field=words.get(label, field))
    else:
        message = words.get(code, words["invalid_field"].format(field=field))
    return Response.json(status, {"error": code, "field": field, "message": message})


def _text_map(value: Any, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    return {
        key: item.strip()
        for key, item in value.items()
        if isinstance(item, str) and (keys is None or key in keys)
    }


def _payment(payload: dict[str, Any]) -> PagePayment:
    """The page's body as a :class:`PagePayment` (PageError naming a malformed part)."""
    unknown = set(payload) - PAYMENT_KEYS
    if unknown:
        raise PageError("invalid_field", sorted(unknown)[0])
    method = payload.get("method")
    if method not in rules.CHECKOUT_PAYMENT_METHODS:
        raise PageError("method_not_accepted", "method")
    installments = payload.get("installments", 1)
    if isinstance(installments, str) and rules.is_digits(installments, (1, 2)):
        installments = int(installments)
    if isinstance(installments, bool) or not isinstance(installments, int):
        raise PageError("invalid_installments", "installments")
    card = payload.get("card")
    if card is not None and not isinstance(card, dict):
        raise PageError("card_required", "card")
    authentication = payload.get("authentication_id")
    if authentication is not None and not isinstance(authentication, str):
        raise PageError("invalid_field", "authentication_id")
    service = payload.get("shipping_service")
    return PagePayment(
        method=method,
        customer=_text_map(payload.get("customer"), ("name", "email", "tax_id")),
        address=_text_map(payload.get("address"), ADDRESS_KEYS) or None,
        card=card,
        installments=installments,
        authentication_id=authentication or None,
        shipping_service=service if isinstance(service, str) and service else None,
    )


def pay_from_page(state: State, call: Call) -> Response:
    """``POST /pagamento/{code}``: make the payment's order; 200 with what the page shows next."""
    raw_language = call.payload.get("language")
    language = raw_language if raw_language in LANGUAGES else _language(call)
    record = find_by_code(state, call.params[0])
    if record is None:
        return _problem(language, "checkout_not_found", status=404)
    try:
        payment = _payment(call.payload)
        order = pay_checkout(state, record, payment, now=call.now, base_url=call.base_url)
    except PageError as error:
        return _problem(language, error.code, error.field)
    except ProviderError as error:
        return _problem(language, "invalid_field", error.parameter_name or "")
    answer: dict[str, Any] = {"order_id": order.id, "next": _next(record, call.base_url, language)}
    if order.qr_code_ids:
        qr_code = qr_code_json(state.qr_codes[order.qr_code_ids[0]], call.base_url)
        answer["status"] = "WAITING"
        answer["qr_code"] = {"id": qr_code["id"], "text": qr_code["text"]}
        answer["qr_code"]["image"] = qr_code["links"][0]["href"]
        answer["pay"] = f"{call.base_url}/pagamento/{record.code}/pix/{qr_code['id']}"
        return Response.json(200, answer)
    charge = state.charges[order.charge_ids[-1]]
    answer["status"] = charge.status
    if charge.boleto_code is not None:
        boleto = charge.payment_method["boleto"]
        answer["boleto"] = {
            "line": boleto["formatted_barcode"],
            "pdf": f"{call.base_url}/boletos/{boleto['id']}/pdf",
        }
    elif charge.status == "DECLINED":
        answer["message"] = WORDS[language]["declined"]
    return Response.json(200, answer)


def pay_pix_from_page(state: State, call: Call) -> Response:
    """``POST /pagamento/{code}/pix/{QRCO_id}``: the emulated bank app pays the checkout's QR."""
    language = _language(call)
    record = find_by_code(state, call.params[0])
    qr_code = state.qr_codes.get(call.params[1])
    if record is None or qr_code is None or qr_code.order_id not in record.order_ids:
        return _problem(language, "checkout_not_found", status=404)
    try:
        pay_qr_code(state, qr_code, call.now)
    except ProviderError as error:
        return _problem(language, "invalid_field", error.parameter_name or "")
    notify_order(state, state.orders[qr_code.order_id], call.base_url)
    return Response.json(200, {"status": "PAID", "next": _next(record, call.base_url, language)})
