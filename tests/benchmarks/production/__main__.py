"""``python -m tests.benchmarks.production``: the shop as it runs in production, under load.

The example shop under gunicorn (2 workers) on PostgreSQL (a throwaway
cluster, or ``DATABASE_URL``), wrk on loopback posting signed notifications
for real orders (two thirds first-time transitions, one third duplicates)
against a bare view on the same stack that stores the body with one INSERT;
rounds of ours and bare interleaved, for each mode (re-fetch, trusted body,
background). Then: two db_worker processes drain the background backlog,
``orderpay_sync`` fetches 1,000 orders at 100 ms a fetch, ``create_order``
against post + INSERT, and the emulator's memory past its retention. Prints
the figures with the issue's targets beside them. See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from contextlib import ExitStack

from .load import wrk_path
from .postgres import throwaway_cluster

#: What runs after the ingest rounds, in this order.
PHASES = ("drain", "sync", "create", "memory")


def load_average() -> float:
    return os.getloadavg()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.production")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per mode (default 3)")
    parser.add_argument("--posts", type=int, default=2000, help="posts per run (default 2000)")
    parser.add_argument(
        "--backlog", type=int, default=10_000, help="deliveries the workers drain (default 10000)"
    )
    parser.add_argument(
        "--sync-orders", type=int, default=1000, help="orders orderpay_sync fetches (default 1000)"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, to try the benchmark")
    parser.add_argument(
        "--unprepared",
        action="store_true",
        help="Django's default connections, without prepare_threshold (docs/notifications.md)",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=PHASES,
        help="leave out a phase after the ingest rounds (repeatable)",
    )
    args = parser.parse_args(argv)
    args.phases = [phase for phase in PHASES if phase not in args.skip]
    if args.quick:
        args.rounds, args.posts, args.backlog, args.sync_orders = 1, 300, 600, 100
    if args.unprepared:  # every process of the stack inherits it (stack.environment)
        os.environ["ORDERPAY_BENCH_UNPREPARED"] = "1"
    wrk_path()  # fail early when the load generator is missing
    started = time.monotonic()
    print(
        f"django-orderpay production-shape benchmark, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC"
    )
    print(f"load average {load_average():.2f} at the start, {os.cpu_count()} CPUs")
    print(
        "connections: Django's default, nothing prepared"
        if args.unprepared
        else "connections: the example project's (prepare_threshold: hot statements prepared)"
    )
    with ExitStack() as stack:
        url = os.environ.get("DATABASE_URL", "")
        if not url.startswith(("postgres://", "postgresql://")):
            url = stack.enter_context(throwaway_cluster())
        from .run import Benchmark

        report = Benchmark(args, url, stack).run()
    print()
    print(report)
    print()
    print(f"Total {time.monotonic() - started:.0f} s, load average {load_average():.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
