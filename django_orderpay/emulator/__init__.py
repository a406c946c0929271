"""A stateful, in-memory emulator of the PagBank Orders API (``docs/emulator.md``).

``Emulator`` is the core; adapters serve it over WSGI/CLI
(``python -m django_orderpay.emulator``), a ``requests`` transport
(``transport.mount``) and a Django URLconf (``django_orderpay.emulator.urls``).
"""

from __future__ import annotations

from .core import DEFAULT_TOKEN, Emulator, account_for
from .resources.cards import ANTIFRAUD_DECLINED_CARD, IN_ANALYSIS_CARD
from .serving.http import Request, Response

__all__ = [
    "ANTIFRAUD_DECLINED_CARD",
    "DEFAULT_TOKEN",
    "IN_ANALYSIS_CARD",
    "Emulator",
    "Request",
    "Response",
    "account_for",
]
