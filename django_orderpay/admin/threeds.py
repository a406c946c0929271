"""How a charge's 3-D Secure result and its buyer's interest read in the admin."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..models import Charge, PaymentMethodType, format_cents

#: Charges 3-D Secure can authenticate.
CARD_METHODS = (PaymentMethodType.CREDIT_CARD, PaymentMethodType.DEBIT_CARD)

STATUS_WORDS: dict[str, Any] = {
    "AUTHENTICATED": gettext_lazy("authenticated"),
    "NOT_AUTHENTICATED": gettext_lazy("not authenticated"),
}


def threeds_summary(charge: Charge) -> str:
    """``authenticated (3DS_...)``, ``not authenticated``, ``external, ECI 05``, or a dash.

    A card charge sent without any authentication says so: it was paid without
    3-D Secure (``THREEDS`` off, or a card its issuer does not authenticate let
    through by ``THREEDS_ALLOW_NOT_SUPPORTED``).
    """
    method = (charge.data or {}).get("payment_method") or {}
    auth = method.get("authentication_method") if isinstance(method, dict) else None
    if not isinstance(auth, dict):
        if charge.payment_method in CARD_METHODS:
            return str(_("not authenticated: sent without 3-D Secure"))
        return "-"
    status = auth.get("status")
    words = str(STATUS_WORDS.get(str(status), status or _("sent")))
    if auth.get("id"):
        return f"{words} ({auth['id']})"
    return _("%(status)s, by another 3-D Secure server (ECI %(eci)s)") % {
        "status": words,
        "eci": auth.get("eci", "?"),
    }


def interest_summary(charge: Charge) -> str:
    """The buyer's interest inside the amount (an installment plan's), or a dash."""
    total = charge.buyer_interest
    return format_cents(total, charge.currency) if total else "-"
