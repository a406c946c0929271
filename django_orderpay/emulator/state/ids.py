"""Identifiers and the digit strings the provider invents (NSU, codes, NRID)."""

from __future__ import annotations

import secrets
import uuid


def new_id(prefix: str) -> str:
    """``prefix`` + an upper-case UUID4, as the provider's ids are: ``ORDE_0B1C2D3E-...``."""
    return f"{prefix}{str(uuid.uuid4()).upper()}"


def digits(count: int) -> str:
    """``count`` random decimal digits."""
    return f"{secrets.randbelow(10**count):0{count}d}"


def nsu() -> str:
    """A 12-digit NSU, the acquirer's sequence number (``payment_response.reference``)."""
    return digits(12)


def authorization_code() -> str:
    """A 6-digit issuer authorisation code (``raw_data.authorization_code``)."""
    return digits(6)


def brand_reference_id() -> str:
    """A 15-digit NRID, the Elo recurrence reference (``payment_response.brand_reference_id``)."""
    return digits(15)


def end_to_end_id(moment: str) -> str:
    """A Pix end-to-end id: ``E``, the payer bank's ISPB, ``yyyyMMddHHmm`` and 11 more."""
    return f"E18236120{moment}{digits(11)}"
