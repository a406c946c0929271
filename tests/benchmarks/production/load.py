"""The load generator: wrk posting a fixed list of bodies, each once, on loopback.

wrk is the machine's (``/usr/bin/wrk``); ``post_bodies.lua`` gives each of
its threads a share of the bodies and stops it once its share is answered.
wrk runs until its ``-d`` duration, so the run is interrupted (SIGINT) as
soon as every thread is done, and wrk's own summary then covers the real
run: requests, seconds, latency percentiles, errors and statuses.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).with_name("post_bodies.lua")
THREADS = 2
#: Two connections per gunicorn worker: each worker always has the next request waiting.
CONNECTIONS = 4
#: The longest one run may take before it counts as stuck.
LIMIT = 600

Body = tuple[str, bytes]  # (x-authenticity-token or "", raw body)


@dataclass(frozen=True)
class Run:
    """What wrk measured of one run."""

    requests: int
    seconds: float
    p50: float
    p99: float
    errors: int
    statuses: dict[int, int]

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def ok(self) -> bool:
        return self.errors == 0 and set(self.statuses) <= {200}


def wrk_path() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    return found


def post_all(base_url: str, path: str, bodies: Sequence[Body]) -> Run:
    """POST every body to ``base_url + path`` once (signed when it has a token)."""
    with tempfile.TemporaryDirectory(prefix="orderpay-bench-wrk-") as folder:
        listing = Path(folder) / "bodies"
        done = Path(folder) / "done"
        done.mkdir()
        with listing.open("wb") as out:
            for token, body in bodies:
                if b"\n" in body:
                    raise ValueError("a body to post holds a newline")
                out.write((token or "-").encode() + b" " + body + b"\n")
        command = [
            wrk_path(),
            f"-t{THREADS}",
            f"-c{CONNECTIONS}",
            f"-d{LIMIT}s",
            "--timeout",
            "30s",
            "-s",
            str(SCRIPT),
            base_url,
        ]
        environment = {
            "BODIES": str(listing),
            "THREADS": str(THREADS),
            "TARGET_PATH": path,
            "DONE_DIR": str(done),
        }
        wrk = subprocess.Popen(
            command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            deadline = time.monotonic() + LIMIT
            while len(list(done.iterdir())) < min(THREADS, len(bodies)):
                if wrk.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.005)
        finally:
            if wrk.poll() is None:
                wrk.send_signal(signal.SIGINT)  # wrk prints its summary and exits
        output, _ = wrk.communicate(timeout=60)
    return _parse(output)


def _parse(output: str) -> Run:
    line = next((x for x in output.splitlines() if x.startswith("WRK_RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{output}")
    result = json.loads(line.removeprefix("WRK_RESULT "))
    statuses: Counter[int] = Counter()
    for code, count in result["statuses"]:
        statuses[code] += count
    return Run(
        requests=result["requests"],
        seconds=result["duration_us"] / 1e6,
        p50=result["p50_us"] / 1e6,
        p99=result["p99_us"] / 1e6,
        # Socket errors and timeouts; statuses are counted apart (the 405s are not ours).
        errors=sum(count for kind, count in result["errors"].items() if kind != "status"),
        statuses=dict(statuses),
    )
