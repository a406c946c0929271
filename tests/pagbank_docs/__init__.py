"""PagBank's own request and response examples, as its documentation prints them.

Each ``<page>-<n>.json`` is one request example of a use-case page of
PagBank's Orders API documentation (``source``: the page, under
``developer.pagbank.com.br``'s markdown mirror, ``docs-pagbank/``; ``section``:
its heading), with the response the page prints after it. They are kept as
printed; ``transcribed`` says where a page's text was not valid JSON. The
tests adapt only what must change for a body to be sent today (dates, the
card encrypted with the emulator's key, 3-D Secure and card token ids):
see ``tests/test_pagbank_docs_examples.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def docs_example(name: str) -> dict[str, Any]:
    """The example ``name`` (``"04-2"``): ``source``, ``section``, ``method``, ``path``,
    ``request`` and the documented ``response``."""
    data: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return data


def docs_examples() -> list[str]:
    """Every example's name, in page order."""
    return sorted(path.stem for path in HERE.glob("*.json"))
