"""Connect Authorization: send a seller to PagBank, and take the code it sends back.

:func:`start` keeps, on the server, a :class:`~django_orderpay.models.ConnectAuthorization`
bound to the user who started it: a random ``state`` (what comes back in
the callback's URL names it) and a PKCE verifier (only its S256 challenge
leaves the server). :func:`finish` takes the callback's ``state`` and
``code``: the authorisation must exist, be that same user's, be younger
than :data:`AUTHORIZATION_TTL`, and is used once; the code is exchanged
with the verifier for the seller's tokens, which are stored encrypted in
the :class:`~django_orderpay.models.ConnectedAccount` of the ``account_id``
PagBank answers (a new one, or the same account authorised again).

A ``state`` from another user's session (a link someone was sent to
connect *their* PagBank account to the victim's user, the classic OAuth
CSRF) is refused, as is a replayed or stale one.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import secrets
from typing import Any
from urllib.parse import urlencode

from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from django_orderpay.conf import get_settings
from django_orderpay.exceptions import ConnectApplicationRefused, OrderPayError, ProviderError
from django_orderpay.models import AccountState, ConnectAuthorization, ConnectedAccount
from django_orderpay.signals import announce_account_connected

from .applications import application_client
from .cipher import decrypt, encrypt

logger = logging.getLogger("django_orderpay.connect")

#: How long a seller may take on PagBank's page (the official plugin's 15 minutes).
AUTHORIZATION_TTL = dt.timedelta(minutes=15)
#: Authorisations under way kept per user: older ones are dropped as new ones start.
MAX_PENDING_PER_USER = 5


class ConnectFlowError(OrderPayError):
    """The callback can't connect an account: ``code`` says why, ``message`` for the user."""

    MESSAGES = {
        "unknown_state": _("This authorisation link is not valid (or was already used)."),
        "wrong_user": _("This authorisation was started by another user."),
        "expired": _("This authorisation took too long. Please start again."),
        "access_denied": _("The PagBank account owner did not authorise the platform."),
        "another_account": _(
            "PagBank authorised another account than the one being re-authorised."
        ),
        "exchange_failed": _("PagBank did not confirm the authorisation. Please try again."),
        "provider_error": _("PagBank answered with an error. Please try again."),
    }

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail
        message = self.MESSAGES.get(code, self.MESSAGES["provider_error"])
        super().__init__(f"{message} ({code}{': ' + detail if detail else ''})")

    @property
    def user_message(self) -> str:
        return str(self.MESSAGES.get(self.code, self.MESSAGES["provider_error"]))


def pkce_pair() -> tuple[str, str]:
    """A PKCE verifier (64 url-safe characters) and its S256 challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorize_url(*, state: str, challenge: str, redirect_uri: str) -> str:
    """PagBank's authorisation page for the settings' application and scopes."""
    conf = get_settings()
    query = urlencode(
        {
            "client_id": conf.connect_client_id or "",
            "response_type": "code",
            "redirect_uri": redirect_uri,
            "scope": " ".join(conf.connect_scopes),
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    return f"{conf.connect_url}/oauth2/authorize?{query}"


def start(
    user: Any,
    *,
    redirect_uri: str,
    account: ConnectedAccount | None = None,
    owner: models.Model | None = None,
    next_url: str = "",
) -> str:
    """Record an authorisation for ``user`` and answer the URL to send them to.

    ``account``: the connected account being authorised again (None: a new
    one). ``owner``: the shop's object the account will belong to (a seller,
    a store). ``next_url``: where the callback sends the user afterwards
    (checked by the view: a local URL).
    """
    now = timezone.now()
    verifier, challenge = pkce_pair()
    state = secrets.token_hex(32)
    mine = ConnectAuthorization.objects.filter(user=user)
    mine.filter(created_at__lt=now - AUTHORIZATION_TTL).delete()
    keep = list(mine.order_by("-created_at", "-pk").values_list("pk", flat=True))
    if len(keep) >= MAX_PENDING_PER_USER:
        ConnectAuthorization.objects.filter(pk__in=keep[MAX_PENDING_PER_USER - 1 :]).delete()
    ConnectAuthorization.objects.create(
        state=state,
        code_verifier_encrypted=encrypt(verifier),
        user=user,
        account=account,
        redirect_uri=redirect_uri,
        next_url=next_url,
        content_type=ContentType.objects.get_for_model(owner) if owner is not None else None,
        object_id=str(owner.pk) if owner is not None else "",
        created_at=now,
    )
    return authorize_url(state=state, challenge=challenge, redirect_uri=redirect_uri)


def _take(user: Any, state: str) -> ConnectAuthorization:
    """The authorisation ``state`` names, removed (used once), or :class:`ConnectFlowError`."""
    pending = ConnectAuthorization.objects.filter(state=state).select_related("account").first()
    if not state or pending is None:
        raise ConnectFlowError("unknown_state")
    if pending.user_id != getattr(user, "pk", None):
        logger.warning("Connect callback with another user's state (authorisation %s)", pending.pk)
        raise ConnectFlowError("wrong_user")
    # One use: only the request that deletes it goes on (a double submit, a replay).
    if ConnectAuthorization.objects.filter(pk=pending.pk).delete()[0] == 0:
        raise ConnectFlowError("unknown_state")
    if pending.created_at < timezone.now() - AUTHORIZATION_TTL:
        raise ConnectFlowError("expired")
    return pending


def finish(
    user: Any, *, state: str, code: str = "", error: str = ""
) -> tuple[str, ConnectedAccount]:
    """Complete the authorisation ``state`` names; ``(next_url, the connected account)``.

    ``error`` is the callback's ``error`` parameter (the seller denied:
    ``access_denied``). Raises :class:`ConnectFlowError`.
    """
    pending = _take(user, state)
    if error:
        raise ConnectFlowError(
            "access_denied" if error == "access_denied" else "provider_error", error
        )
    if not code:
        raise ConnectFlowError("provider_error", "no code")
    try:
        with application_client() as connect:
            answer = connect.exchange_code(
                code,
                redirect_uri=pending.redirect_uri,
                code_verifier=decrypt(pending.code_verifier_encrypted),
            )
    except ConnectApplicationRefused as exc:
        logger.error("Connect code exchange failed: %s", exc)  # names the settings to fix
        raise ConnectFlowError("exchange_failed", f"{type(exc).__name__} {exc.status}") from exc
    except ProviderError as exc:
        logger.warning("Connect code exchange failed: %s", type(exc).__name__)
        raise ConnectFlowError("exchange_failed", f"{type(exc).__name__} {exc.status}") from exc
    if not answer.account_id:
        raise ConnectFlowError("exchange_failed", "no account_id in the answer")
    if pending.account is not None and pending.account.account_id != answer.account_id:
        raise ConnectFlowError("another_account", answer.account_id)
    return pending.next_url, _store(user, pending, answer)


def _store(user: Any, pending: ConnectAuthorization, answer: Any) -> ConnectedAccount:
    conf = get_settings()
    now = timezone.now()
    with transaction.atomic():
        account = (
            ConnectedAccount.objects.select_for_update()
            .filter(account_id=answer.account_id, environment=conf.environment)
            .first()
        )
        created = account is None
        if account is None:
            account = ConnectedAccount(
                account_id=answer.account_id, environment=conf.environment, connected_at=now
            )
        account.client_id = conf.connect_client_id or ""
        account.set_tokens(
            access_token=answer.access_token,
            refresh_token=answer.refresh_token,
            expires_in=answer.expires_in,
            scope=answer.scope,
            now=now,
        )
        # A new authorisation: the access token it replaces no longer signs anything.
        account.previous_access_token_encrypted = ""
        if account.state != AccountState.ACTIVE:
            account.state_changed_at = now
        account.state = AccountState.ACTIVE
        account.last_error = ""
        account.user = user
        if pending.content_type_id is not None:
            account.content_type_id = pending.content_type_id
            account.object_id = pending.object_id
        account.save()
        announce_account_connected(account, user, created)
    logger.info(
        "Connect: account %s %s", account.account_id, "connected" if created else "re-authorised"
    )
    return account
