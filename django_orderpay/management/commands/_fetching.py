"""Fetching many orders at once for ``orderpay_sync``, and showing how far it got; checkouts.

:func:`fetch_all` refreshes orders from a few threads, each with its own
database connection (closed when it is done) and its own HTTP client: the
provider's latency is waited out side by side. Each sync still locks its
order's row, so a notification or another sync of the same order takes its
turn as always. :class:`Progress` draws one line on a terminal.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TypeVar

from django.core.management.base import CommandError, OutputWrapper
from django.db import connection, connections
from django.db.models import Count, Q, QuerySet

from django_orderpay.conf import get_settings
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import AccountState, ChangeSource, Checkout, ConnectedAccount, Order
from django_orderpay.services import refresh_checkout, refresh_order

Target = Order | str
Fetched = Order | OrderPayError


def _fetch(target: Target, account: ConnectedAccount | None = None) -> Fetched:
    try:
        # A mirrored order is fetched for its own account; an id for ``account``.
        named = account if isinstance(target, str) else None
        return refresh_order(target, source=ChangeSource.SYNC, account=named)
    except OrderPayError as exc:
        return exc


def connected_account(account_id: str | None) -> ConnectedAccount | None:
    """The connected account ``--account ACCO_...`` names (None: not given)."""
    if not account_id:
        return None
    found = ConnectedAccount.objects.filter(
        account_id=account_id, environment=get_settings().environment
    ).first()
    if found is None:
        raise CommandError(f"--account {account_id} is not a connected account here")
    return found


Mirror = TypeVar("Mirror", Order, Checkout)


def of_account(rows: QuerySet[Mirror], account: ConnectedAccount | None) -> QuerySet[Mirror]:
    """``rows`` (orders, checkouts) of ``account`` only, when one is given."""
    return rows if account is None else rows.filter(account=account)


def without_unauthorised(
    orders: QuerySet[Mirror],
) -> tuple[QuerySet[Mirror], list[tuple[str, int]]]:
    """``orders`` (or checkouts) less those of connected accounts the platform may not act
    for now, and, for each such account, how many were left out (``(ACCO_..., count)``)."""
    if not get_settings().connect_enabled:
        return orders, []
    blocked = ~Q(account__isnull=True) & ~Q(account__state=AccountState.ACTIVE)
    skipped = (
        orders.filter(blocked)
        .order_by()
        .values_list("account__account_id")
        .annotate(count=Count("pk", distinct=True))
    )
    return orders.exclude(blocked), [(account_id, count) for account_id, count in skipped]


def fetch_all(
    targets: Sequence[Target], concurrency: int, account: ConnectedAccount | None = None
) -> Iterator[tuple[Target, Fetched]]:
    """``(target, its refreshed order or the error)`` for each target, as each finishes.

    One after another in this thread when ``concurrency`` is 1 or the caller
    is inside a transaction: its uncommitted rows are invisible to other
    connections. Anything but an ``OrderPayError`` (a bug, the database
    gone) stops the others and is raised here.
    """
    workers = min(concurrency, len(targets))
    if workers <= 1 or connection.in_atomic_block:
        for target in targets:
            yield target, _fetch(target, account)
        return
    pending = iter(targets)
    take = threading.Lock()
    stop = threading.Event()
    done: queue.Queue[tuple[Target, Fetched] | BaseException | None] = queue.Queue()

    def work() -> None:
        try:
            while not stop.is_set():
                with take:
                    target = next(pending, None)
                if target is None:
                    return
                done.put((target, _fetch(target, account)))
        except BaseException as exc:
            done.put(exc)
        finally:
            connections.close_all()
            done.put(None)

    threads = [
        threading.Thread(target=work, name=f"orderpay-sync-{n}", daemon=True)
        for n in range(workers)
    ]
    for thread in threads:
        thread.start()
    running = workers
    try:
        while running:
            item = done.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        stop.set()
        for thread in threads:
            thread.join()


class Progress:
    """``123/1000 orders re-fetched, 2 failed, 4.1 s`` redrawn in place, on a terminal only."""

    #: Seconds between redraws: a terminal need not be written a thousand times.
    EVERY = 0.1

    def __init__(self, stream: OutputWrapper, total: int, *, enabled: bool = True) -> None:
        self.stream = stream
        self.total = total
        self.live = enabled and total > 0 and stream.isatty()
        self.done = 0
        self.failed = 0
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def line(self, text: str, show: bool = True) -> None:
        """Print ``text`` on its own line (above the progress line), when ``show``."""
        if not show:
            return
        self.clear()
        self.stream.write(text)

    def advance(self, failed: int) -> None:
        self.done += 1
        self.failed = failed
        now = time.monotonic()
        if self.live and (now - self.drawn_at >= self.EVERY or self.done == self.total):
            self.drawn_at = now
            failures = f", {self.failed} failed" if self.failed else ""
            elapsed = now - self.started
            self._write(
                f"\r{self.done}/{self.total} orders re-fetched{failures}, {elapsed:.1f} s\x1b[K"
            )
            self.shown = True

    def clear(self) -> None:
        """Wipe the progress line (before other output, and at the end)."""
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False

    def _write(self, text: str) -> None:
        self.stream.write(text, ending="")
        self.stream.flush()


def refresh_checkouts(
    checkouts: Sequence[Checkout | str],
    stdout: OutputWrapper,
    stderr: OutputWrapper,
    *,
    verbose: bool,
    account: ConnectedAccount | None = None,
) -> int:
    """Re-fetch each checkout with the orders made on its page, saying so; how many failed.

    A mirrored checkout is fetched for its own account; an id for ``account``.
    """
    failures = 0
    for checkout in checkouts:
        name = checkout.provider_id if isinstance(checkout, Checkout) else checkout
        before = checkout.status if isinstance(checkout, Checkout) else None
        named = account if isinstance(checkout, str) else None
        try:
            fetched = refresh_checkout(checkout, account=named)
        except OrderPayError as exc:
            failures += 1
            stderr.write(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if verbose:
            change = (
                f"{before} -> {fetched.status}"
                if before not in (None, fetched.status)
                else fetched.status
            )
            stdout.write(f"{name}: {change}, {fetched.orders.count()} orders")
    return failures
