"""The create-order body the benchmarks send: one raw-card charge, the samples' body."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

#: A Visa test card the emulator approves.
APPROVED_VISA = "4111111111111111"
TOKEN = "bench-token"

_sequence = itertools.count(1)
#: Tells this run's reference ids from an earlier run's on the same database: a
#: repeated one would find its scope's history and take the locked look.
_RUN = uuid.uuid4().hex[:8]


def next_reference_id(prefix: str) -> str:
    """A reference id never used before, in this run or another (no order repeats another)."""
    return f"{prefix}-{_RUN}-{next(_sequence):06d}"


def order_body(reference_id: str) -> dict[str, Any]:
    """``POST /orders`` paid at once by a raw Visa card: PAID at the emulator.

    The samples' body with no notification URL and a card it does not store
    (so no notification and no card token to sync).
    """
    card = samples.card(number=APPROVED_VISA, holder={"name": "Jose da Silva"}, store=OMIT)
    charge = samples.charge_request(
        reference_id="ch-1",
        description="Pedido de teste",
        payment_method=samples.payment_method(card=card),
    )
    return samples.order_request(
        reference_id=reference_id, notification_urls=OMIT, charges=[charge]
    )


def authorized_then_paid(reference_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One order as the provider shows it before and after its charge is captured.

    The same order id, charge id and timestamps; only the charge's state moves
    (AUTHORIZED to PAID), as in a capture's answer or its notification.
    """
    import datetime as dt

    from django.utils import timezone

    from django_orderpay.testing.provider_json import charge_json, order_json, provider_id

    order_id = provider_id("ORDE_")
    charge_id = provider_id("CHAR_")
    created_at = timezone.now() - dt.timedelta(minutes=5)

    def order(status: str) -> dict[str, Any]:
        charge = charge_json(
            status=status, charge_id=charge_id, capture=False, created_at=created_at
        )
        return order_json(
            charges=[charge], order_id=order_id, reference_id=reference_id, created_at=created_at
        )

    return order("AUTHORIZED"), order("PAID")
