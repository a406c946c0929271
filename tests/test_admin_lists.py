"""The admin's lists as staff use them: newest first, found by part of an id, brands by name."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from django_orderpay import rules
from django_orderpay.models import Operation, OperationKind, OperationState
from django_orderpay.testing.factories import (
    CardTokenFactory,
    ChargeFactory,
    NotificationDeliveryFactory,
    OrderFactory,
    SplitFactory,
)
from tests.admin_support import change, changelist, client_for, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    return client_for(make_user("boss", superuser=True))


def listed(client, model_name: str, **query: str) -> list:
    response = client.get(changelist(model_name), query)
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


def _days_ago(days: int) -> dt.datetime:
    return timezone.now() - dt.timedelta(days=days)


def _operation(order, days: int) -> Operation:
    return Operation.objects.create(
        kind=OperationKind.CAPTURE,
        state=OperationState.SUCCEEDED,
        target=f"CHAR_{days}",
        idempotency_key=f"key-{days}",
        scope=f"scope-{days}",
        order=order,
        created_at=_days_ago(days),
    )


MAKERS = {
    "order": lambda days: OrderFactory(created_at=_days_ago(days)),
    "charge": lambda days: ChargeFactory(created_at=_days_ago(days)),
    "split": lambda days: SplitFactory(created_at=_days_ago(days)),
    "cardtoken": lambda days: CardTokenFactory(created_at=_days_ago(days)),
    "notificationdelivery": lambda days: NotificationDeliveryFactory(received_at=_days_ago(days)),
    "operation": lambda days: _operation(OrderFactory(), days),
}


@pytest.mark.parametrize("model_name", sorted(MAKERS))
def test_every_list_shows_the_newest_first(staff, model_name):
    # Made oldest last, so the rows' ids don't give the answer away.
    middle, newest, oldest = (MAKERS[model_name](days) for days in (5, 1, 9))

    rows = listed(staff, model_name)

    assert [row.pk for row in rows] == [newest.pk, middle.pk, oldest.pk]


def test_part_of_a_charge_id_finds_the_charge(staff):
    wanted = ChargeFactory(provider_id="CHAR_EEDDB1EE-2C43-4A39-9D51-7A52E0C1F00D")
    ChargeFactory(provider_id="CHAR_AADDB1EE-2C43-4A39-9D51-7A52E0C1F00D")

    for term in ("CHAR_EEDDB1EE", "char_eeddb1ee", "EEDDB1EE-2C43"):
        assert [c.pk for c in listed(staff, "charge", q=term)] == [wanted.pk], term


def test_part_of_an_order_id_finds_its_charges_and_the_order(staff):
    order = OrderFactory(provider_id="ORDE_0F1E2D3C-0000-4000-8000-000000000001")
    charge = ChargeFactory(order=order, provider_id="CHAR_5A6B7C8D-0000-4000-8000-000000000002")
    ChargeFactory()

    assert [c.pk for c in listed(staff, "charge", q="ORDE_0F1E2D3C")] == [charge.pk]
    assert [o.pk for o in listed(staff, "order", q="ORDE_0F1E2D3C")] == [order.pk]
    # An order is found by part of one of its charges' ids too, listed once.
    ChargeFactory(order=order, provider_id="CHAR_5A6B7C8D-1111-4000-8000-000000000003")
    assert [o.pk for o in listed(staff, "order", q="CHAR_5A6B7C8D")] == [order.pk]


@pytest.mark.parametrize(
    ("model_name", "make", "term"),
    [
        ("split", lambda: SplitFactory(provider_id="SPLI_ABCDEF12-0000"), "SPLI_ABCDEF12"),
        ("cardtoken", lambda: CardTokenFactory(provider_id="CARD_ABCDEF12-0000"), "CARD_ABCDEF12"),
        (
            "notificationdelivery",
            lambda: NotificationDeliveryFactory(order_provider_id="ORDE_ABCDEF12-0000"),
            "ORDE_ABCDEF12",
        ),
        ("operation", lambda: _operation(OrderFactory(), 3), "CHAR_3"),
    ],
)
def test_part_of_a_provider_id_finds_the_row_in_every_list(staff, model_name, make, term):
    wanted = make()
    MAKERS[model_name](2)

    assert [row.pk for row in listed(staff, model_name, q=term)] == [wanted.pk]


def test_card_brands_are_shown_by_name(staff):
    ChargeFactory(card_brand="mastercard", card_last_digits="3264")
    ChargeFactory(card_brand="amex", card_first_digits="378282", card_last_digits="0005")
    token = CardTokenFactory(brand="visa")
    paid_with_token = ChargeFactory(card_brand="visa", card_token=token)

    charges = staff.get(changelist("charge")).content.decode()
    tokens = staff.get(changelist("cardtoken")).content.decode()
    page = staff.get(change("charge", paid_with_token.pk)).content.decode()

    assert '"orderpay-brand">Mastercard</span>' in charges
    assert '"orderpay-brand">American Express</span>' in charges
    assert ">American Express</a>" in charges  # the brand filter
    assert '<td class="field-brand_name">Visa</td>' in tokens
    assert ">Visa</a>" in tokens  # its filter
    assert "Visa 411111******1111" in page  # the card, and the token's link
    assert "mastercard" not in charges.replace("card_brand=mastercard", "")


def test_the_brand_filter_filters(staff):
    wanted = ChargeFactory(card_brand="elo")
    ChargeFactory(card_brand="visa")

    assert [c.pk for c in listed(staff, "charge", card_brand="elo")] == [wanted.pk]


@pytest.mark.parametrize(
    ("brand", "name"),
    [("visa", "Visa"), ("MASTERCARD", "Mastercard"), ("amex", "American Express"),
     ("diners", "Diners Club"), ("cabal", "Cabal"), ("", "")],
)  # fmt: skip
def test_card_brand_name(brand, name):
    assert rules.card_brand_name(brand) == name


def test_the_charge_list_cells_hold_two_lines(staff):
    order = OrderFactory(reference_id="loja-77")
    charge = ChargeFactory(
        order=order,
        provider_id="CHAR_62783AF0-8700-4A4B-9C0C-B86183CA1D9C",
        amount_value=15000,
        amount_refunded=1250,
        installments=3,
    )
    captured_less = ChargeFactory(authorized=True, amount_value=5000)
    captured_less.status, captured_less.amount_paid = "PAID", 4000
    captured_less.save()

    html = staff.get(changelist("charge"), HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()

    # The charge's short id links its page (the whole id in the title), its order under it.
    assert (
        f'<a href="{change("charge", charge.pk)}" class="orderpay-id" '
        f'title="{charge.provider_id}">CHAR_62783AF0…</a>'
    ) in html
    assert (
        f'pedido <a href="{change("order", order.pk)}" title="{order.provider_id}">loja-77</a>'
        in html
    )
    # The amount over its installments, what was paid when it differs, and refunds.
    assert '<div class="orderpay-sub">em 3x</div>' in html
    assert 'estornado <span class="orderpay-money">R$ 12,50</span>' in html
    assert 'pago <span class="orderpay-money">R$ 40,00</span>' in html
    assert html.count('orderpay-sub">pago') == 1  # not for a charge paid in full
