"""A ``requests`` transport that serves a Session from an emulator in the same process.

``mount(session, emulator)`` routes every request for the emulator's base URL
to ``emulator.handle`` with no socket; the caller gets real
``requests.Response`` objects and the same exceptions a network would raise:
a ``delay`` fault longer than the read timeout raises ``ReadTimeout`` (after
the core did the work, so a retry with the same idempotency key sees it), a
``reset`` fault raises ``ConnectionError``.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import HTTPHeaderDict, HTTPResponse
from urllib3.exceptions import ProtocolError

from .http import Request, Response
from .wsgi import MAX_BODY_SIZE, Handler, body_too_large, status_line

__all__ = ["DEFAULT_BASE_URL", "EmulatorAdapter", "mount"]

#: Where ``mount`` puts the emulator unless told otherwise (``.test`` never resolves).
DEFAULT_BASE_URL = "http://emulator.orderpay.test"

Timeout = float | tuple[float | None, float | None] | None


def _read_timeout(timeout: Any) -> float | None:
    """The read timeout out of whatever requests accepts: a number, a pair, a urllib3 Timeout."""
    if timeout is None:
        return None
    if isinstance(timeout, tuple):
        return timeout[1]
    if isinstance(timeout, int | float):
        return float(timeout)
    read = getattr(timeout, "read_timeout", None)
    return float(read) if isinstance(read, int | float) else None


def _body_bytes(body: Any) -> bytes:
    """A prepared body (bytes, str, None, a file or an iterable of chunks) as bytes."""
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if hasattr(body, "read"):
        data = body.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return b"".join(chunk.encode("utf-8") if isinstance(chunk, str) else chunk for chunk in body)


class EmulatorAdapter(BaseAdapter):
    """Serves requests from ``emulator.handle``.

    ``base_url`` is the emulator's root as the session addresses it; None takes
    the scheme and host of each request (a root mount). ``sleep`` acts out
    delays; tests of retry logic may pass a no-op.
    """

    def __init__(
        self,
        emulator: Handler,
        base_url: str | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        max_body_size: int = MAX_BODY_SIZE,
    ) -> None:
        super().__init__()
        self.emulator = emulator
        self.base_url = base_url.rstrip("/") if base_url else None
        self.sleep = sleep
        self.max_body_size = max_body_size

    def _to_request(self, prepared: requests.PreparedRequest) -> Request:
        url = prepared.url or ""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        base_url = self.base_url or origin
        base_path = urlsplit(base_url).path
        path = parts.path
        if base_path and path.startswith(base_path):
            path = path[len(base_path) :]
        headers = dict(prepared.headers)
        # http.client would add Host on the wire; the core sees what a server would.
        if not any(name.lower() == "host" for name in headers):
            headers["Host"] = parts.netloc
        return Request(
            method=(prepared.method or "GET").upper(),
            path=unquote(path) or "/",
            body=_body_bytes(prepared.body),
            headers=headers,
            query=parts.query,
            base_url=base_url,
        )

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Timeout | Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Hand the request to the emulator and answer, or raise, as the network would."""
        started = time.monotonic()
        emulator_request = self._to_request(request)
        if len(emulator_request.body) > self.max_body_size:
            answer = body_too_large(self.max_body_size)
        else:
            answer = self.emulator.handle(emulator_request)
        read_timeout = _read_timeout(timeout)
        if answer.delay > 0:
            if read_timeout is not None and answer.delay > read_timeout:
                # A real client gives up after its read timeout; waiting longer is pointless.
                self.sleep(read_timeout)
                host = urlsplit(request.url or "").netloc
                raise requests.exceptions.ReadTimeout(
                    f"{host}: Read timed out. (read timeout={read_timeout})", request=request
                )
            self.sleep(answer.delay)
        if answer.reset:
            raise requests.exceptions.ConnectionError(
                ProtocolError(
                    "Connection aborted.",
                    ConnectionResetError(104, "Connection reset by peer"),
                ),
                request=request,
            )
        return self._build_response(request, answer, timedelta(seconds=time.monotonic() - started))

    def _build_response(
        self, request: requests.PreparedRequest, answer: Response, elapsed: timedelta
    ) -> requests.Response:
        reason = status_line(answer.status).split(" ", 1)[1]
        headers = list(answer.headers)
        if not any(name.lower() == "content-length" for name, _ in headers):
            headers.append(("Content-Length", str(len(answer.body))))
        raw = HTTPResponse(
            body=io.BytesIO(answer.body),
            headers=HTTPHeaderDict(headers),
            status=answer.status,
            reason=reason,
            preload_content=False,
            decode_content=False,
            request_url=request.url,
        )
        response = requests.Response()
        response.status_code = answer.status
        response.headers = CaseInsensitiveDict(raw.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = raw
        response.reason = reason
        response.url = request.url or ""
        response.request = request
        response.connection = cast(Any, self)  # an adapter of its own, not an HTTPAdapter
        response.elapsed = elapsed
        return response

    def close(self) -> None:
        """Nothing to release: the emulator belongs to whoever created it."""


def mount(
    session: requests.Session,
    emulator: Handler,
    base_url: str = DEFAULT_BASE_URL,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Serve ``base_url`` on ``session`` from ``emulator``; returns the base URL (no trailing /)."""
    base_url = base_url.rstrip("/")
    session.mount(base_url + "/", EmulatorAdapter(emulator, base_url, sleep=sleep))
    return base_url
