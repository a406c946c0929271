"""What staff (or a shop's code) do to a connected account: refresh its token now, disconnect it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from django_orderpay.models import AccountState, ConnectedAccount
from django_orderpay.signals import announce_account_needs_authorization

from .applications import application_client
from .tokens import AccountTokens, needs_authorization


def refresh_now(account: ConnectedAccount) -> ConnectedAccount:
    """Refresh ``account``'s token now (``POST /oauth2/refresh``), as a 401 would.

    Raises :class:`~django_orderpay.exceptions.AccountNeedsAuthorization` when
    PagBank refuses (the account is marked), ``ProviderUnavailable`` when it
    could not answer (nothing changed). Answers the account as stored after.
    """
    if not account.is_active:
        raise needs_authorization(account)
    tokens = AccountTokens(account.pk)
    if tokens.renewed(account.access_token()) is None:
        # PagBank did not answer: the old token stays; say why.
        account.refresh_from_db()
        raise needs_unanswered(account)
    account.refresh_from_db()
    return account


def needs_unanswered(account: ConnectedAccount) -> Exception:
    from django_orderpay.exceptions import ProviderUnavailable

    return ProviderUnavailable(
        f"connected account {account.account_id}: PagBank did not answer the refresh "
        f"({account.last_error or 'no answer'}); its token is unchanged",
        reason="refresh unanswered",
        method="POST",
        path="/oauth2/refresh",
    )


def disconnect(account: ConnectedAccount) -> ConnectedAccount:
    """Stop acting for ``account``: its tokens revoked at PagBank, forgotten here, the
    account ``revoked``. Its orders stay (they name it); connecting it again is a new
    authorisation by its seller. A ``ProviderError`` from PagBank leaves it as it was.
    """
    with transaction.atomic():
        locked = ConnectedAccount.objects.select_for_update().get(pk=account.pk)
        if locked.refresh_token_encrypted:
            with application_client() as connect:
                connect.revoke(locked.refresh_token(), hint="refresh_token")
        now = timezone.now()
        locked.state = AccountState.REVOKED
        locked.state_changed_at = now
        locked.access_token_encrypted = ""
        locked.refresh_token_encrypted = ""
        locked.previous_access_token_encrypted = ""
        locked.token_expires_at = None
        locked.last_error = ""
        locked.save()
        announce_account_needs_authorization(locked, "disconnected by the platform")
    return locked
