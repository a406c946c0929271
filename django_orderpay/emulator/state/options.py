"""Where the real API's behaviour is not settled, the emulator lets a test pick it.

Each option is a behaviour real sources disagree on (see ``docs/emulator.md``,
"Where the emulator chose a side"); the default is the one the emulator
answers unless told otherwise. Set them when building the emulator
(``Emulator(options=Options(...))``) or, while it runs, through the control
plane (``POST /_emulator/options``); a reset puts back the ones it was built
with.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

#: A reused key with another body: production's 409 body (2026, seen by the
#: official WooCommerce plugin) or the docs' 40005 ``idempotency_key_in_use``.
CONFLICT_SHAPES = ("production", "docs")
#: The charge's status after a partial refund: undocumented.
PARTIAL_REFUND_STATUSES = ("PAID", "CANCELED")
#: A debit card's charge whose issuer did NOT_AUTHENTICATE the shopper: PAID in PagBank's
#: sandbox table (every NOT_AUTHENTICATED test card pays), or DECLINED (no debit without
#: authentication: what the emulator did before, and what a live issuer may do).
DEBIT_NOT_AUTHENTICATED_OUTCOMES = ("PAID", "DECLINED")
#: The statuses of ``POST /public-keys`` and ``POST /checkout-sdk/sessions``: the docs'
#: (201 and 200), or the official plugin's expectation (200 and 201: it requires 201 of
#: the session).
CREATED_STATUSES = {"docs": (201, 200), "plugin": (200, 201)}
#: The HTTP status of the Checkout API's ``checkout_not_found``: its error table lists the
#: name without a status (among 400, 401, 403, 404, 406 and 415); the get, activate and
#: inactivate pages document only 200 and 400.
CHECKOUT_NOT_FOUND_STATUSES = (404, 400)


@dataclass(frozen=True)
class Options:
    """The emulator's choices where the real API is not settled."""

    idempotency_conflict: str = "production"
    partial_refund_status: str = "PAID"
    #: 18 installments "mediante aprovação": off, as on a new account.
    installments_18x: bool = False
    #: Whether the account has installment fees (``GET /charges/fees/calculate``):
    #: off, it answers ``fees_not_configured`` as for an account without them.
    fees_configured: bool = True
    #: A NOT_AUTHENTICATED debit: ``PAID`` (the sandbox table) or ``DECLINED``.
    debit_not_authenticated: str = "PAID"
    #: ``docs``: a public key 201, a 3DS session 200; ``plugin``: 200 and 201.
    created_statuses: str = "docs"
    #: A customer's ``tax_id`` of 9 or 10 digits, as the Google Pay and Apple Pay examples
    #: send "123456789": refused as the order object's table (11 or 14), or taken.
    short_tax_ids: bool = False
    #: Whether the account may create recurrent checkouts (``recurrence_plan``): off,
    #: ``recurrent_checkout_disabled``, as for an account PagBank has not enabled.
    recurrent_checkout: bool = False
    #: The status of ``checkout_not_found`` from the Checkout API: 404 or 400.
    checkout_not_found_status: int = 404

    def __post_init__(self) -> None:
        if self.idempotency_conflict not in CONFLICT_SHAPES:
            raise ValueError(f"idempotency_conflict must be one of {', '.join(CONFLICT_SHAPES)}")
        if self.partial_refund_status not in PARTIAL_REFUND_STATUSES:
            raise ValueError(
                f"partial_refund_status must be one of {', '.join(PARTIAL_REFUND_STATUSES)}"
            )
        if not isinstance(self.installments_18x, bool):
            raise ValueError("installments_18x must be true or false")
        if not isinstance(self.fees_configured, bool):
            raise ValueError("fees_configured must be true or false")
        if not isinstance(self.recurrent_checkout, bool):
            raise ValueError("recurrent_checkout must be true or false")
        if not isinstance(self.short_tax_ids, bool):
            raise ValueError("short_tax_ids must be true or false")
        if self.created_statuses not in CREATED_STATUSES:
            raise ValueError("created_statuses must be one of " + ", ".join(CREATED_STATUSES))
        if self.checkout_not_found_status not in CHECKOUT_NOT_FOUND_STATUSES:
            raise ValueError(
                "checkout_not_found_status must be one of "
                + ", ".join(str(status) for status in CHECKOUT_NOT_FOUND_STATUSES)
            )
        if self.debit_not_authenticated not in DEBIT_NOT_AUTHENTICATED_OUTCOMES:
            raise ValueError(
                "debit_not_authenticated must be one of "
                + ", ".join(DEBIT_NOT_AUTHENTICATED_OUTCOMES)
            )

    @property
    def public_key_status(self) -> int:
        return CREATED_STATUSES[self.created_statuses][0]

    @property
    def session_status(self) -> int:
        return CREATED_STATUSES[self.created_statuses][1]

    @property
    def max_installments(self) -> int:
        return rules.MAX_INSTALLMENTS_ENABLED if self.installments_18x else rules.MAX_INSTALLMENTS

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def changed(self, values: dict[str, Any]) -> Options:
        """A copy with ``values`` applied (``ValueError`` naming an unknown or wrong one)."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r}; known: {', '.join(sorted(known))}")
        return dataclasses.replace(self, **values)
