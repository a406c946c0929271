"""A stateful, in-memory emulator of the PagBank Orders API (``docs/emulator.md``).

``Emulator`` is the core; adapters serve it over WSGI/CLI
(``python -m django_orderpay.emulator``), a ``requests`` transport
(``transport.mount``) and a Django URLconf (``django_orderpay.emulator.urls``).
"""

from __future__ import annotations

from .core import DEFAULT_TOKEN, Emulator, account_for
from .resources.boleto import BOLETO_DECLINED_TAX_ID
from .resources.cards import ANTIFRAUD_DECLINED_CARD, IN_ANALYSIS_CARD
from .resources.threeds import (
    AUTHENTICATION_REQUIRED_CARD,
    CHALLENGE_CODE,
    SANDBOX_3DS_CARDS,
    THREEDS_CHANGE_PAYMENT_METHOD_CARD,
    THREEDS_NOT_SUPPORTED_CARD,
)
from .serving.http import Request, Response

__all__ = [
    "ANTIFRAUD_DECLINED_CARD",
    "AUTHENTICATION_REQUIRED_CARD",
    "BOLETO_DECLINED_TAX_ID",
    "CHALLENGE_CODE",
    "DEFAULT_TOKEN",
    "IN_ANALYSIS_CARD",
    "SANDBOX_3DS_CARDS",
    "THREEDS_CHANGE_PAYMENT_METHOD_CARD",
    "THREEDS_NOT_SUPPORTED_CARD",
    "Emulator",
    "Request",
    "Response",
    "account_for",
]
