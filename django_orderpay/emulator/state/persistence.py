"""The emulator's optional state file: what the provider remembers, kept across a restart.

An emulator restarted with the same file (the command line's process, or
``runserver`` reloading the in-process mount) still answers for the orders,
charges, stored cards, splits, deeplinks, Pix QR codes, idempotent answers,
Connect applications and sellers' grants it had, with the same card key: the
shop's database and its provider agree again, so an admin refund or
``orderpay_sync`` after a restart finds its orders. Pending notifications,
faults, 3-D Secure sessions and the clock's offset are not kept (they are
short-lived, or a test's own).

The file is written after every call that may change the state, whole, to a
temporary file renamed over it (a crash leaves the old one), and read once,
when the emulator starts. It is a pickle of the emulator's own records, with
the card key as PEM; a file that cannot be read (another version, damaged)
is set aside with a warning and the emulator starts empty. It holds what the
provider holds, test card numbers included: keep it on the machine, out of
version control, as the database it stands beside.
"""

from __future__ import annotations

import logging
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .keypair import KeyPair

if TYPE_CHECKING:
    from .store import State

logger = logging.getLogger("django_orderpay.emulator")

#: Bumped when the records change shape: an older file is set aside, not misread.
FORMAT = 1
#: The parts of :class:`~.store.State` that the file keeps.
KEPT = (
    "orders",
    "charges",
    "cards",
    "splits",
    "deeplinks",
    "qr_codes",
    "waiting_boletos",
    "idempotency",
)
#: Parts kept since a later version (Connect's applications and sellers' grants): a
#: file written before them is still read, and they start empty.
LATER = ("oauth",)


@dataclass(frozen=True)
class Saved:
    """What a state file held: the card key pair and the kept parts of the state."""

    keys: KeyPair
    parts: dict[str, Any]


def save(state: State, path: Path) -> None:
    """Write ``state``'s kept parts and key pair to ``path`` (atomically)."""
    pem = state.keys.private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    data = {
        "format": FORMAT,
        "key": pem,
        "public_key": state.keys.public_key,
        "key_created_at": state.keys.created_at,
        "parts": {name: getattr(state, name) for name in (*KEPT, *LATER)},
    }
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as file:
        pickle.dump(data, file, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, path)


def load(path: Path) -> Saved | None:
    """What ``path`` holds, or None when there is no file or it cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        # The emulator's own file, written by save() on this machine (never a
        # stranger's upload): pickle is what keeps its records whole.
        data = pickle.loads(raw)  # noqa: S301
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a state file of format {FORMAT}")
        private_key = serialization.load_pem_private_key(data["key"], password=None)
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise ValueError("the card key is not RSA")
        keys = KeyPair(private_key, str(data["public_key"]), int(data["key_created_at"]))
        parts = {name: data["parts"][name] for name in KEPT}
        parts.update({name: data["parts"][name] for name in LATER if name in data["parts"]})
    except Exception as exc:
        aside = path.with_name(path.name + ".unreadable")
        os.replace(path, aside)
        logger.warning(
            "emulator state file %s could not be read (%s): set aside as %s, starting empty",
            path,
            type(exc).__name__,
            aside,
        )
        return None
    return Saved(keys, parts)
