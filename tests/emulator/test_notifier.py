"""Notification delivery against a real local HTTP server: retries, records, drops."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from django_orderpay.emulator.control.notifier import DROPPED, Notifier
from django_orderpay.emulator.state.clock import Clock

BODY = json.dumps({"id": "ORDE_X", "charges": [{"status": "PAID"}]}).encode()
HEADERS = {"Content-Type": "application/json", "x-authenticity-token": "ab" * 32}


class Shop:
    """A notification endpoint that answers the queued statuses, then 200."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.received: list[tuple[str, bytes, dict[str, str]]] = []
        self.lock = threading.Lock()
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                with shop.lock:
                    shop.received.append((self.path, body, dict(self.headers)))
                    status = shop.statuses.pop(0) if shop.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/orderpay/notifications/"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def shop() -> Iterator[Shop]:
    server = Shop()
    yield server
    server.close()


@pytest.fixture
def notifier() -> Iterator[Notifier]:
    # A long backoff: only flush (which skips it) can finish these tests quickly.
    instance = Notifier(backoff=60.0)
    yield instance
    instance.close()


def test_delivers_body_and_headers_as_given(shop, notifier):
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    path, body, headers = shop.received[0]
    assert path == "/orderpay/notifications/"
    assert body == BODY
    assert headers["x-authenticity-token"] == HEADERS["x-authenticity-token"]
    assert headers["Content-Type"] == "application/json"
    [delivery] = notifier.deliveries()
    assert delivery["url"] == shop.url
    assert delivery["status"] == 200
    assert delivery["attempts"] == 1
    assert delivery["delivered"] is True
    assert delivery["pending"] is False
    assert delivery["error"] is None
    assert json.loads(delivery["body"]) == json.loads(BODY)
    assert delivery["headers"] == HEADERS
    assert delivery["id"].startswith("NOTI_")
    assert delivery["delivered_at"] == delivery["last_attempt_at"] == delivery["history"][0]["at"]


def test_retries_non_2xx_until_delivered(shop, notifier):
    shop.statuses = [500, 500]
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    assert len(shop.received) == 3
    assert all(body == BODY for _, body, _ in shop.received)
    [delivery] = notifier.deliveries()
    assert delivery["attempts"] == 3
    assert delivery["delivered"] is True
    assert delivery["status"] == 200
    assert [attempt["status"] for attempt in delivery["history"]] == [500, 500, 200]
    assert [attempt["error"] for attempt in delivery["history"]] == ["HTTP 500", "HTTP 500", None]


def test_gives_up_after_the_retries(shop):
    notifier = Notifier(retries=2, backoff=60.0)
    shop.statuses = [503] * 10
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    notifier.close()
    assert len(shop.received) == 3  # the first try and two retries
    [delivery] = notifier.deliveries()
    assert delivery["attempts"] == 3
    assert delivery["delivered"] is False
    assert delivery["pending"] is False
    assert delivery["status"] == 503
    assert delivery["error"] == "HTTP 503"


def attempts_reach(notifier: Notifier, count: int) -> bool:
    """Wait (at most 5 s) for the worker to have made ``count`` attempts on its own."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if notifier.deliveries()[0]["attempts"] >= count:
            return True
        time.sleep(0.01)
    return False


def test_the_worker_sends_on_its_own_and_a_retry_waits_for_its_backoff(shop, notifier):
    shop.statuses = [500]
    notifier.submit(shop.url, BODY, HEADERS)
    assert attempts_reach(notifier, 1)  # no flush: the background worker sent it
    [waiting] = notifier.deliveries()
    assert (waiting["status"], waiting["pending"], waiting["delivered"]) == (500, True, False)
    assert notifier.flush()  # the retry, 60 s of backoff away, runs at once
    assert [a["status"] for a in notifier.deliveries()[0]["history"]] == [500, 200]


def test_connection_errors_are_retried_and_the_worker_survives(shop):
    calls: list[str] = []

    def flaky(url: str, body: bytes, headers: dict[str, str]) -> int:
        calls.append(url)
        if len(calls) == 1:
            raise ConnectionError("connection refused")
        if len(calls) == 2:
            raise RuntimeError("sender bug")
        from django_orderpay.emulator.control.notifier import post_with_requests

        return post_with_requests(url, body, headers)

    notifier = Notifier(flaky, backoff=60.0)
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    [delivery] = notifier.deliveries()
    assert [a["error"] for a in delivery["history"]] == [
        "ConnectionError: connection refused",
        "RuntimeError: sender bug",
        None,
    ]
    assert delivery["delivered"] is True
    notifier.submit(shop.url, BODY, HEADERS)  # the same worker is still alive
    assert notifier.flush()
    assert notifier.deliveries()[1]["delivered"] is True
    notifier.close()


def test_unreachable_url_is_recorded_as_an_error(shop):
    notifier = Notifier(retries=1, backoff=60.0)
    shop.close()
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush(timeout=15)
    notifier.close()
    [delivery] = notifier.deliveries()
    assert delivery["attempts"] == 2
    assert delivery["delivered"] is False
    assert delivery["status"] is None
    assert delivery["error"].startswith("ConnectionError")


def test_drop_next_records_but_never_sends(shop, notifier):
    notifier.drop_next(2)
    for _ in range(3):
        notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    assert len(shop.received) == 1
    first, second, third = notifier.deliveries()
    for dropped in (first, second):
        assert dropped["dropped"] is True
        assert dropped["delivered"] is False
        assert dropped["attempts"] == 0
        assert dropped["status"] is None
        assert dropped["error"] == DROPPED
    assert third["dropped"] is False
    assert third["delivered"] is True


def test_delay_holds_the_first_attempt_until_flush(shop):
    notifier = Notifier(delay=60.0)
    notifier.submit(shop.url, BODY, HEADERS)
    [waiting] = notifier.deliveries()
    assert waiting["pending"] is True
    assert waiting["attempts"] == 0
    assert shop.received == []
    assert notifier.flush()
    assert notifier.deliveries()[0]["delivered"] is True
    notifier.close()


def test_reset_forgets_deliveries_and_drops(shop):
    notifier = Notifier(delay=60.0)
    notifier.submit(shop.url, BODY, HEADERS)
    notifier.drop_next(5)
    notifier.reset()
    assert notifier.deliveries() == []
    assert notifier.flush()
    assert shop.received == []
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    assert notifier.deliveries()[0]["delivered"] is True
    notifier.close()


def test_timestamps_follow_the_given_clock(shop):
    clock = Clock()
    clock.set(datetime(2030, 5, 6, 15, 0, tzinfo=UTC))
    notifier = Notifier(clock=clock)
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    notifier.close()
    [delivery] = notifier.deliveries()
    assert delivery["created_at"].startswith("2030-05-06T12:00:")
    assert delivery["created_at"].endswith("-03:00")
    assert delivery["delivered_at"].startswith("2030-05-06T12:00:")


def test_foreground_mode_delivers_only_in_flush_in_the_callers_thread(shop):
    threads: list[str] = []

    def sender(url: str, body: bytes, headers: dict[str, str]) -> int:
        threads.append(threading.current_thread().name)
        return 500 if len(threads) == 1 else 204

    notifier = Notifier(sender, background=False, backoff=60.0)
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.deliveries()[0]["attempts"] == 0
    assert notifier.flush()
    assert threads == [threading.current_thread().name] * 2
    [delivery] = notifier.deliveries()
    assert (delivery["status"], delivery["delivered"], delivery["attempts"]) == (204, True, 2)


def test_close_stops_the_worker_and_a_submit_restarts_it(shop, notifier):
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    notifier.close()
    assert not any(
        t.name == "orderpay-emulator-notifier" and t.is_alive() for t in [notifier._thread]
    )
    notifier.submit(shop.url, BODY, HEADERS)
    assert notifier.flush()
    assert [d["delivered"] for d in notifier.deliveries()] == [True, True]
