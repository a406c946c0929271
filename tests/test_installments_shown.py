"""The checkout shows what is charged: installments whose shares add up, one source of plans.

A typed card and a saved one are offered the same plans for the same BIN
(``django_orderpay.installments``); each label's shares multiply back to the
total the provider charges (the first installment carrying the odd cents),
and what is paid is that total, the buyer's interest included. The example
shop's status page, summary and history then say the amount charged.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from django_orderpay import services
from django_orderpay.checkout import sign_plans
from django_orderpay.forms import SavedCardForm
from django_orderpay.installments import (
    first_installment,
    interest_free_plans,
    offered_plans,
    plan_label,
)
from django_orderpay.models import CardToken, format_cents
from django_orderpay.services.fees import InstallmentPlan
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    CUSTOMER,
    add,
    check_out,
    maria,
    pay_card,
    products,
    shop,
)
from tests.test_services_support import charge, order_payload, raw_card

pytestmark = pytest.mark.django_db

NO_INTEREST = 3


@pytest.mark.parametrize("amount", [500, 999, 1000, 7900, 10000, 12870, 15470, 99_999_999])
def test_interest_free_shares_add_up_to_the_amount(amount):
    plans = interest_free_plans(amount, 12)

    for plan in plans:
        first = first_installment(plan)
        assert first + (plan.installments - 1) * plan.installment_value == amount
        assert abs(first - plan.installment_value) < plan.installments  # only the odd cents
        assert plan.installment_value >= 500 or plan.installments == 1
    assert len(plans) == min(12, max(1, amount // 500))


def test_a_label_names_the_installment_that_carries_the_odd_cents():
    even = InstallmentPlan(4, 2690, 10760, 760)
    odd = InstallmentPlan(6, 1317, 7900, 0)
    odd_with_interest = InstallmentPlan(5, 2070, 10349, 349)

    assert plan_label(even) == "4x R$ 26.90 (total R$ 107.60)"
    assert plan_label(odd) == "6x: the first R$ 13.15 and 5x R$ 13.17 (no interest)"
    assert plan_label(odd_with_interest) == (
        "5x: the first R$ 20.69 and 4x R$ 20.70 (total R$ 103.49)"
    )


def test_the_providers_plans_are_labelled_with_shares_that_add_up(orderpay_emulator):
    plans = offered_plans(
        12870, card_bin="411111", fee_plans=True, max_installments_no_interest=NO_INTEREST
    )

    assert [p.interest_free for p in plans[:NO_INTEREST]] == [True] * NO_INTEREST
    assert all(p.interest for p in plans[NO_INTEREST:])
    for plan in plans:
        assert first_installment(plan) + (plan.installments - 1) * plan.installment_value == (
            plan.total
        )
        assert plan_label(plan).startswith(f"{plan.installments}x")


@pytest.fixture
def saved_card(orderpay_emulator, django_user_model):
    """A Visa stored for its owner (the emulator's token)."""
    owner = django_user_model.objects.create_user("owner")
    services.create_order(
        order_payload("keep-card", charges=[charge(500, raw_card(store=True))]), user=owner
    )
    return owner, CardToken.objects.get(user=owner)


def test_a_saved_card_is_offered_the_plans_a_typed_card_of_its_bin_is(
    client, saved_card, orderpay_emulator
):
    owner, token = saved_card
    form = SavedCardForm(
        user=owner,
        amount=12870,
        fee_plans=True,
        max_installments_no_interest=NO_INTEREST,
        request=None,
    )
    typed = client.get(
        "/orderpay/installments/",
        {"bin": token.first_digits, "plans": sign_plans(12870, 12, NO_INTEREST)},
    ).json()["plans"]

    saved = [(plan.installments, plan_label(plan), plan.total) for plan in form.plans[token.pk]]
    assert saved == [(p["installments"], p["label"], p["total"]) for p in typed]
    assert [label for _, label in form.fields["installments"].choices] == [p[1] for p in saved]
    shown = json.loads(form.plans_json)[str(token.pk)]
    assert [p["total_display"] for p in shown] == [format_cents(p[2]) for p in saved]


def test_a_saved_card_pays_each_plans_total_with_the_buyers_interest(saved_card, orderpay):
    orderpay(CARD_TESTING_LIMITS=False)  # twelve payments in a row by one shopper, on purpose
    owner, token = saved_card
    plans = offered_plans(
        12870, card_bin=token.first_digits, fee_plans=True, max_installments_no_interest=NO_INTEREST
    )

    for plan in plans:
        data = {"card_token": token.pk, "installments": str(plan.installments)}
        form = SavedCardForm(
            data,
            user=owner,
            amount=12870,
            fee_plans=True,
            max_installments_no_interest=NO_INTEREST,
            request=None,
        )
        assert form.is_valid(), form.errors
        order = services.create_order(order_payload(f"plan-{plan.installments}"), user=owner)
        charge = form.pay(order, 12870).charges.get()

        assert (charge.amount_value, charge.installments) == (plan.total, plan.installments)
        assert charge.buyer_interest == plan.interest


def test_a_saved_card_refuses_installments_its_plans_do_not_offer(saved_card):
    owner, token = saved_card
    data = {"card_token": token.pk, "installments": "12"}

    form = SavedCardForm(
        data, user=owner, amount=1500, request=None
    )  # R$ 15,00: 3 installments at most

    assert not form.is_valid()
    assert "installments" in form.errors


# --- the example shop: what the shopper reads -----------------------------------------------


@pytest.fixture
def fee_plans(settings):
    settings.SHOP_FEE_PLANS = True
    settings.SHOP_INSTALLMENTS_NO_INTEREST = NO_INTEREST


def test_the_status_page_and_history_say_the_amount_charged_with_its_interest(
    client, products, shop, maria, fee_plans
):
    client.force_login(maria)
    purchase = check_out(client, products)  # R$ 154,70
    [plan] = [
        p
        for p in offered_plans(
            15470, card_bin="411111", fee_plans=True, max_installments_no_interest=NO_INTEREST
        )
        if p.installments == 6
    ]

    pay_card(client, purchase, installments="6", card_bin="411111")

    charge = purchase.payment_orders().get().charges.get()
    assert (charge.amount_value, charge.buyer_interest) == (plan.total, plan.interest)
    total, interest = format_cents(plan.total), format_cents(plan.interest)
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert (
        f"Paid: {total} with Visa •••• 1111 in 6 installments, {interest} of it interest." in page
    )
    assert "Total charged" in page and total in page and interest in page
    history = client.get(reverse("shop:purchases")).content.decode()
    assert total in history and f"{interest} of it interest" in history
    assert format_cents(15470) not in history  # the products' total is not what was charged


def test_the_saved_card_on_the_pay_page_is_priced_by_its_bin(
    client, products, shop, maria, fee_plans
):
    client.force_login(maria)
    pay_card(client, check_out(client, products), save_card="on")
    add(client, products["caneca"])
    client.post(reverse("shop:checkout"), CUSTOMER)
    purchase = maria.purchase_set.order_by("-pk").first()

    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()

    plans = offered_plans(
        purchase.total, card_bin="411111", fee_plans=True, max_installments_no_interest=NO_INTEREST
    )
    interest = [p for p in plans if p.interest]
    assert interest and plan_label(interest[0]) in page  # the saved card's choices quote interest
    assert "data-orderpay-saved-plans=" in page
    assert "data-orderpay-total>" in page
