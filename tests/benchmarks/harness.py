"""Timing one operation against the bare minimum: fixed iterations, warm-up, alternating rounds.

Each side is a :class:`Case`: ``prepare()`` makes the input of one operation
(untimed: fresh ids, rows the operation needs), ``op(input)`` is what is
timed, one ``time.perf_counter`` pair around each call. After the warm-up, the
measured iterations run in rounds that alternate the sides (ours, bare, then
bare, ours...), so a machine that slows down or speeds up mid-run weighs on
both alike. SQL statements are counted in one extra call per side with
``CaptureQueriesContext``, outside the timed calls (logging queries costs
time), and that call's result goes through ``check`` so a benchmark that
stopped doing its work fails loudly instead of getting faster.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

ROUNDS = 5
_TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Case:
    """One side of a comparison: what to time, what to prepare before it, how to check it."""

    label: str
    op: Callable[[Any], Any]
    prepare: Callable[[], Any] = _nothing
    check: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class Queries:
    """SQL statements one operation ran: data statements and transaction control apart."""

    data: int = 0
    transaction: int = 0
    statements: tuple[str, ...] = field(default=(), repr=False)

    def __str__(self) -> str:
        return f"{self.data} + {self.transaction} tx" if self.transaction else str(self.data)


@dataclass(frozen=True)
class Stats:
    """Seconds per operation of one side, and its query count."""

    label: str
    samples: tuple[float, ...] = field(repr=False)
    queries: Queries

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.samples, n=20, method="inclusive")[18]

    @property
    def ops_per_second(self) -> float:
        return 1.0 / statistics.fmean(self.samples)


@dataclass(frozen=True)
class Comparison:
    """Ours against the bare minimum; ``ratio`` is of the medians (ours ÷ bare)."""

    title: str
    ours: Stats
    bare: Stats

    @property
    def ratio(self) -> float:
        return self.ours.median / self.bare.median


def _count_queries(case: Case) -> Queries:
    given = case.prepare()
    with CaptureQueriesContext(connection) as captured:
        result = case.op(given)
    if case.check is not None:
        case.check(result)
    statements = tuple(query["sql"] for query in captured.captured_queries)
    control = sum(1 for sql in statements if sql.lstrip().upper().startswith(_TRANSACTION_CONTROL))
    return Queries(data=len(statements) - control, transaction=control, statements=statements)


def _run(case: Case, count: int, samples: list[float] | None = None) -> None:
    gc.collect()
    prepare, op, clock = case.prepare, case.op, time.perf_counter
    for _ in range(count):
        given = prepare()
        start = clock()
        op(given)
        elapsed = clock() - start
        if samples is not None:
            samples.append(elapsed)


def compare(
    title: str,
    ours: Case,
    bare: Case,
    *,
    iterations: int,
    warmup: int,
    rounds: int = ROUNDS,
) -> Comparison:
    """Warm both sides up, count and check one call of each, then time ``iterations`` of each."""
    for case in (ours, bare):
        _run(case, warmup)
    queries = {case.label: _count_queries(case) for case in (ours, bare)}
    samples: dict[str, list[float]] = {ours.label: [], bare.label: []}
    per_round = max(1, iterations // rounds)
    for round_number in range(rounds):
        order = (ours, bare) if round_number % 2 == 0 else (bare, ours)
        for case in order:
            _run(case, per_round, samples[case.label])
    return Comparison(
        title,
        Stats(ours.label, tuple(samples[ours.label]), queries[ours.label]),
        Stats(bare.label, tuple(samples[bare.label]), queries[bare.label]),
    )


def duration(seconds: float) -> str:
    """``"412.3 µs"`` or ``"3.21 ms"``: the unit that keeps the number readable."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def table(comparisons: Sequence[Comparison]) -> str:
    """A Markdown table, two rows per comparison; the ratio on the row of ours."""
    lines = [
        "| Benchmark | Side | ops/s | median | p95 | SQL/op | ours ÷ bare |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for comparison in comparisons:
        for stats, title, ratio in (
            (comparison.ours, comparison.title, f"**{comparison.ratio:.2f}x**"),
            (comparison.bare, "", ""),
        ):
            lines.append(
                f"| {title} | {stats.label} | {stats.ops_per_second:,.0f} "
                f"| {duration(stats.median)} | {duration(stats.p95)} "
                f"| {stats.queries} | {ratio} |"
            )
    return "\n".join(lines)


def statements(comparisons: Sequence[Comparison], width: int = 160) -> str:
    """Every SQL statement of the counted call of each side (``--sql``), cut to ``width``."""
    lines: list[str] = []
    for comparison in comparisons:
        for stats in (comparison.ours, comparison.bare):
            lines.append(f"{comparison.title} / {stats.label}: {stats.queries}")
            lines.extend(f"    {sql[:width]}" for sql in stats.queries.statements)
    return "\n".join(lines)


def expect(condition: bool, message: str) -> None:
    """Stop the run when an operation did not do what its benchmark claims to measure."""
    if not condition:
        raise RuntimeError(f"benchmark check failed: {message}")
