"""The phases of the production benchmark, in the order they run.

1. The provider (the emulator, served over HTTP) and Django on the shop's
   settings, migrated; statements per request counted in this process.
2. Ingest: a gunicorn per mode; for each round and mode, wrk posts a fresh
   set of notifications to ours and the same bodies to the bare view,
   alternating which goes first; each set checked applied exactly once.
3. Backlog: background deliveries topped up to ``--backlog``, drained by two
   ``db_worker`` processes; checked applied exactly once.
4. ``orderpay_sync`` over ``--sync-orders`` orders, 100 ms a fetch.
5. ``services.create_order`` against post + INSERT (``bench_create_order``).
6. The emulator's memory past its retention.
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from . import stack
from .load import Body, Run, post_all
from .report import Figures, Ingest

NOTIFY = "/orderpay/notifications/"
BARE = "/bench/bare/"
WARMUP_POSTS = 150
#: Seconds the provider takes to answer a fetch in the orderpay_sync phase.
SYNC_LATENCY = 0.1


def log(message: str) -> None:
    print(
        f"  [{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.2f}] {message}", file=sys.stderr
    )


def order_ids(bodies: Sequence[Body]) -> set[str]:
    return {json.loads(body)["id"] for _, body in bodies}


class Benchmark:
    def __init__(self, args: Any, database_url: str, exits: ExitStack) -> None:
        self.args = args
        self.url = database_url
        self.exits = exits
        self.figures = Figures()

    # --- 1. the provider, Django, statements -------------------------------------------

    def _provider(self) -> tuple[Any, str]:
        from django_orderpay.emulator import Emulator
        from django_orderpay.emulator.serving.wsgi import make_wsgi_app, serving

        from ..bodies import TOKEN

        try:
            emulator = Emulator([TOKEN], notify_in_background=False, retain_orders=1_000_000)
        except TypeError:  # code from before the emulator had retention
            emulator = Emulator([TOKEN], notify_in_background=False)
        self.exits.callback(emulator.close)
        self.delayed = stack.DelayedFetches(make_wsgi_app(emulator))
        server = self.exits.enter_context(serving(self.delayed))
        return emulator, server.url

    def _latency(self, seconds: float) -> str:
        """Hold back the provider's fetches: its control plane's knob, else a wrapper."""
        from django_orderpay.emulator.serving.http import Request

        body = json.dumps({"seconds": seconds, "path_prefix": "/orders/"}).encode()
        headers = {"Content-Type": "application/json"}
        answer = self.emulator.handle(Request("POST", "/_emulator/latency", body, headers))
        if answer.status == 200:
            return "the emulator's latency knob"
        self.delayed.seconds = seconds
        return "a sleeping WSGI wrapper (the emulator has no latency knob)"

    def run(self) -> str:
        self.emulator, self.provider_url = self._provider()
        os.environ.update(stack.environment("refetch", self.url, self.provider_url))
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        from ..bare import ensure_bare_table
        from .prepare import Provider

        call_command("migrate", verbosity=0)
        ensure_bare_table()
        self.provider = Provider(self.emulator, settings.ORDERPAY["NOTIFICATION_URL"])
        log("database migrated; counting statements")
        self.statements()
        servers = self.exits.enter_context(stack.servers(stack.MODES, self.url, self.provider_url))
        phases = self.args.phases
        self.ingest(servers)
        if "drain" in phases:
            self.drain(servers["background"])
        if "sync" in phases:
            self.sync()
        if "create" in phases:
            self.create_order()
        if "memory" in phases:
            self.memory()
        return self.figures.table()

    def statements(self) -> None:
        from django.conf import settings
        from django.db import connection
        from django.test import Client, override_settings
        from django.test.utils import CaptureQueriesContext

        client = Client(HTTP_HOST="127.0.0.1")

        def counted(path: str, body: Body) -> tuple[int, int, int]:
            """Data statements up to the last commit, transaction statements, and after it."""
            token, raw = body
            headers = {"x-authenticity-token": token} if token else {}
            with CaptureQueriesContext(connection) as captured:
                response = client.post(
                    path, data=raw, content_type="application/json", headers=headers
                )
            assert response.status_code == 200, response.content
            kinds = [q["sql"].lstrip().split()[0].upper() for q in captured.captured_queries]
            end = max((i for i, k in enumerate(kinds) if k == "COMMIT"), default=len(kinds) - 1)
            control = sum(k in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE") for k in kinds)
            return end + 1 - control, control, len(kinds) - end - 1

        for mode, keys in (
            ("refetch", {}),
            ("trusted", {"NOTIFICATION_TRUST_BODY": True}),
            ("background", {"NOTIFICATION_BACKGROUND": True}),
        ):
            body = self.provider.approve(self.provider.in_analysis_order())
            with override_settings(ORDERPAY={**settings.ORDERPAY, **keys}):
                self.figures.statements[mode] = (counted(NOTIFY, body), counted(NOTIFY, body))
        self.figures.statements["bare"] = (counted(BARE, body), counted(BARE, body))

    # --- 2. ingest ----------------------------------------------------------------------

    def _posts(self, count: int, seed: int) -> list[Body]:
        from .prepare import orders_for, with_duplicates

        return with_duplicates(self.provider.paid_notifications(orders_for(count)), seed)

    def _post(self, base: str, path: str, bodies: Sequence[Body]) -> Run:
        run = post_all(base, path, bodies)
        if not run.ok or run.requests < len(bodies):
            raise RuntimeError(f"{base}{path}: {run.requests} answered, {run.statuses}, {run}")
        return run

    def ingest(self, servers: dict[str, str]) -> None:
        rounds, posts = self.args.rounds, self.args.posts
        log(f"preparing {rounds} x {len(servers)} runs of {posts} posts, and warm-ups")
        warm = {mode: self._posts(WARMUP_POSTS, 1000 + n) for n, mode in enumerate(servers)}
        plan = {
            (r, mode): self._posts(posts, 10 * r + n)
            for r in range(rounds)
            for n, mode in enumerate(servers)
        }
        for mode, base in servers.items():
            self._post(base, NOTIFY, warm[mode])
            self._post(base, BARE, warm[mode])
        for r in range(rounds):
            for mode, base in servers.items():
                bodies = plan[(r, mode)]
                sides = ("ours", "bare") if r % 2 == 0 else ("bare", "ours")
                for side in sides:
                    load = os.getloadavg()[0]
                    run = self._post(base, NOTIFY if side == "ours" else BARE, bodies)
                    self.figures.ingest.setdefault(mode, Ingest()).add(side, run, load)
                    log(f"round {r + 1} {mode} {side}: {run.per_second:,.0f} req/s")
        for mode in ("refetch", "trusted"):
            bodies = [body for r in range(rounds) for body in plan[(r, mode)]]
            self.figures.once[mode] = self.applied_once(bodies, [*warm[mode]])
        self.background = [
            *warm["background"],
            *(body for r in range(rounds) for body in plan[(r, "background")]),
        ]

    def applied_once(self, bodies: Sequence[Body], also: Sequence[Body] = ()) -> tuple[int, int]:
        """``(transitions applied once, orders)``: every order's PAID exactly once, none failed."""
        from django_orderpay.models import ChargeStatusChange, NotificationDelivery

        ids = order_ids([*bodies, *also])
        paid = Counter(
            ChargeStatusChange.objects.filter(
                new_status="PAID", charge__order__provider_id__in=ids
            ).values_list("charge__order__provider_id", flat=True)
        )
        outcomes = Counter(
            NotificationDelivery.objects.filter(order_provider_id__in=ids).values_list(
                "outcome", flat=True
            )
        )
        if set(outcomes) - {"processed", "duplicate"}:
            raise RuntimeError(f"deliveries not applied: {outcomes}")
        return sum(1 for count in paid.values() if count == 1), len(ids)

    # --- 3. the backlog -------------------------------------------------------------------

    def drain(self, base: str) -> None:
        from django_orderpay.models import NotificationDelivery

        waiting = NotificationDelivery.objects.filter(outcome="received").count()
        missing = self.args.backlog - waiting
        if missing > 0:
            log(f"topping the backlog up by {missing} deliveries")
            extra = self._posts(missing, 99)
            self._post(base, NOTIFY, extra)
            self.background.extend(extra)
        backlog = NotificationDelivery.objects.filter(outcome="received").count()
        log(f"two workers drain {backlog} deliveries")
        load = os.getloadavg()[0]
        began = time.monotonic()
        workers = stack.workers(2, stack.environment("background", self.url, self.provider_url))
        for worker in workers:
            if worker.wait(timeout=3600) != 0:
                raise RuntimeError("a db_worker failed")
        seconds = time.monotonic() - began
        left = NotificationDelivery.objects.filter(outcome__in=["received", "failed"]).count()
        if left:
            raise RuntimeError(f"{left} deliveries left after the workers")
        self.figures.drain = (backlog, seconds, load, self.applied_once(self.background))

    # --- 4. orderpay_sync ------------------------------------------------------------------

    def sync(self) -> None:
        from django.core.management import call_command

        from django_orderpay.models import Order

        count = self.args.sync_orders
        log(f"preparing {count} orders for orderpay_sync")
        bodies = self.provider.paid_notifications(count)  # paid there, not heard here
        ids = sorted(order_ids(bodies))
        how = self._latency(SYNC_LATENCY)
        load = os.getloadavg()[0]
        began = time.monotonic()
        try:
            call_command("orderpay_sync", *ids, verbosity=0, stdout=io.StringIO())
        finally:
            seconds = time.monotonic() - began
            self._latency(0)
        paid = Order.objects.filter(provider_id__in=ids, status="PAID").count()
        self.figures.sync = (count, seconds, load, how, paid)
        log(f"orderpay_sync: {count} orders in {seconds:.1f} s ({how})")

    # --- 5. create_order ----------------------------------------------------------------------

    def create_order(self) -> None:
        from .. import bench_create_order

        log("services.create_order against post + INSERT")
        load = os.getloadavg()[0]
        [comparison] = bench_create_order.run()
        self.figures.create = (comparison, load)

    # --- 6. the emulator's memory -------------------------------------------------------------

    def memory(self) -> None:
        import requests

        from django_orderpay.emulator import Emulator
        from django_orderpay.emulator.serving.transport import mount

        from ..bodies import APPROVED_VISA, TOKEN, next_reference_id
        from .prepare import _order_body

        options: dict[str, Any] = {"notify_in_background": False}
        options["notification_sender"] = lambda url, body, headers: 204
        try:
            emulator = Emulator([TOKEN], retain_orders=1000, **options)
            retention = "1,000 orders"
        except TypeError:
            emulator = Emulator([TOKEN], **options)
            retention = "none"
        session = requests.Session()
        base = mount(session, emulator, "http://memory.bench", sleep=lambda s: None)
        auth = {"Authorization": f"Bearer {TOKEN}"}

        def create(count: int) -> None:
            for _ in range(count):
                body = _order_body(next_reference_id("bench-mem"), "http://127.0.0.1:9/n/")
                body["charges"][0]["payment_method"]["card"]["number"] = APPROVED_VISA
                session.post(base + "/orders", json=body, headers=auth, timeout=10)
                emulator.notifier.flush()

        log("the emulator's memory")
        gc.collect()
        tracemalloc.start()
        try:
            create(1000)
            gc.collect()
            filled, _ = tracemalloc.get_traced_memory()
            create(2000)
            gc.collect()
            later, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            emulator.close()
        self.figures.memory = ((later - filled) / 2, retention)
