"""What staff (or a shop's code) do to a connected account: refresh its token now, disconnect it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from django_orderpay.models import AccountState, ConnectedAccount
from django_orderpay.signals import announce_account_needs_authorization

from .applications import application_client
from .tokens import AccountTokens


def refresh_now(account: ConnectedAccount) -> ConnectedAccount:
    """Refresh ``account``'s token now (``POST /oauth2/refresh``), whatever its age.

    An account marked ``needs_authorization`` is tried too: when PagBank takes
    its refresh token (the refusal that marked it was not the seller's, or the
    settings were wrong then), it is ``active`` again. Raises
    :class:`~django_orderpay.exceptions.AccountNeedsAuthorization` when PagBank
    refuses the seller's grant (the account is, or stays, marked; a ``revoked``
    one is not tried: it has no tokens),
    :class:`~django_orderpay.exceptions.ConnectApplicationRefused` when it
    refuses the application (the account is left as it is), and
    ``ProviderUnavailable`` when it could not answer (nothing changed).
    Answers the account as stored after.
    """
    refreshed = AccountTokens(account.pk).refresh()
    account.refresh_from_db()
    if not refreshed:
        raise needs_unanswered(account)  # PagBank did not answer: the old token stays
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
