"""Which account a notification is for, and the tokens its ``x-authenticity-token`` may use.

Only when Connect is configured (``CONNECT_CLIENT_ID``): a shop with one
``TOKEN`` never gets here, and its notifications are checked as before.

The account, in this order:

1. the account of the order (or hosted checkout) the body names, when it is
   mirrored here (or of the order of a charge it names): an order's account
   never changes;
2. else the account the notification URL names (``?account=<its pk>``: the
   services send each connected account's orders and checkouts that URL;
   ``?account=ACCO_...``, which URLs sent by earlier versions carry, is
   read too);
3. else the settings' own account (``TOKEN``).

Which token PagBank signs a Connect application's notifications with is
not documented. ``CONNECT_NOTIFICATION_SIGNER`` says which to accept for a
connected account: ``account`` (its access token, or the one its last
refresh replaced), ``application`` (the application's secret), or
``either`` (the default). The delivery log's ``signed_with`` says which one
matched, which is how a platform learns what PagBank does (``docs/connect.md``).
Whatever verified it, a body is applied only to the account it was routed
to (``sync`` refuses an order of another account), and, unless
``NOTIFICATION_TRUST_BODY``, the order is fetched back with that account's
token: PagBank answers it only for its own account.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.http import HttpRequest

from django_orderpay import rules
from django_orderpay.client import OrderPayClient
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import AccountNeedsAuthorization
from django_orderpay.models import Charge, Checkout, ConnectedAccount, Order
from django_orderpay.notifications.verification import (
    AUTHENTICITY_HEADER,
    Incoming,
    Policy,
    Rejected,
    is_checkout,
    named_charges,
    read_order,
    token_matches,
)

#: The query parameter naming a connected account in a notification URL: its primary
#: key here (``?account=12``), short enough for PagBank's Checkout API, which takes
#: 100 characters per notification URL; the ``ACCO_`` id (50 characters with the
#: parameter), which earlier versions sent, is still read.
ACCOUNT_PARAMETER = "account"
#: The largest primary key a connected account can have (a ``BigAutoField``): the
#: longest suffix a notification URL is given is this one's.
LARGEST_ACCOUNT_KEY = 2**63 - 1
_ACCOUNT_KEY = re.compile(r"[0-9]{1,19}")
_ACCOUNT_ID_PREFIX = "ACCO_"


def account_notification_url(url: str, key: int) -> str:
    """``url`` naming the connected account whose primary key is ``key`` (``?account=12``)."""
    parts = urlsplit(url)
    query = urlencode([*parse_qsl(parts.query), (ACCOUNT_PARAMETER, str(key))])
    return urlunsplit(parts._replace(query=query))


def notification_url_limit() -> int:
    """The longest notification URL a connected account's orders and checkouts may be sent:
    the Checkout API's 100 characters per ``notification_urls`` and
    ``payment_notification_urls`` entry (the Orders API documents no limit)."""
    limits = rules.CHECKOUT_FIELD_LIMITS
    return min(limits["notification_urls"][1], limits["payment_notification_urls"][1])


def longest_notification_url(url: str) -> int:
    """How long ``NOTIFICATION_URL`` (``url``) may be for every connected account's URL to
    fit :func:`notification_url_limit`, whatever its key (72 characters, for a URL the
    parameter adds nothing else to)."""
    suffix = len(account_notification_url(url, LARGEST_ACCOUNT_KEY)) - len(url)
    return notification_url_limit() - suffix


def _named_account(named: str, environment: str) -> ConnectedAccount | None:
    """The account ``?account=`` names: a primary key, or an ``ACCO_`` id (earlier URLs)."""
    accounts = ConnectedAccount.objects.filter(environment=environment)
    if named.startswith(_ACCOUNT_ID_PREFIX):
        return accounts.filter(account_id=named).first()
    if _ACCOUNT_KEY.fullmatch(named):  # a key past a bigint's range finds nothing
        return accounts.filter(pk=int(named)).first()
    return None


@dataclass(frozen=True)
class Route:
    """Where a notification goes: its account (None: the settings' own), the policy its
    checks run with, and the tokens grouped by who holds them."""

    account: ConnectedAccount | None
    policy: Policy
    #: ``account`` / ``application`` -> tokens (empty for the settings' own account).
    signers: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    #: The account the URL named (a key or an ``ACCO_`` id) when it is not connected
    #: here ("" otherwise).
    unknown_account: str = ""

    def signed_with(self, incoming: Incoming) -> str:
        """Who holds the token that matched (``account``, ``application``), or ""."""
        given = incoming.header(AUTHENTICITY_HEADER) or ""
        bodies = {incoming.body, incoming.received or incoming.body}
        for signer, tokens in self.signers.items():
            if any(token_matches(tokens, body, given) for body in bodies):
                return signer
        return ""


def _mirrored_account(body: bytes) -> tuple[bool, Any]:
    """``(found, account pk)`` of the order the body names (or of a charge it names)."""
    try:
        payload, order_id = read_order(body)
    except Rejected:
        return False, None
    found: tuple[Any] | None
    if order_id:
        mirror = Checkout if is_checkout(order_id) else Order
        found = mirror.objects.filter(provider_id=order_id).values_list("account_id").first()
    else:
        charges = Charge.objects.filter(provider_id__in=named_charges(payload)).order_by("pk")
        found = charges.values_list("order__account_id").first()
    return (True, found[0]) if found is not None else (False, None)


def route(request: HttpRequest, body: bytes, policy: Policy) -> Route:
    """The route of a notification whose (decoded) body is ``body``."""
    conf = get_settings()
    if not conf.connect_enabled:
        return Route(None, policy)
    found, account_pk = _mirrored_account(body)
    named = request.GET.get(ACCOUNT_PARAMETER, "")
    account = None
    if found and account_pk is not None:
        account = ConnectedAccount.objects.filter(pk=account_pk).first()
    elif not found and named:
        account = _named_account(named, conf.environment)
        if account is None:
            return _connect_route(None, policy, unknown_account=named)
    if account is None:
        return Route(None, policy)
    return _connect_route(account, policy)


def _connect_route(
    account: ConnectedAccount | None, policy: Policy, *, unknown_account: str = ""
) -> Route:
    conf = get_settings()
    signers: dict[str, tuple[str, ...]] = {}
    if account is not None and conf.connect_notification_signer in ("either", "account"):
        signers["account"] = account.notification_tokens()
    if conf.connect_notification_signer in ("either", "application"):
        signers["application"] = (conf.connect_client_secret or "",)
    tokens = tuple(token for group in signers.values() for token in group if token)
    return Route(
        account,
        dataclasses.replace(policy, tokens=tokens),
        signers,
        unknown_account=unknown_account,
    )


def client_of(route: Route, retries: int) -> OrderPayClient | None:
    """The client that fetches the route's orders (``retries`` as ``get_client``'s).

    None for an account the platform may not act for: processing then meets
    :class:`~django_orderpay.exceptions.AccountNeedsAuthorization` itself, and
    records the delivery as failed (PagBank retries; ``orderpay_replay``
    processes it once the seller authorised again).
    """
    from .clients import client_for

    try:
        return client_for(route.account, retries=retries)
    except AccountNeedsAuthorization:
        return None
