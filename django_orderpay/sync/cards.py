"""Card tokens from charge answers: create, update, link."""

from __future__ import annotations

import logging
import operator
from collections.abc import Collection, Sequence
from functools import reduce
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import CardToken, ChargeStatus, RecurringType
from ..signals import announce_card_stored
from .locking import no_key
from .parse import CardState, ChargeState
from .parse.charges import parse_stored_card

logger = logging.getLogger("django_orderpay.sync")

#: A card is kept only once a charge with it was approved: a declined card
#: (or one still in analysis) is never offered to pay again.
APPROVED = frozenset({ChargeStatus.PAID, ChargeStatus.AUTHORIZED})

TOKEN_FIELDS = (
    "user",
    "brand",
    "first_digits",
    "last_digits",
    "exp_month",
    "exp_year",
    "holder_name",
    "brand_reference_id",
    "initial_amount",
    "data",
    "synced_at",
)


def _card_columns(card: CardState) -> dict[str, Any]:
    return {
        "brand": card.brand,
        "first_digits": card.first_digits,
        "last_digits": card.last_digits,
        "exp_month": card.exp_month,
        "exp_year": card.exp_year,
        "holder_name": card.holder_name,
        "data": card.data,
    }


def _recurrences(
    states: Sequence[ChargeState], known_charge_ids: Collection[str]
) -> dict[str, tuple[str, int, bool]]:
    """token id -> (brand_reference_id, initial amount, from a charge new to us)."""
    found: dict[str, tuple[str, int, bool]] = {}
    for state in states:
        reference = state.columns["brand_reference_id"]
        if state.card and state.card.token_id and reference:
            if state.columns["recurring_type"] == RecurringType.INITIAL:
                found[state.card.token_id] = (
                    reference,
                    state.columns["amount_value"],
                    state.provider_id not in known_charge_ids,
                )
    return found


def _insert(tokens: list[CardToken]) -> tuple[list[CardToken], list[CardToken]]:
    """Insert new tokens; returns (inserted by us, inserted meanwhile by another sync)."""
    if not tokens:
        return [], []
    try:
        with transaction.atomic():
            return CardToken.objects.bulk_create(tokens), []
    except IntegrityError:
        pass
    # Another order stored the same card at the same moment (its sync holds a
    # different order lock): insert one by one and take the others' rows.
    inserted, lost = [], []
    for token in tokens:
        token.pk = None
        try:
            with transaction.atomic():
                token.save(force_insert=True)
            inserted.append(token)
        except IntegrityError:
            logger.debug("card %s was stored by a concurrent sync", token.provider_id)
            lost.append(token.provider_id)
    theirs = list(CardToken.objects.select_for_update(no_key=no_key()).filter(provider_id__in=lost))
    return inserted, theirs


def sync_card_tokens(
    states: Sequence[ChargeState],
    *,
    owner_id: Any,
    known_charge_ids: Collection[str],
    account_id: int | None = None,
) -> dict[str, CardToken]:
    """Create tokens for stored cards, refresh known ones; token id -> row.

    A token is made only when the answer says ``store`` and the charge was
    approved; a charge paid with an existing token just links to it. The
    owner is set on creation (or on a token that had none) and never changed
    afterwards. A new token replaces its owner's older tokens of the same card
    (``removed_at``), so a card is offered once. A new token is the order's
    account's (``account_id``; None: the default account's): it pays only
    that account's orders.
    """
    cards = {s.card.token_id: s.card for s in states if s.card and s.card.token_id}
    if not cards:
        return {}
    approved = {s.card.token_id for s in states if s.card and s.columns["status"] in APPROVED}
    recurrences = _recurrences(states, known_charge_ids)
    tokens = {
        token.provider_id: token
        for token in CardToken.objects.select_for_update(no_key=no_key())
        .filter(provider_id__in=cards)
        .order_by("provider_id")
    }
    now = timezone.now()
    new = []
    for token_id, card in cards.items():
        if token_id in tokens or not card.store or token_id not in approved:
            continue
        reference, initial_amount, _ = recurrences.get(token_id, ("", None, True))
        new.append(
            CardToken(
                provider_id=token_id,
                user_id=owner_id,
                account_id=account_id,
                brand_reference_id=reference,
                initial_amount=initial_amount,
                created_at=now,
                synced_at=now,
                **_card_columns(card),
            )
        )
    changed = [
        token
        for token in tokens.values()
        if _refresh(token, cards[token.provider_id], recurrences, owner_id, now)
    ]
    if changed:
        CardToken.objects.bulk_update(changed, TOKEN_FIELDS)
    inserted, theirs = _insert(new)
    _replace_older(inserted, now)
    for token in inserted:
        announce_card_stored(token)
    tokens.update({token.provider_id: token for token in [*inserted, *theirs]})
    return tokens


def sync_stored_card(
    answer: dict[str, Any], *, owner_id: Any, account_id: int | None = None
) -> CardToken:
    """The card ``POST /tokens/cards`` stored (no charge), as ``owner_id``'s CardToken.

    Its owner's older tokens of the same card are replaced (a card is listed
    once) and ``card_stored`` is sent after commit, as for a card stored by a charge.
    """
    card = parse_stored_card(answer)
    now = timezone.now()
    with transaction.atomic():
        found = (
            CardToken.objects.select_for_update(no_key=no_key())
            .filter(provider_id=card.token_id)
            .first()
        )
        if found is not None:
            return found
        token = CardToken(
            provider_id=card.token_id,
            user_id=owner_id,
            account_id=account_id,
            created_at=now,
            synced_at=now,
            **_card_columns(card),
        )
        inserted, theirs = _insert([token])
        _replace_older(inserted, now)
        for stored in inserted:
            announce_card_stored(stored)
    return (inserted or theirs)[0]


def _replace_older(inserted: list[CardToken], now: Any) -> None:
    """The owners' older tokens of the cards just stored are removed: one statement."""
    owned = [token for token in inserted if token.user_id is not None]
    if not owned:
        return
    same_cards = reduce(operator.or_, (token.same_card() for token in owned))
    CardToken.objects.active().filter(same_cards).exclude(
        pk__in=[token.pk for token in owned]
    ).update(removed_at=now)


def _refresh(
    token: CardToken,
    card: CardState,
    recurrences: dict[str, tuple[str, int, bool]],
    owner_id: Any,
    now: Any,
) -> bool:
    # user_id, not user: reading the relation would cost a query per token.
    watched = [name for name in TOKEN_FIELDS if name not in ("user", "synced_at")] + ["user_id"]
    before = {name: getattr(token, name) for name in watched}
    for name, value in _card_columns(card).items():
        if value:
            setattr(token, name, value)
    if token.user_id is None and owner_id is not None:
        token.user_id = owner_id
    reference = recurrences.get(token.provider_id)
    # A newer INITIAL charge starts a new recurrence; a re-sent old one
    # must not bring back a replaced reference.
    if reference and (not token.brand_reference_id or reference[2]):
        token.brand_reference_id, token.initial_amount = reference[0], reference[1]
    after = {name: getattr(token, name) for name in before}
    if after == before:
        return False
    token.synced_at = now
    return True
