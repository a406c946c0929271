"""The seller's side of Connect Authorization: PagBank's page asking for permission.

``GET /oauth2/authorize?client_id&response_type=code&redirect_uri&scope&state
[&code_challenge&code_challenge_method=S256]`` shows who asks (the
application's name) for what (each scope in PagBank's words), and a form
where the seller signs in (the emulator's sellers are e-mail addresses: each
is its own ``ACCO_`` account, with its own orders) and allows or denies.
Allowing sends the browser to ``redirect_uri?code=...&state=...``; denying
to ``redirect_uri?error=access_denied&state=...``.

An unknown ``client_id`` or a ``redirect_uri`` other than the application's
(PagBank's reference: "a mesma utilizada na criação da aplicação"; any
http(s) URL with the setting ``redirect_uri: any``) is shown as an error
page (the browser is never sent to a URI the page does not take); any other problem goes back to the
application as ``?error=`` (``unsupported_response_type``,
``invalid_scope``, ``invalid_request``), as OAuth 2 does.
"""

from __future__ import annotations

import html
from datetime import datetime
from urllib.parse import parse_qs, urlencode

from ..serving.http import Response
from ..state.oauth import CODE_TTL, seller_account
from ..state.store import Call, State
from .connect import HTTP_URL, REDIRECT_URI_LIMIT

#: PagBank's words for each scope (the authorisation reference page).
SCOPES = {
    "payments.read": "visualizar pedidos e cobranças",
    "payments.create": "criar e visualizar pedidos e cobranças",
    "payments.refund": "fazer reembolsos",
    "accounts.read": "consultar os dados de cadastro",
    "payments.split.read": "visualizar cobranças com divisão de pagamento",
    "checkout.create": "criar Checkout PagBank",
    "checkout.view": "visualizar Checkout PagBank",
    "checkout.update": "atualizar checkouts PagBank criados",
}
#: What the page carries from the application's request to the seller's answer.
CARRIED = ("client_id", "response_type", "redirect_uri", "scope", "state", "code_challenge")
STATE_LIMIT = 128

PAGE = """<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>PagBank (emulador): autorizar</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem">
<h1>PagBank <small>(emulador)</small></h1>
<p><strong data-connect-app>{name}</strong> gostaria de sua permissão para:</p>
<ul data-connect-scopes>{scopes}</ul>
{problem}
<form method="post" action="{action}">
{hidden}
<label for="email">E-mail da sua conta PagBank</label>
<input id="email" name="email" type="email" value="{email}" data-connect-email>
<p><button type="submit" name="decision" value="allow" data-connect-allow>Autorizar</button>
<button type="submit" name="decision" value="deny" data-connect-deny>Negar</button></p>
</form>
<p><small>Esta página faz o papel do PagBank no emulador do django-orderpay: cada e-mail é
uma conta de vendedor do emulador; nenhuma senha é pedida.</small></p>
</body></html>
"""
ERROR_PAGE = """<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>PagBank (emulador): erro</title></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem">
<h1>PagBank <small>(emulador)</small></h1>
<p role="alert" data-connect-error="{code}">{message}</p>
</body></html>
"""


class _Refused(Exception):
    """The request can't go on: an error page, or back to the application with ``error``."""

    def __init__(self, code: str, message: str, *, redirect: bool) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.redirect = redirect


def _html(status: int, page: str) -> Response:
    return Response(status, page.encode(), [("Content-Type", "text/html; charset=utf-8")])


def _back(redirect_uri: str, params: dict[str, str]) -> Response:
    separator = "&" if "?" in redirect_uri else "?"
    return Response(302, b"", [("Location", redirect_uri + separator + urlencode(params))])


def _first(values: dict[str, list[str]], name: str) -> str:
    found = values.get(name) or [""]
    return found[0]


def _takes(state: State, registered: str, asked: str) -> bool:
    """Whether the page sends the seller back to ``asked``: the application's ``registered``
    URI itself, or (setting ``redirect_uri: any``) any http(s) URL of 5 to 350 characters."""
    if asked == registered:
        return True
    shortest, longest = REDIRECT_URI_LIMIT
    return (
        state.oauth.redirect_uri == "any"
        and shortest <= len(asked) <= longest
        and HTTP_URL.fullmatch(asked) is not None
    )


def _check(state: State, asked: dict[str, str]) -> tuple[str, list[str]]:
    """The application's name and the scopes asked, or :class:`_Refused`."""
    app = state.oauth.applications.get(asked["client_id"])
    if app is None:
        raise _Refused("invalid_client", "Aplicação desconhecida (client_id).", redirect=False)
    if not _takes(state, app.redirect_uri, asked["redirect_uri"]):
        raise _Refused(
            "invalid_redirect_uri",
            "A redirect_uri não é a cadastrada para esta aplicação.",
            redirect=False,
        )
    if asked["response_type"] != "code":
        raise _Refused("unsupported_response_type", "use response_type=code", redirect=True)
    scopes = asked["scope"].replace("+", " ").split()
    if not scopes or any(scope not in SCOPES for scope in scopes):
        raise _Refused("invalid_scope", "escopo desconhecido", redirect=True)
    if len(asked["state"]) > STATE_LIMIT:
        raise _Refused("invalid_request", "state: até 128 caracteres", redirect=True)
    if asked["code_challenge"] and asked.get("code_challenge_method") != "S256":
        raise _Refused("invalid_request", "code_challenge_method must be S256", redirect=True)
    return app.name, scopes


def _refusal(error: _Refused, asked: dict[str, str]) -> Response:
    if error.redirect:
        params = {"error": error.code, "error_description": error.message}
        if asked["state"]:
            params["state"] = asked["state"]
        return _back(asked["redirect_uri"], params)
    return _html(400, ERROR_PAGE.format(code=error.code, message=html.escape(error.message)))


def _page(call: Call, name: str, scopes: list[str], asked: dict[str, str], **extra: str) -> str:
    hidden = "\n".join(
        f'<input type="hidden" name="{key}" value="{html.escape(asked[key])}">'
        for key in (*CARRIED, "code_challenge_method")
        if asked.get(key)
    )
    problem = extra.get("problem", "")
    return PAGE.format(
        name=html.escape(name),
        scopes="".join(
            f'<li data-scope="{html.escape(s)}">{html.escape(SCOPES[s])}</li>' for s in scopes
        ),
        problem=f'<p role="alert">{html.escape(problem)}</p>' if problem else "",
        action=html.escape(f"{call.base_url}/oauth2/authorize"),
        hidden=hidden,
        email=html.escape(extra.get("email", "")),
    )


def _asked(values: dict[str, list[str]]) -> dict[str, str]:
    return {key: _first(values, key) for key in (*CARRIED, "code_challenge_method")}


def authorize_page(state: State, call: Call) -> Response:
    """``GET /oauth2/authorize``: the permission page (or the reason it can't be shown)."""
    asked = _asked(parse_qs(call.request.query, keep_blank_values=True))
    try:
        name, scopes = _check(state, asked)
    except _Refused as error:
        return _refusal(error, asked)
    return _html(200, _page(call, name, scopes, asked))


def authorize_answer(state: State, call: Call) -> Response:
    """``POST /oauth2/authorize`` (the page's form): back to the application, with a code."""
    values = parse_qs(call.request.body.decode("utf-8", "replace"), keep_blank_values=True)
    asked = _asked(values)
    try:
        name, scopes = _check(state, asked)
    except _Refused as error:
        return _refusal(error, asked)
    back = {"state": asked["state"]} if asked["state"] else {}
    if _first(values, "decision") != "allow":
        return _back(asked["redirect_uri"], {"error": "access_denied", **back})
    email = _first(values, "email").strip()
    if "@" not in email or len(email) > 254:
        page = _page(call, name, scopes, asked, problem="Informe o e-mail da conta.", email=email)
        return _html(400, page)
    code = state.oauth.new_code(
        client_id=asked["client_id"],
        account=seller_account(email),
        scope=" ".join(scopes),
        redirect_uri=asked["redirect_uri"],
        challenge=asked["code_challenge"] or None,
        expires_at=_expiry(call.now),
    )
    return _back(asked["redirect_uri"], {"code": code.code, **back})


def _expiry(now: datetime) -> datetime:
    return now + CODE_TTL
