"""2. Sync: ``sync.sync_order`` against the bare ORM writes (and reads) of the same rows.

A fresh order (one PAID charge, provider-shaped JSON from
``django_orderpay.testing.provider_json``) becomes an Order row, a Charge row
and one history row (the charge's first status). The bare side writes those
three rows with ``Order.objects.create`` and ``bulk_create`` in one
transaction, with every column already worked out (untimed): no parsing, no
lock, no upsert, no signals. Ours parses and checks the JSON, locks or
inserts the order, upserts charges and card tokens, writes history and
splices the order's JSON.

The changed sync is a capture's answer (or its notification body): the
mirrored order's charge moves from AUTHORIZED to PAID. The bare side updates
the charge and the order by primary key and inserts the history row, with
the new values worked out beforehand.

The re-sync sends an order that is already mirrored, unchanged (a duplicate
notification body, a refresh that finds nothing new). The bare minimum is
reading the order and its charges, which is what it takes to see that
nothing changed.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from django_orderpay.models import (
    ChangeSource,
    Charge,
    ChargeStatusChange,
    Order,
    derive_order_status,
)
from django_orderpay.sync import parse_order, sync_order
from django_orderpay.testing.provider_json import charge_json, order_json

from .bodies import authorized_then_paid, next_reference_id
from .harness import Case, Comparison, compare, expect

ITERATIONS = 400
WARMUP = 40


def _fresh_payload() -> dict[str, Any]:
    return order_json(charges=[charge_json()], reference_id=next_reference_id("bench-sync"))


def _rows(payload: dict[str, Any]) -> tuple[Order, list[Charge]]:
    """The rows the sync of ``payload`` ends with, built in memory (untimed)."""
    state = parse_order(payload)
    order = Order(
        provider_id=state.provider_id,
        data=state.data,
        status=derive_order_status(charge.status for charge in state.charges),
        **state.columns,
    )
    charges = [
        Charge(order=order, provider_id=charge.provider_id, data=charge.data, **charge.columns)
        for charge in state.charges
    ]
    return order, charges


def _write_rows(rows: tuple[Order, list[Charge]]) -> Order:
    order, charges = rows
    with transaction.atomic():
        order.save(force_insert=True)
        Charge.objects.bulk_create(charges)
        ChargeStatusChange.objects.bulk_create(
            ChargeStatusChange(
                charge=charge, new_status=charge.status, source=ChangeSource.NOTIFICATION
            )
            for charge in charges
        )
    return order


def _synced_payload() -> dict[str, Any]:
    payload = _fresh_payload()
    sync_order(payload, source=ChangeSource.API)
    return payload


def _sync(payload: dict[str, Any]) -> Order:
    return sync_order(payload, source=ChangeSource.NOTIFICATION)


def _read_rows(payload: dict[str, Any]) -> tuple[Order, list[Charge]]:
    order = Order.objects.get(provider_id=payload["id"])
    return order, list(order.charges.all())


def _captured_payload() -> dict[str, Any]:
    authorized, paid = authorized_then_paid(next_reference_id("bench-capture"))
    sync_order(authorized, source=ChangeSource.API)
    return paid


def _captured_updates() -> tuple[int, int, dict[str, Any], dict[str, Any]]:
    """The mirrored order's and charge's keys, and the values its capture gives them (untimed)."""
    payload = _captured_payload()
    state = parse_order(payload)
    (charge,) = state.charges
    order_pk, charge_pk = Charge.objects.filter(provider_id=charge.provider_id).values_list(
        "order_id", "pk"
    )[0]
    order_values = {"status": charge.status, "data": payload}
    charge_values = {"data": charge.data, **charge.columns}
    return order_pk, charge_pk, order_values, charge_values


def _update_rows(updates: tuple[int, int, dict[str, Any], dict[str, Any]]) -> int:
    order_pk, charge_pk, order_values, charge_values = updates
    now = timezone.now()
    with transaction.atomic():
        Charge.objects.filter(pk=charge_pk).update(synced_at=now, **charge_values)
        ChargeStatusChange.objects.create(
            charge_id=charge_pk,
            old_status="AUTHORIZED",
            new_status=charge_values["status"],
            source=ChangeSource.NOTIFICATION,
        )
        Order.objects.filter(pk=order_pk).update(synced_at=now, **order_values)
    return charge_pk


def _check_captured(order: Order) -> None:
    expect(order.status == "PAID", f"the captured order is {order.status}, not PAID")
    expect(
        ChargeStatusChange.objects.filter(charge__order=order).count() == 2,
        "the capture did not add one history row",
    )


def _check_updated(charge_pk: int) -> None:
    charge = Charge.objects.get(pk=charge_pk)
    expect(charge.status == "PAID", f"the updated charge is {charge.status}, not PAID")
    expect(charge.order.status == "PAID", f"the updated order is {charge.order.status}")


def _check_synced(order: Order) -> None:
    expect(order.status == "PAID", f"the synced order is {order.status}, not PAID")
    expect(
        ChargeStatusChange.objects.filter(charge__order=order).count() == 1,
        "the sync did not write exactly one history row",
    )


def _check_written(order: Order) -> None:
    expect(Order.objects.get(pk=order.pk).status == "PAID", "the order row is not PAID")
    expect(Charge.objects.filter(order=order).count() == 1, "the charge row was not written")
    expect(
        ChargeStatusChange.objects.filter(charge__order=order).count() == 1,
        "the history row was not written",
    )


def _check_read(rows: tuple[Order, list[Charge]]) -> None:
    expect(len(rows[1]) == 1, "the order's charge was not read")


def run() -> list[Comparison]:
    fresh = compare(
        "Sync a new order (1 charge)",
        Case("sync_order", _sync, prepare=_fresh_payload, check=_check_synced),
        Case(
            "ORM create + bulk_create",
            _write_rows,
            prepare=lambda: _rows(_fresh_payload()),
            check=_check_written,
        ),
        iterations=ITERATIONS,
        warmup=WARMUP,
    )
    changed = compare(
        "Sync a capture (AUTHORIZED → PAID)",
        Case("sync_order", _sync, prepare=_captured_payload, check=_check_captured),
        Case(
            "ORM update + create",
            _update_rows,
            prepare=_captured_updates,
            check=_check_updated,
        ),
        iterations=ITERATIONS,
        warmup=WARMUP,
    )
    again = compare(
        "Re-sync an unchanged order",
        Case("sync_order", _sync, prepare=_synced_payload, check=_check_synced),
        Case("ORM get + charges", _read_rows, prepare=_synced_payload, check=_check_read),
        iterations=ITERATIONS,
        warmup=WARMUP,
    )
    return [fresh, changed, again]
