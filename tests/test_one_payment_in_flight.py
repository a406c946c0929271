"""A shop object has at most one money-moving operation in flight, whatever reference each has.

A purchase (the ``shop_object`` of its orders) whose payment has no outcome
yet refuses a second payment, on any of its orders and under any
reference: ``PaymentInProgress``, before anything is sent. Captures and
refunds are never held back. A page's intent makes a post sent twice one
attempt: the second joins the first's operations.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from django_orderpay import services
from django_orderpay.client import client_from_settings
from django_orderpay.exceptions import OutcomeUnknown, PaymentInProgress
from django_orderpay.intents import new_intent, operation_key
from django_orderpay.models import Operation
from django_orderpay.services import create_order, pay_order
from django_orderpay.services.in_flight import IN_FLIGHT_FOR
from django_orderpay.shopper_messages import refusal_message
from tests.test_services_support import charge, order_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def purchase(django_user_model):
    """Any saved model stands for the shop's purchase (here a user row)."""
    return django_user_model.objects.create_user("purchase-1")


@pytest.fixture
def other_purchase(django_user_model):
    return django_user_model.objects.create_user("purchase-2")


def unanswered_pay(emulator, order) -> Operation:
    """Pay ``order``, the provider charging and the answer lost: its operation stays open."""
    emulator.inject_fault("timeout", 1, delay=0.5, path_prefix=f"/orders/{order.provider_id}/pay")
    lost = client_from_settings(backoff=0, timeout=0.2, retries=0)
    with pytest.raises(OutcomeUnknown) as raised:
        pay_order(order, [charge(500)], client=lost)
    return raised.value.operation


def test_a_second_payment_is_refused_while_the_first_has_no_outcome(orderpay_emulator, purchase):
    first = create_order(order_payload("try-1"), shop_object=purchase)
    second = create_order(order_payload("try-2"), shop_object=purchase)  # nothing in flight yet
    open_pay = unanswered_pay(orderpay_emulator, first)
    orders_before = orderpay_emulator.order_ids()

    with pytest.raises(PaymentInProgress) as paying:
        pay_order(second, [charge(500)])
    with pytest.raises(PaymentInProgress) as creating:
        create_order(order_payload("try-3", charges=[charge(500)]), shop_object=purchase)

    assert paying.value.operation == open_pay == creating.value.operation
    assert orderpay_emulator.order_ids() == orders_before  # nothing was sent
    assert client_from_settings().get_order(second.provider_id).get("charges", []) == []
    assert not Operation.objects.filter(target__in=["try-3", second.provider_id])
    assert services.in_flight_for(purchase) == open_pay
    assert "already in progress" in str(refusal_message(paying.value))


def test_another_shop_object_and_an_order_without_one_are_not_held_back(
    orderpay_emulator, purchase, other_purchase
):
    unanswered_pay(orderpay_emulator, create_order(order_payload("a-1"), shop_object=purchase))

    paid = create_order(order_payload("b-1", charges=[charge(500)]), shop_object=other_purchase)
    alone = create_order(order_payload("c-1", charges=[charge(500)]))

    assert paid.status == alone.status == "PAID"
    assert services.in_flight_for(other_purchase) is None


def test_a_refund_of_the_same_shop_object_is_not_held_back(orderpay_emulator, purchase):
    paid = create_order(order_payload("r-1", charges=[charge(900)]), shop_object=purchase)
    unanswered_pay(orderpay_emulator, create_order(order_payload("r-2"), shop_object=purchase))

    refunded = services.cancel_charge(paid.charges.get(), 300)

    assert refunded.amount_refunded == 300


def test_the_same_order_paid_again_joins_the_open_operation_instead(orderpay_emulator, purchase):
    order = create_order(order_payload("same-1"), shop_object=purchase)
    open_pay = unanswered_pay(orderpay_emulator, order)

    answered = pay_order(order, [charge(500)])  # a repeat: same scope, same key

    [paid] = answered.charges.all()
    assert paid.status == "PAID"
    open_pay.refresh_from_db()
    assert (open_pay.state, open_pay.calls) == ("succeeded", 2)


def test_once_the_first_is_settled_the_shop_object_may_pay_again(orderpay_emulator, purchase):
    first = create_order(order_payload("settled-1"), shop_object=purchase)
    unanswered_pay(orderpay_emulator, first)
    services.refresh_order(first)  # what the notification does

    second = create_order(order_payload("settled-2", charges=[charge(500)]), shop_object=purchase)

    assert second.status == "PAID"  # a shop that takes two payments may; duplicates are signalled


@pytest.mark.parametrize(
    ("age", "refused"),
    [
        (IN_FLIGHT_FOR - dt.timedelta(seconds=5), True),
        (IN_FLIGHT_FOR + dt.timedelta(seconds=5), False),
    ],
    ids=["last-called-within", "last-called-before"],
)
def test_an_open_operation_holds_its_shop_object_for_in_flight_for(
    orderpay_emulator, purchase, age, refused
):
    open_pay = unanswered_pay(
        orderpay_emulator, create_order(order_payload("aged-1"), shop_object=purchase)
    )
    Operation.objects.filter(pk=open_pay.pk).update(updated_at=timezone.now() - age)

    if refused:
        with pytest.raises(PaymentInProgress):
            create_order(order_payload("aged-2", charges=[charge(500)]), shop_object=purchase)
    else:
        order = create_order(order_payload("aged-2", charges=[charge(500)]), shop_object=purchase)
        assert order.status == "PAID"


def test_a_page_posted_twice_is_one_attempt(orderpay_emulator, purchase):
    """The intent's keys: the second post gets the first's order and charge, no new call."""
    intent = new_intent()

    def attempt():
        order = create_order(
            order_payload("page-1"),
            shop_object=purchase,
            idempotency_key=operation_key(intent, "create"),
        )
        return pay_order(order, [charge(500)], idempotency_key=operation_key(intent, "pay"))

    first = attempt()
    second = attempt()

    assert second.pk == first.pk
    assert [c.pk for c in second.charges.all()] == [c.pk for c in first.charges.all()]
    assert len(orderpay_emulator.order_ids()) == 1
    assert Operation.objects.count() == 2


def test_an_intent_key_is_made_of_its_step_and_refuses_what_is_not_one():
    intent = new_intent()

    assert operation_key(intent, "pay") == f"orderpay-intent-pay-{intent}"
    assert operation_key(intent, "pay") != operation_key(intent, "create")
    assert operation_key(intent, "pay") != operation_key(new_intent(), "pay")
    with pytest.raises(ValueError, match="not an intent"):
        operation_key("short", "pay")
    with pytest.raises(ValueError, match="step"):
        operation_key(intent, "Pay now")
