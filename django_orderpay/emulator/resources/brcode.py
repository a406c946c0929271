"""The Pix "copia e cola" text: a BR Code (EMV merchant-presented QR payload) with its CRC.

Built as the Banco Central's BR Code manual lays it out, so a banking app's
parser accepts its shape: ID-length-value fields, a dynamic payload
(point of initiation ``12``, one payment) whose merchant account names the
Pix GUI and the location URL, the amount, the merchant's name and city, the
transaction id, and a CRC16-CCITT (polynomial 0x1021, start 0xFFFF) of
everything before it, ``6304`` included.
"""

from __future__ import annotations

import binascii
import unicodedata

PIX_GUI = "br.gov.bcb.pix"
#: Merchant category code 0000 ("not informed"), as PagBank's payloads carry.
MERCHANT_CATEGORY = "0000"
BRL = "986"
MERCHANT_NAME_LIMIT = 25
MERCHANT_CITY_LIMIT = 15


def field(tag: str, value: str) -> str:
    """One EMV field: two-digit id, two-digit length, value (at most 99 characters)."""
    if len(value) > 99:
        raise ValueError(f"BR Code field {tag} is longer than 99 characters")
    return f"{tag}{len(value):02d}{value}"


def _plain(text: str, limit: int) -> str:
    """Upper-case ASCII letters, digits and spaces, as a BR Code's name and city must be."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    kept = "".join(c for c in ascii_text if c.isalnum() or c == " ").strip()
    return (kept or "LOJA")[:limit].upper()


def crc16(payload: str) -> str:
    """The BR Code's CRC: CRC16-CCITT-FALSE of ``payload``, four upper-case hex digits."""
    return f"{binascii.crc_hqx(payload.encode('ascii'), 0xFFFF):04X}"


def brcode(*, location: str, amount: int, merchant: str, city: str, txid: str = "***") -> str:
    """The "copia e cola" text of a dynamic Pix QR code of ``amount`` cents at ``location``."""
    account = field("00", PIX_GUI) + field("25", location)
    payload = (
        field("00", "01")
        + field("01", "12")
        + field("26", account)
        + field("52", MERCHANT_CATEGORY)
        + field("53", BRL)
        + field("54", f"{amount // 100}.{amount % 100:02d}")
        + field("58", "BR")
        + field("59", _plain(merchant, MERCHANT_NAME_LIMIT))
        + field("60", _plain(city, MERCHANT_CITY_LIMIT))
        + field("62", field("05", txid))
        + "6304"
    )
    return payload + crc16(payload)


def parse(text: str) -> dict[str, str]:
    """The top-level fields of a BR Code (``{"00": "01", ...}``); ``ValueError`` if malformed.

    Checks the CRC as a banking app does, so tests can read the emulator's
    text back the way a payer's app would.
    """
    if len(text) < 8 or text[-8:-4] != "6304" or crc16(text[:-4]) != text[-4:]:
        raise ValueError("not a BR Code: its CRC does not match")
    fields: dict[str, str] = {}
    position = 0
    while position < len(text):
        tag, length = text[position : position + 2], text[position + 2 : position + 4]
        if not length.isdigit():
            raise ValueError(f"BR Code field {tag} has no length")
        value = text[position + 4 : position + 4 + int(length)]
        fields[tag] = value
        position += 4 + int(length)
    return fields
