"""A connected account's access token for each request: refreshed before expiry, and on a 401.

:class:`AccountTokens` is the client's :class:`~django_orderpay.client.TokenSource`
for one :class:`~django_orderpay.models.ConnectedAccount`. It keeps the
token in memory and goes to the database only when the token is due for a
refresh (:meth:`ConnectedAccount.refresh_due`) or PagBank answered 401.

**One refresh at a time per account, across processes.** A refresh replaces
the refresh token too: the one sent stops working. Two processes
refreshing with the same refresh token would see the second refused and
the account wrongly marked. So a refresh runs holding the account's row
lock (``SELECT ... FOR UPDATE``), and looks again once it has it: if another
process refreshed meanwhile (the token it holds is no longer the rejected
one, or no longer due), that token is used and nothing is sent.

**Committed on its own.** The new tokens are written in a transaction of
their own, committed before the request goes on: a refresh saved inside a
caller's transaction that then rolled back would lose the only working
refresh token. Inside a caller's transaction the refresh runs on a second
connection (a thread of its own); where that can't see or lock the row (the
caller created or changed it and has not committed: SQLite, or a test's
transaction) it runs in the caller's transaction, and commits with it.

**Refused** (the seller's grant: ``invalid_grant``,
``token_is_no_longer_active``, ``client.connect.REFUSED_GRANT_ERRORS``): the
account is marked ``needs_authorization`` (committed) and
:class:`~django_orderpay.exceptions.AccountNeedsAuthorization` raised.
**The application refused** (``invalid_client``, ``unauthorized_client``...:
``CONNECT_CLIENT_ID``/``CONNECT_CLIENT_SECRET`` are wrong): a configuration
error, logged; the account is left as it is (its ``last_error`` says so), a
token not expired yet goes on being used, and after a 401 (or when staff asked
for the refresh)
:class:`~django_orderpay.exceptions.ConnectApplicationRefused` is raised.
**Unavailable** (a timeout, a 5xx): a token not expired yet goes on being
used; after a 401 the 401 stands (nothing was done).

Staff may retry the refresh of an account marked ``needs_authorization``
(:meth:`AccountTokens.refresh`): a refresh token PagBank takes again (the
mark came from a refusal that was not the seller's) makes it ``active``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone

from django_orderpay.client.connect import is_refused_grant
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import (
    AccountNeedsAuthorization,
    ConnectApplicationRefused,
    OrderPayError,
    ProviderError,
)
from django_orderpay.models import AccountState, ConnectedAccount
from django_orderpay.models.accounts import refresh_due
from django_orderpay.models.base import ERROR_TEXT_KEPT
from django_orderpay.redaction import redact_text
from django_orderpay.signals import announce_account_needs_authorization
from django_orderpay.sync.locking import sync_transaction

from .applications import application_client

logger = logging.getLogger("django_orderpay.connect")

#: Seconds before a refresh PagBank could not answer is tried again (while the token works).
REFRESH_RETRY_AFTER = 60.0

T = TypeVar("T")


def needs_authorization(account: ConnectedAccount) -> AccountNeedsAuthorization:
    """The exception for an account the platform may not act for (no token in it)."""
    why = (
        "the platform disconnected it"
        if account.state == AccountState.REVOKED
        else "PagBank refused its tokens (expired, or revoked by the seller)"
    )
    return AccountNeedsAuthorization(
        f"connected account {account.account_id} needs re-authorisation: {why}; "
        "send its seller through the Connect authorisation again",
        account_id=account.account_id,
    )


#: Why a refresh is asked: due before expiry, after a 401, or by staff ("refresh now").
DUE, REJECTED, ASKED = "due", "rejected", "asked"


@dataclass(frozen=True)
class _Outcome:
    """What a locked look at the account decided (raised after its transaction commits)."""

    token: str | None
    expires_at: dt.datetime | None
    issued_at: dt.datetime | None
    #: Raised once the transaction committed: the account's refusal, or the application's.
    refused: OrderPayError | None = None
    #: A refresh was due and PagBank could not answer it.
    unanswered: bool = False


class _RowNotReady(Exception):
    """The second connection can't see or lock the account's row: use the caller's."""


def in_own_transaction(work: Callable[[bool], T]) -> T:
    """``work(independent)`` in a transaction committed on its own, if at all possible.

    Outside any transaction: one of its own. Inside a caller's: on a second
    connection, in a thread (``independent`` True: lock without waiting on
    the caller's own row lock); if that can't see or lock the row, in the
    caller's transaction.
    """
    if not connection.in_atomic_block:
        with sync_transaction():
            return work(False)
    if connection.vendor != "sqlite":
        result: list[Any] = []

        def run() -> None:
            try:
                with transaction.atomic():
                    result.append(work(True))
            except BaseException as exc:  # handed to the caller's thread
                result.append(exc)
            finally:
                connections.close_all()

        thread = threading.Thread(target=run, name="orderpay-connect-refresh", daemon=True)
        thread.start()
        thread.join()
        found = result[0] if result else RuntimeError("the refresh thread ended without a word")
        if not isinstance(found, _RowNotReady):
            if isinstance(found, BaseException):
                raise found
            return found
    with sync_transaction():
        return work(False)


class AccountTokens:
    """The token source of one connected account (one per cached client, per thread)."""

    def __init__(self, account_pk: int) -> None:
        self.account_pk = account_pk
        self._token: str | None = None
        self._expires_at: dt.datetime | None = None
        self._issued_at: dt.datetime | None = None
        #: After a refresh PagBank could not answer, the next is not tried before this
        #: (``time.monotonic()``): an outage must not cost every request a refresh call.
        self._quiet_until = 0.0

    def __repr__(self) -> str:
        return f"<AccountTokens of account {self.account_pk}>"

    def secrets(self) -> tuple[str, ...]:
        return (self._token,) if self._token else ()

    def _due(self) -> bool:
        if time.monotonic() < self._quiet_until:
            return False
        margin = get_settings().connect_refresh_margin
        return refresh_due(self._expires_at, self._issued_at, margin)

    def token(self) -> str:
        """The token to send now: the kept one, unless a refresh is due."""
        if self._token is None or self._due():
            self._look(rejected=None)
        return self._token or ""

    def renewed(self, rejected: str) -> str | None:
        """After a 401 to ``rejected``: a token to try once more with, or None."""
        self._look(rejected=rejected)
        return self._token if self._token and self._token != rejected else None

    def refresh(self) -> bool:
        """Refresh now, whatever the token's age (staff's "refresh now"): also an account
        marked ``needs_authorization``, whose refresh token PagBank may take again.

        True when refreshed; False when PagBank could not answer (nothing changed).
        Raises ``AccountNeedsAuthorization`` (refused: the account is, or stays,
        marked) or ``ConnectApplicationRefused`` (the account is left as it is).
        """
        return self._look(rejected=None, asked=True).token is not None

    def _look(self, *, rejected: str | None, asked: bool = False) -> _Outcome:
        outcome = in_own_transaction(
            lambda independent: self._locked(rejected, independent, asked=asked)
        )
        if isinstance(outcome.refused, AccountNeedsAuthorization):
            self._token = None
        if outcome.refused is not None:
            raise outcome.refused
        if outcome.token is not None:
            self._token = outcome.token
            self._expires_at, self._issued_at = outcome.expires_at, outcome.issued_at
        if outcome.unanswered:
            self._quiet_until = time.monotonic() + REFRESH_RETRY_AFTER
        return outcome

    def _locked(self, rejected: str | None, independent: bool, *, asked: bool) -> _Outcome:
        """The account's row locked: use its token, or refresh it (only if still needed)."""
        rows = ConnectedAccount.objects.select_for_update(nowait=independent)
        try:
            account = rows.filter(pk=self.account_pk).first()
        except DatabaseError:
            if independent:
                # Locked: by the caller's own transaction (it changed the row), or
                # another process refreshing; the caller's connection waits its turn.
                raise _RowNotReady from None
            raise
        if account is None:
            if independent:
                raise _RowNotReady
            raise ConnectedAccount.DoesNotExist(f"connected account {self.account_pk} is gone")
        retried = asked and account.state == AccountState.NEEDS_AUTHORIZATION
        if not account.is_active and not retried:
            return _Outcome(None, None, None, refused=needs_authorization(account))
        current = account.access_token()
        kept = _Outcome(current, account.token_expires_at, account.token_issued_at)
        if asked:
            why = ASKED
        elif rejected is not None:
            if current != rejected:
                logger.debug("account %s: token refreshed meanwhile", account.account_id)
                return kept
            why = REJECTED
        elif account.refresh_due(get_settings().connect_refresh_margin):
            why = DUE
        else:
            return kept
        refreshed = _refresh(account, why)
        if refreshed is not None and (
            why != DUE or not isinstance(refreshed.refused, ConnectApplicationRefused)
        ):
            return refreshed
        if why == DUE:  # the token works until it expires: go on with it
            return dataclasses.replace(kept, unanswered=True)
        return _Outcome(None, None, None, unanswered=True)  # a 401 stands; "refresh now" says so


def _refresh(account: ConnectedAccount, why: str) -> _Outcome | None:
    """``POST /oauth2/refresh`` for the locked ``account``: its new token, a refusal (the
    seller's grant, or the application's), or None when PagBank could not answer."""
    now = timezone.now()
    try:
        with application_client() as connect:
            answer = connect.refresh(account.refresh_token())
    except ConnectApplicationRefused as error:
        # Not the seller's doing: the account keeps its state (and a token that works).
        logger.error("account %s: refresh not sent through: %s", account.account_id, error)
        _write(account, last_error=redact_text(str(error))[:ERROR_TEXT_KEPT])
        return _Outcome(None, None, None, refused=error)
    except ProviderError as error:
        text = redact_text(f"{type(error).__name__}: {error}")[:ERROR_TEXT_KEPT]
        if not is_refused_grant(error):
            logger.warning("account %s: refresh failed, will retry: %s", account.account_id, text)
            _write(account, last_error=text)
            return None
        if not account.is_active:  # staff's retry of a marked account: refused again
            logger.warning("account %s: refresh refused again", account.account_id)
            _write(account, last_error=text)
            return _Outcome(None, None, None, refused=needs_authorization(account))
        logger.warning("account %s: refresh refused, needs re-authorisation", account.account_id)
        _write(
            account,
            state=AccountState.NEEDS_AUTHORIZATION,
            state_changed_at=now,
            last_error=text,
        )
        announce_account_needs_authorization(account, text)
        return _Outcome(None, None, None, refused=needs_authorization(account))
    changed = ["state", "state_changed_at"] if not account.is_active else []
    if changed:
        account.state, account.state_changed_at = AccountState.ACTIVE, now
    account.set_tokens(
        access_token=answer.access_token,
        refresh_token=answer.refresh_token,
        expires_in=answer.expires_in,
        scope=answer.scope or None,
        now=now,
    )
    account.refreshed_at = now
    account.last_error = ""
    account.save(
        update_fields=[
            "access_token_encrypted",
            "refresh_token_encrypted",
            "previous_access_token_encrypted",
            "token_issued_at",
            "token_expires_at",
            "scopes",
            "refreshed_at",
            "last_error",
            *changed,
        ]
    )
    logger.info(
        "account %s: token refreshed (%s)%s",
        account.account_id,
        {DUE: "before it expires", REJECTED: "after a 401", ASKED: "asked for"}[why],
        "; active again" if changed else "",
    )
    return _Outcome(answer.access_token, account.token_expires_at, account.token_issued_at)


def _write(account: ConnectedAccount, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(account, name, value)
    account.save(update_fields=list(fields))
