"""5. Payload validation: ``payloads.OrderRequest(...).to_dict()`` against the same body as a dict.

Ours builds the frozen dataclasses of the samples' one-step create (customer,
item, shipping, a raw card charged at once and stored: ``order()`` of
``tests/payloads_support.py``) and calls ``to_dict()``, which validates every
field (lengths, digits, CPF check digits, e-mail, URL, Luhn, expiry, amounts)
before shaping the JSON. The bare side is
:func:`django_orderpay.testing.samples.order_request`: the same JSON written
out as a dict literal, unchecked. The check insists both give the same dict.
"""

from __future__ import annotations

from typing import Any

from django_orderpay.testing import samples

from ..payloads_support import order
from .harness import Case, Comparison, compare, expect

ITERATIONS = 5000
WARMUP = 500


def build_order(_: None) -> dict[str, Any]:
    """The samples' create body, through the builders."""
    return order().to_dict()


def write_order(_: None) -> dict[str, Any]:
    """The samples' create body, as the literal :func:`samples.order_request` writes."""
    return samples.order_request()


def _check(body: dict[str, Any]) -> None:
    expect(body == samples.order_request(), "the builders and the literal differ")


def run() -> list[Comparison]:
    return [
        compare(
            "Build + validate an order body",
            Case("payloads.OrderRequest.to_dict()", build_order, check=_check),
            Case("dict literal", write_order, check=_check),
            iterations=ITERATIONS,
            warmup=WARMUP,
        )
    ]
