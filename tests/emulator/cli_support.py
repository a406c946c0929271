"""The CLI as a subprocess, for the CLI's tests: start it, read what it prints, stop it."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

LISTENING = re.compile(r"^Emulator listening on (http://\S+)$")
STARTUP_LIMIT = 30.0  # seconds; only a broken start comes near it


@dataclass
class Cli:
    """A running emulator process and what it printed so far."""

    process: subprocess.Popen[bytes]
    lines: list[str] = field(default_factory=list)
    url: str = ""
    _pending: bytes = b""

    def _next_line(self, deadline: float) -> str | None:
        # Raw reads on the pipe: a buffered readline would swallow lines that
        # select() then never reports.
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(remaining, 0))
            if not ready:
                return None
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode()

    def read_until(self, pattern: re.Pattern[str], limit: float = STARTUP_LIMIT) -> re.Match[str]:
        """Read stdout lines until one matches ``pattern`` (fails on exit or after ``limit``)."""
        deadline = time.monotonic() + limit
        while (line := self._next_line(deadline)) is not None:
            self.lines.append(line)
            if match := pattern.search(line):
                return match
        pytest.fail(f"emulator did not print {pattern.pattern!r}; output: {self.lines}")

    def stop(self, signum: int = signal.SIGINT) -> tuple[int, str, str]:
        """Send ``signum``; the exit status, the rest of stdout, and stderr."""
        self.process.send_signal(signum)
        out, err = self.process.communicate(timeout=STARTUP_LIMIT)
        return self.process.returncode, (self._pending + out).decode(), err.decode()


@contextmanager
def listening(*args: str) -> Iterator[Cli]:
    """The CLI on a free port (``--port 0 --quiet`` and ``args``), once it printed its URL.

    Killed afterwards if it still runs, its pipes closed.
    """
    running = start("--port", "0", "--quiet", *args)
    running.url = running.read_until(LISTENING).group(1)
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.communicate()
    running.process.stdout.close()
    running.process.stderr.close()


def start(*args: str, sigint_ignored: bool = False) -> Cli:
    """The CLI with ``args``; ``sigint_ignored`` starts it as a background job would be."""

    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    process = subprocess.Popen(
        [sys.executable, "-m", "django_orderpay.emulator", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=ignore_sigint if sigint_ignored else None,
    )
    return Cli(process)
