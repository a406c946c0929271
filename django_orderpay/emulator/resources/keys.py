"""The small read-only resources: splits, the public key, the browser SDK script."""

from __future__ import annotations

from pathlib import Path

from ..serving.http import Response
from ..state import errors
from ..state.store import Call, State
from ..state.validation import (
    field_path,
    item_path,
    reject_unknown,
    require_list,
    require_object,
    require_object_field,
    require_str,
)
from .render import split_json
from .splits import in_custody

SDK_SCRIPT = Path(__file__).resolve().parent.parent / "static" / "pagseguro.js"
PUBLIC_KEY_TYPES = ("card",)


def get_split(state: State, call: Call) -> Response:
    """``GET /splits/{id}``: 200, the Split (this merchant's only)."""
    split = state.splits.get(call.params[0])
    if split is None or split.account != call.merchant:
        raise errors.not_found("split")
    return Response.json(200, split_json(state, split, call.base_url))


def release_custody(state: State, call: Call) -> Response:
    """``POST /splits/{id}/custody/release`` ``{"receivers": [{"account": {"id"}}]}``: 200.

    Releases the named receivers' shares held in custody (each must be one of
    the split's receivers with ``custody.apply``); answers the Split.
    """
    split = state.splits.get(call.params[0])
    if split is None or split.account != call.merchant:
        raise errors.not_found("split")
    reject_unknown(call.payload, {"receivers"}, "")
    entries = require_list(call.payload, "receivers", "", min_items=1) or []
    held = {r["account"]["id"]: r for r in split.splits["receivers"] if in_custody(r)}
    for index, entry in enumerate(entries):
        path = item_path("receivers", index)
        entry = require_object(entry, path)
        reject_unknown(entry, {"account"}, path)
        account = require_object_field(entry, "account", path) or {}
        account_id = require_str(account, "id", field_path(path, "account"))
        if account_id not in held:
            raise errors.invalid(field_path(path, "account.id"), "receiver_not_in_custody")
        split.released.setdefault(account_id, call.now)
    return Response.json(200, split_json(state, split, call.base_url))


def create_public_key(state: State, call: Call) -> Response:
    """``POST /public-keys`` body ``{"type": "card"}``: 201 (the docs'; 200 with the option
    ``created_statuses: "plugin"``), the key pair's public half.

    The emulator keeps one pair for its lifetime, so this answers the same key
    every time (the provider's answer is stable per merchant too).
    """
    reject_unknown(call.payload, {"type"}, "")
    require_str(call.payload, "type", "", choices=PUBLIC_KEY_TYPES)
    return Response.json(state.options.public_key_status, state.keys.as_json())


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
