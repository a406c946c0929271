"""The example shop's settings pass ``manage.py check --deploy`` once DEBUG is off.

The attack surface: its production settings failed the check (no HSTS, no
SSL redirect, cookies sent over plain http) with no switch for any of it,
though the settings tell operators to run them that way. Each is now on with
DEBUG off and overridable from the environment; ``check --deploy`` runs in a
fresh process, as an operator runs it.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "example_project" / "settings.py"
DEPLOYED = {
    "DEBUG": "false",
    "SECRET_KEY": "k3y-" + "x7Qp9vLm2ZrT8bN4cW6yH1dF5gJ0sA3eK" * 2,
    "ALLOWED_HOSTS": "shop.example.com",
    "SITE_URL": "https://shop.example.com",
    "ORDERPAY_TOKEN": "sandbox-token",
}


def environment(**extra: str) -> dict[str, str]:
    keep = {"PATH", "HOME", "LANG", "TMPDIR"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    return {**env, "DJANGO_SETTINGS_MODULE": "example_project.settings", **DEPLOYED, **extra}


def check_deploy(**extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environment(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_debug_off():
    done = check_deploy()
    assert done.returncode == 0, done.stderr
    assert "WARNINGS" not in done.stdout + done.stderr


def test_each_setting_is_an_environment_switch_and_check_deploy_notices(monkeypatch):
    done = check_deploy(SECURE_SSL_REDIRECT="false", SESSION_COOKIE_SECURE="false")
    assert done.returncode != 0
    assert "security.W008" in done.stderr and "security.W012" in done.stderr

    for name, value in {**DEPLOYED, "SECURE_HSTS_SECONDS": "60"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CSRF_COOKIE_SECURE", "false")
    monkeypatch.setenv("SECURE_PROXY_SSL_HEADER", "HTTP_X_FORWARDED_PROTO,https")
    values = runpy.run_path(str(SETTINGS))
    assert values["SECURE_HSTS_SECONDS"] == 60
    assert values["CSRF_COOKIE_SECURE"] is False
    assert values["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["ORDERPAY"]["ENVIRONMENT"] == "sandbox"  # never the emulator once deployed


@pytest.mark.parametrize("debug", ["true", "false"])
def test_the_cache_is_per_process_unless_one_is_given(monkeypatch, debug):
    for name, value in DEPLOYED.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DEBUG", debug)
    monkeypatch.delenv("CACHE_URL", raising=False)
    values = runpy.run_path(str(SETTINGS))
    assert values["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")
    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:6379/1")
    values = runpy.run_path(str(SETTINGS))
    assert values["CACHES"]["default"]["BACKEND"].endswith("RedisCache")
