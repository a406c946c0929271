"""One payment in flight per shop object, with several processes at the same instant.

The package's rule holds for any shop (several ``create_order`` calls for
one purchase, each under its own reference) and the example shop keeps it
for a saved card's form posted two or three times at once from one
session: one charge. PostgreSQL only (SQLite in memory has no second
process); each party is a forked process with its own connection, the
emulator answering slowly enough that the first payment is still in flight
when the others look.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from django_orderpay.client import get_client
from django_orderpay.intents import new_intent, operation_key
from django_orderpay.models import CardToken, Charge, Operation, Order
from django_orderpay.services import create_order, pay_order
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

    outcomes, _ = in_processes(*[pay(f"attempt-{n}") for n in range(5)])

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
    purchase, token = _saved_card_purchase(client, products, maria)
    session = client.cookies["sessionid"].value
    slow_orders(shop)
    intent = new_intent()

    def post() -> tuple[int, str]:
        browser = Client()
        browser.cookies["sessionid"] = session  # the same session, as two clicks are
        page_intent = intent if same_page else new_intent()
        response = browser.post(
            reverse("shop:pay_saved_card", args=[purchase.reference]),
            {"card_token": token.pk, "installments": "1", "intent": page_intent},
        )
        return response.status_code, response["Location"]

    outcomes, _ = in_processes(post, post, post)

    assert outcomes == [(302, purchase.get_absolute_url())] * 3
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
