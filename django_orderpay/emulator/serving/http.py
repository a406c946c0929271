"""The emulator's wire boundary: one request in, one response out.

The core (``core.Emulator.handle``) speaks only these two types; every
adapter (WSGI/CLI, the ``requests`` transport, the Django URLconf) turns its
own request into a :class:`Request`, and a :class:`Response` back into its own
answer. Faults that live below HTTP (a slow answer, a dropped connection) are
carried in :attr:`Response.delay` and :attr:`Response.reset` because only the
adapter can act them out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Request:
    """An HTTP request as the emulator sees it.

    ``path`` is relative to the emulator's root (``/orders/ORDE_...``) whatever
    prefix the adapter is mounted under; ``base_url`` is the absolute URL of
    that root as the caller reached it (no trailing slash), used to build the
    ``links`` hrefs.
    """

    method: str
    path: str
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    base_url: str = "http://emulator.invalid"

    def header(self, name: str, default: str | None = None) -> str | None:
        """A header's value, looked up case-insensitively."""
        wanted = name.lower()
        for key, value in self.headers.items():
            if key.lower() == wanted:
                return value
        return default


@dataclass
class Response:
    """An HTTP response from the emulator core.

    ``delay``: seconds the adapter waits before answering (a fault that makes
    a client time out; the work was done, so a retry with the same idempotency
    key gets the stored answer). ``reset``: the adapter drops the connection
    without answering (the ``requests`` transport raises ``ConnectionError``).
    """

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    delay: float = 0.0
    reset: bool = False

    @classmethod
    def json(cls, status: int, payload: Any) -> Response:
        """A JSON response, serialised compactly as the provider does."""
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        return cls(status, body, [("Content-Type", "application/json")])

    def header(self, name: str, default: str | None = None) -> str | None:
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return default
