"""``pip install django-orderpay[testing]`` is all a shop's tests need: the fixture and factories.

The modules a shop's tests import (``django_orderpay.testing``: the plugin,
the factories, provider JSON, the samples), and every module of the package
they import in turn, import at module level only the standard library, the
package's own dependencies and the ``testing`` extra: not psycopg, Playwright
or anything else of this package's own ``test`` extra.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import django_orderpay

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(django_orderpay.__file__).resolve().parent


def _name(requirement: str) -> str:
    """The distribution's normalised name in a requirement (``factory-boy>=3.3`` -> factory-boy)."""
    name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _module_file(module: str) -> Path | None:
    parts = module.split(".")[1:]
    for candidate in (
        PACKAGE.joinpath(*parts, "__init__.py"),
        PACKAGE.joinpath(*parts[:-1], parts[-1] + ".py") if parts else None,
    ):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def _module_level_imports(path: Path, module: str) -> set[str]:
    """Absolute names imported by ``path``'s module-level statements (not under TYPE_CHECKING,
    not inside a function or a ``try``: those are optional or lazy)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # ``from . import samples``: a submodule, when it is one.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def third_party_imports_of_the_testing_kit() -> set[str]:
    todo = ["django_orderpay.testing"] + [
        f"django_orderpay.testing.{p.stem}" for p in (PACKAGE / "testing").glob("*.py")
    ]
    seen: set[str] = set()
    outside: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _module_file(module)
        if path is None:
            continue
        # A package's __init__ runs before any of its modules.
        parent = module.rpartition(".")[0]
        if parent.startswith("django_orderpay"):
            todo.append(parent)
        for name in _module_level_imports(path, module):
            top = name.split(".")[0]
            if top == "django_orderpay":
                todo.append(name)
            elif top and top not in sys.stdlib_module_names and top != "__future__":
                outside.add(top)
    return outside


def test_the_testing_extra_holds_the_fixture_and_factories_needs_only():
    project = _project()
    testing = {_name(r) for r in project["optional-dependencies"]["testing"]}

    # time-machine: orderpay_emulator.travel, one clock for the shop and the emulator.
    assert testing == {"pytest", "pytest-django", "factory-boy", "time-machine"}
    assert "django-orderpay[emulator,testing]" in project["optional-dependencies"]["test"]


def test_the_testing_kit_imports_nothing_outside_the_dependencies_and_that_extra():
    project = _project()
    allowed = {_name(r) for r in project["dependencies"]} | {
        _name(r) for r in project["optional-dependencies"]["testing"]
    }
    distributions = importlib.metadata.packages_distributions()

    needed = {
        top: {_name(d) for d in distributions.get(top, [top])}
        for top in third_party_imports_of_the_testing_kit()
    }

    assert {"factory", "pytest", "django", "requests"} <= set(needed)  # the walk went deep
    assert {top: dists for top, dists in needed.items() if not dists & allowed} == {}
