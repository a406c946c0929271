"""How a charge is paid: Card (raw, encrypted or a stored token) and PaymentMethod."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, join
from .authentication import AuthenticationMethod
from .customer import Holder

_BASE64 = r"[A-Za-z0-9+/]+={0,2}"
_CARD_TOKEN = r"CARD_[0-9A-Za-z-]+"


def _month(value: Any) -> Any:
    """``12`` or ``"1"`` -> the provider's two-digit month; anything else is left to validation."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:02d}"
    if isinstance(value, str) and len(value) == 1 and value.isdigit():
        return "0" + value
    return value


def _year(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


@dataclass(frozen=True, repr=False)
class TokenData(Builder):
    """``card.token_data`` of a network token (Visa, Mastercard): what its token requestor
    gave with it. ``cryptogram`` is a secret: never shown, kept or logged."""

    requestor_id: str | None = None
    wallet: str | None = None
    cryptogram: str | None = None
    ecommerce_domain: str | None = None
    assurance_level: int | None = None

    def __repr__(self) -> str:
        return f"TokenData(requestor_id={self.requestor_id!r}, wallet={self.wallet!r})"

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "requestor_id"), self.requestor_id, limit=(1, 11), required=False)
        problems.text(
            join(path, "wallet"), self.wallet, choices=rules.TOKEN_WALLETS, required=False
        )
        problems.text(join(path, "cryptogram"), self.cryptogram, limit=(1, 40), required=False)
        problems.text(
            join(path, "ecommerce_domain"), self.ecommerce_domain, limit=(1, 150), required=False
        )
        problems.integer(join(path, "assurance_level"), self.assurance_level, 0, 99, required=False)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            requestor_id=self.requestor_id,
            wallet=self.wallet,
            cryptogram=self.cryptogram,
            ecommerce_domain=self.ecommerce_domain,
            assurance_level=self.assurance_level,
        )


@dataclass(frozen=True, repr=False)
class Wallet(Builder):
    """``card.wallet``: a Google Pay or Apple Pay payment ``key`` (a secret: never shown or
    kept). PagBank takes a key once (``40009 wallet_key_already_used``)."""

    type: str
    key: str

    def __repr__(self) -> str:
        return f"Wallet(type={self.type!r})"

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "type"), self.type, choices=rules.WALLET_TYPES)
        problems.text(join(path, "key"), self.key, limit=(1, 65536))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "key": self.key}


@dataclass(frozen=True, repr=False)
class Card(Builder):
    """``payment_method.card``: exactly one of ``number`` (raw), ``encrypted`` or ``id`` (token).

    Build it with :meth:`raw`, :meth:`from_encrypted` or :meth:`token`
    (``encrypted`` is the field, as the provider names it, so its constructor
    is ``from_encrypted``). Its repr never shows the number, security code or encrypted
    blob. ``store`` may be given here or on the :class:`PaymentMethod`.
    """

    number: str | None = None
    exp_month: str | None = None
    exp_year: str | None = None
    security_code: str | None = None
    holder: Holder | None = None
    store: bool | None = None
    encrypted: str | None = None
    id: str | None = None
    #: A network token (a card brand's token for the card), charged as a number.
    network_token: str | None = None
    token_data: TokenData | None = None
    wallet: Wallet | None = None

    @classmethod
    def raw(
        cls,
        number: str,
        exp_month: str | int,
        exp_year: str | int,
        security_code: str,
        holder: Holder | str,
        *,
        store: bool | None = None,
    ) -> Card:
        """A card with its full data (the merchant must be PCI compliant to send this)."""
        return cls(
            number=number,
            exp_month=_month(exp_month),
            exp_year=_year(exp_year),
            security_code=security_code,
            holder=Holder(holder) if isinstance(holder, str) else holder,
            store=store,
        )

    @classmethod
    def from_encrypted(
        cls,
        encrypted: str,
        *,
        security_code: str | None = None,
        holder: Holder | str | None = None,
        store: bool | None = None,
    ) -> Card:
        """A card encrypted in the browser by the SDK (``encryptedCard``).

        ``holder`` (its name, as typed in the checkout; not a secret) is sent as
        ``card.holder`` when given. PagBank's reference calls it required with
        an encrypted card, but its own encrypted-card example and the official
        plugin send none (the name is inside the blob, and the holder may go in
        ``PaymentMethod(holder=...)``): both are taken. This package's checkout
        sends it.
        """
        return cls(
            encrypted=encrypted,
            security_code=security_code,
            holder=Holder(holder) if isinstance(holder, str) else holder,
            store=store,
        )

    @classmethod
    def token(
        cls,
        card_id: str,
        *,
        security_code: str | None = None,
        holder: Holder | str | None = None,
    ) -> Card:
        """A stored card: its ``CARD_`` token in place of the card data."""
        return cls(
            id=card_id,
            security_code=security_code,
            holder=Holder(holder) if isinstance(holder, str) else holder,
        )

    @classmethod
    def from_network_token(
        cls,
        network_token: str,
        exp_month: str | int,
        exp_year: str | int,
        *,
        security_code: str | None = None,
        holder: Holder | str | None = None,
        token_data: TokenData | None = None,
        store: bool | None = None,
    ) -> Card:
        """A network token (PagBank's "token de bandeira"), with its expiry and, for Visa
        and Mastercard, its ``token_data`` (Elo's goes in an INAPP authentication)."""
        return cls(
            network_token=network_token,
            exp_month=_month(exp_month),
            exp_year=_year(exp_year),
            security_code=security_code,
            holder=Holder(holder) if isinstance(holder, str) else holder,
            token_data=token_data,
            store=store,
        )

    @classmethod
    def from_wallet(cls, wallet_type: str, key: str) -> Card:
        """A Google Pay (``GOOGLE_PAY``) or Apple Pay (``APPLE_PAY``) payment key."""
        return cls(wallet=Wallet(wallet_type, key))

    @property
    def kind(self) -> str | None:
        """``"raw"``, ``"encrypted"``, ``"token"``, ``"network_token"`` or ``"wallet"``;
        None when not exactly one is given."""
        given = [
            kind
            for kind, value in (
                ("raw", self.number),
                ("encrypted", self.encrypted),
                ("token", self.id),
                ("network_token", self.network_token),
                ("wallet", self.wallet),
            )
            if value is not None
        ]
        return given[0] if len(given) == 1 else None

    def __repr__(self) -> str:  # never the number, token, security code, blob or key
        shown = [f"kind={self.kind!r}"]
        if isinstance(self.number, str) and len(self.number) >= 10:
            shown.append(f"last_digits={self.number[-4:]!r}")
        if self.id is not None:
            shown.append(f"id={self.id!r}")
        if self.exp_month or self.exp_year:
            shown.append(f"exp={self.exp_month}/{self.exp_year}")
        if self.store is not None:
            shown.append(f"store={self.store!r}")
        return f"Card({', '.join(shown)})"

    def collect(self, problems: Problems, path: str) -> None:
        kind = self.kind
        if kind is None:
            problems.add(
                path,
                "give exactly one of number (raw card), encrypted, id (token), "
                "network_token or wallet",
            )
        if kind == "raw":
            self._collect_raw(problems, path)
        elif kind == "network_token":
            self._collect_network_token(problems, path)
        elif kind is not None:
            for name in ("exp_month", "exp_year"):
                if getattr(self, name) is not None:
                    problems.add(join(path, name), "is sent only with a raw card number")
        if self.encrypted is not None:
            problems.text(
                join(path, "encrypted"),
                self.encrypted,
                pattern=_BASE64,
                pattern_message="must be the SDK's base64 encryptedCard",
            )
        if self.id is not None:
            problems.text(
                join(path, "id"),
                self.id,
                limit=(5, 64),
                pattern=_CARD_TOKEN,
                pattern_message="must be a CARD_ token",
            )
        if kind not in ("raw", "network_token"):
            problems.digits(join(path, "security_code"), self.security_code, 3, 4, required=False)
            self._collect_holder(problems, path, required=False)
        token_data_path = join(path, "token_data")
        if problems.instance(token_data_path, self.token_data, TokenData, required=False):
            self.token_data.collect(problems, token_data_path)  # type: ignore[union-attr]
        if kind == "wallet" and problems.instance(join(path, "wallet"), self.wallet, Wallet):
            self.wallet.collect(problems, join(path, "wallet"))  # type: ignore[union-attr]
        problems.boolean(join(path, "store"), self.store)

    def _collect_raw(self, problems: Problems, path: str) -> None:
        number_path = join(path, "number")
        if problems.digits(number_path, self.number, 13, 19) and not rules.luhn_valid(
            self.number or ""
        ):
            problems.add(number_path, "is not a valid card number (check digit)")
        self._collect_expiry(problems, path)
        problems.digits(join(path, "security_code"), self.security_code, 3, 4)
        self._collect_holder(problems, path, required=True)

    def _collect_network_token(self, problems: Problems, path: str) -> None:
        """14-19 digits (no check digit: PagBank's example token "5454555555555555" fails
        Luhn and is paid), an expiry; never stored ("indisponível para token de bandeira")."""
        problems.digits(join(path, "network_token"), self.network_token, 14, 19)
        self._collect_expiry(problems, path)
        problems.digits(join(path, "security_code"), self.security_code, 3, 4, required=False)
        self._collect_holder(problems, path, required=False)
        if self.store:
            problems.add(join(path, "store"), "a network token is not stored")

    def _collect_expiry(self, problems: Problems, path: str) -> None:
        problems.text(
            join(path, "exp_month"),
            self.exp_month,
            pattern=r"0[1-9]|1[0-2]",
            pattern_message="must be a two-digit month, 01 to 12",
        )
        problems.text(
            join(path, "exp_year"),
            self.exp_year,
            pattern=r"(19|20)[0-9]{2}",
            pattern_message="must be a four-digit year",
        )

    def _collect_holder(self, problems: Problems, path: str, *, required: bool) -> None:
        where = join(path, "holder")
        if problems.instance(where, self.holder, Holder, required=required):
            self.holder.collect(problems, where)  # type: ignore[union-attr]

    def to_dict(self) -> dict[str, Any]:
        return compact(
            id=self.id,
            encrypted=self.encrypted,
            number=self.number,
            network_token=self.network_token,
            exp_month=self.exp_month,
            exp_year=self.exp_year,
            security_code=self.security_code,
            holder=self.holder.to_dict() if isinstance(self.holder, Holder) else self.holder,
            store=self.store,
            token_data=self.token_data.to_dict()
            if isinstance(self.token_data, TokenData)
            else None,
            wallet=self.wallet.to_dict() if isinstance(self.wallet, Wallet) else None,
        )


#: The card payment types: a debit card needs 3-D Secure, one installment, no capture step.
CARD_PAYMENT_TYPES = ("CREDIT_CARD", "DEBIT_CARD")


@dataclass(frozen=True)
class PaymentMethod(Builder):
    """``charges[].payment_method``: a credit or debit card, captured or not.

    Up to 12 installments on any account; 13 to 18 only where PagBank enabled
    them ("mediante aprovação"): the provider refuses them otherwise, naming
    ``installments``. ``store`` here is the old spelling of ``Card(store=True)``:
    PagBank documents ``store`` only inside ``card``, so it is sent there.
    ``authentication_method`` carries 3-D Secure; a ``DEBIT_CARD`` requires it
    and takes one installment, is captured at once and is never stored.
    """

    card: Card
    installments: int | None = 1
    capture: bool | None = True
    store: bool | None = None
    soft_descriptor: str | None = None
    type: str = "CREDIT_CARD"
    authentication_method: AuthenticationMethod | None = None
    #: ``payment_method.holder``: who pays (name and CPF/CNPJ), as the official plugin and
    #: PagBank's encrypted-card example send it beside ``card.encrypted``.
    holder: Holder | None = None

    @classmethod
    def debit(
        cls,
        card: Card,
        authentication_method: AuthenticationMethod,
        *,
        soft_descriptor: str | None = None,
    ) -> PaymentMethod:
        """A debit card, authenticated (PagBank refuses debit without 3-D Secure)."""
        return cls(
            card=card,
            type="DEBIT_CARD",
            authentication_method=authentication_method,
            soft_descriptor=soft_descriptor,
        )

    def _collect_debit(self, problems: Problems, path: str) -> None:
        if self.authentication_method is None:
            problems.add(
                join(path, "authentication_method"),
                "is required for a debit card (3-D Secure)",
            )
        if self.installments not in (None, 1):
            problems.add(join(path, "installments"), "must be 1 for a debit card (or not sent)")
        if self.capture is False:
            problems.add(join(path, "capture"), "a debit card is captured at once")
        if self.stores_card:
            problems.add(join(path, "card.store"), "a debit card cannot be stored")

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "type"), self.type, choices=CARD_PAYMENT_TYPES)
        if self.type == "DEBIT_CARD":
            self._collect_debit(problems, path)
        auth_path = join(path, "authentication_method")
        auth = self.authentication_method
        if problems.instance(auth_path, auth, AuthenticationMethod, required=False):
            auth.collect(problems, auth_path)  # type: ignore[union-attr]
        # The reference requires it of a credit card, yet PagBank's own debit, Google Pay and
        # Apple Pay examples leave it out and are paid (one installment): not refused.
        problems.integer(
            join(path, "installments"),
            self.installments,
            1,
            rules.MAX_INSTALLMENTS_ENABLED,
            required=False,
        )
        problems.boolean(join(path, "capture"), self.capture)
        problems.boolean(join(path, "store"), self.store)
        problems.text(
            join(path, "soft_descriptor"),
            self.soft_descriptor,
            limit="soft_descriptor",
            required=False,
        )
        holder_path = join(path, "holder")
        if problems.instance(holder_path, self.holder, Holder, required=False):
            self.holder.collect(problems, holder_path, name_required=False)  # type: ignore[union-attr]
        card_path = join(path, "card")
        if problems.instance(card_path, self.card, Card):
            self.card.collect(problems, card_path)
            if self.card.kind == "network_token" and self.capture is False:
                # "Função indisponível para ... token de bandeira (crédito)".
                problems.add(join(path, "capture"), "a network token is captured at once")
            both = self.store is not None and self.card.store is not None
            if both and self.store != self.card.store:
                problems.add(join(path, "store"), "contradicts card.store (give it in one place)")

    @property
    def stores_card(self) -> bool:
        """Whether the card is to be stored, wherever ``store`` was given."""
        return bool(self.store or (isinstance(self.card, Card) and self.card.store))

    def __post_init__(self) -> None:
        if self.store is not None:
            warnings.warn(
                "PaymentMethod(store=...) is sent as card.store (PagBank documents store only "
                "inside card): give Card(..., store=True) instead",
                DeprecationWarning,
                stacklevel=3,
            )

    def to_dict(self) -> dict[str, Any]:
        card = self.card.to_dict() if isinstance(self.card, Card) else self.card
        if self.store is not None and isinstance(card, dict) and "store" not in card:
            card = {**card, "store": self.store}
        auth = self.authentication_method
        return compact(
            type=self.type,
            installments=self.installments,
            capture=self.capture,
            card=card,
            soft_descriptor=self.soft_descriptor,
            authentication_method=auth.to_dict()
            if isinstance(auth, AuthenticationMethod)
            else auth,
            holder=self.holder.to_dict() if isinstance(self.holder, Holder) else self.holder,
        )
