"""``python -m tests.benchmarks [name ...]``: run the benchmarks and print the table.

Names pick modules (``sync`` or ``bench_sync``); none runs them all, in the
order of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import sys
import time

from .environment import database, describe, load_average, setup_django

MODULES = ("create_order", "sync", "notifications", "emulator", "payloads")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="name", help=f"any of {', '.join(MODULES)}")
    parser.add_argument(
        "--sql", action="store_true", help="also print the SQL of one operation of each side"
    )
    args = parser.parse_args(argv)
    names = [name.removeprefix("bench_") for name in args.names] or MODULES
    unknown = sorted(set(names) - set(MODULES))
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(MODULES)}")

    setup_django()
    from .harness import statements, table

    started = time.perf_counter()
    results = []
    with database():
        # UTC: django.setup() has set the process's local time zone to TIME_ZONE.
        now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        print(f"django-orderpay benchmarks, {now}")
        print(describe())
        print()
        for name in MODULES:
            if name not in names:
                continue
            module = importlib.import_module(f"{__package__}.bench_{name}")
            begun = time.perf_counter()
            comparisons = module.run()
            results.extend(comparisons)
            for comparison in comparisons:
                print(
                    f"  {comparison.title}: ours ÷ bare = {comparison.ratio:.2f}x "
                    f"({time.perf_counter() - begun:.1f} s)",
                    file=sys.stderr,
                )
    print(table(results))
    print()
    if args.sql:
        print(statements(results))
        print()
    print(f"Total {time.perf_counter() - started:.1f} s, {load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
