"""The production benchmark's figures and the table it prints, targets beside them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from .load import Run

#: The issue's targets: ours ÷ bare of requests per second, at least.
INGEST_TARGETS = {"refetch": 0.25, "trusted": 0.35, "background": 0.6}
INGEST_TITLES = {
    "refetch": "ingest, default (re-fetch over HTTP)",
    "trusted": "ingest, `NOTIFICATION_TRUST_BODY`",
    "background": "ingest, `NOTIFICATION_BACKGROUND` (request path)",
}
CREATE_TARGET = 2.6
SYNC_TARGET = 20.0
FIRST_TIME_TARGET, DUPLICATE_TARGET = 6, 2


@dataclass
class Side:
    runs: list[Run] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return sum(r.requests for r in self.runs) / sum(r.seconds for r in self.runs)

    @property
    def p99(self) -> float:
        return statistics.median(r.p99 for r in self.runs)

    def __str__(self) -> str:
        return f"{self.per_second:,.0f} req/s, p99 {self.p99 * 1e3:.1f} ms"


@dataclass
class Ingest:
    ours: Side = field(default_factory=Side)
    bare: Side = field(default_factory=Side)

    def add(self, side: str, run: Run, load: float) -> None:
        target = self.ours if side == "ours" else self.bare
        target.runs.append(run)
        target.loads.append(load)

    @property
    def ratio(self) -> float:
        return self.ours.per_second / self.bare.per_second

    @property
    def loads(self) -> str:
        loads = [*self.ours.loads, *self.bare.loads]
        return f"{min(loads):.2f}-{max(loads):.2f}"


def _sql(counts: tuple[int, int, int]) -> str:
    data, control, after = counts
    text = f"{data} + {control} tx" if control else str(data)
    return f"{text} (+{after} after commit)" if after else text


@dataclass
class Figures:
    statements: dict[str, Any] = field(default_factory=dict)
    ingest: dict[str, Ingest] = field(default_factory=dict)
    once: dict[str, tuple[int, int]] = field(default_factory=dict)
    drain: Any = None
    sync: Any = None
    create: Any = None
    memory: Any = None

    def table(self) -> str:
        rows = [
            "| figure | ours | bare | ours ÷ bare | target | load |",
            "|---|---:|---:|---:|---|---|",
        ]
        for mode, ingest in self.ingest.items():
            target = INGEST_TARGETS[mode]
            once = self.once.get(mode)
            note = f"; applied once: {once[0]:,} of {once[1]:,}" if once else ""
            rows.append(
                f"| {INGEST_TITLES[mode]} | {ingest.ours} | {ingest.bare} | "
                f"**{ingest.ratio:.3f}** | ≥ {target}{note} | {ingest.loads} |"
            )
        if self.drain:
            backlog, seconds, load, (once, orders) = self.drain
            rows.append(
                f"| 2 db_workers drain the backlog | {backlog:,} deliveries in {seconds:.1f} s "
                f"({backlog / seconds:,.0f}/s) | | | every transition once: {once:,} of "
                f"{orders:,} | {load:.2f} |"
            )
        for mode, title in (("refetch", "re-fetch"), ("trusted", "trusted body")):
            if mode in self.statements:
                first, copy = self.statements[mode]
                bare = _sql(self.statements["bare"][0])
                rows.append(
                    f"| statements, first-time transition ({title}) | {_sql(first)} | {bare} "
                    f"| | ≤ {FIRST_TIME_TARGET} | |"
                )
                rows.append(
                    f"| statements, duplicate ({title}) | {_sql(copy)} | {bare} | "
                    f"| ≤ {DUPLICATE_TARGET} | |"
                )
        if "background" in self.statements:
            # The first request wakes a drain (its task row too); the next, right
            # after it, rides on that drain: the usual request under load.
            waking, riding = self.statements["background"]
            bare = _sql(self.statements["bare"][0])
            rows.append(
                f"| statements, background request | {_sql(riding)} "
                f"({_sql(waking)} when it wakes a drain) | {bare} | | | |"
            )
        if self.create:
            comparison, load = self.create
            ours, bare = comparison.ours, comparison.bare
            rows.append(
                f"| `services.create_order` vs post + INSERT | {ours.median * 1e3:.2f} ms"
                f" ({ours.queries}) | {bare.median * 1e3:.2f} ms "
                f"({bare.queries}) | **{comparison.ratio:.2f}** | ≤ {CREATE_TARGET} "
                f"| {load:.2f} |"
            )
        if self.sync:
            count, seconds, load, how, paid = self.sync
            rows.append(
                f"| `orderpay_sync`, {count:,} pending orders, 100 ms a fetch | {seconds:.1f} s "
                f"({paid:,} paid; latency by {how}) | | | ≤ {SYNC_TARGET:.0f} s | {load:.2f} |"
            )
        if self.memory:
            growth, retention = self.memory
            rows.append(
                f"| emulator memory, per 1,000 orders past retention ({retention}) "
                f"| {growth / 1e6:+.2f} MB | | | bounded | |"
            )
        return "\n".join(rows)
