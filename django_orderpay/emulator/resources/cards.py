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
from ..state.store import State, wallet_digest
from ..state.validation import (
    field_path,
    reject_unknown,
    require_bool,
    require_int,
    require_object,
    require_str,
    validate_holder,
)

#: Exactly one of these names the card.
CARD_SOURCES = ("number", "encrypted", "id", "network_token", "wallet")
#: The card a wallet's key stands for, in the emulator: a Visa ending 9948 expiring 12/2031,
#: the card PagBank's Google Pay and Apple Pay answers show (it cannot decrypt a real key).
WALLET_CARD = ("4670920000069948", "12", "2031")
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
    """The card a charge is paid with. ``token`` is the ``CARD_`` id when it was named by one;
    ``token_data`` (its ``cryptogram`` never kept) and ``wallet`` what a network token or a
    wallet's key came with, echoed as PagBank does."""

    number: str
    exp_month: str | None
    exp_year: str | None
    holder_name: str | None
    token: str | None = None
    holder_tax_id: str | None = None
    token_data: dict[str, Any] | None = None
    wallet: str | None = None
    #: The digest of the wallet key that paid (a key pays once); never the key.
    wallet_digest: str | None = None

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
        if self.holder_name or self.holder_tax_id:
            answer["holder"] = {
                key: value
                for key, value in (("name", self.holder_name), ("tax_id", self.holder_tax_id))
                if value
            }
        if self.token_data is not None:
            answer["token_data"] = dict(self.token_data)
        if self.wallet is not None:
            answer["wallet"] = {"type": self.wallet}
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


def check_number(value: Any, path: str, *, luhn: bool = True) -> str:
    """A 13-19 digit, Luhn-valid number of a brand the provider takes; else 40002 at ``path``.

    A network token is not checked by Luhn: the docs' Mastercard token "5454555555555555"
    fails it and is PAID.
    """
    if not rules.is_digits(value, range(13, 20)) or (luhn and not rules.luhn_valid(value)):
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


def _holder(card: dict[str, Any], path: str, *, required: bool) -> tuple[str | None, str | None]:
    """``card.holder``'s name and tax id (both None when it is not sent)."""
    holder = card.get("holder")
    where = field_path(path, "holder")
    if holder is None:
        if required:
            raise errors.required(field_path(where, "name"))
        return None, None
    validate_holder(holder, where, name_required=required)
    return holder.get("name"), holder.get("tax_id")


def check_token_data(value: Any, path: str) -> dict[str, Any]:
    """``token_data`` of a network token: each field within the charge object's sizes; the
    answer keeps all but the ``cryptogram``, as PagBank's does."""
    data = require_object(value, path)
    reject_unknown(data, rules.TOKEN_DATA_KEYS, path)
    require_str(data, "requestor_id", path, limit=(1, 11), optional=True)
    require_str(data, "wallet", path, choices=rules.TOKEN_WALLETS, optional=True)
    require_str(data, "cryptogram", path, limit=(1, 40), optional=True)
    require_str(data, "ecommerce_domain", path, limit=(1, 150), optional=True)
    require_int(data, "assurance_level", path, minimum=0, maximum=99, optional=True)
    return {key: value for key, value in data.items() if key != "cryptogram"}


def _wallet(card: dict[str, Any], path: str, state: State, account: str) -> Card:
    """``card.wallet{type, key}``: a Google Pay or Apple Pay key, good for one payment
    (``40009 wallet_key_already_used``, 409, after that)."""
    where = field_path(path, "wallet")
    wallet = require_object(card.get("wallet"), where)
    reject_unknown(wallet, {"type", "key"}, where)
    kind = require_str(wallet, "type", where, choices=rules.WALLET_TYPES)
    key = require_str(wallet, "key", where, limit=(1, 65536))
    digest = wallet_digest(account, key or "")
    if digest in state.wallet_keys:
        raise errors.wallet_key_already_used(field_path(where, "key"))
    number, month, year = WALLET_CARD
    return Card(number, month, year, None, wallet=kind, wallet_digest=digest)


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
    reject_unknown(card, rules.CARD_KEYS, path)
    sources = [key for key in CARD_SOURCES if card.get(key) is not None]
    if len(sources) != 1:
        raise errors.invalid(path, "exactly_one_of_number_encrypted_id_network_token_wallet")
    source = sources[0]
    token_data = None
    if card.get("token_data") is not None:
        token_data = check_token_data(card["token_data"], field_path(path, "token_data"))
    store = bool(require_bool(card, "store", path, optional=True))
    if card.get("cvv") is not None:
        # The official plugin's name for the security code (a stored card's, for subscriptions).
        if card.get("security_code") is not None:
            raise errors.invalid(field_path(path, "cvv"), "security_code_given_twice")
        require_str(card, "cvv", path, pattern=r"[0-9]{3,4}")
    else:
        require_str(card, "security_code", path, pattern=r"[0-9]{3,4}", optional=source != "number")

    if source in ("number", "network_token"):
        # A network token (a brand's token for the card) is charged as a number.
        number = check_number(card[source], field_path(path, source), luhn=source == "number")
        month, year = _month(card, path), _year(card, path)
        name, tax_id = _holder(card, path, required=source == "number")
        return Card(number, month, year, name, None, tax_id, token_data), store
    if source == "wallet":
        return _wallet(card, path, state, account), store

    _only(card, path, source)
    # The docs call card.holder.name "Obrigatório para cobranças com 3DS e Criptografia",
    # yet their encrypted-card example and the official plugin (in production) send none:
    # taken either way (docs/emulator.md), the name then read from the blob.
    holder, tax_id = _holder(card, path, required=False)
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
        name = holder or data.holder or None
        return Card(number, data.exp_month, data.exp_year, name, None, tax_id), store

    where = field_path(path, "id")
    token = require_str(card, "id", path, pattern=CARD_TOKEN_PATTERN)
    stored = state.cards.get(token or "")
    if stored is None or stored.account != account:
        raise errors.invalid(where, "card_token_not_found")
    name = holder or stored.holder_name
    return Card(stored.number, stored.exp_month, stored.exp_year, name, stored.id, tax_id), store
