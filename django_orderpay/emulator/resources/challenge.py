"""The emulated bank's 3-D Secure challenge: the page the SDK opens over the checkout.

``GET /checkout-sdk/challenges/{id}`` shows the amount and asks for the code
the bank "sent by SMS" (:data:`~.threeds.CHALLENGE_CODE`, printed on the
page: it is a test bank). Confirming or cancelling posts the answer
(``POST /checkout-sdk/challenges/{id}``) and tells the page that opened it
with ``postMessage({orderpay3ds: {id, status}})``, which the SDK's
``authenticate3DS`` resolves with.
"""

from __future__ import annotations

import html
import json

from ..serving.http import Response
from ..serving.language import language, money, words
from ..serving.language import mark as _
from ..state import errors
from ..state.store import Call, State
from ..state.threeds import CHALLENGE_PENDING
from .threeds import CHALLENGE_CODE

#: The page's words, in the reader's language (see :mod:`..serving.language`).
TITLE = _("Banco Emulado: confirm your purchase")
CONFIRM_PURCHASE = _(
    "Confirm a purchase of %(amount)s with your %(brand)s card ending in the digits you typed."
)
CODE_LABEL = _("Code sent to your phone")
HINT = _("Test bank: the code is %(code)s. Any other code, or Cancel, fails the challenge.")
UNREACHABLE = _("The bank could not be reached. Try again.")
CONFIRM = _("Confirm")
CANCEL = _("Cancel")

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 0; padding: 1.5rem; color: #1d2733; }}
h1 {{ font-size: 1.2rem; margin: 0 0 1rem; }}
label {{ display: block; margin: 1rem 0 .3rem; }}
input {{ font-size: 1.2rem; padding: .4rem; width: 8rem; letter-spacing: .2rem; }}
button {{ font-size: 1rem; padding: .5rem 1rem; margin: 1rem .5rem 0 0; }}
.hint {{ color: #5a6675; font-size: .9rem; }}
[role=alert] {{ color: #a4262c; }}
</style>
<script>
// In the head, listening on the document: the page can be answered the moment its
// form shows, before the parser reaches the end of the body (a fast or scripted
// shopper on a busy machine did, and the form was sent as a plain GET).
(function () {{
  var id = {auth_id};
  var sending = false;
  function finish(body) {{
    if (sending) return;
    sending = true;
    document.getElementById("problem").textContent = "";
    fetch(location.pathname, {{
      method: "POST",
      headers: {{"Content-Type": "application/json"}},
      body: JSON.stringify(body)
    }}).then(function (response) {{ return response.json(); }}).then(function (answer) {{
      var result = {{id: answer.id || null, status: answer.status || "CHANGE_PAYMENT_METHOD"}};
      if (answer.authenticationStatus) result.authenticationStatus = answer.authenticationStatus;
      (window.parent || window).postMessage({{orderpay3ds: result, challenge: id}}, "*");
    }}, function () {{
      // No answer heard: the shopper may answer again (a challenge the bank did
      // finish answers CHANGE_PAYMENT_METHOD then, which the SDK resolves with).
      sending = false;
      document.getElementById("problem").textContent = {unreachable};
    }});
  }}
  document.addEventListener("submit", function (event) {{
    if (event.target.id !== "challenge") return;
    event.preventDefault();
    finish({{code: event.target.elements.code.value}});
  }});
  document.addEventListener("click", function (event) {{
    if (event.target.id === "cancel") finish({{cancel: true}});
  }});
}})();
</script></head>
<body>
<h1>Banco Emulado · 3-D Secure</h1>
<p>{confirm_purchase}</p>
<form id="challenge">
<label for="code">{code_label}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12">
<p class="hint">{hint}</p>
<p id="problem" role="alert"></p>
<button type="submit" id="confirm">{confirm}</button>
<button type="button" id="cancel">{cancel}</button>
</form>
</body></html>"""


def challenge_page(state: State, call: Call) -> Response:
    """``GET /checkout-sdk/challenges/{id}``: the bank's page, while the challenge is open."""
    authentication = state.threeds.authentications.get(call.params[0])
    if authentication is None or authentication.status != CHALLENGE_PENDING:
        raise errors.not_found("challenge")
    if authentication.expires_at <= call.now:
        raise errors.not_found("challenge")
    lang = language(call.request)
    gettext = words(call.request).gettext
    amount = f"<strong>{money(authentication.amount, lang)}</strong>"
    page = PAGE.format(
        lang=lang,
        title=html.escape(gettext(TITLE)),
        confirm_purchase=html.escape(gettext(CONFIRM_PURCHASE))
        % {"amount": amount, "brand": html.escape(authentication.brand.capitalize())},
        code_label=html.escape(gettext(CODE_LABEL)),
        hint=html.escape(gettext(HINT) % {"code": CHALLENGE_CODE}),
        confirm=html.escape(gettext(CONFIRM)),
        cancel=html.escape(gettext(CANCEL)),
        unreachable=json.dumps(gettext(UNREACHABLE)),
        auth_id=json.dumps(authentication.id),
    )
    headers = [
        ("Content-Type", "text/html; charset=utf-8"),
        # A bank's challenge is shown in a frame of the shop's page, on any origin: this
        # wins over an X-Frame-Options a host adds (Django's clickjacking middleware does).
        ("Content-Security-Policy", "frame-ancestors *"),
    ]
    return Response(200, page.encode(), headers)
