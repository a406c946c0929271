"""The emulator's card-encryption key pair and the ``/public-keys`` answer."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from django_orderpay.cardcrypto import CardData, decrypt_card


@dataclass(frozen=True)
class KeyPair:
    """An RSA-2048 pair made once per emulator; ``created_at`` is epoch milliseconds."""

    private_key: rsa.RSAPrivateKey
    public_key: str
    created_at: int

    @classmethod
    def generate(cls, created_at: int) -> KeyPair:
        """A fresh pair; the public half as base64 DER SubjectPublicKeyInfo, no PEM armour."""
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        der = private_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return cls(private_key, base64.b64encode(der).decode("ascii"), created_at)

    def as_json(self) -> dict[str, object]:
        """The body of ``POST /public-keys`` and ``GET /public-keys/card``."""
        return {"public_key": self.public_key, "created_at": self.created_at}

    def decrypt(self, encrypted: str) -> CardData:
        """The card inside ``card.encrypted`` (raises ``CardDecryptionError``)."""
        return decrypt_card(self.private_key, encrypted)

    def __repr__(self) -> str:  # never print the private key
        return f"KeyPair(created_at={self.created_at})"
