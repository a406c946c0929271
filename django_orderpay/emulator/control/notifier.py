"""Notification delivery: POST each queued body in the background, retry, record every attempt.

At least once, as the provider: a non-2xx answer or a network error is
retried with exponential backoff (``backoff * 2**(attempt - 1)`` seconds) up
to ``retries`` more times. ``flush`` is for tests: it makes everything due
at once (first delay and backoff skipped) and waits until nothing is
pending, so no test sleeps. With ``background=False`` nothing is sent until
``flush``, which then delivers in the calling thread (for a sender that must
run in the test's own thread, e.g. Django's test client inside a test
transaction).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import requests

from ..state import ids
from ..state.clock import PROVIDER_TZ, timestamp

Sender = Callable[[str, bytes, dict[str, str]], int]
SEND_TIMEOUT = 5.0
DROPPED = "dropped by an injected fault; never sent"


class _Clock(Protocol):
    def now(self) -> datetime: ...


def post_with_requests(url: str, body: bytes, headers: dict[str, str]) -> int:
    """The default sender: POST with ``requests`` (5 s timeout); the HTTP status."""
    return requests.post(url, data=body, headers=headers, timeout=SEND_TIMEOUT).status_code


@dataclass
class _Delivery:
    id: str
    url: str
    body: bytes
    headers: dict[str, str]
    created_at: datetime
    due: float  # time.monotonic() when the next attempt may run
    history: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None
    error: str | None = None
    delivered: bool = False
    dropped: bool = False
    finished: bool = False
    delivered_at: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "status": self.status,
            "attempts": len(self.history),
            "delivered": self.delivered,
            "dropped": self.dropped,
            "pending": not self.finished,
            "error": self.error,
            "body": self.body.decode("utf-8", errors="replace"),
            "headers": dict(self.headers),
            "created_at": timestamp(self.created_at),
            "last_attempt_at": self.history[-1]["at"] if self.history else None,
            "delivered_at": timestamp(self.delivered_at) if self.delivered_at else None,
            "history": [dict(attempt) for attempt in self.history],
        }


class Notifier:
    """A queue of notification deliveries worked off by one background thread."""

    def __init__(
        self,
        sender: Sender | None = None,
        *,
        delay: float = 0.0,
        retries: int = 5,
        backoff: float = 0.5,
        clock: _Clock | None = None,
        background: bool = True,
    ) -> None:
        self._sender = sender or post_with_requests
        self._delay = delay
        self._retries = retries
        self._backoff = backoff
        self._clock = clock
        self._background = background
        self._cond = threading.Condition()
        self._records: list[_Delivery] = []
        self._queue: list[_Delivery] = []  # waiting for an attempt (not in flight)
        self._in_flight = 0
        self._hurry = 0  # flushes under way: everything queued is due now
        self._drop = 0
        self._generation = 0  # bumped by reset(): in-flight deliveries are then forgotten
        self._stopping = False
        self._thread: threading.Thread | None = None

    def _now(self) -> datetime:
        return self._clock.now() if self._clock is not None else datetime.now(PROVIDER_TZ)

    def submit(self, url: str, body: bytes, headers: dict[str, str]) -> None:
        """Queue one delivery of ``body`` to ``url``, first tried after ``delay`` seconds."""
        with self._cond:
            delivery = _Delivery(
                id=ids.new_id("NOTI_"),
                url=url,
                body=bytes(body),
                headers=dict(headers),
                created_at=self._now(),
                due=time.monotonic() + self._delay,
            )
            self._records.append(delivery)
            if self._drop:
                self._drop -= 1
                delivery.dropped = delivery.finished = True
                delivery.error = DROPPED
                return
            self._queue.append(delivery)
            if self._background:
                self._ensure_worker()
            self._cond.notify_all()

    def trim(self, keep: int) -> None:
        """Forget the oldest finished deliveries once more than ``keep`` are recorded.

        Pending ones are never forgotten. Trimmed down to ``keep`` when the
        records pass it by a tenth, so the list is rebuilt now and then, not
        on every delivery.
        """
        if len(self._records) <= keep + max(1, keep // 10):
            return
        with self._cond:
            excess = len(self._records) - keep
            kept: list[_Delivery] = []
            for delivery in self._records:
                if excess > 0 and delivery.finished:
                    excess -= 1
                    continue
                kept.append(delivery)
            self._records = kept

    def recorded(self) -> int:
        """How many deliveries are remembered (pending and finished)."""
        with self._cond:
            return len(self._records)

    def drop_next(self, n: int = 1) -> None:
        """Record the next ``n`` submissions as dropped and never send them (a fault)."""
        if n < 0:
            raise ValueError("n must not be negative")
        with self._cond:
            self._drop += n

    def deliveries(self) -> list[dict[str, Any]]:
        """Every submission, oldest first, with its attempts (see ``_Delivery.as_dict``)."""
        with self._cond:
            return [delivery.as_dict() for delivery in self._records]

    def flush(self, timeout: float = 5.0) -> bool:
        """Deliver everything pending now; False if something is still pending at ``timeout``."""
        deadline = time.monotonic() + timeout
        if not self._background:
            return self._flush_inline(deadline)
        with self._cond:
            self._hurry += 1
            try:
                if self._queue:
                    self._ensure_worker()
                self._cond.notify_all()
                while self._queue or self._in_flight:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._cond.wait(remaining)
                return True
            finally:
                self._hurry -= 1

    def reset(self) -> None:
        """Forget every delivery, pending or done, and any ``drop_next``."""
        with self._cond:
            self._generation += 1
            self._records.clear()
            self._queue.clear()
            self._drop = 0
            self._cond.notify_all()

    def close(self) -> None:
        """Stop the worker thread (pending deliveries stay queued; a submit restarts it)."""
        with self._cond:
            self._stopping = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=SEND_TIMEOUT + 1)

    # The worker.

    def _ensure_worker(self) -> None:
        self._stopping = False  # also revives a worker that close() has not stopped yet
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._run, name="orderpay-emulator-notifier", daemon=True
            )
            self._thread.start()

    def _due_locked(self) -> tuple[_Delivery | None, float | None]:
        """The next delivery to attempt, or how long to wait for one (None: until notified)."""
        if not self._queue:
            return None, None
        delivery = min(self._queue, key=lambda item: item.due)
        wait = delivery.due - time.monotonic()
        if self._hurry or wait <= 0:
            return delivery, 0.0
        return None, wait

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._stopping:
                        return
                    delivery, wait = self._due_locked()
                    if delivery is not None:
                        break
                    self._cond.wait(wait)
                generation = self._start_locked(delivery)
            self._attempt(delivery, generation)

    def _flush_inline(self, deadline: float) -> bool:
        while True:
            with self._cond:
                if not self._queue:
                    return True
                if time.monotonic() >= deadline:
                    return False
                delivery = min(self._queue, key=lambda item: item.due)
                generation = self._start_locked(delivery)
            self._attempt(delivery, generation)

    def _start_locked(self, delivery: _Delivery) -> int:
        self._queue.remove(delivery)
        self._in_flight += 1
        return self._generation

    def _attempt(self, delivery: _Delivery, generation: int) -> None:
        status: int | None = None
        error: str | None = None
        try:
            status = int(self._sender(delivery.url, delivery.body, dict(delivery.headers)))
            if not 200 <= status < 300:
                error = f"HTTP {status}"
        except Exception as exc:  # the worker must outlive any sender failure
            error = f"{type(exc).__name__}: {exc}"
        with self._cond:
            self._in_flight -= 1
            self._record_locked(delivery, status, error, generation)
            self._cond.notify_all()

    def _record_locked(
        self, delivery: _Delivery, status: int | None, error: str | None, generation: int
    ) -> None:
        at = self._now()
        delivery.history.append({"at": timestamp(at), "status": status, "error": error})
        delivery.status = status
        delivery.error = error
        if error is None:
            delivery.delivered = delivery.finished = True
            delivery.delivered_at = at
        elif len(delivery.history) > self._retries:
            delivery.finished = True  # given up
        elif generation == self._generation:
            attempt = len(delivery.history)
            delivery.due = time.monotonic() + self._backoff * 2 ** (attempt - 1)
            self._queue.append(delivery)
        else:
            delivery.finished = True  # reset() while in flight: forgotten
