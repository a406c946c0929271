"""A card stored without a charge (``POST /tokens/cards``): an "add a card" page."""

from __future__ import annotations

from typing import Any

from django_orderpay import card_testing, payloads
from django_orderpay.card_testing import Shopper
from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, PayloadError, ProviderError, ProviderUnavailable
from django_orderpay.models import CardToken, ConnectedAccount
from django_orderpay.sync.cards import sync_stored_card

from ._common import check_account, check_user, client_or_default

__all__ = ["store_card"]


def _body(card: payloads.Card) -> dict[str, Any]:
    """The body: an encrypted card (the holder's name beside it) or a raw one."""
    if not isinstance(card, payloads.Card):
        raise PayloadError([FieldError("card", "must be a payloads.Card (encrypted or raw)")])
    if card.kind not in ("encrypted", "raw"):
        raise PayloadError([FieldError("card", "must be an encrypted or a raw card, not a token")])
    if card.store is not None:
        raise PayloadError([FieldError("card.store", "is not sent: this call only stores")])
    card.validate("card")
    body = card.to_dict()
    if card.kind == "encrypted":
        # "Caso este parâmetro for preenchido, nenhum outro parâmetro deverá ser
        # enviado" (the holder is the documented exception).
        body = {key: body[key] for key in ("encrypted", "holder") if key in body}
    return body


def store_card(
    card: payloads.Card,
    *,
    user: Any,
    shopper: Shopper | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> CardToken:
    """Store ``card`` for ``user`` without charging it; the new :class:`CardToken`.

    A stored card belongs to a user, so ``user`` must be a saved, logged-in
    user. The answer is mirrored through ``sync`` (the user's older token of
    the same card is replaced, ``card_stored`` is sent); the token then pays
    like any other (``pay_with_card_token``, its owner only). Refusals raise
    ``ProviderError`` with the provider's code (``card_cannot_be_stored``,
    ``card_brand_not_supported``...). ``account``: the connected account it is
    stored with (it pays only that account's orders); None is the settings'
    ``TOKEN``. An "add a card" page is a card
    tester's favourite (no purchase needed): each card counts against the
    card-testing limits for ``shopper`` (None: ``user``), and a refused one
    as a decline.
    """
    owner = check_user(user)
    if owner is None:
        raise PayloadError([FieldError("user", "a stored card needs a logged-in owner")])
    account = check_account(account)
    body = _body(card)
    attempt = card_testing.begin(shopper or Shopper.of_user(owner))
    try:
        answer = client_or_default(client, account).store_card(body)
    except ProviderUnavailable:
        raise
    except ProviderError:
        if attempt is not None:
            attempt.declined()
        raise
    return sync_stored_card(
        answer, owner_id=owner.pk, account_id=account.pk if account is not None else None
    )
