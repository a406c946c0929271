"""What 3-D Secure leaves behind: checkout-SDK sessions and authentications.

A session (``POST /checkout-sdk/sessions``) lets a shopper's browser
authenticate cards for one merchant for 30 minutes. An authentication is the
result the browser SDK answers (``{status, id}``): its ``3DS_`` id may then
pay one charge, of the same card and amount, once, before it expires. Card
numbers are kept only as a SHA-256 digest: enough to check that the charge
pays the card that was authenticated.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

#: "A sessão é válida por no máximo 30 minutos" (PagBank's 3DS guide).
SESSION_LIFETIME = timedelta(minutes=30)
#: How long an authentication id may pay a charge: undocumented; the emulator's choice.
AUTHENTICATION_LIFETIME = timedelta(minutes=15)

#: Authentication statuses, as a charge shows them (``authentication_method.status``).
AUTHENTICATED = "AUTHENTICATED"
NOT_AUTHENTICATED = "NOT_AUTHENTICATED"
#: Ours: waiting for the shopper to answer the challenge, or the shopper failed it.
CHALLENGE_PENDING = "CHALLENGE_PENDING"
CHALLENGE_FAILED = "CHALLENGE_FAILED"


def card_digest(number: str) -> str:
    """What is kept of a card number: its SHA-256, to compare with the charge's card."""
    return hashlib.sha256(number.encode()).hexdigest()


@dataclass
class Session:
    """A checkout-SDK session: the merchant it authenticates for, until ``expires_at``."""

    id: str
    account: str
    expires_at: datetime

    def __repr__(self) -> str:  # a session is a bearer credential of the browser's
        return f"Session(account={self.account!r})"


@dataclass
class Authentication:
    """One run of ``authenticate3DS``: the card (digest), amount and type it authenticated."""

    id: str
    account: str
    card: str  # card_digest of the number
    amount: int
    payment_type: str  # CREDIT_CARD or DEBIT_CARD
    status: str
    brand: str
    expires_at: datetime
    #: The issuer's verdict once the shopper passes the challenge.
    verdict: str = AUTHENTICATED
    #: The charge that used it (an id pays one charge only).
    used_by: str | None = None

    def __repr__(self) -> str:
        return f"Authentication(id={self.id!r}, status={self.status!r})"


@dataclass
class ThreeDSStore:
    """Sessions and authentications; expired ones are dropped as new ones arrive."""

    sessions: dict[str, Session] = field(default_factory=dict)
    authentications: dict[str, Authentication] = field(default_factory=dict)

    def prune(self, now: datetime) -> None:
        """Forget sessions and authentications past their expiry (memory stays bounded)."""
        for key in [k for k, s in self.sessions.items() if s.expires_at <= now]:
            del self.sessions[key]
        stale = [k for k, a in self.authentications.items() if a.expires_at <= now]
        for key in stale:
            del self.authentications[key]

    def clear(self) -> None:
        self.sessions.clear()
        self.authentications.clear()
