"""The field readers every parser shares: each value checked and named by its path."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from django.utils.dateparse import parse_datetime

from ...models.base import known_values
from ...models.orders import PROVIDER_TIMEZONE

logger = logging.getLogger("django_orderpay.sync")

#: The columns that hold the provider's enumerations (statuses, types, methods).
ENUM_LENGTH = 32
#: What no database text column (PostgreSQL's NUL) or UTF-8 (a lone surrogate) can hold.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
#: A NUL as it appears in ``json.dumps(..., ensure_ascii=False)``.
NUL_IN_JSON = "\\u0000"
REPLACEMENT = "\ufffd"


def storable(value: Any) -> Any:
    """``value`` with every character the database can't store replaced by U+FFFD.

    The provider's text is mirrored whatever it holds: a NUL in a customer's
    name must not fail every sync of the order (a notification retried
    forever, an order charged and never mirrored). An answer with none (all
    but a few) is returned as it is, after one look at its JSON.
    """
    if isinstance(value, dict | list) and _all_storable(value):
        return value
    return _replaced(value)


def _all_storable(value: dict[str, Any] | list[Any]) -> bool:
    # A NUL is escaped in JSON ("\u0000"), a lone surrogate is not (with
    # ensure_ascii off) and can't be encoded to UTF-8. A literal backslash
    # before "u0000" looks the same: it only costs the slow path. A
    # substring search and an encode, both in C: a regular expression
    # over the whole text cost as much as dumping it.
    try:
        encoded = json.dumps(value, ensure_ascii=False)
        encoded.encode()
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return False
    return NUL_IN_JSON not in encoded


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return UNSTORABLE.sub(REPLACEMENT, value) if UNSTORABLE.search(value) else value
    if isinstance(value, Mapping):
        return {_replaced(key): _replaced(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_replaced(item) for item in value]
    return value


class SyncError(ValueError):
    """Provider JSON that cannot be mirrored; ``field`` is the offending path."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def object_at(value: Any, path: str) -> Mapping[str, Any]:
    # A dict first: what parsed JSON holds, and the ABC's check costs ten times more.
    if type(value) is not dict and not isinstance(value, Mapping):
        raise SyncError(path or "body", "must be a JSON object")
    return value


def optional_object(parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    # The path is only worked out for the error.
    return value if type(value) is dict else object_at(value, join(path, key))


def text(
    parent: Mapping[str, Any], key: str, path: str, *, max_length: int = 255, strict: bool = False
) -> str:
    """A text field; longer than its column, it is cut there (``data`` keeps it whole).

    ``strict``: too long is a :class:`SyncError` instead (an id cut short would
    name another object). A provider that sends more than we expected must
    not make an order unmirrorable (a notification retried forever).
    """
    value = parent.get(key)
    if value is None:
        return ""
    if type(value) is str:  # nearly always: no further look
        text = value
    elif isinstance(value, str | int) and not isinstance(value, bool):
        text = str(value)
    else:
        raise SyncError(join(path, key), "must be a string")
    if len(text) > max_length:
        if strict:
            raise SyncError(join(path, key), f"longer than {max_length} characters")
        logger.warning("sync: %s is longer than %d characters; cut", join(path, key), max_length)
        text = text[:max_length]
    return text


def provider_id(parent: Mapping[str, Any], key: str, path: str, prefix: str) -> str:
    value = text(parent, key, path, max_length=64, strict=True)
    if not value.startswith(prefix):
        raise SyncError(join(path, key), f"must be a provider id starting with {prefix}")
    return value


def cents(parent: Mapping[str, Any], key: str, path: str, default: int | None = None) -> int:
    value = parent.get(key)
    if value is None and default is not None:
        return default
    # The provider sends integers; receivers' amounts arrive as digit strings.
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise SyncError(join(path, key), "must be a non-negative integer amount in cents")
    return value


def timestamp(parent: Mapping[str, Any], key: str, path: str) -> dt.datetime | None:
    value = parent.get(key)
    if value in (None, ""):
        return None
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well formed but impossible, e.g. month 13
        parsed = None
    if parsed is None:
        raise SyncError(join(path, key), "must be an ISO 8601 timestamp")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=PROVIDER_TIMEZONE)
    return parsed


def day(parent: Mapping[str, Any], key: str, path: str) -> dt.date | None:
    """A ``YYYY-MM-DD`` date (a boleto's due date); anything else is kept out, with a warning."""
    value = parent.get(key)
    if value in (None, ""):
        return None
    parsed = None
    if isinstance(value, str):
        try:
            parsed = dt.date.fromisoformat(value[:10])
        except ValueError:
            parsed = None
    if parsed is None:
        logger.warning("sync: %s is not a date: %r", join(path, key), value)
    return parsed


def choice(parent: Mapping[str, Any], key: str, path: str, choices: Any) -> str:
    """One of ``choices``, or a value this version does not know yet, kept as text.

    The provider documents more values than we model (``recurring.type``
    ``UNSCHEDULED`` and ``STANDING ORDER``) and will add more: an unknown one
    is stored as it is, with a warning, never refused.
    """
    value = text(parent, key, path, max_length=ENUM_LENGTH)
    if value and value not in known_values(choices):
        logger.warning("sync: %s is a value this version does not know: %r", join(path, key), value)
    return value
