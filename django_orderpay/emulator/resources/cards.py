"""Cards: which card a charge names (raw, encrypted or token), and what it answers.

Outcomes go by card number, as in the provider's sandbox: its approved and
declined test cards, two cards of the emulator's own (one lands in
``IN_ANALYSIS``, one is refused by anti-fraud), expired cards declined by the
issuer, every other Luhn-valid number of a known brand approved.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django_orderpay import rules
from django_orderpay.cardcrypto import CardDecryptionError

from ..state import errors, ids
from ..state.store import State
from ..state.validation import (
    field_path,
    reject_unknown,
    require_bool,
    require_object,
    require_str,
    validate_holder,
)

CARD_KEYS = frozenset(
    {
        "number",
        "exp_month",
        "exp_year",
        "security_code",
        "cvv",
        "holder",
        "store",
        "encrypted",
        "id",
    }
)
CARD_TOKEN_PATTERN = r"CARD_[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"

#: The emulator's own Visa that the provider's risk analysis holds: the charge
#: answers ``IN_ANALYSIS`` until ``POST /_emulator/charges/{id}/resolve``.
IN_ANALYSIS_CARD = "4000000000000044"
#: The emulator's own Visa that anti-fraud refuses (10000, before the issuer).
ANTIFRAUD_DECLINED_CARD = "4000000000000101"
#: The provider's sandbox cards (``provider-facts.md``), plus the docs' 4111...
SANDBOX_APPROVED = frozenset(
    {
        "4111111111111111",
        "4539620659922097",
        "5240082975622454",
        "345817690311361",
        "4514161122113757",
        "6062828598919021",
    }
)
SANDBOX_DECLINED = frozenset(
    {
        "4929291898380766",
        "5530062640663264",
        "372938001199778",
        "4389350446134811",
        "6062822916014409",
    }
)

APPROVED = "APPROVED"
DECLINED = "DECLINED"
IN_ANALYSIS = "IN_ANALYSIS"


@dataclass(frozen=True)
class Outcome:
    """What the card network (or anti-fraud) says of a charge: the ``payment_response`` code."""

    result: str  # APPROVED, DECLINED or IN_ANALYSIS
    code: str
    message: str
    reason_code: str | None = None


SUCCESS = Outcome(APPROVED, "20000", "SUCESSO", "00")


def settled_response() -> dict[str, Any]:
    """``payment_response`` of a payment no card network took part in (Pix, boleto):
    code, message and PagBank's reference, no ``raw_data``."""
    return {"code": SUCCESS.code, "message": SUCCESS.message, "reference": ids.nsu()}


#: Issuer refusal, reason 51 (insufficient funds), as the sandbox's declined cards answer.
ISSUER_DECLINED = Outcome(DECLINED, "20003", "NAO AUTORIZADA", "51")
#: Issuer refusal of an expired card (reason 54, "expired card").
EXPIRED_DECLINED = Outcome(DECLINED, "20003", "NAO AUTORIZADA", "54")
#: Refused by the provider's anti-fraud before the issuer saw it: no raw_data.
ANTIFRAUD_DECLINED = Outcome(DECLINED, "10000", "NAO AUTORIZADO PELO PAGSEGURO")
#: Held for risk analysis. The provider documents no code for this, and 10002
#: is one of its *decline* codes ("negada inesperado ou fora da normativa 21"):
#: ours is outside its table on purpose, so no shop code keys on it. Read
#: ``status`` (IN_ANALYSIS), never this code.
HELD_FOR_ANALYSIS = Outcome(IN_ANALYSIS, "99000", "EM ANALISE (EMULADOR)")


@dataclass(frozen=True)
class Card:
    """The card a charge is paid with. ``token`` is the ``CARD_`` id when it was named by one."""

    number: str
    exp_month: str | None
    exp_year: str | None
    holder_name: str | None
    token: str | None = None

    @property
    def brand(self) -> str:
        return rules.card_brand(self.number) or "unknown"

    def __repr__(self) -> str:  # never print the card number
        return f"Card(brand={self.brand!r}, last_digits={self.number[-4:]!r})"

    def to_response(self, *, token_id: str | None, store: bool) -> dict[str, Any]:
        """``payment_method.card`` as answered: never the number or the security code."""
        answer: dict[str, Any] = {}
        if token_id is not None:
            answer["id"] = token_id
        answer.update(brand=self.brand, first_digits=self.number[:6], last_digits=self.number[-4:])
        if self.exp_month is not None and self.exp_year is not None:
            answer.update(exp_month=self.exp_month, exp_year=self.exp_year)
        if self.holder_name:
            answer["holder"] = {"name": self.holder_name}
        answer["store"] = store
        return answer


def outcome_for(number: str, exp_month: str | None, exp_year: str | None, now: datetime) -> Outcome:
    """The network's answer for this card at ``now`` (a card is good through its expiry month)."""
    if exp_month is not None and exp_year is not None:
        if (int(exp_year), int(exp_month)) < (now.year, now.month):
            return EXPIRED_DECLINED
    if number == IN_ANALYSIS_CARD:
        return HELD_FOR_ANALYSIS
    if number == ANTIFRAUD_DECLINED_CARD:
        return ANTIFRAUD_DECLINED
    if number in SANDBOX_DECLINED:
        return ISSUER_DECLINED
    return SUCCESS


def check_number(value: Any, path: str) -> str:
    """A 13-19 digit, Luhn-valid number of a brand the provider takes; else 40002 at ``path``."""
    if not rules.is_digits(value, range(13, 20)) or not rules.luhn_valid(value):
        raise errors.invalid(path)
    if rules.card_brand(value) is None:
        raise errors.invalid(path, "card_brand_not_supported")
    return value


def _expiry_text(card: dict[str, Any], path: str, key: str) -> tuple[Any, str]:
    """``card[key]`` as given (the integer as its digits) and its path; 40001 when missing."""
    value = card.get(key)
    where = field_path(path, key)
    if value is None:
        raise errors.required(where)
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    return text, where


def _month(card: dict[str, Any], path: str) -> str:
    """``exp_month``: "1".."12" (or the integer), answered as two digits."""
    text, where = _expiry_text(card, path, "exp_month")
    if not rules.is_digits(text, (1, 2)) or not 1 <= int(text) <= 12:
        raise errors.invalid(where)
    return f"{int(text):02d}"


def _year(card: dict[str, Any], path: str) -> str:
    """``exp_year``: four digits (a string, or the integer)."""
    text, where = _expiry_text(card, path, "exp_year")
    if not rules.is_digits(text, (4,)):
        raise errors.invalid(where)
    return text


def _holder_name(card: dict[str, Any], path: str, *, required: bool) -> str | None:
    holder = card.get("holder")
    where = field_path(path, "holder")
    if holder is None:
        if required:
            raise errors.required(field_path(where, "name"))
        return None
    validate_holder(holder, where, name_required=required)
    return holder.get("name")


def _only(card: dict[str, Any], path: str, source: str) -> None:
    """With ``encrypted`` or ``id`` the card data travels inside them, not beside."""
    for key in ("exp_month", "exp_year"):
        if card.get(key) is not None:
            raise errors.invalid(field_path(path, key), f"not_allowed_with_card_{source}")


def resolve_card(card_json: Any, path: str, *, account: str, state: State) -> tuple[Card, bool]:
    """The card of ``payment_method.card`` and whether ``card.store`` was true.

    Exactly one of ``number`` (raw), ``encrypted`` (the SDK's blob) or ``id``
    (a ``CARD_`` token of this merchant). A token of another merchant answers
    exactly as an unknown one (40002 naming ``card.id``), so a merchant cannot
    learn that someone else's token exists.
    """
    card = require_object(card_json, path)
    reject_unknown(card, CARD_KEYS, path)
    sources = [key for key in ("number", "encrypted", "id") if card.get(key) is not None]
    if len(sources) != 1:
        raise errors.invalid(path, "exactly_one_of_number_encrypted_id")
    source = sources[0]
    store = bool(require_bool(card, "store", path, optional=True))
    if card.get("cvv") is not None:
        # The official plugin's name for the security code (a stored card's, for subscriptions).
        if card.get("security_code") is not None:
            raise errors.invalid(field_path(path, "cvv"), "security_code_given_twice")
        require_str(card, "cvv", path, pattern=r"[0-9]{3,4}")
    else:
        require_str(card, "security_code", path, pattern=r"[0-9]{3,4}", optional=source != "number")

    if source == "number":
        number = check_number(card["number"], field_path(path, "number"))
        month, year = _month(card, path), _year(card, path)
        holder = _holder_name(card, path, required=True)
        return Card(number, month, year, holder), store

    _only(card, path, source)
    # The docs call card.holder.name "Obrigatório para cobranças com 3DS e Criptografia",
    # yet their encrypted-card example and the official plugin (in production) send none:
    # taken either way (docs/emulator.md), the name then read from the blob.
    holder = _holder_name(card, path, required=False)
    if source == "encrypted":
        where = field_path(path, "encrypted")
        blob = require_str(card, "encrypted", path)
        try:
            data = state.keys.decrypt(blob or "")
        except CardDecryptionError:
            raise errors.invalid(where, "invalid_encrypted_card") from None
        number = check_number(data.number, where)
        if not 1 <= int(data.exp_month) <= 12:
            raise errors.invalid(where)
        return Card(number, data.exp_month, data.exp_year, holder or data.holder or None), store

    where = field_path(path, "id")
    token = require_str(card, "id", path, pattern=CARD_TOKEN_PATTERN)
    stored = state.cards.get(token or "")
    if stored is None or stored.account != account:
        raise errors.invalid(where, "card_token_not_found")
    name = holder or stored.holder_name
    return Card(stored.number, stored.exp_month, stored.exp_year, name, stored.id), store
