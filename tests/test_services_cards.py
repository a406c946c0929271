"""Paying with a stored card (pay_with_card_token), Elo recurrence, ownership."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.client import get_client
from django_orderpay.emulator import IN_ANALYSIS_CARD as IN_ANALYSIS_VISA
from django_orderpay.exceptions import PayloadError
from django_orderpay.models import CardToken
from django_orderpay.services import (
    CardTokenNotOwned,
    create_order,
    get_public_key,
    pay_order,
    pay_with_card_token,
    remove_card_token,
    token_charge,
)
from tests.test_services_support import (
    APPROVED_ELO,
    CVV,
    DECLINED_VISA,
    buyer,
    charge,
    order_payload,
    other_buyer,
    raw_card,
)

__all__ = ["buyer", "other_buyer"]

pytestmark = pytest.mark.django_db


def _stored_card(user, number: str = "4111111111111111") -> CardToken:
    create_order(
        order_payload("store-1", charges=[charge(500, raw_card(number, store=True))]), user=user
    )
    return CardToken.objects.get(user=user)


def test_create_with_a_token_in_the_body(orderpay_emulator, buyer):
    token = _stored_card(buyer)

    order = create_order(
        order_payload(
            "by-token", charges=[charge(800, {"id": token.provider_id, "security_code": CVV})]
        ),
        user=buyer,
    )

    row = order.charges.get()
    assert (row.status, row.amount_paid) == ("PAID", 800)
    assert row.card_token == token
    assert CardToken.objects.count() == 1


def test_the_owner_pays_an_order_with_a_stored_card(orderpay_emulator, buyer):
    token = _stored_card(buyer)
    order = create_order(order_payload("later", items=2, unit_amount=350), user=buyer)

    paid = pay_with_card_token(order, token, user=buyer, security_code=CVV)

    row = paid.charges.get()
    assert (row.status, row.amount_value) == ("PAID", 700)  # the items' total
    assert row.card_token == token
    assert row.data["payment_method"]["card"]["id"] == token.provider_id


def test_an_amount_and_installments_may_be_given(orderpay_emulator, buyer):
    token = _stored_card(buyer)
    order = create_order(order_payload("partial"), user=buyer)

    # Each installment at least R$ 5,00, as PagBank requires.
    row = pay_with_card_token(order, token, user=buyer, amount=1500, installments=3).charges.get()

    assert (row.amount_value, row.installments) == (1500, 3)


def test_a_stored_card_payment_repeated_with_its_key_is_paid_once(orderpay_emulator, buyer):
    token = _stored_card(buyer)
    order = create_order(order_payload("twice"), user=buyer)

    first = pay_with_card_token(order, token, user=buyer, idempotency_key="saved-card-7")
    again = pay_with_card_token(order, token, user=buyer, idempotency_key="saved-card-7")

    assert first.pk == again.pk
    assert again.charges.get().status == "PAID"
    assert len(get_client().get_order(order.provider_id)["charges"]) == 1


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"amount": 2.5}, "amount"),
        ({"amount": Decimal("2.50")}, "amount"),
        # A SUBSEQUENT charge needs a token stored with a recurrence.
        ({"subsequent_recurrence": True}, "recurring.recurrence_id"),
    ],
    ids=["amount float", "amount Decimal", "subsequent without a recurrence"],
)
def test_a_refused_argument_is_named_and_nothing_is_charged(
    orderpay_emulator, buyer, arguments, path
):
    token = _stored_card(buyer)
    order = create_order(order_payload("refused"), user=buyer)

    with pytest.raises(PayloadError) as caught:
        pay_with_card_token(order, token, user=buyer, **arguments)

    assert caught.value.paths == [path]
    assert get_client().get_order(order.provider_id)["charges"] == []


def test_authorise_with_a_stored_card(orderpay_emulator, buyer):
    token = _stored_card(buyer)
    order = create_order(order_payload("auth"), user=buyer)

    row = pay_with_card_token(order, token, user=buyer, capture=False).charges.get()

    assert row.status == "AUTHORIZED"


@pytest.mark.parametrize("who", ["other", "anonymous", "nobody"])
def test_a_token_used_by_anyone_else_is_refused_without_a_call(
    orderpay_emulator, buyer, other_buyer, who
):
    token = _stored_card(buyer)
    order = create_order(order_payload("theft"), user=other_buyer)
    user = {"other": other_buyer, "anonymous": AnonymousUser(), "nobody": None}[who]

    with pytest.raises(CardTokenNotOwned) as caught:
        pay_with_card_token(order, token, user=user, security_code=CVV)

    assert isinstance(caught.value, PermissionDenied)  # a view answers 403
    assert token.provider_id in str(caught.value)
    assert get_client().get_order(order.provider_id)["charges"] == []
    assert not order.charges.exists()


def test_an_unowned_token_is_nobodys(orderpay_emulator, buyer):
    # Stored by an order with no user: no one may reuse it through this service.
    create_order(order_payload("anon", charges=[charge(500, raw_card(store=True))]))
    token = CardToken.objects.get()
    assert token.user is None
    order = create_order(order_payload("anon-2"), user=buyer)

    with pytest.raises(CardTokenNotOwned):
        pay_with_card_token(order, token, user=buyer)


def test_recurrence_initial_then_subsequent_from_the_token_alone(orderpay_emulator, buyer):
    encrypted = encrypt_card(
        get_public_key(),
        number=APPROVED_ELO,
        security_code=CVV,
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )
    initial = {
        **charge(
            1990, {"encrypted": encrypted, "store": True, "holder": {"name": "Jose da Silva"}}
        ),
        "recurring": {"type": "INITIAL"},
    }
    first = create_order(order_payload("plan-1", charges=[initial]), user=buyer).charges.get()
    assert first.status == "PAID"
    assert len(first.brand_reference_id) == 15
    token = CardToken.objects.get()
    assert (token.brand, token.user) == ("elo", buyer)
    assert token.brand_reference_id == first.brand_reference_id
    assert token.initial_amount == 1990
    assert token.has_recurrence

    month_two = create_order(order_payload("plan-2", unit_amount=1990), user=buyer)
    paid = pay_with_card_token(month_two, token, user=buyer, subsequent_recurrence=True)

    row = paid.charges.get()
    assert (row.status, row.recurring_type, row.card_token) == ("PAID", "SUBSEQUENT", token)
    assert row.data["recurring"] == {
        "type": "SUBSEQUENT",
        "recurrence_id": first.brand_reference_id,
        "original_amount": 1990,
    }
    token.refresh_from_db()
    assert token.brand_reference_id == first.brand_reference_id  # the INITIAL one stays


def test_a_subsequent_charge_is_built_from_the_token_alone(orderpay_emulator, buyer):
    token = CardToken(
        provider_id="CARD_1", brand_reference_id="158762300000712", initial_amount=500
    )
    order = create_order(order_payload("shape"), user=buyer)

    body = token_charge(order, token, subsequent_recurrence=True).to_dict()

    assert body["payment_method"]["card"] == {"id": "CARD_1"}  # no security code
    assert body["recurring"] == {
        "type": "SUBSEQUENT",
        "recurrence_id": "158762300000712",
        "original_amount": 500,
    }
    with pytest.raises(PayloadError) as caught:
        token_charge(order, token, subsequent_recurrence=True, security_code=CVV)
    assert caught.value.paths == ["card.security_code"]


def test_a_card_declined_when_stored_is_not_kept_and_its_token_pays_nothing(
    orderpay_emulator, buyer
):
    declined = create_order(
        order_payload("store-2", charges=[charge(500, raw_card(DECLINED_VISA, store=True))]),
        user=buyer,
    )
    provider_card = get_client().get_order(declined.provider_id)["charges"][0]
    token_id = provider_card["payment_method"]["card"]["id"]  # the provider stored it anyway
    order = create_order(order_payload("declined"), user=buyer)

    assert declined.charges.get().status == "DECLINED"
    assert not CardToken.objects.exists()  # never offered to pay again
    with pytest.raises(CardTokenNotOwned):
        pay_order(order, [charge(500, {"id": token_id, "security_code": CVV})], user=buyer)


def test_a_card_stored_in_analysis_is_kept_once_approved(orderpay_emulator, buyer, client):
    created = create_order(
        order_payload("store-3", charges=[charge(500, raw_card(IN_ANALYSIS_VISA, store=True))]),
        user=buyer,
    )
    assert not CardToken.objects.exists()

    orderpay_emulator.resolve_charge(created.charges.get().provider_id, "PAID")
    orderpay_emulator.deliver_notifications(client)

    token = CardToken.objects.get()
    assert (token.user, token.last_digits) == (buyer, IN_ANALYSIS_VISA[-4:])


def test_storing_the_same_card_again_keeps_one_to_offer(orderpay_emulator, buyer):
    first = _stored_card(buyer)
    create_order(order_payload("store-4", charges=[charge(700, raw_card(store=True))]), user=buyer)

    active = CardToken.objects.active()
    assert active.count() == 1
    assert active.get().pk != first.pk  # the newest token of the card is the one offered
    first.refresh_from_db()
    assert first.removed_at is not None


def test_another_card_or_another_owner_is_not_replaced(orderpay_emulator, buyer, other_buyer):
    first = _stored_card(buyer)
    create_order(
        order_payload("store-5", charges=[charge(700, raw_card(APPROVED_ELO, store=True))]),
        user=buyer,
    )
    create_order(
        order_payload("store-6", charges=[charge(700, raw_card(store=True))]), user=other_buyer
    )

    assert CardToken.objects.active().count() == 3
    first.refresh_from_db()
    assert first.is_active


def test_the_owner_removes_a_stored_card_and_it_pays_nothing_again(orderpay_emulator, buyer):
    token = _stored_card(buyer)
    order = create_order(order_payload("after-removal"), user=buyer)

    remove_card_token(token, user=buyer)

    assert not CardToken.objects.active().exists()
    with pytest.raises(CardTokenNotOwned):
        pay_with_card_token(order, token, user=buyer, security_code=CVV)
    with pytest.raises(CardTokenNotOwned):
        remove_card_token(token, user=buyer)  # once


def test_nobody_else_removes_a_stored_card(orderpay_emulator, buyer, other_buyer):
    token = _stored_card(buyer)

    with pytest.raises(CardTokenNotOwned):
        remove_card_token(token, user=other_buyer)
    with pytest.raises(CardTokenNotOwned):
        remove_card_token(token, user=AnonymousUser())

    token.refresh_from_db()
    assert token.is_active
