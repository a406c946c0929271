"""Request bodies as the provider reads them: strict JSON, UTF-8, nothing a reply cannot echo.

Python's ``json`` is lenient where the provider is not: it accepts ``NaN``
and ``Infinity``, turns ``1e999`` into infinity, guesses UTF-16 from the
bytes, and keeps an escaped lone surrogate (``"\\ud800"``) as a string that
cannot be encoded again, so echoing it back would crash the answer. Each of
those is refused here with a 40002 naming where it is.
"""

from __future__ import annotations

import json
import math
from typing import Any

from . import errors

__all__ = ["copy_json", "parse_json", "unpaired_surrogate_path"]


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number out of range")
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _join(path: str, step: str | int) -> str:
    if isinstance(step, int):
        return f"{path}[{step}]"
    return f"{path}.{step}" if path else step


def unpaired_surrogate_path(value: Any) -> str | None:
    """Where the first string (or key) with an unpaired surrogate is, ``""`` for the top level.

    A bad key names the object that holds it: the key itself cannot be named.
    Iterative, so a body nested as deep as ``json`` parses cannot overflow the stack.
    """
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if _has_surrogate(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if _has_surrogate(key):
                    return path
                stack.append((_join(path, key), child))
        elif isinstance(item, list):
            stack.extend((_join(path, index), child) for index, child in enumerate(item))
    return None


def parse_json(body: bytes) -> Any:
    """The body as JSON (UTF-8, a BOM tolerated), or 40002 naming ``body`` or the bad field."""
    try:
        text = body.decode("utf-8-sig")
        payload = json.loads(text, parse_constant=_constant, parse_float=_finite_float)
    except (ValueError, RecursionError):
        # UnicodeDecodeError and JSONDecodeError are ValueErrors; RecursionError is
        # a body nested deeper than the parser goes.
        raise errors.invalid("body", "body_must_be_json") from None
    where = unpaired_surrogate_path(payload)
    if where is not None:
        raise errors.invalid(where or "body", "invalid_unicode_string")
    return payload


def copy_json(value: Any) -> Any:
    """A copy of a parsed JSON value sharing no dict or list with it.

    What ``copy.deepcopy`` does for these values, without its bookkeeping
    for shared and cyclic objects, which JSON cannot hold: every answer the
    emulator renders copies its records this way (a third of a
    ``GET /orders/{id}`` went to ``deepcopy``).
    """
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value
