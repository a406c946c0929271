"""What the emulator remembers: orders, charges, stored cards, splits, deeplinks.

Records hold provider state in plain Python (datetimes, integer cents); the
JSON the API answers is rendered from them per request, so ``links`` are built
on the base URL the caller used. Nothing here is thread-safe: the core holds
one lock around every call that touches a :class:`State`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ..control.faults import Faults
from ..control.latency import Latency
from ..control.notifier import Notifier
from ..resources.deeplinks import Deeplink
from ..serving.http import Request
from .clock import Clock
from .idempotency import IdempotencyStore
from .keypair import KeyPair
from .oauth import OAuthStore
from .options import Options
from .retention import Retention
from .threeds import ThreeDSStore


def wallet_digest(account: str, key: str) -> str:
    """What is kept of a wallet's key: a digest, per merchant (the key itself is a secret)."""
    return hashlib.sha256(f"{account}\n{key}".encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class StoredCard:
    """A card kept behind a ``CARD_`` token; usable only by ``account``, its creator."""

    id: str
    account: str
    number: str
    exp_month: str
    exp_year: str
    holder_name: str | None

    def __repr__(self) -> str:  # never print the card number
        return f"StoredCard(id={self.id!r}, account={self.account!r})"


@dataclass
class ChargeRecord:
    """One charge and everything the provider shows of it.

    ``payment_method`` is the response form (card already reduced to brand and
    digits); ``paid`` and ``refunded`` are the ``amount.summary`` sums.
    """

    id: str
    order_id: str
    account: str
    status: str
    created_at: datetime
    amount: int
    currency: str
    payment_response: dict[str, Any]
    payment_method: dict[str, Any]
    reference_id: str | None = None
    description: str | None = None
    paid_at: datetime | None = None
    paid: int = 0
    refunded: int = 0
    capture: bool = True
    capture_before: datetime | None = None
    recurring: dict[str, Any] | None = None
    split_id: str | None = None
    metadata: dict[str, Any] | None = None
    #: A boleto's 44-digit barcode (its typeable line is in ``payment_method``).
    boleto_code: str | None = None
    #: The last day a boleto can be paid (it is cancelled after it, by the clock).
    due_date: date | None = None
    payment_instructions: dict[str, Any] | None = None
    #: Brand of the card (None for a balance payment): an approval after
    #: analysis still needs to know whether the Elo NRID is due.
    brand: str | None = None
    #: ``amount.fees`` of an installment plan with the buyer's interest, as sent.
    amount_fees: dict[str, Any] | None = None
    #: A payment facilitator's ``sub_merchant``, echoed as sent.
    sub_merchant: dict[str, Any] | None = None
    #: The charge's own ``notification_urls``: notified beside its order's.
    notification_urls: tuple[str, ...] = ()


@dataclass
class SplitRecord:
    """A validated ``splits`` request and the charge it divides."""

    id: str
    account: str
    charge_id: str
    created_at: datetime
    splits: dict[str, Any]
    #: Receivers' accounts whose custody was released, and when.
    released: dict[str, datetime] = field(default_factory=dict)


@dataclass
class OrderRecord:
    """An order: what the merchant sent, plus its charges and deeplink by id."""

    id: str
    account: str
    created_at: datetime
    reference_id: str | None
    customer: dict[str, Any] | None
    items: list[Any] | None
    shipping: dict[str, Any] | None
    notification_urls: list[str]
    charge_ids: list[str] = field(default_factory=list)
    #: The Connect application whose access token created it (None: the merchant's own token).
    client_id: str | None = None
    deeplink_id: str | None = None
    metadata: dict[str, Any] | None = None
    qr_code_ids: list[str] = field(default_factory=list)
    #: The checkout whose page made it (its notifications say so in ``x-product-id``).
    checkout_id: str | None = None


@dataclass
class CheckoutRecord:
    """A hosted checkout (``CHEC_``): what the merchant sent, as answered, and its orders.

    ``body`` is the checkout in the answer's form (see ``checkout_rules``);
    ``code`` is the capability in its ``PAY`` link, as PagBank's
    ``pagamento?code=``; ``status`` is ACTIVE or INACTIVE until the clock
    passes ``expires_at``, then EXPIRED for good.
    """

    id: str
    account: str
    created_at: datetime
    expires_at: datetime
    code: str
    body: dict[str, Any]
    status: str = "ACTIVE"
    order_ids: list[str] = field(default_factory=list)
    #: The Connect application whose access token created it (None: the merchant's own token).
    client_id: str | None = None


@dataclass
class QrCodeRecord:
    """A Pix QR code of an order: one payment of ``amount``, until ``expires_at``."""

    id: str
    order_id: str
    account: str
    amount: int
    expires_at: datetime
    arrangements: list[str]
    text: str
    #: The charge its payment made (None while unpaid).
    charge_id: str | None = None
    #: ``qr_codes[].splits`` as sent: the payment is split so.
    splits: dict[str, Any] | None = None

    def is_expired(self, now: datetime) -> bool:
        return now >= self.expires_at


@dataclass
class State:
    """The emulator's world. ``accounts`` maps each bearer token to its ``ACCO_`` id."""

    clock: Clock
    keys: KeyPair
    notifier: Notifier
    accounts: dict[str, str]
    options: Options = field(default_factory=Options)
    #: What a reset puts back: the options the emulator was built with.
    initial_options: Options = field(default_factory=Options)
    faults: Faults = field(default_factory=Faults)
    #: Added to every provider answer; a reset puts back the one built with.
    latency: Latency = field(default_factory=Latency)
    initial_latency: Latency = field(default_factory=Latency)
    #: How many orders (and cards, answers, deliveries) are remembered.
    retention: Retention = field(default_factory=Retention)
    initial_retention: Retention = field(default_factory=Retention)
    orders: dict[str, OrderRecord] = field(default_factory=dict)
    charges: dict[str, ChargeRecord] = field(default_factory=dict)
    cards: dict[str, StoredCard] = field(default_factory=dict)
    splits: dict[str, SplitRecord] = field(default_factory=dict)
    deeplinks: dict[str, Deeplink] = field(default_factory=dict)
    qr_codes: dict[str, QrCodeRecord] = field(default_factory=dict)
    #: Hosted checkouts, by id (their pages find them by ``code``).
    checkouts: dict[str, CheckoutRecord] = field(default_factory=dict)
    #: Checkouts not EXPIRED yet, by id: the clock expires them.
    open_checkouts: set[str] = field(default_factory=set)
    #: Boleto charges still WAITING, by charge id: the clock cancels them after their due date.
    waiting_boletos: set[str] = field(default_factory=set)
    idempotency: IdempotencyStore = field(default_factory=IdempotencyStore)
    #: 3-D Secure sessions and authentications (they expire by themselves).
    threeds: ThreeDSStore = field(default_factory=ThreeDSStore)
    #: Connect (OAuth 2): applications, codes, sellers' grants.
    oauth: OAuthStore = field(default_factory=OAuthStore)
    #: Digests (``wallet_digest``) of the wallet keys each merchant has paid with: a key
    #: pays once.
    wallet_keys: dict[str, None] = field(default_factory=dict)

    def token_of(self, account: str) -> str | None:
        """The bearer token of ``account`` (it keys the notification digest)."""
        for token, owner in self.accounts.items():
            if owner == account:
                return token
        return None

    def signing_token(self, made: OrderRecord | CheckoutRecord) -> str | None:
        """The token an order's (or a checkout's) notifications are signed with: its
        merchant's own, or, for one a Connect application made, the seller's current
        access token or the application's secret (``OAuthStore.signer``)."""
        if made.client_id is None:
            return self.token_of(made.account)
        if self.oauth.signer == "application":
            app = self.oauth.applications.get(made.client_id)
            return app.client_secret if app is not None else None
        grant = self.oauth.current(made.client_id, made.account)
        return grant.access_token if grant is not None else None

    def clear(self) -> None:
        """Forget every order, charge, card, split, deeplink, checkout and idempotent answer."""
        self.orders.clear()
        self.charges.clear()
        self.cards.clear()
        self.splits.clear()
        self.deeplinks.clear()
        self.qr_codes.clear()
        self.checkouts.clear()
        self.open_checkouts.clear()
        self.waiting_boletos.clear()
        self.idempotency.clear()
        self.threeds.clear()
        self.oauth.clear()
        self.wallet_keys.clear()


@dataclass(frozen=True)
class Call:
    """One routed request as a handler sees it.

    ``params`` are the path's captured ids; ``payload`` the parsed JSON object
    (``{}`` for an empty body); ``account`` the merchant behind the bearer
    token (None on the open routes); ``now`` the emulator clock's reading.
    """

    request: Request
    params: tuple[str, ...]
    payload: dict[str, Any]
    account: str | None
    now: datetime
    #: The Connect application behind the caller's token (an access token it was
    #: issued, or its own credentials on ``/oauth2/*``); None for a merchant's token.
    client_id: str | None = None

    @property
    def base_url(self) -> str:
        return self.request.base_url.rstrip("/")

    @property
    def merchant(self) -> str:
        """The caller's account on an authenticated route."""
        if self.account is None:  # the router authenticates before any such handler runs
            raise RuntimeError("route needs an authenticated merchant")
        return self.account
