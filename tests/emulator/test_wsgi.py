"""The WSGI adapter: over real HTTP (wsgiref in a thread) and as a bare WSGI callable."""

from __future__ import annotations

import io
import json
import socket
import socketserver
from collections.abc import Iterator
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
import requests

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.wsgi import (
    ConnectionDropped,
    EmulatorServer,
    make_wsgi_app,
    serving,
)
from tests.emulator.core_support import (
    AUTH,
    ORDER_ID,
    TOKEN_A,
    charge_payload,
    documented,
    error_of,
    inject_fault,
    listed_order_ids,
    order_payload,
)


@pytest.fixture
def server(emulator: Emulator) -> Iterator[EmulatorServer]:
    with serving(make_wsgi_app(emulator)) as server:
        yield server


class Answer:
    """What a WSGI app answered when called directly."""

    status: str
    headers: list[tuple[str, str]]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def call_app(app: Any, method: str, path: str, body: bytes = b"", **environ: str) -> Answer:
    """Call ``app`` as a WSGI server would, with wsgiref's testing defaults."""
    env: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": str(len(body)) if body else "",
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN_A}",
        **environ,
    }
    setup_testing_defaults(env)
    answer = Answer()

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        answer.status, answer.headers = status, headers
        return lambda data: None

    answer.body = b"".join(app(env, start_response))
    return answer


def test_create_and_get_an_order_over_http(server):
    payload = order_payload(charges=[charge_payload()])

    created = requests.post(f"{server.url}/orders", json=payload, headers=AUTH, timeout=5)

    assert created.status_code == 201
    assert created.headers["Content-Type"] == "application/json"
    order = created.json()
    assert ORDER_ID.match(order["id"])
    assert order["charges"][0]["status"] == "PAID"
    # hrefs are absolute on the URL the client used
    assert order["links"][0]["href"] == f"{server.url}/orders/{order['id']}"
    fetched = requests.get(order["links"][0]["href"], headers=AUTH, timeout=5)
    assert fetched.status_code == 200
    assert fetched.json()["id"] == order["id"]


def test_server_url_names_the_bound_port(server):
    port = server.server_address[1]
    assert server.url == f"http://127.0.0.1:{port}"
    assert port != 0


def test_headers_reach_the_core_idempotency_key_included(server):
    headers = {**AUTH, "x-idempotency-key": "wsgi-1"}
    first = requests.post(f"{server.url}/orders", json=order_payload(), headers=headers, timeout=5)
    again = requests.post(f"{server.url}/orders", json=order_payload(), headers=headers, timeout=5)
    other = requests.post(
        f"{server.url}/orders",
        json=order_payload(reference_id="ex-00002"),
        headers=headers,
        timeout=5,
    )

    assert again.json()["id"] == first.json()["id"]
    assert other.status_code == 409
    assert error_of(other)["code"] == "IDEMPOTENCY_CONFLICT"


def test_a_request_without_content_type_is_refused_naming_the_body(server):
    response = requests.post(
        f"{server.url}/orders", data=json.dumps(order_payload()), headers=AUTH, timeout=5
    )

    assert response.status_code == 400
    assert error_of(response)["parameter_name"] == "body"


def test_a_missing_token_is_401(server):
    response = requests.get(f"{server.url}/public-keys/card", timeout=5)

    assert response.status_code == 401
    assert error_of(response)["code"] == "UNAUTHORIZED"


def test_the_sdk_script_is_served_as_javascript(server):
    response = requests.get(f"{server.url}/sdk/pagseguro.js", timeout=5)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/javascript"
    assert "PagSeguro" in response.text


def test_a_body_over_one_mebibyte_gets_413_naming_the_body(server):
    response = requests.post(
        f"{server.url}/orders",
        data=b"{" + b" " * (1024 * 1024) + b"}",
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=10,
    )

    assert response.status_code == 413
    assert error_of(response) == {
        "code": "40002",
        "description": "request body larger than 1048576 bytes",
        "parameter_name": "body",
    }
    assert listed_order_ids(requests, server.url) == []


def test_a_chunked_body_is_read(server):
    body = json.dumps(order_payload(charges=[charge_payload()])).encode()
    pieces = (body[index : index + 100] for index in range(0, len(body), 100))

    response = requests.post(
        f"{server.url}/orders",
        data=pieces,  # a generator: requests sends it chunked, with no Content-Length
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=10,
    )

    assert response.request.headers["Transfer-Encoding"] == "chunked"
    assert response.status_code == 201, response.text
    assert listed_order_ids(requests, server.url) == [response.json()["id"]]


def raw_exchange(server: EmulatorServer, request: bytes) -> bytes:
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=10) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "chunks",
    [b"zz\r\n{}\r\n0\r\n\r\n", b"-2\r\n{}\r\n0\r\n\r\n", b"9\r\n{}\r\n", b"2\r\n{}XX"],
    ids=["not hex", "negative", "truncated", "no CRLF after the data"],
)
def test_malformed_chunks_are_400_naming_transfer_encoding(server, chunks):
    head = (
        b"POST /orders HTTP/1.1\r\nHost: emulator\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + TOKEN_A.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    )

    answer = raw_exchange(server, head + chunks)

    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.endswith(b"400 Bad Request")
    assert documented(json.loads(rest.split(b"\r\n\r\n", 1)[1])) == {
        "error_messages": [
            {
                "code": "40002",
                "description": "malformed_chunked_body",
                "parameter_name": "Transfer-Encoding",
            }
        ]
    }
    assert listed_order_ids(requests, server.url) == []


def test_a_chunked_body_over_one_mebibyte_gets_413(server):
    pieces = (b" " * 65536 for _ in range(17))

    response = requests.post(
        f"{server.url}/orders",
        data=pieces,
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=10,
    )

    assert response.status_code == 413
    assert error_of(response)["parameter_name"] == "body"


def test_a_body_the_server_already_dechunked_is_read_to_its_end(emulator):
    body = json.dumps(order_payload()).encode()

    answer = call_app(
        make_wsgi_app(emulator),
        "POST",
        "/orders",
        body,
        CONTENT_LENGTH="",
        CONTENT_TYPE="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input_terminated": True},
    )

    assert answer.status == "201 Created"
    assert ORDER_ID.match(answer.json()["id"])


def test_an_unparsable_content_length_is_400_naming_it(emulator):
    answer = call_app(
        make_wsgi_app(emulator), "POST", "/orders", CONTENT_LENGTH="12abc", CONTENT_TYPE="x"
    )

    assert answer.status == "400 Bad Request"
    assert answer.json()["error_messages"][0]["parameter_name"] == "Content-Length"


def test_path_and_links_are_relative_to_script_name(emulator):
    app = make_wsgi_app(emulator)
    body = json.dumps(order_payload()).encode()

    created = call_app(
        app,
        "POST",
        "/orders",
        body,
        SCRIPT_NAME="/shop/emulator",
        CONTENT_TYPE="application/json",
        HTTP_HOST="shop.example.com",
        **{"wsgi.url_scheme": "https"},
    )

    assert created.status == "201 Created"
    order = created.json()
    assert order["links"][0]["href"] == (
        f"https://shop.example.com/shop/emulator/orders/{order['id']}"
    )
    assert ("Content-Length", str(len(created.body))) in created.headers


def test_a_delay_past_the_client_timeout_is_a_read_timeout_after_the_work(server):
    inject_fault(requests, server.url, kind="timeout", delay=3)
    headers = {**AUTH, "x-idempotency-key": "wsgi-slow"}
    payload = order_payload(charges=[charge_payload()])

    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(f"{server.url}/orders", json=payload, headers=headers, timeout=(5, 0.3))

    # The core did the work before the adapter started waiting.
    [order_id] = listed_order_ids(requests, server.url)
    retry = requests.post(f"{server.url}/orders", json=payload, headers=headers, timeout=5)
    assert retry.status_code == 201
    assert retry.json()["id"] == order_id


def test_a_delay_within_the_timeout_is_answered(server):
    inject_fault(requests, server.url, kind="timeout", delay=0.1)

    response = requests.post(f"{server.url}/orders", json=order_payload(), headers=AUTH, timeout=5)

    assert response.status_code == 201


def test_a_reset_drops_the_connection_without_an_http_answer(server):
    inject_fault(requests, server.url, kind="reset")

    with pytest.raises(requests.exceptions.ConnectionError) as caught:
        requests.post(f"{server.url}/orders", json=order_payload(), headers=AUTH, timeout=5)

    assert not isinstance(caught.value, requests.exceptions.Timeout)
    assert listed_order_ids(requests, server.url) == []
    assert (
        requests.post(
            f"{server.url}/orders", json=order_payload(), headers=AUTH, timeout=5
        ).status_code
        == 201
    )


def test_a_reset_reads_as_a_tcp_reset_on_a_raw_socket(server):
    inject_fault(requests, server.url, kind="reset")
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(
            b"GET /public-keys/card HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\n\r\n"
        )
        with pytest.raises(ConnectionResetError):
            while sock.recv(1024):
                pass


def test_under_a_server_without_the_drop_hook_a_reset_raises(emulator):
    emulator.faults.inject("reset")

    with pytest.raises(ConnectionDropped):
        call_app(make_wsgi_app(emulator), "GET", "/public-keys/card")


def test_concurrent_requests_are_served(server):
    from concurrent.futures import ThreadPoolExecutor

    def create(n: int) -> int:
        payload = order_payload(reference_id=f"ex-{n:05d}")
        return requests.post(
            f"{server.url}/orders", json=payload, headers=AUTH, timeout=10
        ).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(create, range(16)))

    assert statuses == [201] * 16
    assert len(listed_order_ids(requests, server.url)) == 16


# --- Kept-alive connections ------------------------------------------------------


def _exchange(sock: socket.socket, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send one request on ``sock``; its answer's status line, headers and body."""
    sock.sendall(request)
    reader = sock.makefile("rb")
    status = reader.readline().decode().strip()
    headers: dict[str, str] = {}
    while (line := reader.readline().decode()) not in ("\r\n", ""):
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = reader.read(int(headers.get("content-length", "0")))
    return status, headers, body


def _get(path: str, *extra: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: x", f"Authorization: Bearer {TOKEN_A}", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_one_connection_serves_request_after_request(server):
    created = requests.post(f"{server.url}/orders", json=order_payload(), headers=AUTH, timeout=5)
    order_id = created.json()["id"]
    with socket.create_connection(server.server_address[:2], timeout=5) as sock:
        for _ in range(3):
            status, headers, body = _exchange(sock, _get(f"/orders/{order_id}"))
            assert status == "HTTP/1.1 200 OK"
            assert json.loads(body)["id"] == order_id
            assert headers.get("connection", "") != "close"


def test_a_client_pool_reuses_its_connection(server):
    import urllib3  # what requests pools its connections with

    host, port = server.server_address[:2]
    with urllib3.HTTPConnectionPool(host, port, maxsize=1) as pool:
        answers = [pool.request("GET", "/public-keys/card", headers=AUTH) for _ in range(3)]

        assert [answer.status for answer in answers] == [200, 200, 200]
        assert pool.num_connections == 1  # opened once, then reused


def test_a_request_that_asks_to_close_is_answered_then_closed(server):
    with socket.create_connection(server.server_address[:2], timeout=5) as sock:
        status, _, _ = _exchange(sock, _get("/public-keys/card", "Connection: close"))
        assert status == "HTTP/1.1 200 OK"
        assert _closed(sock)


def test_a_body_the_app_left_unread_closes_the_connection(server):
    # Over the limit and too big to drain: the answer comes before the body is read,
    # so what is left of it must never be taken for the next request.
    size = 8 * 1024 * 1024 + 1
    head = (
        f"POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN_A}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    with socket.create_connection(server.server_address[:2], timeout=5) as sock:
        status, _, _ = _exchange(sock, head + b"{")
        assert status.startswith("HTTP/1.1 413")
        assert _closed(sock)


def test_a_stopping_server_ends_idle_connections_at_once(emulator):
    import time

    with serving(make_wsgi_app(emulator)) as server:
        sock = socket.create_connection(server.server_address[:2], timeout=5)
        assert _exchange(sock, _get("/public-keys/card"))[0] == "HTTP/1.1 200 OK"
        started = time.monotonic()
    try:
        assert time.monotonic() - started < server.drain_timeout / 2
        assert _closed(sock)
    finally:
        sock.close()


def test_any_wsgi_app_reads_its_body_line_by_line_and_the_connection_goes_on():
    def lines_app(environ, start_response):
        got = b"|".join(line.rstrip(b"\n") for line in environ["wsgi.input"])
        start_response("200 OK", [("Content-Length", str(len(got)))])
        return [got]

    with serving(lines_app) as server:
        with socket.create_connection(server.server_address[:2], timeout=5) as sock:
            for body in (b"a\nbb\nccc", b"x\n"):
                head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
                status, _, answer = _exchange(sock, head.encode() + body)
                assert status == "HTTP/1.1 200 OK"
                assert answer == body.replace(b"\n", b"|").rstrip(b"|")


def test_an_answer_goes_out_in_one_write_head_and_body(monkeypatch):
    # A client woken by the head alone would wait again for the body.
    writes: list[bytes] = []
    write = socketserver._SocketWriter.write

    def recorded(self, data):
        writes.append(bytes(data))
        return write(self, data)

    monkeypatch.setattr(socketserver._SocketWriter, "write", recorded)

    def two_chunks(environ, start_response):
        start_response("200 OK", [("Content-Length", "6")])
        return [b"abc", b"def"]

    with serving(two_chunks) as server:
        with socket.create_connection(server.server_address[:2], timeout=5) as sock:
            for _ in range(2):  # and again on the kept-alive connection
                status, _, body = _exchange(sock, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                assert (status, body) == ("HTTP/1.1 200 OK", b"abcdef")

    assert len(writes) == 2
    for write_ in writes:
        assert write_.startswith(b"HTTP/1.1 200 OK\r\n")
        assert write_.endswith(b"\r\n\r\nabcdef")


def test_an_answer_that_fails_half_way_closes_its_connection():
    def fails_after_a_chunk(environ, start_response):
        start_response("200 OK", [("Content-Length", "6")])
        yield b"abc"
        raise RuntimeError("the app failed half-way")

    with serving(fails_after_a_chunk) as server:
        with socket.create_connection(server.server_address[:2], timeout=5) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            # Nothing of the half answer is sent, and the client does not wait for its
            # rest: an app that streams its answer gets no kept-alive connection.
            assert _closed(sock)
