"""sync_order / sync_charge / sync_split: provider JSON in, faithful rows out."""

from __future__ import annotations

import copy
import datetime as dt
import json
import logging
import re
import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from django_orderpay import signals
from django_orderpay.models import (
    PROVIDER_TIMEZONE,
    CardToken,
    Charge,
    ChargeStatus,
    ChargeStatusChange,
    DeepLink,
    Order,
    OrderStatus,
    Split,
)
from django_orderpay.sync import (
    SyncError,
    sync_charge,
    sync_order,
    sync_split,
    sync_transaction,
)
from django_orderpay.testing import samples
from django_orderpay.testing.provider_json import (
    card_json,
    charge_json,
    deep_link_json,
    order_json,
    provider_id,
    split_json,
)
from tests.sql_support import parts

pytestmark = pytest.mark.django_db


def sample_order() -> dict:
    """A fresh copy of the samples.md create answer."""
    return samples.order_response()


@pytest.fixture
def shopper() -> User:
    return User.objects.create_user("jose", "jose@example.com", "pw")


def test_one_step_paid_order_with_stored_card(shopper):
    order = sync_order(sample_order(), source="api", user=shopper)

    assert order.provider_id == "ORDE_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"
    assert order.reference_id == "ex-00001"
    assert order.status == OrderStatus.PAID
    assert (order.customer_name, order.customer_email, order.customer_tax_id) == (
        "Jose da Silva",
        "jose@example.com",
        "12345678909",
    )
    assert order.user == shopper
    assert order.created_at == dt.datetime(2026, 11, 21, 17, 5, 31, 482000, tzinfo=dt.UTC)
    assert order.notification_urls == ["https://shop.example.com/orderpay/notifications/"]
    assert order.items_total == 500

    charge = Charge.objects.get()
    assert charge.order == order
    assert charge.provider_id == "CHAR_1A2B3C4D-5E6F-7081-92A3-B4C5D6E7F809"
    assert charge.status == ChargeStatus.PAID
    assert (charge.amount_value, charge.amount_paid, charge.amount_refunded) == (500, 500, 0)
    assert charge.currency == "BRL"
    assert charge.installments == 1 and charge.capture is True
    assert charge.payment_response_code == "20000"
    assert charge.payment_response_message == "SUCESSO"
    assert (charge.card_brand, charge.card_first_digits, charge.card_last_digits) == (
        "visa",
        "411111",
        "1111",
    )
    assert charge.paid_at == dt.datetime(2026, 11, 21, 17, 5, 32, tzinfo=dt.UTC)
    assert charge.refundable_amount == 500
    assert charge.data["payment_response"]["raw_data"]["nsu"] == "032416400102"

    token = CardToken.objects.get()
    assert token.provider_id == "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D"
    assert token.user == shopper
    assert (token.brand, token.first_digits, token.last_digits) == ("visa", "411111", "1111")
    assert (token.exp_month, token.exp_year, token.holder_name) == ("12", "2030", "Jose da Silva")
    assert charge.card_token == token
    assert order.data["charges"][0]["id"] == charge.provider_id
    assert order.total_paid == 500 and order.total_refunded == 0


def test_a_declined_charge_does_not_store_its_card(shopper):
    charge = charge_json(
        status="DECLINED", card=card_json(token_id=provider_id("CARD_"), store=True)
    )
    order = sync_order(order_json(charges=[charge]), source="api", user=shopper)

    row = order.charges.get()
    assert row.status == ChargeStatus.DECLINED
    assert (row.payment_response_code, row.payment_response_message) == ("20003", "NAO AUTORIZADA")
    assert row.amount_paid == 0 and row.paid_at is None
    assert row.refundable_amount == 0 and not row.can_cancel()
    assert row.card_token is None  # never offered to pay again
    assert not CardToken.objects.exists()
    assert order.status == OrderStatus.DECLINED


def test_authorised_charge_can_be_captured_until_capture_before():
    created = dt.datetime(2026, 11, 21, 14, 5, 31, tzinfo=PROVIDER_TIMEZONE)
    answer = order_json(
        charges=[charge_json(status="AUTHORIZED", capture=False, created_at=created)]
    )
    order = sync_order(answer, source="api")

    charge = order.charges.get()
    assert order.status == OrderStatus.AUTHORIZED
    assert charge.capture is False
    assert charge.capture_before == created + dt.timedelta(days=5)
    assert charge.amount_paid == 0 and charge.refundable_amount == 0
    assert charge.can_capture(now=created + dt.timedelta(days=1))
    assert not charge.can_capture(now=created + dt.timedelta(days=6))
    assert charge.can_cancel()
    assert charge.link("CHARGE.CAPTURE").endswith(f"/charges/{charge.provider_id}/capture")


def test_deeplink_order_keeps_id_amount_and_expiry():
    created = dt.datetime(2026, 11, 21, 23, 30, tzinfo=PROVIDER_TIMEZONE)
    link = deep_link_json(amount=1500, deeplink_id="a1b2c3", redirect_url="myshop://orders/x")
    order = sync_order(order_json(deep_link=link, created_at=created, items=[]), source="api")

    deeplink = DeepLink.objects.get(order=order)
    assert deeplink.deeplink_id == "a1b2c3"
    assert deeplink.url.endswith("?f=order&r=a1b2c3")
    assert deeplink.amount_value == 1500
    assert deeplink.redirect_url == "myshop://orders/x"
    # The end of the day after creation, in the provider's -03:00.
    last = dt.datetime(2026, 11, 22, 23, 59, 59, 999999, tzinfo=PROVIDER_TIMEZONE)
    assert deeplink.expires_at == last
    assert not deeplink.is_expired(now=last)
    assert deeplink.is_expired(now=last + dt.timedelta(seconds=1))
    assert order.status == OrderStatus.CREATED

    # Paying it in the app with the account balance adds a card-less charge;
    # the deeplink stays one.
    balance = charge_json(amount=1500)
    balance["payment_method"] = {"type": "ACCOUNT_BALANCE"}
    paid = order_json(
        order_id=order.provider_id, deep_link=link, created_at=created, charges=[balance]
    )
    order = sync_order(paid, source="notification")
    assert DeepLink.objects.count() == 1
    assert DeepLink.objects.get().is_paid()
    charge = order.charges.get()
    assert charge.card_brand == "" and charge.card_token is None
    assert order.status == OrderStatus.PAID


def test_deeplink_expiry_uses_provider_day_not_utc_day():
    # 01:30 UTC on the 22nd is still the 21st in Brasilia.
    created = dt.datetime(2026, 11, 22, 1, 30, tzinfo=dt.UTC)
    order = sync_order(order_json(deep_link=deep_link_json(), created_at=created), source="api")
    expected = dt.datetime(2026, 11, 22, 23, 59, 59, 999999, tzinfo=PROVIDER_TIMEZONE)
    assert order.deeplink.expires_at == expected


def test_split_charge_makes_a_split_record_then_sync_split_fills_it():
    split_id = provider_id("SPLI_")
    answer = order_json(
        charges=[charge_json(amount=10000, split_id=split_id, split_method="FIXED")]
    )
    order = sync_order(answer, source="api")

    charge = order.charges.get()
    split = Split.objects.get()
    assert split.charge == charge and split.provider_id == split_id
    assert split.method == "FIXED" and charge.split_method == "FIXED"
    assert split.status == ""

    fetched = sync_split(split_json(split_id=split_id, amounts=("7000", "3000")), charge)
    assert fetched.pk == split.pk
    assert fetched.status == "PROCESSING"
    assert [r["amount"]["value"] for r in fetched.receivers] == ["7000", "3000"]
    # A re-sync of the order neither duplicates nor empties the split.
    sync_order(answer, source="sync")
    assert Split.objects.get().status == "PROCESSING"


def test_sync_split_refuses_a_split_of_another_charge():
    answer = order_json(charges=[charge_json(split_id=provider_id("SPLI_"))])
    charge = sync_order(answer, source="api").charges.get()
    with pytest.raises(SyncError) as error:
        sync_split(split_json(), charge)
    assert error.value.field == "id"
    assert not Split.objects.exclude(status="").exists()


def test_elo_initial_recurrence_keeps_brand_reference_id_on_the_token(shopper):
    card = card_json(
        token_id=provider_id("CARD_"),
        store=True,
        brand="elo",
        first_digits="451416",
        last_digits="3757",
    )
    charge = charge_json(
        amount=700,
        card=card,
        recurring={"type": "INITIAL"},
        brand_reference_id="158762300000712",
    )
    sync_order(order_json(charges=[charge]), source="api", user=shopper)

    token = CardToken.objects.get()
    assert token.brand == "elo"
    assert token.brand_reference_id == "158762300000712"
    assert token.initial_amount == 700
    assert token.has_recurrence
    row = Charge.objects.get()
    assert row.recurring_type == "INITIAL"
    assert row.brand_reference_id == "158762300000712"


def test_a_charge_paid_with_a_token_links_to_it(shopper):
    token_id = provider_id("CARD_")
    first = charge_json(card=card_json(token_id=token_id, store=True))
    sync_order(order_json(charges=[first]), source="api", user=shopper)
    # A later order paid with the token alone: no store flag in the answer.
    later = charge_json(card=card_json(token_id=token_id), reference_id="ch-2")
    order = sync_order(order_json(charges=[later], reference_id="ex-2"), source="api")

    token = CardToken.objects.get()
    assert order.charges.get().card_token == token
    assert token.user == shopper
    assert token.charges.count() == 2


def test_an_unknown_token_without_store_makes_no_token():
    answer = order_json(charges=[charge_json(card=card_json(token_id=provider_id("CARD_")))])
    order = sync_order(answer, source="api")
    assert not CardToken.objects.exists()
    assert order.charges.get().card_token is None


def test_two_step_order_then_pay():
    created = sync_order(order_json(), source="api")
    assert created.status == OrderStatus.CREATED and not created.charges.exists()

    paid = order_json(order_id=created.provider_id, charges=[charge_json()])
    order = sync_order(paid, source="api")
    assert order.pk == created.pk
    assert order.status == OrderStatus.PAID
    assert Order.objects.count() == 1


def test_resync_is_idempotent():
    answer = order_json(
        charges=[charge_json(card=card_json(token_id=provider_id("CARD_"), store=True))]
    )
    for _ in range(3):
        sync_order(copy.deepcopy(answer), source="notification")

    assert Order.objects.count() == 1
    assert Charge.objects.count() == 1
    assert CardToken.objects.count() == 1
    assert ChargeStatusChange.objects.count() == 1


def test_late_stale_copy_never_moves_a_charge_backwards():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    in_analysis = order_json(
        order_id=order_id, charges=[charge_json(charge_id=charge_id, status="IN_ANALYSIS")]
    )
    paid = order_json(order_id=order_id, charges=[charge_json(charge_id=charge_id)])

    sync_order(in_analysis, source="notification")
    sync_order(paid, source="notification")
    order = sync_order(in_analysis, source="notification")

    charge = Charge.objects.get()
    assert charge.status == ChargeStatus.PAID
    assert charge.amount_paid == 500
    assert charge.data["status"] == "PAID"
    assert order.status == OrderStatus.PAID
    assert order.data["charges"][0]["status"] == "PAID"
    assert list(charge.status_changes.values_list("old_status", "new_status")) == [
        ("", "IN_ANALYSIS"),
        ("IN_ANALYSIS", "PAID"),
    ]


def test_a_copy_of_the_same_state_with_more_in_it_is_kept():
    # Same status, same sums: not older, so what it adds is mirrored (a notification's
    # copy often carries more than the call's answer did).
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    first = charge_json(charge_id=charge_id, refunded=200)
    sync_order(order_json(order_id=order_id, charges=[first]), source="api")
    fuller = {**copy.deepcopy(first), "description": "Pedido ex-00001 (presente)"}

    sync_order(order_json(order_id=order_id, charges=[fuller]), source="notification")

    charge = Charge.objects.get()
    assert (charge.status, charge.amount_paid, charge.amount_refunded) == ("PAID", 500, 200)
    assert charge.data["description"] == "Pedido ex-00001 (presente)"


def test_canceled_is_final():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    canceled = charge_json(charge_id=charge_id, status="CANCELED", refunded=500)
    sync_order(order_json(order_id=order_id, charges=[canceled]), source="api")
    late_paid = order_json(order_id=order_id, charges=[charge_json(charge_id=charge_id)])
    order = sync_order(late_paid, source="notification")

    charge = Charge.objects.get()
    assert charge.status == ChargeStatus.CANCELED
    assert charge.amount_refunded == 500
    assert order.status == OrderStatus.CANCELED


def test_refunded_sum_never_shrinks():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    refunded = charge_json(charge_id=charge_id, refunded=200)
    sync_order(order_json(order_id=order_id, charges=[refunded]), source="api")
    stale = charge_json(charge_id=charge_id, refunded=0)
    sync_order(order_json(order_id=order_id, charges=[stale]), source="notification")

    charge = Charge.objects.get()
    assert charge.status == ChargeStatus.PAID
    assert charge.amount_refunded == 200
    assert charge.refundable_amount == 300
    assert charge.data["amount"]["summary"]["refunded"] == 200


def test_sync_charge_applies_a_cancel_answer_to_charge_and_order():
    order = sync_order(order_json(charges=[charge_json()]), source="api")
    charge = order.charges.get()
    answer = charge_json(charge_id=charge.provider_id, status="CANCELED", refunded=500)

    synced = sync_charge(answer, source="api")

    assert synced.pk == charge.pk
    assert synced.status == ChargeStatus.CANCELED
    assert synced.amount_refunded == 500 and synced.refundable_amount == 0
    order.refresh_from_db()
    assert order.status == OrderStatus.CANCELED
    assert order.data["charges"][0]["status"] == "CANCELED"
    assert order.total_refunded == 500


def test_a_long_payment_response_message_is_kept_whole_in_data():
    charge = charge_json(status="DECLINED")
    charge["payment_response"]["message"] = "NAO AUTORIZADA " * 30
    row = sync_order(order_json(charges=[charge]), source="api").charges.get()
    assert len(row.payment_response_message) == 255
    assert row.payment_response["message"] == "NAO AUTORIZADA " * 30


def test_sync_charge_of_an_unknown_charge_names_the_field():
    with pytest.raises(SyncError) as error:
        sync_charge(charge_json(), source="api")
    assert error.value.field == "id"
    assert "sync its order first" in str(error.value)


def test_sync_charge_keeps_columns_an_answer_leaves_out():
    card = card_json(token_id=provider_id("CARD_"), store=True, brand="elo")
    initial = charge_json(card=card, recurring={"type": "INITIAL"}, brand_reference_id="1587623")
    charge = sync_order(order_json(charges=[initial]), source="api").charges.get()
    answer = charge_json(charge_id=charge.provider_id, status="CANCELED", refunded=500)
    answer["payment_method"].pop("card")
    answer.pop("paid_at")

    synced = sync_charge(answer, source="api")
    assert synced.brand_reference_id == "1587623"
    assert synced.card_brand == "elo"
    assert synced.card_token_id == charge.card_token_id
    assert synced.paid_at == charge.paid_at


def test_a_charge_of_another_order_is_refused():
    charge = charge_json()
    sync_order(order_json(charges=[charge]), source="api")
    with pytest.raises(SyncError) as error:
        sync_order(order_json(charges=[charge]), source="api")
    assert error.value.field == "charges[0].id"
    assert Order.objects.count() == 1


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda o: o.pop("id"), "id"),
        (lambda o: o.update(id="CHAR_X"), "id"),
        (lambda o: o.update(charges="nope"), "charges"),
        (lambda o: o["charges"][0].pop("status"), "charges[0].status"),
        (lambda o: o["charges"][0]["amount"].update(value="abc"), "charges[0].amount.value"),
        (lambda o: o["charges"][0]["amount"].update(value=-5), "charges[0].amount.value"),
        (lambda o: o["charges"][0].pop("amount"), "charges[0].amount"),
        (lambda o: o["charges"][0].update(created_at="yesterday"), "charges[0].created_at"),
        (
            lambda o: o["charges"][0].update(paid_at="2026-13-45T10:00:00.000-03:00"),
            "charges[0].paid_at",
        ),
        (
            lambda o: o["charges"][0]["payment_method"].update(installments="2"),
            "charges[0].payment_method.installments",
        ),
        (lambda o: o.update(deep_links=[{"url": "https://x/?f=order"}]), "deep_links[0].url"),
        (lambda o: o["customer"].update(name=["x"]), "customer.name"),
        (lambda o: o.update(customer="Jose"), "customer"),
        (
            lambda o: o["charges"][0].update(payment_method=["CREDIT_CARD"]),
            "charges[0].payment_method",
        ),
        (lambda o: o["charges"][0]["amount"].update(summary=[500]), "charges[0].amount.summary"),
        (
            lambda o: o["charges"][0].update(payment_response="SUCESSO"),
            "charges[0].payment_response",
        ),
    ],
)
def test_malformed_answers_raise_sync_error_naming_the_field(mutate, field):
    answer = sample_order()
    mutate(answer)
    with pytest.raises(SyncError) as error:
        sync_order(answer, source="api")
    assert error.value.field == field
    assert str(error.value).startswith(f"{field}: ")
    assert not Order.objects.exists()


def test_a_body_that_is_not_an_object_is_refused():
    with pytest.raises(SyncError, match="must be a JSON object"):
        sync_order(["ORDE_x"], source="api")


def test_unknown_source_is_refused():
    with pytest.raises(ValueError, match="source"):
        sync_order(sample_order(), source="webhook")


def test_card_secrets_in_a_body_never_reach_the_database():
    answer = sample_order()
    card = answer["charges"][0]["payment_method"]["card"]
    card.update(number="4111111111111111", security_code="123", encrypted="QUJD" * 86)

    sync_order(answer, source="api")

    stored = json.dumps(
        [
            list(Order.objects.values_list("data", flat=True)),
            list(Charge.objects.values_list("data", flat=True)),
            list(CardToken.objects.values_list("data", flat=True)),
        ]
    )
    assert "4111111111111111" not in stored
    assert '"123"' not in stored and "security_code" not in stored
    assert "QUJD" not in stored


def test_user_and_shop_object_are_attached_once(shopper):
    cart = Group.objects.create(name="cart-1")
    other = User.objects.create_user("maria")
    order = sync_order(sample_order(), source="api", user=shopper, shop_object=cart)
    assert order.shop_object == cart
    assert order.object_id == str(cart.pk)

    again = sync_order(sample_order(), source="notification", user=other)
    assert again.user == shopper
    assert Order.objects.get().shop_object == cart


def _sync_counting(answer: dict, user: User | None = None) -> int:
    with CaptureQueriesContext(connection) as queries:
        sync_order(answer, source="api", user=user)
    return len(queries)


def _big_order(charges: int, items: int) -> dict:
    return order_json(
        items=[
            {"reference_id": f"sku-{i}", "name": f"Item {i}", "quantity": 1, "unit_amount": 100}
            for i in range(items)
        ],
        charges=[
            charge_json(
                reference_id=f"ch-{i}",
                card=card_json(token_id=provider_id("CARD_"), store=True),
                split_id=provider_id("SPLI_"),
                split_method="FIXED",
                status="DECLINED" if i % 2 else "PAID",
            )
            for i in range(charges)
        ],
    )


def test_query_count_does_not_grow_with_items_or_charges(shopper, django_assert_max_num_queries):
    small, big = _big_order(charges=1, items=1), _big_order(charges=12, items=40)

    first_small, first_big = _sync_counting(small, shopper), _sync_counting(big, shopper)
    assert first_small == first_big
    # One token per approved charge: 1 + 6 of 12 (the declined ones store nothing).
    assert CardToken.objects.filter(user=shopper).count() == 7

    # Re-syncs with every charge changed (all refunded) cost the same too.
    for answer in (small, big):
        for charge in answer["charges"]:
            if charge["status"] == "PAID":
                charge["amount"]["summary"]["refunded"] = 100
    # (On PostgreSQL one changed charge goes in one statement with the
    # order's write; several take a bulk update of their own beside it.)
    every_small, every_big = _sync_counting(small), _sync_counting(big)
    assert every_big == every_small + (1 if connection.vendor == "postgresql" else 0)

    # One changed charge among twelve costs what one of one did: the count
    # depends on neither how many charges the order has nor how many changed.
    big["charges"][0]["amount"]["summary"]["refunded"] = 200
    assert _sync_counting(big) == every_small

    with django_assert_max_num_queries(16):
        sync_order(_big_order(charges=20, items=100), source="api")


# --- What a sync writes -----------------------------------------------------------


def _writes(queries: CaptureQueriesContext, model: type) -> list[str]:
    """The INSERT and UPDATE statements ``queries`` ran on ``model``'s table.

    Writes a sync sent together (one ``WITH`` statement, on PostgreSQL)
    count one by one.
    """
    table = model._meta.db_table
    # A row that may be inserted concurrently goes in with ON CONFLICT DO NOTHING
    # (SQLite: INSERT OR IGNORE).
    prefixes = (f'INSERT INTO "{table}"', f'INSERT OR IGNORE INTO "{table}"', f'UPDATE "{table}"')
    statements = [part for query in queries.captured_queries for part in parts(query["sql"])]
    return [sql for sql in statements if sql.startswith(prefixes)]


def _set_columns(update: str) -> list[str]:
    """The columns an ``UPDATE ... SET ... WHERE`` statement writes."""
    assignments = update.split(" SET ", 1)[1].split(" WHERE ", 1)[0]
    return re.findall(r'"(\w+)" = ', assignments)


def test_a_new_order_is_inserted_complete_in_one_statement():
    with CaptureQueriesContext(connection) as queries:
        order = sync_order(sample_order(), source="api")

    (insert,) = _writes(queries, Order)
    assert insert.startswith("INSERT")
    stored = Order.objects.get()
    assert stored.status == OrderStatus.PAID
    assert stored.data == order.data == sample_order()
    assert stored.synced_at == order.synced_at


def test_an_unchanged_resync_writes_only_when_the_order_was_seen():
    first = sync_order(sample_order(), source="api")
    charge = Charge.objects.get()

    with CaptureQueriesContext(connection) as queries:
        again = sync_order(sample_order(), source="sync")

    (update,) = _writes(queries, Order)
    assert _set_columns(update) == ["synced_at"]
    assert _writes(queries, Charge) == [] and _writes(queries, ChargeStatusChange) == []
    stored = Order.objects.get()
    assert stored.synced_at == again.synced_at > first.synced_at
    assert stored.data == first.data and stored.status == OrderStatus.PAID
    assert Charge.objects.get().synced_at == charge.synced_at


def test_a_capture_writes_the_captured_charge_alone():
    created = dt.datetime(2026, 11, 21, 14, 5, 31, tzinfo=PROVIDER_TIMEZONE)
    order_id = provider_id("ORDE_")
    authorized = charge_json(status="AUTHORIZED", capture=False, created_at=created)
    declined = charge_json(status="DECLINED", created_at=created, reference_id="ch-2")
    before = order_json(order_id=order_id, charges=[authorized, declined], created_at=created)
    sync_order(before, source="api")
    sibling = Charge.objects.get(provider_id=declined["id"])

    after = copy.deepcopy(before)
    after["charges"][0] = charge_json(
        charge_id=authorized["id"], status="PAID", capture=False, created_at=created
    )
    with CaptureQueriesContext(connection) as queries:
        order = sync_order(after, source="notification")

    (update,) = _writes(queries, Charge)
    assert "status" in _set_columns(update) and "amount_paid" in _set_columns(update)
    captured = Charge.objects.get(provider_id=authorized["id"])
    assert (captured.status, captured.amount_paid) == (ChargeStatus.PAID, 500)
    assert captured.paid_at == created + dt.timedelta(seconds=1)
    assert captured.data == after["charges"][0]
    assert Charge.objects.get(pk=sibling.pk).synced_at == sibling.synced_at
    assert Order.objects.get(pk=order.pk).status == OrderStatus.PAID
    history = ChargeStatusChange.objects.filter(charge=captured)
    assert list(history.values_list("old_status", "new_status")) == [
        ("", "AUTHORIZED"),
        ("AUTHORIZED", "PAID"),
    ]


def test_charges_changed_together_each_keep_their_own_values():
    order_id = provider_id("ORDE_")
    card = card_json(token_id=provider_id("CARD_"), store=True, brand="elo")
    paid = charge_json(card=card, recurring={"type": "INITIAL"}, brand_reference_id="1587623")
    authorized = charge_json(status="AUTHORIZED", capture=False, amount=900, reference_id="ch-2")
    sync_order(order_json(order_id=order_id, charges=[paid, authorized]), source="api")

    # A refund of part of the first and a cancel of the second, in one copy
    # that leaves out the first one's card and recurrence reference.
    refunded = charge_json(charge_id=paid["id"], refunded=200)
    refunded["payment_method"].pop("card")
    canceled = charge_json(
        charge_id=authorized["id"], status="CANCELED", amount=900, reference_id="ch-2"
    )
    both = order_json(order_id=order_id, charges=[refunded, canceled])
    with CaptureQueriesContext(connection) as queries:
        order = sync_order(both, source="notification")

    assert len(_writes(queries, Charge)) == 1  # both rows, one statement
    first = Charge.objects.get(provider_id=paid["id"])
    assert (first.status, first.amount_paid, first.amount_refunded) == ("PAID", 500, 200)
    assert (first.card_brand, first.brand_reference_id) == ("elo", "1587623")
    assert first.card_token.provider_id == card["id"]
    assert first.data == refunded
    second = Charge.objects.get(provider_id=authorized["id"])
    assert (second.status, second.amount_value, second.amount_paid) == ("CANCELED", 900, 0)
    assert second.data == canceled
    assert order.status == OrderStatus.PAID
    assert list(ChargeStatusChange.objects.filter(charge=second).values_list("new_status")) == [
        ("AUTHORIZED",),
        ("CANCELED",),
    ]


def test_a_user_and_shop_object_reach_an_order_first_mirrored_without_them(shopper):
    cart = Group.objects.create(name="cart-2")
    answer = sample_order()
    sync_order(answer, source="notification")
    answer["customer"]["name"] = "Jose da Silva Jr"

    sync_order(answer, source="api", user=shopper, shop_object=cart)

    stored = Order.objects.get()
    assert stored.user == shopper and stored.shop_object == cart
    assert stored.customer_name == "Jose da Silva Jr"
    assert stored.data["customer"]["name"] == "Jose da Silva Jr"


def test_a_known_order_cannot_take_another_orders_charge():
    charge = charge_json()
    sync_order(order_json(charges=[charge]), source="api")
    other = sync_order(order_json(), source="api")

    with pytest.raises(SyncError) as error:
        sync_order(order_json(order_id=other.provider_id, charges=[charge]), source="api")

    assert error.value.field == "charges[0].id"
    assert not other.charges.exists()


def test_a_new_order_naming_another_orders_charge_is_refused_by_index():
    charge = charge_json()
    sync_order(order_json(charges=[charge]), source="api")

    with pytest.raises(SyncError) as error:
        sync_order(order_json(charges=[charge_json(), charge]), source="api")

    assert error.value.field == "charges[1].id"
    assert Order.objects.count() == 1 and Charge.objects.count() == 1


# --- Two requests syncing at once -------------------------------------------------


@pytest.fixture
def recorded():
    """(signal name, new status) of every signal sent, from any thread."""
    events: list[tuple[str, str]] = []
    lock = threading.Lock()

    def receiver(name):
        def receive(sender, **kwargs):
            with lock:
                events.append((name, kwargs.get("new_status", "")))

        return receive

    receivers = {
        signals.charge_status_changed: receiver("status_changed"),
        signals.charge_paid: receiver("paid"),
        signals.card_stored: receiver("card_stored"),
    }
    for signal, receive in receivers.items():
        signal.connect(receive)
    yield events
    for signal, receive in receivers.items():
        signal.disconnect(receive)


def _in_thread(target, errors: list) -> threading.Thread:
    def run():
        try:
            target()
        except Exception as error:  # reported by the test, not swallowed
            errors.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _wait_for_lock_waiter() -> None:
    """On PostgreSQL, return once another backend waits on a lock (the race is set up).

    SQLite has no such view; there the second sync waits on the process
    lock, and the test holds either way.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for _ in range(2000):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return
            threading.Event().wait(0.005)
    raise AssertionError("the second sync never waited on a lock")


def _race(first: Callable[[], object], second: Callable[[], object]) -> list[Exception]:
    """``first`` in a transaction held open until ``second``, in another thread, waits on it.

    Then the first commits and both finish; what either raised is answered.
    """
    inserted, release, errors = threading.Event(), threading.Event(), []

    def hold() -> None:
        with sync_transaction():
            first()
            inserted.set()
            release.wait()

    holder = _in_thread(hold, errors)
    inserted.wait()
    racer = _in_thread(second, errors)
    _wait_for_lock_waiter()
    release.set()
    holder.join()
    racer.join()
    return errors


def _stored_card_order(order_id: str | None = None, token_id: str | None = None) -> dict:
    card = card_json(token_id=token_id or provider_id("CARD_"), store=True)
    return order_json(order_id=order_id, charges=[charge_json(card=card)])


@pytest.mark.django_db(transaction=True)
def test_two_threads_syncing_a_new_order_at_once(recorded):
    answer = _stored_card_order()
    errors: list = []
    barrier = threading.Barrier(2)

    def sync():
        barrier.wait()
        sync_order(copy.deepcopy(answer), source="notification")

    threads = [_in_thread(sync, errors) for _ in range(2)]
    for thread in threads:
        thread.join()

    assert errors == []
    assert Order.objects.count() == 1
    assert Charge.objects.count() == 1 and CardToken.objects.count() == 1
    assert ChargeStatusChange.objects.count() == 1
    assert sorted(recorded) == [("card_stored", ""), ("paid", ""), ("status_changed", "PAID")]


@pytest.mark.django_db(transaction=True)
def test_second_sync_waits_for_the_first_and_then_updates(recorded, caplog):
    caplog.set_level(logging.DEBUG, logger="django_orderpay.sync")
    # Given a sync that has inserted the new order but not committed yet,
    order_id, charge_id = provider_id("ORDE_"), provider_id("CHAR_")
    analysis = order_json(
        order_id=order_id, charges=[charge_json(charge_id=charge_id, status="IN_ANALYSIS")]
    )
    paid = order_json(order_id=order_id, charges=[charge_json(charge_id=charge_id)])

    # when a second sync of the same order starts (and blocks on the row),
    errors = _race(
        lambda: sync_order(analysis, source="api"),
        lambda: sync_order(paid, source="notification"),
    )

    # then it neither fails nor loses the first one's work.
    assert errors == []
    charge = Charge.objects.get()
    assert charge.status == ChargeStatus.PAID
    assert list(charge.status_changes.values_list("old_status", "new_status", "source")) == [
        ("", "IN_ANALYSIS", "api"),
        ("IN_ANALYSIS", "PAID", "notification"),
    ]
    assert Order.objects.get().status == OrderStatus.PAID
    assert [e for e in recorded if e[0] == "paid"] == [("paid", "")]
    if connection.vendor == "postgresql":  # the insert race really happened
        assert "inserted by a concurrent sync" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_two_orders_storing_the_same_card_at_once(recorded, caplog):
    caplog.set_level(logging.DEBUG, logger="django_orderpay.sync")
    token_id = provider_id("CARD_")

    errors = _race(
        lambda: sync_order(_stored_card_order(token_id=token_id), source="api"),
        lambda: sync_order(_stored_card_order(token_id=token_id), source="api"),
    )

    assert errors == []
    token = CardToken.objects.get()
    assert token.charges.count() == 2
    assert [e for e in recorded if e[0] == "card_stored"] == [("card_stored", "")]
    if connection.vendor == "postgresql":
        assert "stored by a concurrent sync" in caplog.text
