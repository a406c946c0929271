"""Every ```python block of README.md and docs/*.md runs as written, in a fresh project.

The blocks run in a copy of tests/fresh_project/: settings as `django-admin
startproject` writes them with django-orderpay added, and a small `shop` app
standing for the reader's own models, in a pytest run of its own whose working
directory is outside this repository. So an example that imports the example
shop, or this suite's settings, fails here as it would for a reader.

How a block runs is said by an HTML comment on the line before its fence
(invisible on GitHub; the README's "Developing" section has the list):

- no comment: run as a script in a fresh namespace, with the database and
  ``ORDERPAY`` pointed at a running emulator (whose fixture object is the
  name ``orderpay_emulator``), as in a shop's test;
- ``<!-- docs-test: context NAME -->``: the same, plus the names that
  the fresh project's conftest.py gives for NAME (``view``: the ``request`` of a logged-in
  shopper posting an encrypted card, a valid ``form`` of it, the shop's
  ``purchase``, its ``order`` and ``total``, the ``encrypted`` card and its
  holder's ``name``, an ``authentication_id``; a view the block defines is
  called with them;
  ``settings``: settings.py and urls.py, with what a settings.py
  has above the block, ``INSTALLED_APPS`` and ``ORDERPAY``, and the
  environment variables they read set);
- ``<!-- docs-test: pytest -->``: a test module: pytest runs it (its tests
  must pass), with this package's plugin, in the fresh project;
- ``<!-- docs-test: skip REASON -->``: not run (a signature list, a shell
  transcript in Python's clothes); kept to a few.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?P<before>(?:^[ \t]*<!-- docs-test: (?P<marker>[^>]*?) -->[ \t]*\n)?)"
    r"^(?P<indent>[ \t]*)```python[^\n]*\n(?P<code>.*?)^(?P=indent)```",
    re.MULTILINE | re.DOTALL,
)
KINDS = ("run", "context", "pytest", "skip")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str
    argument: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks() -> Iterator[Block]:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            marker = (match["marker"] or "run").split(None, 1)
            kind, argument = marker[0], (marker[1] if len(marker) > 1 else "")
            line = text.count("\n", 0, match.start("indent")) + 1
            code = textwrap.dedent(match["code"])
            yield Block(page, line, kind, argument.strip(), code)


ALL = list(blocks())


def test_every_block_is_found_and_marked_with_a_known_kind():
    assert len(ALL) >= 20
    assert {block.kind for block in ALL} <= set(KINDS), [b.name for b in ALL if b.kind not in KINDS]
    unknown = [b.name for b in ALL if b.kind == "context" and b.argument not in CONTEXTS]
    assert unknown == []


def test_few_blocks_are_skipped_and_each_says_why():
    skipped = [block for block in ALL if block.kind == "skip"]
    assert len(skipped) <= 3, [b.name for b in skipped]
    assert all(block.argument for block in skipped)


# --- running, in a fresh project ---------------------------------------------------------

#: A project as `django-admin startproject` makes one, with django-orderpay added and a
#: small `shop` app for the reader's own models (tests/fresh_project/): the blocks run
#: there, where nothing of this repository's layout can be imported.
FRESH_PROJECT = Path(__file__).resolve().parent / "fresh_project"
#: The names the ``context`` blocks may use (defined in the fresh project's conftest.py).
CONTEXTS = ("view", "settings")
RUN = [b for b in ALL if b.kind in ("run", "context")]
PYTEST_BLOCKS = [b for b in ALL if b.kind == "pytest"]


def fresh_project(where: Path) -> Path:
    """A copy of the fresh project under ``where``, with every runnable block of the docs."""
    project = where / "project"
    shutil.copytree(FRESH_PROJECT, project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "docs_blocks.py").rename(project / "test_docs_blocks.py")
    blocks = [{"name": b.name, "kind": b.kind, "argument": b.argument, "code": b.code} for b in RUN]
    (project / "blocks.json").write_text(json.dumps(blocks), encoding="utf-8")
    for number, block in enumerate(PYTEST_BLOCKS):
        (project / f"test_docs_module_{number}.py").write_text(block.code, encoding="utf-8")
    return project


@pytest.mark.timeout(900)  # a whole pytest run of its own, bounded at 600 s below
def test_every_example_runs_in_a_fresh_project(tmp_path):
    """Every run, context and pytest block, in one pytest run (one process) of a fresh
    project: the installed package, pytest-django and this package's plugin, no more."""
    project = fresh_project(tmp_path)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH") and not key.startswith("PYTEST_")
    }
    env["ORDERPAY_TEST_DATABASE"] = "test_orderpay_docs"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-W", "error::DeprecationWarning"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "docs_block" not in sys.modules  # nothing leaked into this process
    for block in RUN:
        assert f"PASSED test_docs_blocks.py::test_block[{block.name}]" in report, (
            block.name,
            report,
        )
    for number, block in enumerate(PYTEST_BLOCKS):
        assert re.search(rf"^PASSED test_docs_module_{number}\.py::", report, re.MULTILINE), (
            block.name,
            report,
        )


def test_the_fresh_project_cannot_import_this_repository(tmp_path):
    """The examples' project sees the package as installed, not this checkout's layout."""
    project = fresh_project(tmp_path)
    modules = ("example_project", "tests.settings", "shop.models")
    probe = f"import importlib.util as u; print([m for m in {modules} if u.find_spec(m)])"
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")}
    found = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, env=env, capture_output=True, text=True
    )
    assert found.stdout.strip() == "['shop.models']", found.stdout + found.stderr
