"""Injected faults: the ways the provider misbehaves in the wild, for the next N calls.

The control plane queues faults; the core calls :meth:`Faults.take` for each
provider call (not for ``/_emulator/`` itself). A fault with ``before_work``
answers instead of doing anything; a ``timeout`` lets the core do the work
and then delays the real answer past the client's timeout, so a retry with
the same idempotency key must get the stored answer, not a second charge.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass
from typing import Any

from ..serving.http import Response
from ..state import errors

#: kind -> what it acts out.
KINDS: dict[str, str] = {
    "timeout": "does the work, then answers only after `delay` seconds",
    "lost_response": "does the work, then drops the connection before answering",
    "reset": "drops the connection without doing anything",
    "http_500": "500 with an empty body, nothing done",
    "http_500_json": "500 with the provider's JSON error body, nothing done",
    "http_502": "502 gateway page (text/html), nothing done",
    "http_400_html": "400 gateway page (text/html), no error codes, nothing done",
    "http_403_html": "403 HTML page from the CDN, nothing done",
    "http_403_json": "403 with the provider's JSON error body (access denied), nothing done",
    "rate_limit": "429 with the 40004 error body, nothing done",
}

_GATEWAY_PAGE = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"
)
#: What a proxy in front of the API answers for a request it could not read (a header
#: too large, a broken connection): a 400 that is not the API's, with no error codes.
_BAD_REQUEST_PAGE = (
    b"<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n"
    b"<center><h1>400 Bad Request</h1></center>\r\n</body>\r\n</html>\r\n"
)
_CDN_FORBIDDEN_PAGE = (
    b'<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" '
    b'"http://www.w3.org/TR/html4/loose.dtd">\n'
    b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">\n'
    b"<title>ERROR: The request could not be satisfied</title>\n</head><body>\n"
    b'<h1>403 ERROR</h1>\n<h2>The request could not be satisfied.</h2>\n<hr noshade size="1px">\n'
    b"Request blocked. We can't connect to the server for this app or website at this time.\n"
    b"</body></html>"
)
_HTML = ("Content-Type", "text/html; charset=utf-8")
#: Kinds that do the work and then lose its answer.
AFTER_WORK = frozenset({"timeout", "lost_response"})


@dataclass(frozen=True)
class Fault:
    """One injected fault."""

    kind: str
    delay: float = 30.0
    path_prefix: str | None = None

    @property
    def before_work(self) -> bool:
        """True when the fault answers instead of the work (all but the lost answers)."""
        return self.kind not in AFTER_WORK

    def applies_to(self, request_path: str) -> bool:
        return self.path_prefix is None or request_path.startswith(self.path_prefix)

    def respond(self, work_response: Response | None = None) -> Response:
        """The response the client gets: ``work_response`` delayed, or the fault's own."""
        if self.kind == "timeout":
            if work_response is None:  # nothing was done: a gateway timeout, late
                return Response(504, b"", delay=self.delay)
            return dataclasses.replace(work_response, delay=self.delay)
        if self.kind == "lost_response":
            return dataclasses.replace(work_response or Response(502, b""), reset=True)
        if self.kind == "reset":
            return Response(502, b"", reset=True)
        if self.kind == "http_500":
            return Response(500, b"")
        if self.kind == "http_500_json":
            return errors.internal_error()
        if self.kind == "http_502":
            return Response(502, _GATEWAY_PAGE, [_HTML])
        if self.kind == "http_400_html":
            return Response(400, _BAD_REQUEST_PAGE, [_HTML])
        if self.kind == "http_403_html":
            return Response(403, _CDN_FORBIDDEN_PAGE, [_HTML])
        if self.kind == "http_403_json":
            return errors.forbidden().to_response()
        return errors.rate_limited().to_response()


class Faults:
    """A thread-safe FIFO of injected faults, each good for ``count`` calls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: list[list[Any]] = []  # [Fault, remaining]

    def inject(
        self, kind: str, count: int = 1, *, delay: float = 30.0, path_prefix: str | None = None
    ) -> Fault:
        """Queue ``kind`` for the next ``count`` calls (whose path starts with ``path_prefix``)."""
        if kind not in KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; known kinds: {', '.join(KINDS)}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError("count must be a positive integer")
        if (
            isinstance(delay, bool)
            or not isinstance(delay, int | float)
            or not math.isfinite(delay)
            or delay < 0
        ):
            raise ValueError("delay must be a non-negative number of seconds")
        if path_prefix is not None and not isinstance(path_prefix, str):
            raise ValueError("path_prefix must be a string")
        fault = Fault(kind, float(delay), path_prefix)
        with self._lock:
            self._queue.append([fault, count])
        return fault

    def take(self, request_path: str) -> Fault | None:
        """Consume one use of the oldest fault that applies to ``request_path``."""
        with self._lock:
            for entry in self._queue:
                fault, remaining = entry
                if fault.applies_to(request_path):
                    if remaining == 1:
                        self._queue.remove(entry)
                    else:
                        entry[1] = remaining - 1
                    return fault
        return None

    def pending(self) -> list[dict[str, Any]]:
        """What is still queued: ``kind``, ``remaining``, ``delay``, ``path_prefix``."""
        with self._lock:
            return [
                {
                    "kind": fault.kind,
                    "remaining": remaining,
                    "delay": fault.delay,
                    "path_prefix": fault.path_prefix,
                }
                for fault, remaining in self._queue
            ]

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
