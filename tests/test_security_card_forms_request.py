"""A card form counts the shopper's session and address only when it has the view's request.

Issue 26's standard: a shop that changes no setting is protected; opting out
is explicit. A card form built without ``request=`` would count only the
purchase and the user, so an anonymous bot making a new purchase for each
card would be counted by nothing. Left out, ``request=`` is refused in DEBUG
(``ImproperlyConfigured`` naming it) and logged as an error in production;
``request=None``, given, is the opt-out. Paid through the emulator over
HTTP, as a scratch shop's view would.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from django_orderpay import services
from django_orderpay.card_testing import Shopper
from django_orderpay.checkout import CardCheckoutForm, DebitCardForm
from django_orderpay.forms import CardPaymentForm, SavedCardForm
from django_orderpay.models import CardAttemptRefusal, Charge
from tests.test_forms import DECLINED, HOLDER, encrypted
from tests.test_services_support import order_payload

pytestmark = pytest.mark.django_db

ATTACKER = "203.0.113.66"
FORMS = [CardPaymentForm, SavedCardForm, CardCheckoutForm, DebitCardForm]


def build(form_class, **kwargs):
    return form_class(user=AnonymousUser(), **kwargs)


@pytest.mark.parametrize("form_class", FORMS, ids=lambda c: c.__name__)
def test_a_card_form_without_request_is_refused_in_debug_naming_request(settings, form_class):
    settings.DEBUG = True
    with pytest.raises(ImproperlyConfigured) as refused:
        build(form_class)
    assert f"{form_class.__name__} was built without request=" in str(refused.value)
    assert "request=None" in str(refused.value)  # and how to opt out


@pytest.mark.parametrize("form_class", FORMS, ids=lambda c: c.__name__)
def test_in_production_it_is_logged_as_an_error_every_time(settings, caplog, form_class):
    settings.DEBUG = False
    with caplog.at_level("ERROR", logger="django_orderpay.forms"):
        build(form_class)
        build(form_class)
    errors = [r for r in caplog.records if "was built without request=" in r.getMessage()]
    assert [r.levelname for r in errors] == ["ERROR", "ERROR"]


@pytest.mark.parametrize("form_class", FORMS, ids=lambda c: c.__name__)
def test_request_none_given_opts_out_without_a_word(settings, caplog, form_class):
    settings.DEBUG = True
    with caplog.at_level("ERROR"):
        form = build(form_class, request=None)
    assert form.shopper == Shopper()  # no session, no address: the purchase and the user
    assert not caplog.records


def bot_posts(count: int, request_for) -> list[str]:
    """An anonymous visitor with no cookies making a new purchase for each declined card:
    what became of each attempt ("refused" before any order, or the charge's status)."""
    outcomes = []
    for n in range(count):
        posted = {"holder_name": HOLDER, "encrypted_card": encrypted(DECLINED), "installments": "1"}
        request = RequestFactory().post("/pay/", posted, REMOTE_ADDR=ATTACKER)
        request.user = AnonymousUser()
        form = CardPaymentForm(request.POST, user=request.user, amount=500, **request_for(request))
        if not form.is_valid():
            outcomes.append("refused")
            continue
        order = services.create_order(order_payload(f"bot-{n}"), user=request.user)
        paid = form.pay(order, 500)
        outcomes.append("refused" if paid is None else paid.charges.get().status)
    return outcomes


def test_a_bot_making_a_purchase_per_card_is_bounded_by_the_address(orderpay_emulator, orderpay):
    orderpay(CARD_DECLINES_PER_ADDRESS=3)
    outcomes = bot_posts(6, lambda request: {"request": request})

    assert outcomes == ["DECLINED"] * 3 + ["refused"] * 3
    assert len(orderpay_emulator.order_ids()) == 3  # refused before any order was made
    refusal = CardAttemptRefusal.objects.get()
    assert (refusal.scope, refusal.address) == ("address", ATTACKER)


def test_opted_out_the_same_bot_is_counted_per_purchase_only(orderpay_emulator, orderpay):
    """What ``request=None`` gives up, and what the forms used to do silently."""
    orderpay(CARD_DECLINES_PER_ADDRESS=3)
    outcomes = bot_posts(6, lambda request: {"request": None})

    assert outcomes == ["DECLINED"] * 6
    assert Charge.objects.filter(status="DECLINED").count() == 6


def test_opted_out_a_purchase_and_a_user_are_still_counted(orderpay_emulator, django_user_model):
    user = django_user_model.objects.create_user("maria")
    order = services.create_order(order_payload("one-purchase"), user=user)
    posted = {"holder_name": HOLDER, "encrypted_card": encrypted(DECLINED), "installments": "1"}
    statuses = []
    for _ in range(4):
        form = CardPaymentForm(posted, user=user, amount=500, request=None)
        paid = form.pay(order, 500) if form.is_valid() else None
        statuses.append(paid.charges.order_by("pk").last().status if paid else "refused")
    # CARD_DECLINES_PER_ORDER (3): the fourth declined card on one purchase is refused.
    assert statuses == ["DECLINED"] * 3 + ["refused"]
    assert CardAttemptRefusal.objects.get().scope == "order"
