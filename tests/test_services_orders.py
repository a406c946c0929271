"""create_order, pay_order and refresh_order against the emulator over HTTP."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.functional import SimpleLazyObject

from django_orderpay import payloads
from django_orderpay.client import get_client
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.exceptions import PayloadError
from django_orderpay.models import CardToken, Order
from django_orderpay.services import (
    cancel_charge,
    capture_charge,
    create_order,
    get_public_key,
    get_split,
    pay_order,
    pay_with_card_token,
    refresh_order,
    simulate_deeplink_payment,
)
from tests.sql_support import parts
from tests.test_services_support import (
    APPROVED_VISA,
    CVV,
    DECLINED_VISA,
    NOTIFY_URL,
    buyer,
    charge,
    encrypted_visa,
    order_payload,
    raw_card,
)

__all__ = ["buyer"]

pytestmark = pytest.mark.django_db


def test_create_with_a_raw_card_pays_at_once_and_mirrors_the_answer(orderpay_emulator, buyer):
    order = create_order(order_payload(charges=[charge(500)]), user=buyer)

    assert order.provider_id in orderpay_emulator.order_ids()
    assert order.status == "PAID"
    assert order.user == buyer
    assert order.reference_id == "ex-00001"
    assert order.customer_tax_id == "12345678909"
    [row] = order.charges.all()
    assert (row.status, row.amount_value, row.amount_paid) == ("PAID", 500, 500)
    assert row.payment_response_code == "20000"
    assert (row.card_brand, row.card_first_digits, row.card_last_digits) == (
        "visa",
        "411111",
        "1111",
    )
    # The mirror is what the provider says now.
    assert order.data == get_client().get_order(order.provider_id)
    # No card secret reaches a column or the stored JSON.
    assert APPROVED_VISA not in str(Order.objects.values().get())
    assert CVV not in str(row.data["payment_method"]["card"])


def test_create_with_builders(orderpay_emulator):
    order = payloads.OrderRequest(
        reference_id="builder-1",
        customer=payloads.Customer("Jose da Silva", "jose@example.com", "12345678909"),
        items=(payloads.Item("Camiseta", 2, 750),),
        charges=(
            payloads.ChargeRequest(
                amount=1500,
                payment_method=payloads.PaymentMethod(
                    card=payloads.Card.raw(APPROVED_VISA, 12, 2030, CVV, "Jose da Silva")
                ),
            ),
        ),
    )

    mirrored = create_order(order)

    assert mirrored.status == "PAID"
    assert mirrored.items_total == 1500
    assert mirrored.charges.get().amount_paid == 1500


def test_create_with_an_encrypted_card(orderpay_emulator):
    public_key = get_public_key()
    encrypted = encrypted_visa(public_key)

    card = {"encrypted": encrypted, "holder": {"name": "Jose da Silva"}}
    order = create_order(order_payload(charges=[charge(500, card)]))

    row = order.charges.get()
    assert row.status == "PAID"
    assert (row.card_brand, row.card_last_digits) == ("visa", "1111")
    assert encrypted not in str(order.data)


def test_a_declined_charge_is_an_answer_not_an_exception(orderpay_emulator):
    order = create_order(order_payload(charges=[charge(500, raw_card(DECLINED_VISA))]))

    assert order.status == "DECLINED"
    row = order.charges.get()
    assert row.status == "DECLINED"
    assert (row.payment_response_code, row.payment_response_message) == ("20003", "NAO AUTORIZADA")
    assert row.amount_paid == 0


def test_store_on_create_returns_a_token_owned_by_the_user(orderpay_emulator, buyer):
    order = create_order(
        order_payload(charges=[charge(500, raw_card(APPROVED_VISA, store=True))]), user=buyer
    )

    row = order.charges.get()
    assert row.status == "PAID"
    token = CardToken.objects.get()
    assert token.provider_id == row.data["payment_method"]["card"]["id"]
    assert token.provider_id.startswith("CARD_")
    assert row.card_token == token
    assert token.user == buyer
    assert (token.first_digits, token.last_digits) == (APPROVED_VISA[:6], APPROVED_VISA[-4:])
    assert (token.exp_month, token.exp_year) == ("12", "2030")


def test_a_declined_card_is_not_kept_even_when_asked_to_store_it(orderpay_emulator, buyer):
    order = create_order(
        order_payload(charges=[charge(500, raw_card(DECLINED_VISA, store=True))]), user=buyer
    )

    row = order.charges.get()
    assert row.status == "DECLINED"
    assert row.card_token is None
    assert not CardToken.objects.exists()


def test_two_steps_create_then_pay(orderpay_emulator, buyer):
    order = create_order(order_payload(), user=buyer)
    assert order.status == "CREATED"
    assert not order.charges.exists()

    paid = pay_order(order, [charge(500)])

    assert paid.pk == order.pk
    assert paid.status == "PAID"
    assert paid.charges.get().status == "PAID"
    assert paid.user == buyer


@pytest.mark.parametrize(("number", "tokens"), [(APPROVED_VISA, 1), (DECLINED_VISA, 0)])
def test_store_on_pay_returns_a_token_owned_by_the_order_user(
    orderpay_emulator, buyer, number, tokens
):
    order = create_order(order_payload(), user=buyer)

    # ``store`` on the payment method this time (the rules' place for it).
    entry = charge(500, raw_card(number))
    entry["payment_method"]["store"] = True
    paid = pay_order(order, [entry])

    row = paid.charges.get()
    assert CardToken.objects.count() == tokens  # a declined card is not kept
    if tokens:
        token = CardToken.objects.get()
        assert row.card_token == token
        assert token.user == buyer


def test_pay_again_after_a_decline(orderpay_emulator):
    order = create_order(order_payload())
    declined = pay_order(order, [charge(500, raw_card(DECLINED_VISA))])
    assert declined.status == "DECLINED"

    paid = pay_order(order, [charge(500)])

    assert paid.status == "PAID"
    assert sorted(paid.charges.values_list("status", flat=True)) == ["DECLINED", "PAID"]


def test_pay_accepts_builders_and_dicts_together(orderpay_emulator):
    order = create_order(order_payload(items=2))
    builder = payloads.ChargeRequest(
        amount=500,
        payment_method=payloads.PaymentMethod(
            card=payloads.Card.raw(APPROVED_VISA, "12", "2030", CVV, "Jose da Silva")
        ),
    )

    paid = pay_order(order, [builder, charge(500)])

    assert list(paid.charges.values_list("status", flat=True)) == ["PAID", "PAID"]


def test_invalid_bodies_fail_before_any_call_naming_the_field(orderpay_emulator):
    bad = order_payload(charges=[charge(500, raw_card(exp_year="30"))])
    with pytest.raises(PayloadError) as caught:
        create_order(bad)
    assert caught.value.paths == ["charges[0].payment_method.card.exp_year"]
    assert APPROVED_VISA not in str(caught.value)

    order = create_order(order_payload())
    builder = payloads.ChargeRequest(
        amount=0, payment_method=payloads.PaymentMethod(card=payloads.Card.token("CARD_X"))
    )
    with pytest.raises(PayloadError) as caught:
        pay_order(order, [charge(500), builder])
    assert caught.value.paths == ["charges[1].amount.value"]
    with pytest.raises(PayloadError) as caught:
        pay_order(order, charge(500))  # one charge, not a list
    assert caught.value.paths == ["charges"]

    assert orderpay_emulator.order_ids() == [order.provider_id]
    assert get_client().get_order(order.provider_id)["charges"] == []


def test_the_configured_notification_url_is_sent_when_the_order_names_none(
    orderpay_emulator, settings
):
    shop_url = "https://shop.example.com/pay/notify/"
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_URL": shop_url}
    body = order_payload()
    del body["notification_urls"]

    order = create_order(body)
    named = create_order(order_payload("ex-00002"))

    assert order.notification_urls == [shop_url]
    assert named.notification_urls == [NOTIFY_URL]


def test_an_order_in_analysis_resolved_then_refreshed(orderpay_emulator):
    order = create_order(order_payload(charges=[charge(500, raw_card(IN_ANALYSIS_CARD))]))
    row = order.charges.get()
    assert (order.status, row.status) == ("IN_ANALYSIS", "IN_ANALYSIS")

    orderpay_emulator.resolve_charge(row.provider_id, "PAID")
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # nothing arrives by itself

    refreshed = refresh_order(order)

    assert refreshed.status == "PAID"
    row.refresh_from_db()
    assert (row.status, row.amount_paid) == ("PAID", 500)
    history = list(row.status_changes.values_list("old_status", "new_status", "source"))
    assert history == [("", "IN_ANALYSIS", "api"), ("IN_ANALYSIS", "PAID", "sync")]


def test_refresh_by_id_mirrors_an_order_made_elsewhere(orderpay_emulator):
    answer = get_client().create_order(order_payload(charges=[charge(700)]))

    order = refresh_order(answer["id"], source="notification")

    assert order.provider_id == answer["id"]
    assert order.charges.get().status_changes.get().source == "notification"


def _queries_of_create(items: int, charges: int, reference_id: str) -> int:
    # Every charge stores its card: tokens are made in bulk too.
    entries = [charge(100, raw_card(store=True)) for _ in range(charges)]
    body = order_payload(reference_id, items=items, charges=entries)
    with CaptureQueriesContext(connection) as queries:
        create_order(body)
    return len(queries)


def test_create_order_queries_do_not_grow_with_items_or_charges(
    orderpay_emulator, buyer, django_assert_max_num_queries
):
    one = _queries_of_create(1, 1, "q-1")
    many_items = _queries_of_create(20, 1, "q-2")
    many_charges = _queries_of_create(1, 5, "q-3")
    both = _queries_of_create(20, 5, "q-4")

    assert one == many_items and many_charges == both
    # One charge's history row goes with the sync's closing writes (one
    # statement on PostgreSQL); several take a bulk insert of their own.
    assert many_charges == one + (1 if connection.vendor == "postgresql" else 0)
    with django_assert_max_num_queries(many_charges):
        create_order(order_payload("q-5", items=20, charges=[charge(100)] * 8), user=buyer)


# --- what a shop's developer passes by mistake ------------------------------------------


def test_an_anonymous_user_owns_nothing(orderpay_emulator):
    order = create_order(
        order_payload(charges=[charge(500, raw_card(store=True))]), user=AnonymousUser()
    )

    assert order.status == "PAID"
    assert order.user is None
    assert CardToken.objects.get().user is None


def test_the_shop_object_is_attached_to_the_order(orderpay_emulator):
    cart = Group.objects.create(name="cart-1")  # any saved model instance

    order = create_order(order_payload(charges=[charge(500)]), shop_object=cart)

    assert Order.objects.get(pk=order.pk).shop_object == cart


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"user": 1}, "user"),  # an id, not the user
        ({"user": "buyer"}, "user"),
        ({"shop_object": Group(name="unsaved")}, "shop_object"),
        ({"shop_object": {"cart": 1}}, "shop_object"),
        ({"idempotency_key": ""}, "idempotency_key"),
        ({"idempotency_key": "two words"}, "idempotency_key"),
    ],
)
def test_a_wrong_owner_object_or_key_is_refused_before_the_card_is_charged(
    orderpay_emulator, options, field
):
    with pytest.raises(PayloadError) as caught:
        create_order(order_payload(charges=[charge(500)]), **options)

    assert caught.value.paths == [field]
    assert orderpay_emulator.order_ids() == []  # nothing was sent
    assert not Order.objects.exists()


@pytest.mark.parametrize("money", [5.0, Decimal("5.00")])
def test_money_as_float_or_decimal_is_refused_before_any_call(orderpay_emulator, money):
    body = order_payload(charges=[charge(500)], unit_amount=money)
    body["charges"][0]["amount"]["value"] = money

    with pytest.raises(PayloadError) as caught:
        create_order(body)

    assert caught.value.paths == ["items[0].unit_amount", "charges[0].amount.value"]
    assert f"not a {type(money).__name__}" in str(caught.value)
    assert orderpay_emulator.order_ids() == []


def test_the_notification_url_fills_a_dict_without_one(orderpay_emulator, settings):
    # Given NOTIFICATION_URL configured, and a dict with no (or an empty) notification_urls
    shop_url = "https://shop.example.com/orderpay/notifications/"
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_URL": shop_url}
    missing = order_payload("n-1", charges=[charge(500)])
    del missing["notification_urls"]
    empty = order_payload("n-2", notification_urls=[])

    # Then the provider gets the configured URL for both
    for body in (missing, empty):
        order = create_order(body)
        assert get_client().get_order(order.provider_id)["notification_urls"] == [shop_url]
    assert "notification_urls" not in missing  # the caller's dict is left as it was


def test_request_user_as_a_view_has_it_is_accepted(orderpay_emulator, buyer):
    # request.user is a lazy proxy of the user, not the user itself.
    lazy = SimpleLazyObject(lambda: buyer)

    order = create_order(order_payload(charges=[charge(500, raw_card(store=True))]), user=lazy)

    assert Order.objects.get(pk=order.pk).user == buyer
    assert CardToken.objects.get().user == buyer


def test_an_id_where_a_row_is_expected_is_refused_naming_the_argument(orderpay_emulator, buyer):
    order = create_order(order_payload(charges=[charge(500, capture=False)]), user=buyer)
    charge_id = order.charges.get().provider_id
    calls = [
        (lambda: pay_order(order.provider_id, [charge(500)]), "order"),
        (lambda: capture_charge(charge_id), "charge"),
        (lambda: cancel_charge({"id": charge_id}), "charge"),
        (lambda: get_split(charge_id), "charge"),
        (lambda: simulate_deeplink_payment(order.provider_id, status="PAID"), "order"),
        (lambda: pay_with_card_token(order, "CARD_X", user=buyer), "card_token"),
    ]
    for call, field in calls:
        with pytest.raises(PayloadError) as caught:
            call()
        assert caught.value.paths == [field]

    assert "objects.get(provider_id=...)" in str(caught.value)
    # Nothing reached the provider: the charge is still only authorised.
    assert get_client().get_charge(charge_id)["status"] == "AUTHORIZED"


def test_create_order_is_five_statements_each_once(orderpay_emulator):
    """The record first (one insert), then the sync, which settles it in the same update."""
    create_order(order_payload("warm-up", charges=[charge(500)]))
    with CaptureQueriesContext(connection) as queries:
        create_order(order_payload("five-1", charges=[charge(500)]))

    control = ("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT")
    statements = [q["sql"] for q in queries.captured_queries]
    data = [sql for sql in statements if not sql.lstrip().upper().startswith(control)]
    kinds = [(part.split()[0].upper(), _table(part)) for sql in data for part in parts(sql)]
    assert kinds == [
        ("INSERT", "operation"),  # the record, committed before the request leaves
        ("INSERT", "order"),  # inserted before it is looked for: the answer's order is new
        ("INSERT", "charge"),
        ("SELECT", "operation"),  # the open operations the new order may settle
        # The sync's closing writes, one statement on PostgreSQL:
        ("INSERT", "chargestatuschange"),
        ("UPDATE", "operation"),  # this call's, settled and heard in one update
    ]
    assert len(data) == (5 if connection.vendor == "postgresql" else 6)


def _table(sql: str) -> str:
    for word in sql.replace('"', " ").split():
        if word.startswith("django_orderpay_"):
            return word.removeprefix("django_orderpay_")
    return "?"


def test_an_unscheduled_recurrence_is_sent_and_mirrored(orderpay_emulator):
    """``recurring.type`` UNSCHEDULED and "STANDING ORDER" are documented: taken, mirrored."""
    from django_orderpay import services
    from django_orderpay.models import RecurringType
    from tests.test_services_support import charge as card_charge
    from tests.test_services_support import order_payload as order_body

    for kind in (RecurringType.UNSCHEDULED, RecurringType.STANDING_ORDER):
        charges = [card_charge(recurring={"type": kind.value})]
        mirrored = services.create_order(order_body(f"rec-{kind.value[:3]}", charges=charges))
        mirrored = mirrored.charges.get()
        assert (mirrored.status, mirrored.recurring_type) == ("PAID", kind.value)


def test_an_order_is_mirrored_from_one_of_its_charge_ids(orderpay_emulator):
    """``services.refresh_order_of_charge``: ``GET /orders?charge_id=`` and mirror, for code
    that holds only a ``CHAR_`` id (a charge's notification, a support ticket)."""
    from django_orderpay import services
    from tests.test_services_support import charge as card_charge
    from tests.test_services_support import order_payload as order_body

    answer = get_client().create_order(order_body("by-charge", charges=[card_charge(500)]))
    order = services.refresh_order_of_charge(answer["charges"][0]["id"])
    assert (order.provider_id, order.status) == (answer["id"], "PAID")
    assert order.charges.get().provider_id == answer["charges"][0]["id"]
