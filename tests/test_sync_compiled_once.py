"""The statements a sync keeps compiled: they read and write what the ORM would.

``sync.batching.Writes`` stands for ``save(update_fields=...)``,
``sync.reading.rows`` for ``raw()``, the kept one-row ``INSERT`` for
``save(force_insert=True)``; ``storable`` and the card scrub skip copying
answers that need no change. Each is checked against what Django itself
does, through real syncs.
"""

from __future__ import annotations

import copy
import json

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models.signals import post_save, pre_save
from django.test.utils import CaptureQueriesContext

from django_orderpay.models import (
    Charge,
    ChargeStatus,
    ChargeStatusChange,
    NotificationDelivery,
    Order,
)
from django_orderpay.models.history import AppendOnlyError
from django_orderpay.notifications import recording
from django_orderpay.sync import sync_order, sync_transaction, updating
from django_orderpay.sync.batching import Writes
from django_orderpay.sync.charges import _lock
from django_orderpay.sync.orders import lock_order
from django_orderpay.sync.parse import parse_charge, parse_order
from django_orderpay.sync.parse.fields import storable
from django_orderpay.testing import samples

pytestmark = pytest.mark.django_db


def _paid_copy(answer: dict) -> dict:
    """``answer`` (an authorised order) with its charge paid."""
    paid = copy.deepcopy(answer)
    charge = paid["charges"][0]
    charge["status"] = ChargeStatus.PAID
    charge["amount"]["summary"]["paid"] = charge["amount"]["value"]
    charge["paid_at"] = charge["created_at"]
    return paid


@pytest.fixture
def authorised() -> dict:
    answer = samples.order_response()
    charge = answer["charges"][0]
    charge["status"] = ChargeStatus.AUTHORIZED
    charge["amount"]["summary"]["paid"] = 0
    charge.pop("paid_at", None)
    return answer


def save_fields(row, names: list[str]) -> None:
    """One write on its own, as a sync queues it."""
    writes = Writes()
    writes.update(row, names)
    writes.flush()


def _fields(row: object) -> dict:
    return {f.attname: getattr(row, f.attname) for f in type(row)._meta.concrete_fields}


def test_a_sync_sends_save_signals_as_save_update_fields_does(authorised):
    sync_order(authorised, source="api")
    heard: list[tuple[str, str, type, bool, frozenset]] = []

    def pre(sender, instance, raw, using, update_fields, **kwargs):
        heard.append(("pre", instance.provider_id, sender, False, update_fields))

    def post(sender, instance, created, raw, using, update_fields, **kwargs):
        # The row is written already: what a receiver reads is the new state.
        assert type(instance).objects.get(pk=instance.pk).status == instance.status
        heard.append(("post", instance.provider_id, sender, created, update_fields))

    for model in (Order, Charge):
        pre_save.connect(pre, sender=model)
        post_save.connect(post, sender=model)
    try:
        sync_order(_paid_copy(authorised), source="notification")
    finally:
        for model in (Order, Charge):
            pre_save.disconnect(pre, sender=model)
            post_save.disconnect(post, sender=model)

    charge_id = authorised["charges"][0]["id"]
    order_id = authorised["id"]
    # The charge's and the order's writes go as one statement: both pre_save
    # signals before it, both post_save after.
    assert [(when, pid, sender, created) for when, pid, sender, created, _ in heard] == [
        ("pre", charge_id, Charge, False),
        ("pre", order_id, Order, False),
        ("post", charge_id, Charge, False),
        ("post", order_id, Order, False),
    ]
    charge_fields, order_fields = heard[2][4], heard[3][4]
    assert heard[0][4] == charge_fields and heard[1][4] == order_fields
    assert {"status", "amount_paid", "paid_at", "data", "synced_at"} <= charge_fields
    assert {"status", "data", "synced_at"} <= order_fields
    assert "customer_name" not in order_fields  # only what changed
    order = Order.objects.get(provider_id=order_id)
    assert order.status == "PAID"
    assert (
        Charge.objects.get(provider_id=charge_id).amount_paid
        == order.data["charges"][0]["amount"]["value"]
    )


def test_writing_columns_of_a_row_gone_meanwhile_fails_as_save_does(authorised):
    order = sync_order(authorised, source="api")
    Order.objects.filter(pk=order.pk).delete()
    order.status = "PAID"

    with pytest.raises(DatabaseError, match="did not affect any rows"):
        save_fields(order, ["status"])
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        order.save(update_fields=["status"])  # the same words


def test_only_the_named_columns_are_written(authorised):
    order = sync_order(authorised, source="api")
    order.status = "PAID"
    order.customer_name = "Not Written"
    save_fields(order, ["status"])

    stored = Order.objects.get(pk=order.pk)
    assert stored.status == "PAID"
    assert stored.customer_name == authorised["customer"]["name"]


def test_a_field_with_its_own_placeholder_is_left_to_save(authorised, monkeypatch):
    delivery = recording.new_delivery(
        body=b"{}", headers={}, remote_addr="127.0.0.1", content_type="", valid=True
    )
    # A BinaryField: get_placeholder up to Django 6.0, get_placeholder_sql from 6.1.
    assert updating.prepare(delivery, ["body"]) is None
    order = sync_order(authorised, source="api")
    assert updating.prepare(order, ["status"]) is not None
    # Django 6.1's hook alone (as its BinaryField, ArrayField and range fields have it).
    monkeypatch.setattr(updating, "_KEPT", {})
    status = Order._meta.get_field("status")
    monkeypatch.setattr(status, "get_placeholder_sql", lambda *args: ("%s", args), raising=False)
    assert updating.prepare(order, ["status"]) is None


def test_a_model_whose_save_is_its_own_is_saved_by_it(authorised):
    sync_order(authorised, source="api")
    sync_order(_paid_copy(authorised), source="notification")
    history = ChargeStatusChange.objects.first()
    assert history is not None

    with pytest.raises(AppendOnlyError):  # ChargeStatusChange.save refuses updates
        save_fields(history, ["source"])


def test_locked_rows_read_as_the_orm_reads_them(authorised):
    sync_order(authorised, source="api")
    order_id, charge_id = authorised["id"], authorised["charges"][0]["id"]

    with sync_transaction():
        locked = lock_order(order_id)
        assert locked is not None
        charges, has_open = _lock(locked, [parse_charge(authorised["charges"][0])])

    assert _fields(locked) == _fields(Order.objects.get(provider_id=order_id))
    assert isinstance(locked.data, dict) and locked.created_at.tzinfo is not None
    assert locked._state.adding is False and locked._state.db == "default"
    assert list(charges) == [charge_id]
    assert _fields(charges[charge_id]) == _fields(Charge.objects.get(provider_id=charge_id))
    assert has_open is False
    assert lock_order("ORDE_NOT_MIRRORED") is None


def test_storable_keeps_a_clean_answer_as_it_is_and_replaces_only_what_cannot_be_stored():
    clean = samples.order_response()
    assert storable(clean) is clean

    answer = samples.order_response()
    answer["customer"]["name"] = "Jose\x00da Silva"
    answer["items"][0]["name"] = "half \ud800 pair"
    answer["items"][0]["reference_id"] = "a literal \\u0000 stays"
    fixed = storable(answer)
    assert fixed["customer"]["name"] == "Jose\ufffdda Silva"
    assert fixed["items"][0]["name"] == "half \ufffd pair"
    assert fixed["items"][0]["reference_id"] == "a literal \\u0000 stays"
    assert answer["customer"]["name"] == "Jose\x00da Silva"  # the answer itself untouched
    assert storable({"\x00key": ["\x00"]}) == {"\ufffdkey": ["\ufffd"]}
    # Each on its own: a lone surrogate (low or high) is found without a NUL beside it.
    assert storable({"name": "Jos\u00e9 \udc00"}) == {"name": "Jos\u00e9 \ufffd"}
    assert storable(["x\ud83d"]) == ["x\ufffd"]
    paired = {"name": "Jos\u00e9 \U0001f600"}  # a whole pair is one character: stored
    assert storable(paired) is paired


def test_card_secrets_leave_the_mirror_but_not_the_callers_answer():
    answer = samples.order_response()
    card = answer["charges"][0]["payment_method"]["card"]
    card.update(number="4111111111111111", security_code="123", encrypted="QUJD")
    before = json.dumps(answer, sort_keys=True)

    state = parse_order(answer)

    kept = state.charges[0].data["payment_method"]["card"]
    assert not {"number", "security_code", "encrypted"} & kept.keys()
    assert kept["last_digits"] == card["last_digits"]
    assert state.data["charges"][0] is state.charges[0].data
    assert json.dumps(answer, sort_keys=True) == before


def test_a_duplicate_delivery_names_the_processed_copy():
    first = recording.new_delivery(
        body=b'{"id": "ORDE_X"}', headers={}, remote_addr="127.0.0.1", content_type="", valid=True
    )
    with sync_transaction():
        assert recording.claim(first) == (True, None)
    copy_ = recording.new_delivery(
        body=b'{"id": "ORDE_X"}', headers={}, remote_addr="127.0.0.1", content_type="", valid=True
    )
    with sync_transaction():
        assert recording.claim(copy_) == (False, None)
        recording.record_duplicate(copy_)

    stored = NotificationDelivery.objects.get(pk=copy_.pk)
    assert stored.outcome == "duplicate"
    assert stored.error == f"{recording.COPY_OF}{first.pk}"
    assert stored.remote_addr == "127.0.0.1" and stored.attempts == 1


def test_a_transitions_closing_writes_go_together_and_each_lands(authorised):
    sync_order(authorised, source="api")
    with CaptureQueriesContext(connection) as queries:
        sync_order(_paid_copy(authorised), source="notification")

    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith(("UPDATE", "INSERT", "WITH"))
    ]
    if connection.vendor == "postgresql":
        (together,) = writes  # the charge, its history row and the order: one statement
        assert together.startswith("WITH orderpay_write_0 AS (UPDATE")
    else:
        assert [sql.split()[0:3] for sql in writes] == [
            ["UPDATE", '"django_orderpay_charge"', "SET"],
            ["INSERT", "INTO", '"django_orderpay_chargestatuschange"'],
            ["UPDATE", '"django_orderpay_order"', "SET"],
        ]
    charge = Charge.objects.get(provider_id=authorised["charges"][0]["id"])
    assert charge.status == ChargeStatus.PAID
    assert list(
        ChargeStatusChange.objects.values_list("charge_id", "old_status", "new_status")
    ) == [
        (charge.pk, "", "AUTHORIZED"),
        (charge.pk, "AUTHORIZED", "PAID"),
    ]
    assert Order.objects.get(provider_id=authorised["id"]).status == "PAID"


def test_writes_sent_together_fail_as_a_whole_when_a_row_is_gone(authorised):
    order = sync_order(authorised, source="api")
    charge = Charge.objects.get(order=order)
    history = ChargeStatusChange(charge=charge, old_status="A", new_status="B", source="api")
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        writes = Writes()
        writes.insert(history)
        order.pk = 10**9  # a row that is not there
        order.status = "PAID"
        writes.update(order, ["status"])
        writes.flush()
    assert ChargeStatusChange.objects.filter(old_status="A").count() == 0

    writes = Writes()
    writes.insert(history)
    writes.flush()
    assert history.pk is not None and history._state.adding is False
    assert ChargeStatusChange.objects.get(pk=history.pk).new_status == "B"
