"""Shared setup of the browser tests: Debian's Chromium under Playwright, and a served emulator.

Every test in this folder gets the ``browser`` marker. Playwright cannot download
its own browsers here, so the launch args point it at a system Chromium
(``ORDERPAY_CHROMIUM``, else ``chromium`` / ``chromium-browser`` /
``google-chrome`` on PATH); without one the browser tests skip, saying so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.wsgi import make_wsgi_app, serving

# Playwright's sync API keeps an event loop running in the main thread from its
# first use to the end of the session, and Django refuses ORM calls while a loop
# runs unless told it is safe (it is: one thread). Every test after the first
# browser test is affected, not only these, hence process-wide and set early.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# Assertions wait as long as the pages' own actions do (the ``shopper`` fixture's
# 15 s): on a busy CI machine a payment's round trips can pass Playwright's 5 s.
expect.set_options(timeout=15_000)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]

_HERE = Path(__file__).resolve().parent


def find_chromium() -> str | None:
    """The Chromium executable to drive, or None when this machine has none."""
    configured = os.environ.get("ORDERPAY_CHROMIUM")
    if configured:
        return configured if Path(configured).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    executable = find_chromium()
    if executable is None:
        pytest.skip(
            "no Chromium found: install it (apt-get install -y chromium) "
            "or point ORDERPAY_CHROMIUM at one"
        )
    return {**browser_type_launch_args, "executable_path": executable, "args": CHROMIUM_ARGS}


@dataclass(frozen=True)
class ServedEmulator:
    """An emulator reachable over real HTTP: ``base_url`` is its root (no trailing slash)."""

    emulator: Emulator
    base_url: str

    def url(self, path: str) -> str:
        return self.base_url + path


@pytest.fixture
def emulator_server() -> Iterator[ServedEmulator]:
    """A fresh emulator served by the WSGI adapter on 127.0.0.1 in a background thread."""
    emulator = Emulator()
    try:
        with serving(make_wsgi_app(emulator)) as server:
            yield ServedEmulator(emulator, server.url)
    finally:
        emulator.close()
