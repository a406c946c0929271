"""Every test has a time limit: a hang fails with its stack instead of eating CI's time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HANGING = """
import threading


def wait_for_an_answer_that_never_comes():
    threading.Event().wait()


def test_hangs():
    wait_for_an_answer_that_never_comes()


def test_after_it_runs():
    assert True
"""


def test_the_suite_has_a_time_limit_per_test(pytestconfig):
    assert float(pytestconfig.getini("timeout")) == 240
    assert pytestconfig.pluginmanager.hasplugin("timeout")


def test_a_hanging_test_fails_with_its_stack_and_the_run_goes_on(tmp_path):
    (tmp_path / "test_hang.py").write_text(HANGING)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(tmp_path),
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            "-p",
            "no:django",
            "-p",
            "no:orderpay",
            "-o",
            "timeout=2",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    assert "Failed: Timeout (>2.0s) from pytest-timeout" in report, report
    assert "wait_for_an_answer_that_never_comes" in report  # the stack, down to the wait
    assert "1 failed, 1 passed" in report  # the next test still ran
