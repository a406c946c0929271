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
from ..serving.language import language, money, words
from ..serving.language import mark as _
from ..state.store import Call, State
from .cards import ANTIFRAUD_DECLINED, SUCCESS
from .deeplinks import Deeplink
from .orders import has_open_charge
from .pagpay import find_deeplink, pay_deeplink

#: The page's words, in the payer's language (see :mod:`..serving.language`).
TITLE = _("PagBank (emulator)")
PAYMENT_OF = _("Payment of %(amount)s")
STATUS = _("Status: %(status)s")
NO_REAL_MONEY = _(
    "This page stands in for the PagBank app in django-orderpay's emulator: no real money moves."
)
PAY = _("Pay with balance")
REFUSE = _("Refuse")
STATUS_WORDS = {"OPEN": _("waiting for payment"), "PAID": _("paid"), "EXPIRED": _("expired")}

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 30rem; margin: 2rem auto; padding: 0 1rem">
<h1>{title}</h1>
<p>{payment_of}</p>
<p>{status}</p>
{forms}
<p><small>{no_real_money}</small></p>
</body></html>
"""
FORMS = """<form method="post" action="{pay}">
<button type="submit" data-app-pay>{pay_words}</button></form>
<form method="post" action="{decline}">
<button type="submit" data-app-decline>{refuse_words}</button></form>"""


def wants_html(call: Call) -> bool:
    """A browser's request (``Accept: text/html``), not an API client's."""
    return "text/html" in (call.request.header("Accept") or "")


def app_page(state: State, call: Call, deeplink: Deeplink, status: str) -> Response:
    """The page of ``deeplink`` in ``status`` (OPEN, PAID, EXPIRED)."""
    href = f"{call.base_url}/pagpay/app/{deeplink.id}"
    lang, gettext = language(call.request), words(call.request).gettext
    forms = FORMS.format(
        pay=html.escape(f"{href}/pay"),
        decline=html.escape(f"{href}/decline"),
        pay_words=html.escape(gettext(PAY)),
        refuse_words=html.escape(gettext(REFUSE)),
    )
    status_words = gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status
    page = PAGE.format(
        lang=lang,
        title=html.escape(gettext(TITLE)),
        payment_of=html.escape(gettext(PAYMENT_OF) % {"amount": money(deeplink.amount, lang)}),
        status=html.escape(gettext(STATUS))
        % {"status": f"<strong data-app-status>{html.escape(status_words)}</strong>"},
        no_real_money=html.escape(gettext(NO_REAL_MONEY)),
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
