"""The split record of a split charge, fetched through the charge's SPLIT link."""

from __future__ import annotations

from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.models import Charge, ConnectedAccount, Split
from django_orderpay.sync import sync_split

from ._common import check_mirror, client_or_default, order_account


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
