"""The emulator as a WSGI application, and a threading server that can act out its faults.

``make_wsgi_app(emulator)`` turns each WSGI request into a :class:`Request`,
hands it to ``emulator.handle`` and answers the :class:`Response`. A
``delay`` fault sleeps before answering; a ``reset`` fault asks the server to
drop the connection with no HTTP answer at all, through the environ key
:data:`DROP_CONNECTION`. :class:`EmulatorServer` (wsgiref with threads)
provides that key and aborts the socket with a TCP reset; under a server
that does not, the app raises :class:`ConnectionDropped` and the server
answers whatever it answers for a crashed app (usually a 500).
"""

from __future__ import annotations

import contextlib
import http
import socket
import struct
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import IO, TYPE_CHECKING, Any, Protocol, cast
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer
from wsgiref.util import application_uri

from django_orderpay import rules

from ..state import errors
from .http import Request, Response

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

__all__ = [
    "DROP_CONNECTION",
    "MAX_BODY_SIZE",
    "ConnectionDropped",
    "EmulatorServer",
    "body_too_large",
    "make_server",
    "make_wsgi_app",
    "serving",
]

#: Largest request body the adapters accept (the provider's are a few kilobytes).
MAX_BODY_SIZE = rules.MAX_BODY_SIZE

#: environ key of a callable the server provides: call it and the server drops the
#: connection instead of sending the answer.
DROP_CONNECTION = "orderpay.emulator.drop_connection"

# Bodies a little over the limit are read and discarded so the client is not cut
# off mid-upload and actually gets the 413; anything bigger is not worth reading.
_DRAIN_LIMIT = 8 * MAX_BODY_SIZE


class Handler(Protocol):
    """What the adapters need of the core: ``Emulator.handle``."""

    def handle(self, request: Request) -> Response: ...


class ConnectionDropped(ConnectionResetError):
    """A ``reset`` fault that the hosting server cannot act out by dropping the socket."""


def body_too_large(limit: int = MAX_BODY_SIZE) -> Response:
    """The provider-shaped error for a body over ``limit`` bytes (413, naming the body)."""
    message = {
        "code": errors.INVALID,
        "description": f"request body larger than {limit} bytes",
        "parameter_name": "body",
    }
    return errors.ProviderError(413, [message]).to_response()


def status_line(status: int) -> str:
    """``"201 Created"`` for 201; unknown codes get a neutral phrase."""
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Unknown"


def _headers_of(environ: WSGIEnvironment) -> dict[str, str]:
    headers: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            name = key[5:]
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            name = key
        else:
            continue
        headers["-".join(part.capitalize() for part in name.split("_"))] = value
    return headers


def _path_of(environ: WSGIEnvironment) -> str:
    # PEP 3333 carries the path as latin-1 decoded bytes; the core wants real text.
    raw = environ.get("PATH_INFO") or "/"
    try:
        return raw.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return raw


def _malformed_chunks() -> Response:
    return errors.invalid("Transfer-Encoding", "malformed_chunked_body").to_response()


def _read_chunked(stream: Any, limit: int) -> bytes | Response:
    """A ``Transfer-Encoding: chunked`` body (RFC 9112, 7.1) read off the raw stream.

    wsgiref hands the app the socket itself and does not decode chunks, and
    ``requests`` sends an iterable body chunked: without this such a body
    would read as empty.
    """
    body = bytearray()
    received = 0
    while True:
        size_line = stream.readline(1024)
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            return _malformed_chunks()
        if size < 0:
            return _malformed_chunks()
        if size == 0:
            for _ in range(100):  # trailer fields, up to the blank line
                if stream.readline(8192).strip() == b"":
                    return body_too_large(limit) if received > limit else bytes(body)
            return _malformed_chunks()
        received += size
        if received > _DRAIN_LIMIT:  # not worth reading further: answer now
            return body_too_large(limit)
        # Past the limit the chunks are still read (and dropped), as for a
        # Content-Length body, so the client gets the 413 and not a broken pipe.
        chunk = stream.read(size)
        if len(chunk) != size or stream.readline(1024).strip() != b"":
            return _malformed_chunks()
        if received <= limit:
            body += chunk


def _read_body(environ: WSGIEnvironment, limit: int) -> bytes | Response:
    raw_length = (environ.get("CONTENT_LENGTH") or "").strip()
    if not raw_length:
        if "chunked" not in (environ.get("HTTP_TRANSFER_ENCODING") or "").lower():
            return b""
        if environ.get("wsgi.input_terminated"):  # the server decoded the chunks already
            data = environ["wsgi.input"].read(limit + 1)
            return body_too_large(limit) if len(data) > limit else data
        return _read_chunked(environ["wsgi.input"], limit)
    if not raw_length.isdigit():
        return errors.invalid("Content-Length").to_response()
    length = int(raw_length)
    stream = environ["wsgi.input"]
    if length > limit:
        if length <= _DRAIN_LIMIT:
            remaining = length
            while remaining > 0:
                chunk = stream.read(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
        return body_too_large(limit)
    return stream.read(length) if length else b""


def make_wsgi_app(
    emulator: Handler,
    *,
    max_body_size: int = MAX_BODY_SIZE,
    sleep: Callable[[float], None] = time.sleep,
) -> WSGIApplication:
    """A WSGI application serving ``emulator`` at its mount point (``SCRIPT_NAME``)."""

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        body = _read_body(environ, max_body_size)
        if isinstance(body, Response):
            response = body
        else:
            request = Request(
                method=environ.get("REQUEST_METHOD", "GET").upper(),
                path=_path_of(environ),
                body=body,
                headers=_headers_of(environ),
                query=environ.get("QUERY_STRING", ""),
                base_url=application_uri(environ).rstrip("/"),
            )
            response = emulator.handle(request)
        if response.delay > 0:
            sleep(response.delay)
        if response.reset:
            drop = environ.get(DROP_CONNECTION)
            if drop is None:
                raise ConnectionDropped("emulator fault: connection reset")
            drop()
            start_response("502 Bad Gateway", [("Content-Length", "0")])
            return [b""]
        headers = list(response.headers)
        if not any(name.lower() == "content-length" for name, _ in headers):
            headers.append(("Content-Length", str(len(response.body))))
        start_response(status_line(response.status), headers)
        return [response.body]

    return app


class _DroppableServerHandler(ServerHandler):
    """wsgiref's handler, except that it writes nothing once the app asked for a drop.

    It answers HTTP/1.1 (wsgiref says 1.0, which closes every connection): a
    connection stays open for the next request when the answer has a
    length (see :meth:`EmulatorRequestHandler.handle`).
    """

    request_handler: EmulatorRequestHandler
    http_version = "1.1"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: list[bytes] = []

    # wsgiref writes the head, then each chunk of the body, each with its own
    # send: a client woken by the head alone must wait again for the body.
    # Kept here and sent in one write once the answer is complete.
    def _write(self, data: bytes) -> None:
        self._pending.append(bytes(data))

    def _flush(self) -> None:
        """Nothing until the answer is complete (:meth:`finish_content`)."""

    def finish_content(self) -> None:
        super().finish_content()
        if self._pending:
            answer, self._pending = b"".join(self._pending), []
            super()._write(answer)
            super()._flush()

    def finish_response(self) -> None:
        if not self.request_handler.drop_requested:
            headers = getattr(self, "headers", None)  # the answer's, once it started
            if headers is None or "Content-Length" not in headers or _says_close(headers):
                self.request_handler.close_connection = True
            super().finish_response()
            return
        # Still close the app's iterable: WSGI frameworks release resources there
        # (Django sends request_finished).
        close = getattr(getattr(self, "result", None), "close", None)
        if close is not None:
            close()


def _says_close(headers: Any) -> bool:
    return "close" in (headers.get("Connection") or "").lower()


class _Body:
    """A request's body as ``wsgi.input``: at most Content-Length bytes, counting what is left.

    On a kept-alive connection the next request starts where this body
    ends: one the app did not read to its end closes the connection.
    """

    def __init__(self, stream: IO[bytes], length: int) -> None:
        self._stream, self.left = stream, length

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self._stream.read(size) if size else b""
        self.left -= len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self._stream.readline(size) if size else b""
        self.left -= len(data)
        return data

    def readlines(self, hint: int = -1) -> list[bytes]:
        return list(self)

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line


class EmulatorRequestHandler(WSGIRequestHandler):
    """wsgiref's request handler with the :data:`DROP_CONNECTION` hook and optional quiet.

    Connections are kept alive between requests, as the provider keeps
    them: a client's pool reuses one connection instead of opening one per
    call (wsgiref alone answers one request per connection). A connection
    closes after a request that asks so, one whose body is chunked or was
    not read to its end, an answer without a length, or a dropped one.
    """

    protocol_version = "HTTP/1.1"
    # An answer goes out in one write (_DroppableServerHandler), but an error
    # page or a refusal may not: on a kept-alive connection Nagle's algorithm
    # would hold a second write back for the client's delayed ACK.
    disable_nagle_algorithm = True
    drop_requested = False
    server: EmulatorServer
    #: Seconds an idle kept-alive connection waits for its next request.
    timeout = 30

    def get_environ(self) -> dict[str, Any]:
        environ = super().get_environ()
        if self.headers.get("content-type") is None:
            # wsgiref fills in text/plain; the core should see that the client sent none.
            environ.pop("CONTENT_TYPE", None)
        environ[DROP_CONNECTION] = self._request_drop
        return environ

    def _request_drop(self) -> None:
        self.drop_requested = True

    def handle(self) -> None:
        """The connection's requests, one after another, until one closes it."""
        self.close_connection = True
        self.handle_one_request()
        while not self.close_connection:
            try:
                with self.server.idle(self.connection):
                    self.raw_requestline = self.rfile.readline(65537)
            except OSError:  # idle past the timeout, or reset by the client
                return
            if not self.raw_requestline:
                return  # the client closed it (or the server is stopping)
            self.handle_one_request(read=False)

    def handle_one_request(self, read: bool = True) -> None:
        """One HTTP request, as wsgiref does it, then abort the socket if a drop was asked."""
        # The same steps as WSGIRequestHandler.handle, which hard-codes its ServerHandler.
        self.drop_requested = False
        if read:
            try:
                self.raw_requestline = self.rfile.readline(65537)
            except OSError:  # nothing sent within the timeout, or reset
                self.close_connection = True
                return
        if len(self.raw_requestline) > 65536:
            self.requestline = ""
            self.request_version = ""
            self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            self.close_connection = True
            return
        body = self._body()
        handler = _DroppableServerHandler(
            cast(IO[bytes], body or self.rfile),
            cast(IO[bytes], self.wfile),
            self.get_stderr(),
            self.get_environ(),
            multithread=True,
        )
        handler.request_handler = self
        app = self.server.get_app()
        if app is None:  # set_app() is called before serving: a bug of ours if not
            raise RuntimeError("the emulator server has no WSGI app")
        handler.run(app)
        if body is None or body.left:
            self.close_connection = True
        if self.drop_requested:
            self.close_connection = True
            self.log_message('"%s" dropped (reset fault)', self.requestline)
            # Linger 0 turns the close into a TCP RST: the client reads "connection reset".
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()

    def _body(self) -> _Body | None:
        """The request's body with its length known; None when it has none (chunked, bad)."""
        if self.headers.get("Transfer-Encoding"):
            return None
        raw = (self.headers.get("Content-Length") or "0").strip()
        return _Body(cast(IO[bytes], self.rfile), int(raw)) if raw.isdigit() else None

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)


class EmulatorServer(ThreadingMixIn, WSGIServer):
    """A threading wsgiref server; ``url`` is the root URL it serves."""

    daemon_threads = True
    quiet = False
    #: Seconds a closing server waits for answers already being written.
    drain_timeout = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Before binding: a failed bind calls server_close() from __init__.
        self._live: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
        self._idle: set[socket.socket] = set()
        self._idle_lock = threading.Lock()
        self._closing = False
        super().__init__(*args, **kwargs)

    @contextlib.contextmanager
    def idle(self, connection: socket.socket) -> Iterator[None]:
        """While a kept-alive ``connection`` waits for its next request: a stop ends the wait."""
        with self._idle_lock:
            if self._closing:
                connection.shutdown(socket.SHUT_RDWR)
            self._idle.add(connection)
        try:
            yield
        finally:
            with self._idle_lock:
                self._idle.discard(connection)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Daemon threads, so a delayed-fault answer never holds the process
        # open; but tracked, so a stop lets answers in flight (and their log
        # lines) finish instead of cutting them off mid-write.
        thread = threading.Thread(
            target=self.process_request_thread, args=(request, client_address), daemon=True
        )
        thread.start()
        # Tracked once started: a stop signal can interrupt start() itself (the
        # CLI raises it in this thread), and a thread never started can't be joined.
        self._live.add(thread)

    def server_close(self) -> None:
        super().server_close()
        with self._idle_lock:
            # Idle connections have no answer to finish: end their wait now.
            self._closing = True
            for connection in self._idle:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + self.drain_timeout
        for thread in list(self._live):
            if thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = str(host)
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}"


class _EmulatorServer6(EmulatorServer):
    """The same server on an IPv6 address."""

    address_family = socket.AF_INET6


_IPV6_SERVER = _EmulatorServer6


def make_server(
    app: WSGIApplication, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = False
) -> EmulatorServer:
    """A bound (not yet serving) :class:`EmulatorServer` for any WSGI app; port 0 picks one."""
    server_class: type[EmulatorServer] = EmulatorServer
    if ":" in host:
        server_class = _IPV6_SERVER
    server = server_class((host, port), EmulatorRequestHandler)
    server.quiet = quiet
    server.set_app(app)
    return server


@contextlib.contextmanager
def serving(
    app: WSGIApplication, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True
) -> Iterator[EmulatorServer]:
    """Serve ``app`` in a background thread for the duration of the block."""
    server = make_server(app, host, port, quiet=quiet)
    # A short poll interval so leaving the block (shutdown) takes milliseconds, not half a second.
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="orderpay-emulator", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
