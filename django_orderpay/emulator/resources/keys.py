"""The small read-only resources: splits, the public key, the browser SDK script."""

from __future__ import annotations

from pathlib import Path

from ..serving.http import Response
from ..state import errors
from ..state.store import Call, State
from ..state.validation import reject_unknown, require_str
from .render import split_json

SDK_SCRIPT = Path(__file__).resolve().parent.parent / "static" / "pagseguro.js"
PUBLIC_KEY_TYPES = ("card",)


def get_split(state: State, call: Call) -> Response:
    """``GET /splits/{id}``: 200, the Split (this merchant's only)."""
    split = state.splits.get(call.params[0])
    if split is None or split.account != call.merchant:
        raise errors.not_found("split")
    return Response.json(200, split_json(state, split, call.base_url))


def create_public_key(state: State, call: Call) -> Response:
    """``POST /public-keys`` body ``{"type": "card"}``: 200, the key pair's public half.

    The emulator keeps one pair for its lifetime, so this answers the same key
    every time (the provider's answer is stable per merchant too).
    """
    reject_unknown(call.payload, {"type"}, "")
    require_str(call.payload, "type", "", choices=PUBLIC_KEY_TYPES)
    return Response.json(200, state.keys.as_json())


def get_public_key(state: State, call: Call) -> Response:
    """``GET /public-keys/card``: 200, same shape."""
    return Response.json(200, state.keys.as_json())


def sdk_script(state: State, call: Call) -> Response:
    """``GET /sdk/pagseguro.js``: the browser SDK that defines ``PagSeguro.encryptCard()``."""
    try:
        script = SDK_SCRIPT.read_bytes()
    except OSError:
        raise errors.not_found("sdk script") from None
    return Response(200, script, [("Content-Type", "application/javascript")])
