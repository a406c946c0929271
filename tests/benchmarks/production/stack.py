"""The processes of the production shape: gunicorn per mode, db_worker, and the provider.

Each notification mode gets its own gunicorn (2 sync workers, the example
shop's WSGI app) on a free port, all started at once and idle but for the
one under load, so rounds of different modes can be interleaved without
restarting anything. The provider is the emulator, in this process, served
over HTTP on another port (its latency knob, or a sleeping wrapper where the
code under test has none).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import requests

from .postgres import free_port

ROOT = Path(__file__).resolve().parents[3]
SETTINGS = "tests.benchmarks.production.settings"
#: How notifications are processed, one gunicorn each (see ``settings``).
MODES = ("refetch", "trusted", "background")
GUNICORN_WORKERS = 2


def environment(mode: str, database_url: str, provider_url: str) -> dict[str, str]:
    """The environment of every process of the stack (``mode``: see ``settings``)."""
    path = os.environ.get("PYTHONPATH", "")
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DATABASE_URL": database_url,
        "ORDERPAY_BENCH_PROVIDER": provider_url,
        "ORDERPAY_BENCH_MODE": mode,
        # The code under test first: a "before" run points PYTHONPATH at an older tree.
        "PYTHONPATH": os.pathsep.join(p for p in (path, str(ROOT)) if p),
    }


def _answers(url: str) -> bool:
    try:
        requests.get(url, timeout=1)
    except requests.RequestException:
        return False
    return True


@contextmanager
def gunicorn(env: dict[str, str]) -> Iterator[str]:
    """gunicorn with 2 sync workers on a free port; its base URL."""
    port = free_port()
    binary = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [
            str(binary),
            "-w",
            str(GUNICORN_WORKERS),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "tests.benchmarks.production.wsgi:application",
        ],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(url + "/bench/bare/"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn ({env['ORDERPAY_BENCH_MODE']}) did not start")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def servers(modes: tuple[str, ...], database_url: str, provider_url: str) -> Iterator[dict]:
    """One gunicorn per mode: ``{mode: base URL}``."""
    with ExitStack() as stack:
        yield {
            mode: stack.enter_context(gunicorn(environment(mode, database_url, provider_url)))
            for mode in modes
        }


def workers(count: int, env: dict[str, str]) -> list[subprocess.Popen]:
    """``count`` ``manage.py db_worker --batch`` processes: they exit once the queue is empty."""
    command = [sys.executable, "-m", "django", "db_worker", "--batch", "--no-reload"]
    options = ["--no-startup-delay", "--interval", "0.05", "--verbosity", "0"]
    return [
        subprocess.Popen([*command, *options, "--worker-id", f"bench-{n}"], cwd=ROOT, env=env)
        for n in range(count)
    ]


class DelayedFetches:
    """A WSGI wrapper holding back every ``GET /orders/...``: latency for a provider without it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seconds = 0.0

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.seconds and environ.get("PATH_INFO", "").startswith("/orders/"):
            time.sleep(self.seconds)
        return self.app(environ, start_response)
