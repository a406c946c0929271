"""One payment in flight per shop object, with several processes at the same instant.

The package's rule holds for any shop (several ``create_order`` calls for
one purchase, each under its own reference) and the example shop keeps it
for a saved card's form posted two or three times at once from one
session: one charge. PostgreSQL only (SQLite in memory has no second
process); each party is a forked process with its own connection, the
emulator answering slowly enough that the first payment is still in flight
when the others look.

The race is made certain, not left to chance (:func:`all_at_the_look`): no
process records its payment before every one has looked for a payment in
flight, or waits for the purchase's lock to look. Without that lock every
process finds nothing, records its own and sends it: charged several times.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import translation

from django_orderpay.client import get_client
from django_orderpay.intents import new_intent, operation_key
from django_orderpay.models import CardToken, Charge, Operation, Order
from django_orderpay.services import create_order, pay_order
from django_orderpay.shopper_messages import IN_PROGRESS
from example_project.shop.models import Purchase
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    CUSTOMER,
    add,
    check_out,
    maria,
    pay_card,
    products,
    shop,
)
from tests.test_lock_order_processes import in_processes
from tests.test_services_support import charge, order_payload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: How long the provider takes to answer an order call: the first payment is in
#: flight this long.
SLOW = 1.0


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("several processes need PostgreSQL (DATABASE_URL=postgres://...)")


def slow_orders(emulator) -> None:
    emulator.control("POST", "latency", {"seconds": SLOW, "path_prefix": "/orders"})


def all_at_the_look(*works: Callable[[], Any]) -> list[Any]:
    """What each of ``works`` returned, run in processes released together, none recording
    its operation before every one has looked for a payment in flight or waits to look.

    A connection of this process holds the operations table in ``SHARE`` mode
    (reads and row locks pass, inserts wait) until every process waits for a
    lock: at the insert of its operation, or behind the process holding the
    purchase's lock. Then the table is let go.
    """
    table = connection.ops.quote_name(Operation._meta.db_table)
    gate = connections.create_connection(DEFAULT_DB_ALIAS)
    gate.set_autocommit(False)
    with gate.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")

    def open_the_gate() -> None:
        try:
            waiting = waiting_for_a_lock(len(works))
        finally:
            gate.rollback()
            gate.close()
        # Each waits where it should: at its operation's insert, or for the purchase's lock.
        assert all(
            query.startswith(f"INSERT INTO {table}") or "pg_advisory_xact_lock" in query
            for query in waiting
        ), waiting

    outcomes, _ = in_processes(*works, meanwhile=open_the_gate)
    return outcomes


def waiting_for_a_lock(count: int, timeout: float = 30) -> list[str]:
    """The queries of the ``count`` other connections waiting for a lock, once there are."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT query FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
            )
            queries = [row[0] for row in cursor.fetchall()]
            if len(queries) >= count:
                return queries
            time.sleep(0.02)
    raise AssertionError(f"{count} connections never waited for a lock together")


def charged_at_the_provider(orders) -> list[str]:
    """The provider's charges of ``orders`` (ids), read from the provider itself."""
    api = get_client()
    return [c["id"] for order in orders for c in api.get_order(order)["charges"] or ()]


def test_any_shop_one_purchase_paid_from_several_processes_under_several_references(
    orderpay_emulator, django_user_model
):
    purchase = django_user_model.objects.create_user("purchase-1")
    slow_orders(orderpay_emulator)

    def pay(reference: str):
        def work() -> str:
            body = order_payload(reference, charges=[charge(500)])
            return create_order(body, shop_object=purchase).status

        return work

    outcomes = all_at_the_look(*[pay(f"attempt-{n}") for n in range(5)])

    assert sorted(o.split(":")[0] for o in outcomes) == ["PAID"] + ["PaymentInProgress"] * 4
    assert len(charged_at_the_provider(orderpay_emulator.order_ids())) == 1


def _saved_card_purchase(client, products, maria) -> tuple[Purchase, CardToken]:
    """Maria's card saved by a first purchase; a second purchase, not paid yet."""
    client.force_login(maria)
    pay_card(client, check_out(client, products), save_card="on")
    add(client, products["caneca"])
    client.post(reverse("shop:checkout"), CUSTOMER)
    return Purchase.objects.order_by("-pk").first(), CardToken.objects.get()


@pytest.mark.parametrize("same_page", [True, False], ids=["one-page", "several-pages"])
def test_the_example_shops_saved_card_form_posted_at_once_charges_once(
    client, products, shop, maria, same_page
):
    """The shop's order of a purchase has one reference: its creates share one sequence,
    so the second is refused there even without the purchase's lock (the package's
    test above is the one that needs it); the shopper is told why either way."""
    purchase, token = _saved_card_purchase(client, products, maria)
    session = client.cookies["sessionid"].value
    slow_orders(shop)
    intent = new_intent()

    def post() -> tuple[int, str, bool]:
        browser = Client()
        browser.cookies["sessionid"] = session  # the same session, as two clicks are
        page_intent = intent if same_page else new_intent()
        response = browser.post(
            reverse("shop:pay_saved_card", args=[purchase.reference]),
            {"card_token": token.pk, "installments": "1", "intent": page_intent},
        )
        shown = browser.get(response["Location"]).content.decode()
        with translation.override("en"):
            told = str(IN_PROGRESS) in shown
        return response.status_code, response["Location"], told

    outcomes = all_at_the_look(post, post, post)

    page_url = purchase.get_absolute_url()
    # Three clicks of one page are one payment, each waiting for its answer; three pages
    # are three payments: the first sent, the others told one is in progress.
    told = [False] * 3 if same_page else [False, True, True]
    assert sorted(outcomes, key=lambda o: o[2]) == [(302, page_url, t) for t in told]
    orders = Order.objects.filter(object_id=str(purchase.pk))
    charged = charged_at_the_provider([o.provider_id for o in orders])
    assert len(charged) == 1
    [paid] = Charge.objects.filter(order__in=orders)
    assert (paid.provider_id, paid.status, paid.amount_value) == (charged[0], "PAID", 3490)
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert "Paid" in page


def test_the_same_attempt_from_several_processes_waits_for_the_first_and_is_answered(
    orderpay_emulator, django_user_model
):
    """One page's intent posted by three processes at once, the provider slow: the first
    sends, the others join its operations and wait for its answer (not the provider's
    409 for a key in use), and every one is answered with the same paid order."""
    purchase = django_user_model.objects.create_user("purchase-2")
    slow_orders(orderpay_emulator)
    intent = new_intent()

    def attempt() -> tuple[str, str]:
        order = create_order(
            order_payload("same-page"),
            shop_object=purchase,
            idempotency_key=operation_key(intent, "create"),
        )
        paid = pay_order(
            Order.objects.get(pk=order.pk),
            [charge(500)],
            idempotency_key=operation_key(intent, "pay"),
        )
        return paid.provider_id, paid.status

    outcomes, _ = in_processes(attempt, attempt, attempt)

    [order_id] = orderpay_emulator.order_ids()
    assert outcomes == [(order_id, "PAID")] * 3
    assert len(charged_at_the_provider([order_id])) == 1
    assert sorted(Operation.objects.values_list("kind", "state", "calls")) == [
        ("create", "succeeded", 3),
        ("pay", "succeeded", 3),
    ]
