"""Each ``run`` and ``context`` block of the docs (``blocks.json``), run as its reader would.

Copied into the fresh project as ``test_docs_blocks.py`` by tests/test_docs.py.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CONTEXTS

BLOCKS = json.loads((Path(__file__).parent / "blocks.json").read_text(encoding="utf-8"))


@pytest.mark.django_db
@pytest.mark.filterwarnings("error::DeprecationWarning")  # the docs show today's names
@pytest.mark.parametrize("block", BLOCKS, ids=[block["name"] for block in BLOCKS])
def test_block(block, orderpay_emulator, django_user_model, monkeypatch):
    names: dict[str, Any] = {"__name__": "docs_block", "orderpay_emulator": orderpay_emulator}
    if block["kind"] == "context":
        names |= CONTEXTS[block["argument"]](
            django_user_model=django_user_model, monkeypatch=monkeypatch
        )
    before = set(names)
    exec(compile(block["code"], block["name"], "exec"), names)  # the docs, as readers run them
    if block["argument"] == "view":
        _call_views(names, before)


def _call_views(names: dict[str, Any], before: set[str]) -> None:
    """A view the block defines (a function taking ``request``) is called with the context's
    POST (and the purchase's pk when it takes one): it must answer, not only be defined."""
    for name, value in list(names.items()):
        if name in before or not inspect.isfunction(value) or value.__module__ != "docs_block":
            continue
        parameters = list(inspect.signature(value).parameters)
        if parameters[:1] != ["request"]:
            continue
        extra = [names["purchase"].pk] if len(parameters) > 1 else []
        response = value(names["request"], *extra)
        assert response.status_code < 400, (name, response.status_code)
