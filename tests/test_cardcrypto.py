from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from django_orderpay import cardcrypto


@pytest.fixture(scope="module")
def key_pair() -> tuple[rsa.RSAPrivateKey, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, base64.b64encode(der).decode()


def test_encrypted_card_is_344_base64_chars_and_decrypts_to_the_sdk_plaintext(key_pair):
    private, public = key_pair
    encrypted = cardcrypto.encrypt_card(
        public,
        number="4111111111111111",
        security_code="123",
        exp_month="5",
        exp_year="2030",
        holder="José da Silva-Ñº",
        epoch_ms=1700000000000,
    )
    assert len(encrypted) == 344
    raw = private.decrypt(base64.b64decode(encrypted), padding.PKCS1v15())
    assert raw == b"4111111111111111;123;05;2030;Jose da SilvaNo;1700000000000"
    card = cardcrypto.decrypt_card(private, encrypted)
    assert (card.number, card.security_code, card.exp_month, card.exp_year) == (
        "4111111111111111",
        "123",
        "05",
        "2030",
    )
    assert "4111111111111111" not in repr(card) and "123" not in repr(card)


def test_every_encryption_differs(key_pair):
    _, public = key_pair
    card = {
        "number": "4111111111111111",
        "exp_month": "12",
        "exp_year": "2030",
        "security_code": "123",
        "holder": "Jose",
    }
    assert cardcrypto.encrypt_card(public, **card) != cardcrypto.encrypt_card(public, **card)


def test_holder_is_reduced_to_ascii_letters_and_30_characters():
    assert cardcrypto.normalize_holder("Ação Ümlaut-Ñandú") == "Acao UmlautNandu"
    assert len(cardcrypto.normalize_holder("A" * 50)) == 30


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (("41111", "123", "12", "2030", "Jose"), "INVALID_NUMBER"),
        (("4111111111111111", "12", "12", "2030", "Jose"), "INVALID_SECURITY_CODE"),
        (("4111111111111111", "123", "13", "2030", "Jose"), "INVALID_EXPIRATION_MONTH"),
        (("4111111111111111", "123", "12", "30", "Jose"), "INVALID_EXPIRATION_YEAR"),
        (("4111111111111111", "123", "12", "2030", "Jose 2"), "INVALID_HOLDER"),
    ],
)
def test_sdk_validation_codes(key_pair, fields, code):
    _, public = key_pair
    with pytest.raises(cardcrypto.CardEncryptionError) as excinfo:
        number, security_code, exp_month, exp_year, holder = fields
        cardcrypto.encrypt_card(
            public,
            number=number,
            exp_month=exp_month,
            exp_year=exp_year,
            security_code=security_code,
            holder=holder,
        )
    assert [c for c, _ in excinfo.value.errors] == [code]
    assert "4111111111111111" not in str(excinfo.value)


def test_invalid_public_key_is_reported():
    errors = cardcrypto.validate_card_fields(
        "bm90IGEga2V5", "4111111111111111", "123", 1, 2030, "Jo"
    )
    assert [c for c, _ in errors] == ["INVALID_PUBLIC_KEY"]


def test_empty_security_code_is_allowed(key_pair):
    private, public = key_pair
    encrypted = cardcrypto.encrypt_card(
        public,
        number="4111111111111111",
        security_code="",
        exp_month="12",
        exp_year="2030",
        holder="Jose",
    )
    assert cardcrypto.decrypt_card(private, encrypted).security_code == ""


def test_oaep_ciphertext_is_accepted_after_pkcs1v15_fails(key_pair):
    private, _ = key_pair
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    ciphertext = private.public_key().encrypt(b"4111111111111111;123;12;2030;Jose;1", oaep)
    card = cardcrypto.decrypt_card(private, base64.b64encode(ciphertext).decode())
    assert card.holder == "Jose"


@pytest.mark.parametrize("blob", ["not base64!", base64.b64encode(b"short").decode(), ""])
def test_bad_ciphertext_is_a_decryption_error(key_pair, blob):
    private, _ = key_pair
    with pytest.raises(cardcrypto.CardDecryptionError):
        cardcrypto.decrypt_card(private, blob)


def test_authenticity_token_is_sha256_of_token_dash_body():
    body = b'{"id":"ORDE_X"}'
    expected = hashlib.sha256(b"tok-" + body).hexdigest()
    assert cardcrypto.authenticity_token("tok", body) == expected


def test_non_ascii_digits_are_an_invalid_number(key_pair):
    _, public = key_pair
    with pytest.raises(cardcrypto.CardEncryptionError) as excinfo:
        cardcrypto.encrypt_card(
            public,
            number="\uff14" * 16,
            security_code="123",
            exp_month="12",
            exp_year="2030",
            holder="Jose",
        )
    assert [c for c, _ in excinfo.value.errors] == ["INVALID_NUMBER"]


def test_a_key_too_small_for_the_plaintext_is_an_invalid_public_key():
    # cryptography refuses to generate keys under 1024 bits: build a 512-bit one by hand.
    p, q = 2**255 + 95, 2**256 + 297  # two primes
    small = rsa.RSAPublicNumbers(65537, p * q).public_key()
    der = small.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(cardcrypto.CardEncryptionError) as excinfo:
        cardcrypto.encrypt_card(
            base64.b64encode(der).decode(),
            number="4111111111111111",
            security_code="123",
            exp_month="12",
            exp_year="2030",
            holder="J" * 30,
        )
    assert [c for c, _ in excinfo.value.errors] == ["INVALID_PUBLIC_KEY"]
