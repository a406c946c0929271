"""The deeplink as a person sees it: the emulator's stand-in for the PagBank app.

A deeplink URL opens the PagBank app on a phone. Opened in a browser (a page
that asks for HTML), the emulator shows the order's amount and state with two
buttons, pay with the app's balance or refuse, which pay as the sandbox's
balance simulator does; then it sends the payer back to the order's
``redirect_url`` when that is a web address, as the app would.
"""

from __future__ import annotations

import html

from ..serving.http import Response
from ..state.store import Call, State
from .cards import ANTIFRAUD_DECLINED, SUCCESS
from .deeplinks import Deeplink
from .orders import has_open_charge
from .pagpay import find_deeplink, pay_deeplink

PAGE = """<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>PagBank (emulador)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 30rem; margin: 2rem auto; padding: 0 1rem">
<h1>PagBank <small>(emulador)</small></h1>
<p>Pagamento de R$ {reais}</p>
<p>Situação: <strong data-app-status>{status}</strong></p>
{forms}
<p><small>Esta página faz o papel do app do PagBank no emulador do django-orderpay:
nenhum dinheiro de verdade se move.</small></p>
</body></html>
"""
FORMS = """<form method="post" action="{pay}">
<button type="submit" data-app-pay>Pagar com saldo</button></form>
<form method="post" action="{decline}">
<button type="submit" data-app-decline>Recusar</button></form>"""
STATUS_WORDS = {"OPEN": "aguardando pagamento", "PAID": "pago", "EXPIRED": "expirado"}


def wants_html(call: Call) -> bool:
    """A browser's request (``Accept: text/html``), not an API client's."""
    return "text/html" in (call.request.header("Accept") or "")


def app_page(state: State, call: Call, deeplink: Deeplink, status: str) -> Response:
    """The page of ``deeplink`` in ``status`` (OPEN, PAID, EXPIRED)."""
    href = f"{call.base_url}/pagpay/app/{deeplink.id}"
    forms = FORMS.format(pay=html.escape(f"{href}/pay"), decline=html.escape(f"{href}/decline"))
    page = PAGE.format(
        reais=f"{deeplink.amount // 100},{deeplink.amount % 100:02d}",
        status=html.escape(STATUS_WORDS.get(status, status)),
        forms=forms if status == "OPEN" else "",
    )
    return Response(200, page.encode(), [("Content-Type", "text/html; charset=utf-8")])


def pay_from_page(state: State, call: Call) -> Response:
    """``POST /pagpay/app/{id}/pay``: paid with balance, then back to the shop (303)."""
    return _answer(state, call, paid=True)


def decline_from_page(state: State, call: Call) -> Response:
    """``POST /pagpay/app/{id}/decline``: the balance payment refused, then back (303)."""
    return _answer(state, call, paid=False)


def _answer(state: State, call: Call, *, paid: bool) -> Response:
    deeplink = find_deeplink(state, call.params[0])
    order = state.orders[deeplink.order_id]
    if not has_open_charge(state, order):
        pay_deeplink(
            state,
            call,
            deeplink,
            payment_method={"type": "ACCOUNT_BALANCE"},
            outcome=SUCCESS if paid else ANTIFRAUD_DECLINED,
        )
    # Back where the app would send the payer: a web redirect_url, else this page.
    target = deeplink.redirect_url or ""
    if not target.startswith(("http://", "https://")):
        target = f"{call.base_url}/pagpay/download?f=order&r={deeplink.id}"
    return Response(303, b"", [("Location", target)])
