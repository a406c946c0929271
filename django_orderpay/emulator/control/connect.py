"""The control plane's Connect calls: register an application, see and revoke grants.

``POST /_emulator/oauth/applications`` registers an application (what a
platform does once in PagBank's panel); ``GET /_emulator/oauth/grants`` lists
every seller's grant with its tokens (a test compares them with what the
shop stored); ``POST /_emulator/oauth/revoke`` ``{"account_id"}`` is a seller
revoking the platform's access in PagBank: its tokens stop working at once.
``GET``/``POST /_emulator/oauth/settings`` ``{"expires_in", "signer", "redirect_uri"}``:
how long access tokens live, and who signs a seller's notifications (``account``: its
access token; ``application``: the application's secret), both undocumented; and
which ``redirect_uri`` the authorisation page takes (``application``: the
application's own, as PagBank's reference; ``any``: any http(s) URL, as PagBank's
shared applications for its plugins).
"""

from __future__ import annotations

from ..resources.connect import register
from ..serving.http import Response
from ..state import errors
from ..state.clock import timestamp
from ..state.oauth import REDIRECT_URI_RULES, SIGNERS
from ..state.store import Call, State
from ..state.validation import reject_unknown, require_int, require_str


def register_application(state: State, call: Call) -> Response:
    """``POST /_emulator/oauth/applications`` ``{name, redirect_uri, client_id?, ...}``."""
    app = register(state, call.payload, None)
    return Response.json(201, app.as_json(with_secret=True))


def list_grants(state: State, call: Call) -> Response:
    """``GET /_emulator/oauth/grants``: every grant, oldest first, tokens included."""
    grants = [
        {
            "client_id": grant.client_id,
            "account_id": grant.account,
            "scope": grant.scope,
            "access_token": grant.access_token,
            "refresh_token": grant.refresh_token,
            "expires_at": timestamp(grant.expires_at),
            "refreshes": grant.refreshes,
            "revoked": grant.revoked,
        }
        for grant in state.oauth.grants
    ]
    return Response.json(200, {"grants": grants})


def revoke_account(state: State, call: Call) -> Response:
    """``POST /_emulator/oauth/revoke`` ``{"account_id", "client_id"?}``: the seller revokes."""
    reject_unknown(call.payload, {"account_id", "client_id"}, "")
    account = require_str(call.payload, "account_id", "")
    client_id = require_str(call.payload, "client_id", "", optional=True)
    revoked = 0
    for grant in state.oauth.grants:
        if grant.account == account and not grant.revoked:
            if client_id is None or grant.client_id == client_id:
                grant.revoked = True
                revoked += 1
    if not revoked:
        raise errors.invalid("account_id", "no_active_grant_for_this_account")
    return Response.json(200, {"revoked": revoked})


def _settings(state: State) -> dict[str, object]:
    oauth = state.oauth
    return {
        "expires_in": oauth.expires_in,
        "signer": oauth.signer,
        "redirect_uri": oauth.redirect_uri,
    }


def get_settings(state: State, call: Call) -> Response:
    """``GET /_emulator/oauth/settings``."""
    return Response.json(200, {"settings": _settings(state)})


def set_settings(state: State, call: Call) -> Response:
    """``POST /_emulator/oauth/settings`` ``{"expires_in"?, "signer"?, "redirect_uri"?}``."""
    reject_unknown(call.payload, {"expires_in", "signer", "redirect_uri"}, "")
    expires_in = require_int(
        call.payload, "expires_in", "", minimum=1, maximum=10 * 365 * 86400, optional=True
    )
    signer = require_str(call.payload, "signer", "", optional=True, choices=SIGNERS)
    redirect_uri = require_str(
        call.payload, "redirect_uri", "", optional=True, choices=REDIRECT_URI_RULES
    )
    if expires_in is not None:
        state.oauth.expires_in = expires_in
    if signer is not None:
        state.oauth.signer = signer
    if redirect_uri is not None:
        state.oauth.redirect_uri = redirect_uri
    return Response.json(200, {"settings": _settings(state)})
