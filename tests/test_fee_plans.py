"""Installment plans with interest: what their cache keeps apart, and from how many
installments the checkout applies them. Through the services and the checkout form, on
the emulator over HTTP (its ``fees_configured`` option tells a cached answer from a call).
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

from django_orderpay import services
from django_orderpay.checkout import CardCheckoutForm
from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import AuthenticationError, PayloadError, ProviderError
from tests.test_threeds_debit_fees import open_order, posted

pytestmark = pytest.mark.django_db

ASKED: dict[str, Any] = {
    "card_bin": "411111",
    "max_installments": 12,
    "max_installments_no_interest": 0,
}


# --- the cache ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changed",
    [
        {"value": 9000},
        {"card_bin": "524008"},
        {"max_installments": 6},
        {"max_installments_no_interest": 3},
        {"TOKEN": "another-merchants-token"},
    ],
    ids=lambda changed: next(iter(changed)),
)
def test_plans_are_cached_apart_for_each_thing_they_depend_on(orderpay_emulator, orderpay, changed):
    plans = services.installment_plans(10000, **ASKED)
    orderpay_emulator.control("POST", "options", {"fees_configured": False})
    assert services.installment_plans(10000, **ASKED) == plans  # cached: nothing asked

    asked = {"value": 10000, **ASKED, **changed}
    if "TOKEN" in asked:
        orderpay(TOKEN=asked.pop("TOKEN"))  # another account's plans are its own

    # Not in the cache: the provider is asked (and now refuses).
    with pytest.raises(ProviderError):
        services.installment_plans(asked.pop("value"), **asked)


@pytest.mark.parametrize(("first", "then"), [(3, 0), (0, 3)])
def test_interest_free_plans_are_never_served_to_a_checkout_that_charges_interest(
    orderpay_emulator, first, then
):
    services.installment_plans(10000, card_bin="411111", max_installments_no_interest=first)

    plans = services.installment_plans(10000, card_bin="411111", max_installments_no_interest=then)

    assert [plan.interest_free for plan in plans[1:3]] == [then >= 2, then >= 3]


# --- the checkout applies a plan from two installments on ----------------------------------


def test_two_installments_are_priced_by_the_cards_plan(orderpay_emulator):
    [_one, two, *_] = services.installment_plans(10000, card_bin="411111")
    assert two.installments == 2 and two.interest > 0
    data = posted(orderpay_emulator, "4111111111111111", installments="2", card_bin="411111")
    form = CardCheckoutForm(data, threeds=False, fee_plans=True, amount=10000, request=None)

    assert form.is_valid(), form.errors
    charge = form.pay(open_order(), 10000).charges.get()

    assert (charge.amount_value, charge.installments) == (two.total, 2)
    assert charge.data["amount"]["fees"]["buyer"]["interest"]["total"] == two.interest


def test_two_installments_need_the_cards_number_one_does_not(orderpay_emulator):
    def form(installments: str) -> CardCheckoutForm:
        data = posted(orderpay_emulator, "4111111111111111", installments=installments)
        return CardCheckoutForm(data, threeds=False, fee_plans=True, amount=10000, request=None)

    two = form("2")
    one = form("1")

    assert not two.is_valid()
    assert "installments" in two.errors
    assert one.is_valid(), one.errors
    assert one.plan is None
    assert one.pay(open_order(), 10000).charges.get().amount_value == 10000


def test_a_count_the_cards_plans_do_not_offer_is_refused_by_name(orderpay_emulator):
    # R$ 10.00 in 3 would be installments under the R$ 5.00 minimum: no such plan.
    offered = [p.installments for p in services.installment_plans(1000, card_bin="411111")]
    assert 3 not in offered
    data = posted(orderpay_emulator, "4111111111111111", installments="3", card_bin="411111")
    form = CardCheckoutForm(data, threeds=False, fee_plans=True, amount=1000, request=None)

    assert not form.is_valid()
    assert form.errors["installments"] == ["This card does not offer that many installments."]


@pytest.mark.parametrize("card_bin", ["41111", "4111111", "411111111", "41111a"])
def test_a_bin_is_the_cards_first_6_or_8_digits(orderpay_emulator, card_bin):
    with pytest.raises(PayloadError) as caught:
        services.installment_plans(10000, card_bin=card_bin)

    assert [str(error) for error in caught.value.errors] == [
        "card_bin: must be the card's first 6 or 8 digits"
    ]


def test_plans_are_asked_with_the_merchants_limit_and_the_callers_client(orderpay_emulator):
    assert [p.installments for p in services.installment_plans(10000, **ASKED)] == list(
        range(1, 13)
    )
    six = services.installment_plans(10000, card_bin="411111", max_installments=6)
    assert [p.installments for p in six] == list(range(1, 7))
    # A client given is the one asked (another account here), never this thread's.
    stranger = OrderPayClient(orderpay_emulator.base_url, "not-a-merchants-token", retries=0)
    with pytest.raises(AuthenticationError):
        services.installment_plans(10000, card_bin="411111", client=stranger)
    with pytest.raises(PayloadError) as caught:
        services.installment_plans(0, card_bin="411111")
    assert [error.path for error in caught.value.errors] == ["value"]


def test_plans_are_kept_fifteen_minutes(orderpay_emulator, monkeypatch):
    from django.core.cache.backends import locmem

    plans = services.installment_plans(10000, **ASKED)
    orderpay_emulator.control("POST", "options", {"fees_configured": False})
    started = time.time()

    def minutes_later(minutes: float) -> None:
        monkeypatch.setattr(locmem, "time", SimpleNamespace(time=lambda: started + minutes * 60))

    minutes_later(14.9)
    assert services.installment_plans(10000, **ASKED) == plans
    minutes_later(15.1)
    with pytest.raises(ProviderError, match="fees_not_configured"):
        services.installment_plans(10000, **ASKED)


def test_a_refusal_is_kept_fifteen_minutes_too(orderpay_emulator, monkeypatch):
    from django.core.cache.backends import locmem

    orderpay_emulator.control("POST", "options", {"fees_configured": False})
    with pytest.raises(ProviderError, match="fees_not_configured"):
        services.installment_plans(10000, **ASKED)
    orderpay_emulator.control("POST", "options", {"fees_configured": True})
    started = time.time()

    def minutes_later(minutes: float) -> None:
        monkeypatch.setattr(locmem, "time", SimpleNamespace(time=lambda: started + minutes * 60))

    minutes_later(14.9)  # the refusal again, from the cache: the provider is not asked
    with pytest.raises(ProviderError, match="fees_not_configured"):
        services.installment_plans(10000, **ASKED)
    minutes_later(15.1)  # asked again: the merchant has configured its fees since
    assert [plan.installments for plan in services.installment_plans(10000, **ASKED)] == list(
        range(1, 13)
    )


def test_the_cards_bin_is_sent_and_one_the_provider_does_not_know_is_refused(orderpay_emulator):
    with pytest.raises(ProviderError, match="credit_card_bin data not found"):
        services.installment_plans(10000, card_bin="000000")
