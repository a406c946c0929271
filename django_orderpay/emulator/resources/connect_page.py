"""The seller's side of Connect Authorization: PagBank's page asking for permission.

``GET /oauth2/authorize?client_id&response_type=code&redirect_uri&scope&state
[&code_challenge&code_challenge_method=S256]`` shows who asks (the
application's name) for what (each scope in PagBank's words), and a form
where the seller signs in (the emulator's sellers are e-mail addresses: each
is its own ``ACCO_`` account, with its own orders) and allows or denies.
Allowing sends the browser to ``redirect_uri?code=...&state=...``; denying
to ``redirect_uri?error=access_denied&state=...``. The page (and its error
page) is in the seller's language, as the emulator's other pages are
(:mod:`..serving.language`); its words are in the package's catalogue.

An unknown ``client_id`` or a ``redirect_uri`` other than the application's
(PagBank's reference: "a mesma utilizada na criação da aplicação"; any
http(s) URL with the setting ``redirect_uri: any``) is shown as an error
page (the browser is never sent to a URI the page does not take); any other
problem goes back to the application as ``?error=`` (``unsupported_response_type``,
``invalid_scope``, ``invalid_request``), as OAuth 2 does.
"""

from __future__ import annotations

import html
from datetime import datetime
from urllib.parse import parse_qs, urlencode

from ..serving.http import Response
from ..serving.language import language, words
from ..serving.language import mark as _
from ..state.oauth import CODE_TTL, seller_account
from ..state.store import Call, State
from .connect import HTTP_URL, REDIRECT_URI_LIMIT

#: Each scope as PagBank's authorisation page words it (its pt-BR in the catalogue).
SCOPES = {
    "payments.read": _("view orders and charges"),
    "payments.create": _("create and view orders and charges"),
    "payments.refund": _("make refunds"),
    "accounts.read": _("read the account's registration details"),
    "payments.split.read": _("view charges with split payments"),
    "checkout.create": _("create PagBank Checkouts"),
    "checkout.view": _("view PagBank Checkouts"),
    "checkout.update": _("update the PagBank Checkouts created"),
}
#: What the page carries from the application's request to the seller's answer.
CARRIED = ("client_id", "response_type", "redirect_uri", "scope", "state", "code_challenge")
STATE_LIMIT = 128

#: The pages' words, in the seller's language (see :mod:`..serving.language`).
TITLE = _("PagBank (emulator): authorise")
ERROR_TITLE = _("PagBank (emulator): error")
EMULATOR = _("emulator")
ASKS = _("%(name)s would like your permission to:")
EMAIL_LABEL = _("E-mail of your PagBank account")
ALLOW = _("Authorise")
DENY = _("Deny")
STAND_IN = _(
    "This page plays PagBank's part in django-orderpay's emulator: each e-mail is a seller's "
    "account of the emulator; no password is asked."
)
EMAIL_MISSING = _("Type the account's e-mail.")
UNKNOWN_CLIENT = _("Unknown application (client_id).")
OTHER_REDIRECT_URI = _("The redirect_uri is not the one registered for this application.")

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem">
<h1>PagBank <small>({emulator})</small></h1>
<p>{asks}</p>
<ul data-connect-scopes>{scopes}</ul>
{problem}
<form method="post" action="{action}">
{hidden}
<label for="email">{email_label}</label>
<input id="email" name="email" type="email" value="{email}" data-connect-email>
<p><button type="submit" name="decision" value="allow" data-connect-allow>{allow}</button>
<button type="submit" name="decision" value="deny" data-connect-deny>{deny}</button></p>
</form>
<p><small>{stand_in}</small></p>
</body></html>
"""
ERROR_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem">
<h1>PagBank <small>({emulator})</small></h1>
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
        raise _Refused("invalid_client", UNKNOWN_CLIENT, redirect=False)
    if not _takes(state, app.redirect_uri, asked["redirect_uri"]):
        raise _Refused("invalid_redirect_uri", OTHER_REDIRECT_URI, redirect=False)
    if asked["response_type"] != "code":
        raise _Refused("unsupported_response_type", "use response_type=code", redirect=True)
    scopes = asked["scope"].replace("+", " ").split()
    if not scopes or any(scope not in SCOPES for scope in scopes):
        raise _Refused("invalid_scope", "unknown scope", redirect=True)
    if len(asked["state"]) > STATE_LIMIT:
        raise _Refused("invalid_request", f"state: at most {STATE_LIMIT} characters", redirect=True)
    if asked["code_challenge"] and asked.get("code_challenge_method") != "S256":
        raise _Refused("invalid_request", "code_challenge_method must be S256", redirect=True)
    return app.name, scopes


def _refusal(call: Call, error: _Refused, asked: dict[str, str]) -> Response:
    """Back to the application with ``error`` (its description for the developer, in
    English, as OAuth's codes are), or the seller's error page in the seller's language."""
    if error.redirect:
        params = {"error": error.code, "error_description": error.message}
        if asked["state"]:
            params["state"] = asked["state"]
        return _back(asked["redirect_uri"], params)
    gettext = words(call.request).gettext
    page = ERROR_PAGE.format(
        lang=language(call.request),
        title=html.escape(gettext(ERROR_TITLE)),
        emulator=html.escape(gettext(EMULATOR)),
        code=error.code,
        message=html.escape(gettext(error.message)),
    )
    return _html(400, page)


def _page(call: Call, name: str, scopes: list[str], asked: dict[str, str], **extra: str) -> str:
    """The permission page in the seller's language (the shop's cookie, else the browser's)."""
    gettext = words(call.request).gettext
    hidden = "\n".join(
        f'<input type="hidden" name="{key}" value="{html.escape(asked[key])}">'
        for key in (*CARRIED, "code_challenge_method")
        if asked.get(key)
    )
    problem = extra.get("problem", "")
    app = f"<strong data-connect-app>{html.escape(name)}</strong>"
    return PAGE.format(
        lang=language(call.request),
        title=html.escape(gettext(TITLE)),
        emulator=html.escape(gettext(EMULATOR)),
        asks=html.escape(gettext(ASKS)) % {"name": app},
        scopes="".join(
            f'<li data-scope="{html.escape(s)}">{html.escape(gettext(SCOPES[s]))}</li>'
            for s in scopes
        ),
        problem=f'<p role="alert">{html.escape(gettext(problem))}</p>' if problem else "",
        action=html.escape(f"{call.base_url}/oauth2/authorize"),
        hidden=hidden,
        email_label=html.escape(gettext(EMAIL_LABEL)),
        email=html.escape(extra.get("email", "")),
        allow=html.escape(gettext(ALLOW)),
        deny=html.escape(gettext(DENY)),
        stand_in=html.escape(gettext(STAND_IN)),
    )


def _asked(values: dict[str, list[str]]) -> dict[str, str]:
    return {key: _first(values, key) for key in (*CARRIED, "code_challenge_method")}


def authorize_page(state: State, call: Call) -> Response:
    """``GET /oauth2/authorize``: the permission page (or the reason it can't be shown)."""
    asked = _asked(parse_qs(call.request.query, keep_blank_values=True))
    try:
        name, scopes = _check(state, asked)
    except _Refused as error:
        return _refusal(call, error, asked)
    return _html(200, _page(call, name, scopes, asked))


def authorize_answer(state: State, call: Call) -> Response:
    """``POST /oauth2/authorize`` (the page's form): back to the application, with a code."""
    values = parse_qs(call.request.body.decode("utf-8", "replace"), keep_blank_values=True)
    asked = _asked(values)
    try:
        name, scopes = _check(state, asked)
    except _Refused as error:
        return _refusal(call, error, asked)
    back = {"state": asked["state"]} if asked["state"] else {}
    if _first(values, "decision") != "allow":
        return _back(asked["redirect_uri"], {"error": "access_denied", **back})
    email = _first(values, "email").strip()
    if "@" not in email or len(email) > 254:
        page = _page(call, name, scopes, asked, problem=EMAIL_MISSING, email=email)
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
