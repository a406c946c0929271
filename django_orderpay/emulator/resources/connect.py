"""PagBank Connect's API, emulated: an application's token calls and its registry.

- ``POST /oauth2/token`` (``authorization_code``: a code and its PKCE
  verifier for a seller's tokens; ``refresh_token`` is taken here too);
- ``POST /oauth2/refresh``: new access *and* refresh tokens (the refresh
  token sent is spent: using it again is ``41012``);
- ``POST /oauth2/revoke``: an access or refresh token ends (and the grant);
- ``POST /oauth2/application``, ``GET /oauth2/application/{client_id}``:
  the registry, with a merchant's bearer token.

The token calls authenticate the *application* (``Authorization: Pub
<secret>``, or a merchant's ``Bearer`` with ``X_CLIENT_ID`` and
``X_CLIENT_SECRET``: the core does, see ``Emulator._application``). Errors
are PagBank Connect's codes (``41004 invalid_grant``...) in the API's error
shape. The seller's side, the authorisation page, is :mod:`.connect_page`.
"""

from __future__ import annotations

import hmac
import re
import secrets
import uuid
from datetime import timedelta
from typing import Any

from ..serving.http import Response
from ..state import errors
from ..state.oauth import Application, Grant, s256
from ..state.store import Call, State
from ..state.validation import reject_unknown, require_str

#: ``redirect_uri``: 5 to 350 characters (the authorisation page's parameter).
REDIRECT_URI_LIMIT = (5, 350)
GRANT_TYPES = ("authorization_code", "refresh_token", "sms", "challenge")
TOKEN_HINTS = ("access_token", "refresh_token")
#: The token call's documented body (``code_verifier``: PKCE, sent by the official plugins).
TOKEN_KEYS = frozenset(
    {
        "grant_type",
        "code",
        "sms_code",
        "redirect_uri",
        "email",
        "scope",
        "authorization_id",
        "code_verifier",
    }
)
HTTP_URL = re.compile(r"https?://\S+")


def _answer(grant: Grant, expires_in: int) -> Response:
    return Response.json(
        200,
        {
            "token_type": "Bearer",
            "access_token": grant.access_token,
            "expires_in": expires_in,
            "refresh_token": grant.refresh_token,
            "scope": grant.scope,
            "account_id": grant.account,
        },
    )


def _application(state: State, call: Call) -> Application:
    app = state.oauth.applications.get(call.client_id or "")
    if app is None:  # the core authenticated it: only a reset between could do this
        raise errors.connect_error("41003", 401)
    return app


def token(state: State, call: Call) -> Response:
    """``POST /oauth2/token``: a code (or a refresh token) for tokens."""
    grant_type = require_str(call.payload, "grant_type", "")
    if grant_type not in GRANT_TYPES:
        raise errors.connect_error("41005", parameter_name="grant_type")
    if grant_type == "refresh_token":
        return refresh(state, call)
    if grant_type != "authorization_code":
        # Documented, but they need a phone (SMS) or a certificate (challenge): not emulated.
        raise errors.connect_error("41005", parameter_name="grant_type")
    reject_unknown(call.payload, TOKEN_KEYS, "")
    app = _application(state, call)
    code_value = require_str(call.payload, "code", "")
    redirect_uri = require_str(call.payload, "redirect_uri", "", limit=REDIRECT_URI_LIMIT)
    verifier = require_str(call.payload, "code_verifier", "", optional=True)
    code = state.oauth.codes.get(code_value)
    if code is None or code.used or code.client_id != app.client_id or code.expires_at <= call.now:
        raise errors.connect_error("41004", parameter_name="code")
    code.used = True
    if redirect_uri != code.redirect_uri:
        raise errors.connect_error("41002", parameter_name="redirect_uri")
    if code.challenge is not None and (
        verifier is None or not hmac.compare_digest(s256(verifier), code.challenge)
    ):
        raise errors.connect_error("41004", parameter_name="code_verifier")
    expires_in = state.oauth.expires_in
    grant = state.oauth.issue(
        app.client_id, code.account, code.scope, call.now + timedelta(seconds=expires_in)
    )
    return _answer(grant, expires_in)


def refresh(state: State, call: Call) -> Response:
    """``POST /oauth2/refresh`` ``{grant_type: refresh_token, refresh_token}``."""
    reject_unknown(call.payload, {"grant_type", "refresh_token"}, "")
    grant_type = require_str(call.payload, "grant_type", "", optional=True)
    if grant_type not in (None, "refresh_token"):
        raise errors.connect_error("41005", parameter_name="grant_type")
    app = _application(state, call)
    sent = require_str(call.payload, "refresh_token", "")
    grant = state.oauth.by_refresh_token(sent)
    if grant is None:
        known = sent in state.oauth.spent or any(
            g.revoked and g.refresh_token == sent for g in state.oauth.grants
        )
        raise errors.connect_error("41012" if known else "41004", parameter_name="refresh_token")
    if grant.client_id != app.client_id:
        raise errors.connect_error("41004", parameter_name="refresh_token")
    expires_in = state.oauth.expires_in
    state.oauth.rotate(grant, call.now + timedelta(seconds=expires_in))
    return _answer(grant, expires_in)


def revoke(state: State, call: Call) -> Response:
    """``POST /oauth2/revoke`` ``{token_type_hint, token}``: 200; the grant ends.

    A token unknown to this application is answered 200 too (RFC 7009:
    nothing to tell a caller about tokens that are not its own).
    """
    reject_unknown(call.payload, {"token_type_hint", "token"}, "")
    hint = require_str(call.payload, "token_type_hint", "", optional=True)
    if hint is not None and hint not in TOKEN_HINTS:
        raise errors.connect_error("41007", parameter_name="token_type_hint")
    app = _application(state, call)
    sent = require_str(call.payload, "token", "")
    for grant in state.oauth.grants:
        if grant.client_id != app.client_id or grant.revoked:
            continue
        if sent in (grant.access_token, grant.refresh_token) or sent in grant.earlier:
            grant.revoked = True
    return Response.json(200, {})


def register(state: State, payload: dict[str, Any], account: str | None) -> Application:
    """A new application from ``payload`` (``name``, ``redirect_uri``...)."""
    reject_unknown(
        payload,
        {"client_id", "client_secret", "name", "description", "site", "redirect_uri", "logo"},
        "",
    )
    name = require_str(payload, "name", "", limit=(1, 100))
    redirect_uri = require_str(payload, "redirect_uri", "", limit=REDIRECT_URI_LIMIT)
    if not HTTP_URL.fullmatch(redirect_uri):
        raise errors.invalid("redirect_uri")
    app = Application(
        client_id=require_str(payload, "client_id", "", optional=True, limit=(1, 64))
        or str(uuid.uuid4()),
        client_secret=require_str(payload, "client_secret", "", optional=True, limit=(1, 512))
        or secrets.token_urlsafe(48),
        name=name,
        redirect_uri=redirect_uri,
        description=require_str(payload, "description", "", optional=True) or "",
        site=require_str(payload, "site", "", optional=True) or "",
        logo=require_str(payload, "logo", "", optional=True) or "",
        account=account,
    )
    state.oauth.applications[app.client_id] = app
    return app


def create_application(state: State, call: Call) -> Response:
    """``POST /oauth2/application`` (a merchant's bearer token): 201, the application."""
    if "client_id" in call.payload or "client_secret" in call.payload:
        raise errors.unknown("client_id" if "client_id" in call.payload else "client_secret")
    app = register(state, call.payload, call.merchant)
    return Response.json(201, app.as_json(with_secret=True))


def get_application(state: State, call: Call) -> Response:
    """``GET /oauth2/application/{client_id}``: the application, if the caller made it."""
    app = state.oauth.applications.get(call.params[0])
    if app is None or app.account != call.merchant:
        raise errors.connect_error("41003", parameter_name="client_id")
    return Response.json(200, app.as_json())
