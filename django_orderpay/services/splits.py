"""Split payments: a platform's splits with its connected sellers, and the split record of a
split charge, fetched through the charge's SPLIT link."""

from __future__ import annotations

from collections.abc import Mapping

from django_orderpay import payloads
from django_orderpay.client import OrderPayClient
from django_orderpay.conf import env_var, get_settings
from django_orderpay.exceptions import ConfigurationError, FieldError, PayloadError
from django_orderpay.models import Charge, ConnectedAccount, Split
from django_orderpay.sync import sync_split

from ._common import check_account, check_amount, check_mirror, client_or_default, order_account


def get_split(
    charge: Charge,
    *,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Split:
    """``GET`` the charge's ``SPLIT`` link and mirror the split; the local :class:`Split`.

    The link's host must be the configured provider's (the client refuses to
    send the token anywhere else). Fetched with the charge's order's account.
    """
    check_mirror(charge, Charge, "charge")
    acting = order_account(charge.order, account)
    href = charge.link("SPLIT")
    if not href:
        raise PayloadError(
            [FieldError("links", f"charge {charge.provider_id} has no SPLIT link: not split")]
        )
    answer = client_or_default(client, acting).get_split(href)
    return sync_split(answer, charge)


def platform_splits(
    amount: int,
    sellers: Mapping[ConnectedAccount, int],
    *,
    reason: str | None = None,
    liable: bool | None = None,
) -> payloads.Splits:
    """A ``FIXED`` split of ``amount`` cents: each connected seller its cents, the platform
    (``ORDERPAY['ACCOUNT_ID']``, the account of ``TOKEN``) the rest, as the primary receiver.

    The charge is made with the platform's own token (no ``account=``): the
    primary receiver is the token's account, as PagBank requires, and the
    sellers, who authorised the platform through Connect, are the secondary
    receivers. ``reason`` is said to each seller; ``liable`` (default: PagBank's
    own rule) makes the platform the one that bears chargebacks and fees.
    Every seller must be an active connected account, each once; their parts
    must leave the platform at least a cent (else a ``PayloadError``).
    """
    check_amount(amount)
    platform = get_settings().account_id
    if not platform:
        raise ConfigurationError(
            f"ORDERPAY['ACCOUNT_ID'] (or {env_var('ACCOUNT_ID')}): the platform's own ACCO_ id is "
            "needed to be the primary receiver of its splits."
        )
    receivers = []
    for position, (seller, cents) in enumerate(sellers.items(), start=1):
        where = f"splits.receivers[{position}]"
        check_account(seller)
        if not seller.is_active:
            message = f"connected account {seller.account_id} needs re-authorisation"
            raise PayloadError([FieldError(f"{where}.account.id", message)])
        check_amount(cents, f"{where}.amount.value")
        receivers.append(
            payloads.Receiver.fixed(seller.account_id, cents, type="SECONDARY", reason=reason)
        )
    rest = amount - sum(sellers.values())
    if rest < 1:
        message = f"the sellers' parts leave the platform nothing of {amount} cents"
        raise PayloadError([FieldError("splits.receivers[0].amount.value", message)])
    primary = payloads.Receiver.fixed(platform, rest, type="PRIMARY", liable=liable)
    return payloads.Splits.fixed(primary, *receivers)
