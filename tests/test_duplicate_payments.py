"""A purchase paid twice: detected, signalled once, and (in the example shop) refunded.

PagBank has no call to close a deeplink, a Pix QR code or a boleto left open,
so the same purchase can be paid twice. ``payment_duplicated`` tells the shop
once the second payment is mirrored; the example shop refunds it at once.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from django_orderpay import signals
from django_orderpay.duplicates import other_payments, other_payments_among
from django_orderpay.models import Charge, ChargeStatus, Order, QrCode
from django_orderpay.services import cancel_charge, create_order, simulate_pix_payment
from django_orderpay.testing.factories import ChargeFactory, OrderFactory
from tests.payloads_support import order
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    check_out,
    pay_card,
    products,
    shop,
    status_json,
)
from tests.test_services_support import (
    APPROVED_VISA,
    DECLINED_VISA,
    charge,
    order_payload,
    raw_card,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    calls = []

    def receiver(sender, charge, others, source, **kwargs):
        calls.append((charge.provider_id, [other.provider_id for other in others], source))

    signals.payment_duplicated.connect(receiver)
    yield calls
    signals.payment_duplicated.disconnect(receiver)


@pytest.fixture
def purchase_object(django_user_model):
    """Any saved model stands for the shop's purchase (here a user row)."""
    return django_user_model.objects.create_user("purchase-1")


def card_order(reference_id: str, shop_object):
    body = order_payload(reference_id, charges=[charge(500, raw_card(APPROVED_VISA))])
    return create_order(body, shop_object=shop_object)


def pix_order(reference_id: str, shop_object):
    return create_order(
        order(reference_id=reference_id, charges=(), qr_codes=[QrCode_(500)]),
        shop_object=shop_object,
    )


def QrCode_(amount):
    from django_orderpay.payloads import QrCode as Builder

    return Builder(amount)


def test_a_second_payment_of_the_same_shop_object_is_signalled_once(
    orderpay_emulator, purchase_object, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        waiting = pix_order("dup-pix", purchase_object)
    with django_capture_on_commit_callbacks(execute=True):
        first = card_order("dup-card", purchase_object).charges.get()
    assert heard == []  # the first payment is not a duplicate

    with django_capture_on_commit_callbacks(execute=True):
        second = simulate_pix_payment(waiting).charges.get()

    assert heard == [(second.provider_id, [first.provider_id], "api")]
    assert list(other_payments(second)) == [first]


def test_a_payment_after_a_full_refund_is_not_a_duplicate(
    orderpay_emulator, purchase_object, heard, django_capture_on_commit_callbacks
):
    # Each step commits on its own, as each request does.
    with django_capture_on_commit_callbacks(execute=True):
        waiting = pix_order("dup-pix", purchase_object)
    with django_capture_on_commit_callbacks(execute=True):
        first = card_order("dup-card", purchase_object).charges.get()
    with django_capture_on_commit_callbacks(execute=True):
        cancel_charge(first)  # the shop gave the money back
    with django_capture_on_commit_callbacks(execute=True):
        simulate_pix_payment(waiting)

    assert heard == []


def test_a_partly_refunded_payment_still_holds_money(
    orderpay_emulator, purchase_object, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        waiting = pix_order("dup-pix", purchase_object)
    with django_capture_on_commit_callbacks(execute=True):
        first = card_order("dup-card", purchase_object).charges.get()
    with django_capture_on_commit_callbacks(execute=True):
        cancel_charge(first, 499)
    with django_capture_on_commit_callbacks(execute=True):
        second = simulate_pix_payment(waiting).charges.get()

    assert heard == [(second.provider_id, [first.provider_id], "api")]


def test_orders_of_other_shop_objects_or_of_none_are_not_duplicates(
    orderpay_emulator, purchase_object, django_user_model, heard, django_capture_on_commit_callbacks
):
    other_object = django_user_model.objects.create_user("purchase-2")
    for reference_id, shop_object in [
        ("a", purchase_object),
        ("b", other_object),
        ("c", None),
        ("d", None),
    ]:
        with django_capture_on_commit_callbacks(execute=True):
            card_order(reference_id, shop_object)

    assert heard == []


def test_a_shop_object_of_another_model_with_the_same_pk_is_another_purchase(
    orderpay_emulator, purchase_object, heard, django_capture_on_commit_callbacks
):
    from django.contrib.auth.models import Group

    namesake = Group.objects.create(pk=purchase_object.pk, name="not the same purchase")
    with django_capture_on_commit_callbacks(execute=True):
        first = card_order("a", purchase_object).charges.get()
    with django_capture_on_commit_callbacks(execute=True):
        second = card_order("b", namesake).charges.get()

    assert heard == []
    assert list(other_payments(second)) == [] == list(other_payments(first))


def test_the_others_are_listed_by_when_they_were_paid_on_both_paths(
    django_assert_num_queries,
):
    # One order of no shop object: its own charges answer with or without a query.
    order = OrderFactory()
    at = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
    paid_last = ChargeFactory(order=order, paid_at=at + dt.timedelta(minutes=2))
    paid_first = ChargeFactory(order=order, paid_at=at)
    paid_with_it = ChargeFactory(order=order, paid_at=at)  # the same moment: by pk
    undated = ChargeFactory(order=order, paid_at=None)  # holds money, no date said: last
    refunded = ChargeFactory(order=order, paid_at=at, amount_refunded=500)
    new = ChargeFactory(order=order, paid_at=at + dt.timedelta(minutes=3))
    expected = [paid_first, paid_with_it, paid_last, undated]

    with django_assert_num_queries(1):  # the orders come with the charges
        listed = [(other, other.order.provider_id) for other in other_payments(new)]
    among = other_payments_among(new, [new, refunded, undated, paid_with_it, paid_first, paid_last])

    assert [other for other, _ in listed] == expected
    assert among == expected


# --- the example shop -----------------------------------------------------------------


def test_the_shop_refunds_a_pix_paid_after_the_card(
    client, products, shop, django_capture_on_commit_callbacks
):
    purchase = check_out(client, products)
    client.post(reverse("shop:pay_pix", args=[purchase.reference]))  # left open
    with django_capture_on_commit_callbacks(execute=True):
        pay_card(client, purchase)
    assert status_json(client, purchase)["status"] == "PAID"

    # The shopper pays the open Pix too; its notification arrives.
    with django_capture_on_commit_callbacks(execute=True):
        shop.pay_pix(QrCode.objects.get().provider_id)
        shop.deliver_notifications(client)

    pix = Charge.objects.get(payment_method="PIX")
    card = Charge.objects.get(payment_method="CREDIT_CARD")
    assert (pix.status, pix.amount_refunded) == (ChargeStatus.CANCELED, pix.amount_paid)
    assert (card.status, card.amount_refunded) == (ChargeStatus.PAID, 0)
    assert status_json(client, purchase)["status"] == "PAID"
    assert len(shop.order_ids()) == 2 == Order.objects.count()


# --- the admin ------------------------------------------------------------------------


def test_the_admin_lists_and_shows_a_purchase_paid_twice(
    orderpay_emulator, purchase_object, django_user_model
):
    from tests.admin_support import changelist, client_for, make_user

    waiting = pix_order("dup-pix", purchase_object)
    first = card_order("dup-card", purchase_object)
    lone = card_order("lone", None)
    second = simulate_pix_payment(waiting)
    boss = client_for(make_user("boss", superuser=True))

    listed = boss.get(changelist("order") + "?paid_twice=yes").context["cl"].result_list
    page = boss.get(reverse("admin:django_orderpay_order_change", args=[second.pk]))

    assert sorted(order.pk for order in listed) == sorted([first.pk, second.pk])
    assert lone.pk not in [order.pk for order in listed]
    assert first.charges.get().provider_id in page.content.decode()

    cancel_charge(second.charges.get())  # refunded: paid once again
    listed = boss.get(changelist("order") + "?paid_twice=yes").context["cl"].result_list
    assert list(listed) == []


def test_an_order_of_no_shop_object_paid_twice_is_signalled_as_the_query_finds_it(
    orderpay_emulator, heard, django_capture_on_commit_callbacks
):
    # Its own charges answer without a query (the sync holds them all, locked):
    # the same charges, in the same order, as other_payments' query.
    declined = charge(300, raw_card(DECLINED_VISA))
    body = order_payload("dup-own", charges=[charge(500), declined, charge(700)])
    with django_capture_on_commit_callbacks(execute=True):
        first, refused, second = create_order(body).charges.order_by("pk")
    assert refused.status == ChargeStatus.DECLINED  # holds no money: never one of the others

    assert sorted(heard) == sorted(
        [
            (first.provider_id, [second.provider_id], "api"),
            (second.provider_id, [first.provider_id], "api"),
        ]
    )
    assert list(other_payments(second)) == [first]
    assert list(other_payments(first)) == [second]
