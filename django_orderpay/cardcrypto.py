"""Card encryption as the provider's browser SDK does it, and the notification digest.

Pure (no Django, no I/O). ``encrypt_card`` produces exactly what
``PagSeguro.encryptCard()`` produces, so a server or a test can build
``card.encrypted``; ``decrypt_card`` is the provider's side (the emulator's).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
import unicodedata
import warnings
from dataclasses import dataclass
from typing import cast

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

HOLDER_MAX_LENGTH = 30

# The SDK's error codes (``errors[].code``) and our wording of them.
INVALID_NUMBER = "INVALID_NUMBER"
INVALID_SECURITY_CODE = "INVALID_SECURITY_CODE"
INVALID_EXPIRATION_MONTH = "INVALID_EXPIRATION_MONTH"
INVALID_EXPIRATION_YEAR = "INVALID_EXPIRATION_YEAR"
INVALID_PUBLIC_KEY = "INVALID_PUBLIC_KEY"
INVALID_HOLDER = "INVALID_HOLDER"


class CardEncryptionError(ValueError):
    """The card fields fail the SDK's validation; ``errors`` holds (code, message) pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        super().__init__(", ".join(code for code, _ in errors))


class CardDecryptionError(ValueError):
    """``card.encrypted`` is not a card encrypted with this key."""


@dataclass(frozen=True)
class CardData:
    """The plaintext of ``card.encrypted``."""

    number: str
    security_code: str
    exp_month: str
    exp_year: str
    holder: str
    epoch_ms: int

    def __repr__(self) -> str:  # never print a card number or security code
        return f"CardData(last_digits={self.number[-4:]!r}, exp={self.exp_month}/{self.exp_year})"


def normalize_holder(holder: str) -> str:
    """The holder as the SDK sends it: ASCII letters and spaces, accents stripped, 30 at most."""
    ascii_only = unicodedata.normalize("NFKD", holder).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z ]", "", ascii_only)[:HOLDER_MAX_LENGTH]


def validate_card_fields(
    public_key_b64: str,
    number: str,
    security_code: str,
    exp_month: str | int,
    exp_year: str | int,
    holder: str,
) -> list[tuple[str, str]]:
    """The SDK's validation: a list of (code, message), empty when the card may be encrypted."""
    errors: list[tuple[str, str]] = []
    if load_public_key(public_key_b64) is None:
        errors.append((INVALID_PUBLIC_KEY, "invalid public key"))
    if not re.fullmatch(r"[0-9]{13,19}", number or ""):
        errors.append((INVALID_NUMBER, "invalid card number: 13 to 19 digits"))
    if not re.fullmatch(r"([0-9]{3,4})?", security_code or ""):
        errors.append((INVALID_SECURITY_CODE, "invalid security code: 3 or 4 digits"))
    month = str(exp_month)
    if not re.fullmatch(r"[0-9]{1,2}", month) or not 1 <= int(month) <= 12:
        errors.append((INVALID_EXPIRATION_MONTH, "invalid expiration month: 1 to 12"))
    year = str(exp_year)
    if not re.fullmatch(r"[0-9]{4}", year) or not 1900 <= int(year) <= 2099:
        errors.append((INVALID_EXPIRATION_YEAR, "invalid expiration year: 1900 to 2099"))
    if not holder or re.search(r"\d", holder) or not normalize_holder(holder).strip():
        errors.append((INVALID_HOLDER, "invalid holder: letters and spaces only"))
    return errors


def load_public_key(public_key_b64: str) -> rsa.RSAPublicKey | None:
    """The RSA key of a base64 DER SubjectPublicKeyInfo (as ``/public-keys`` answers), or None."""
    try:
        key = serialization.load_der_public_key(base64.b64decode(public_key_b64, validate=True))
    except (ValueError, TypeError, binascii.Error):
        return None
    return key if isinstance(key, rsa.RSAPublicKey) else None


def card_plaintext(
    number: str,
    security_code: str,
    exp_month: str | int,
    exp_year: str | int,
    holder: str,
    epoch_ms: int,
) -> bytes:
    """``number;securityCode;expMonth;expYear;holder;epoch_ms``, as the SDK encrypts it."""
    month = f"{int(exp_month):02d}"
    fields = [number, security_code or "", month, str(exp_year), normalize_holder(holder)]
    return ";".join([*fields, str(epoch_ms)]).encode("ascii")


#: The card fields of :func:`encrypt_card`, in ``Card.raw``'s order (the provider's).
CARD_FIELDS = ("number", "exp_month", "exp_year", "security_code", "holder")
#: The positional order ``encrypt_card`` took before it took keywords (deprecated).
_OLD_POSITIONAL_ORDER = ("number", "security_code", "exp_month", "exp_year", "holder")


def encrypt_card(
    public_key_b64: str,
    *old_positional: str | int,
    number: str | None = None,
    exp_month: str | int | None = None,
    exp_year: str | int | None = None,
    security_code: str | None = None,
    holder: str | None = None,
    epoch_ms: int | None = None,
) -> str:
    """``card.encrypted`` for these card fields: RSA PKCS#1 v1.5, standard base64.

    The card fields are keywords (``encrypt_card(key, number=..., exp_month=...,
    exp_year=..., security_code=..., holder=...)``): ``Card.raw`` takes the same
    values positionally, and two orders of five strings are one too many.
    The old positional order (number, security code, month, year, holder)
    still works, with a ``DeprecationWarning``. Raises
    :class:`CardEncryptionError` with the SDK's codes when a field is invalid.
    """
    given = {
        "number": number,
        "exp_month": exp_month,
        "exp_year": exp_year,
        "security_code": security_code,
        "holder": holder,
    }
    if old_positional:
        if len(old_positional) != len(_OLD_POSITIONAL_ORDER) or any(
            v is not None for v in given.values()
        ):
            raise TypeError(
                "encrypt_card() takes the card fields as keywords: "
                + ", ".join(f"{name}=" for name in CARD_FIELDS)
            )
        warnings.warn(
            "encrypt_card(key, number, security_code, exp_month, exp_year, holder) is "
            "deprecated: pass the card fields as keywords (number=, exp_month=, exp_year=, "
            "security_code=, holder=)",
            DeprecationWarning,
            stacklevel=2,
        )
        given = dict(zip(_OLD_POSITIONAL_ORDER, old_positional, strict=True))
    missing = [name for name in CARD_FIELDS if given[name] is None]
    if missing:
        raise TypeError(f"encrypt_card() is missing {', '.join(m + '=' for m in missing)}")
    number, security_code = str(given["number"]), str(given["security_code"])
    month, year = cast(str | int, given["exp_month"]), cast(str | int, given["exp_year"])
    holder = str(given["holder"])
    errors = validate_card_fields(public_key_b64, number, security_code, month, year, holder)
    if errors:
        raise CardEncryptionError(errors)
    key = load_public_key(public_key_b64)
    assert key is not None  # validated above
    stamp = int(time.time() * 1000) if epoch_ms is None else epoch_ms
    plaintext = card_plaintext(number, security_code, month, year, holder, stamp)
    try:
        ciphertext = key.encrypt(plaintext, padding.PKCS1v15())
    except ValueError as exc:  # a key too small for the plaintext, as the SDK reports it
        raise CardEncryptionError([(INVALID_PUBLIC_KEY, "public key too small")]) from exc
    return base64.b64encode(ciphertext).decode("ascii")


def decrypt_card(private_key: rsa.RSAPrivateKey, encrypted_b64: str) -> CardData:
    """The card inside ``card.encrypted``.

    PKCS#1 v1.5 first, then OAEP: two ports of the SDK agree on v1.5, one official note says OAEP.
    """
    try:
        ciphertext = base64.b64decode(encrypted_b64, validate=True)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise CardDecryptionError("not base64") from exc
    if len(ciphertext) != private_key.key_size // 8:
        raise CardDecryptionError("wrong length for the key")
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    oaep_sha1 = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None)  # noqa: S303
    # OpenSSL's implicit rejection makes a PKCS#1 v1.5 decryption of foreign
    # ciphertext "succeed" with random bytes, so a scheme counts only when its
    # plaintext parses.
    for scheme in (padding.PKCS1v15(), oaep_sha1, oaep):
        try:
            return parse_card_plaintext(private_key.decrypt(ciphertext, scheme))
        except (ValueError, CardDecryptionError):
            continue
    raise CardDecryptionError("cannot be decrypted with this key")


def parse_card_plaintext(plaintext: bytes) -> CardData:
    """Split the SDK's plaintext into its fields, checking each."""
    try:
        parts = plaintext.decode("ascii").split(";")
    except UnicodeDecodeError as exc:
        raise CardDecryptionError("plaintext is not ASCII") from exc
    if len(parts) != 6:
        raise CardDecryptionError("plaintext does not have six fields")
    number, security_code, month, year, holder, stamp = parts
    if not (
        re.fullmatch(r"\d{13,19}", number)
        and re.fullmatch(r"(\d{3,4})?", security_code)
        and re.fullmatch(r"\d{2}", month)
        and re.fullmatch(r"\d{4}", year)
        and re.fullmatch(r"\d+", stamp)
    ):
        raise CardDecryptionError("plaintext fields are malformed")
    return CardData(number, security_code, month, year, holder, int(stamp))


def authenticity_token(api_token: str, raw_body: bytes) -> str:
    """``x-authenticity-token`` of a notification: hex SHA-256 of ``token + "-" + body``.

    A plain digest, not an HMAC, computed over the body bytes exactly as sent.
    """
    return hashlib.sha256(api_token.encode() + b"-" + raw_body).hexdigest()
