"""A connected seller's page offers, prices and charges only the cards stored for the seller.

PagBank lets a stored card (``CARD_...``) be charged only by the account
that stored it ("o token só pode ser utilizado por quem o gera"), so
``SavedCardForm(account=seller)`` lists the buyer's cards stored with that
seller alone, asks the seller's installment plans and charges through the
seller's token. A page here is a shop's view of one order: its form is made
for the order's account, rendered and posted through the Django test client;
the cards are stored, the plans asked and the charges made on the emulator
over HTTP, and which account's token reached it is read from its requests.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template import Context, Template
from django.urls import path

from django_orderpay import services
from django_orderpay.forms import NOT_A_SAVED_CARD, SavedCardForm
from django_orderpay.installments import offered_plans
from django_orderpay.models import CardToken, ConnectedAccount, Order
from tests import urls as test_urls
from tests.connect_support import accounts, seen, staff
from tests.test_services_support import buyer, charge, order_payload, raw_card

__all__ = ["accounts", "buyer", "seen", "staff"]

AMOUNT = 10000
FEES = "/charges/fees/calculate"
PAGE = Template(
    '<form method="post" data-orderpay-saved-plans="{{ form.plans_json }}">'
    "{{ form.non_field_errors }}{{ form.card_token.errors }}{{ form.card_token }}"
    "{{ form.installments.errors }}{{ form.installments }}{{ form.intent }}</form>"
)


def pay_page(request: HttpRequest, order_pk: int) -> HttpResponse:
    """A shop's page paying one order with a saved card, for the order's own account."""
    order = get_object_or_404(Order, pk=order_pk)
    form = SavedCardForm(
        request.POST or None,
        user=request.user,
        request=request,
        amount=AMOUNT,
        fee_plans=True,
        account=order.account,
    )
    if request.method == "POST" and form.is_valid():
        paid = form.pay(order, AMOUNT)
        if paid is not None:
            return HttpResponse(f"paid: {paid.status}")
    return HttpResponse(PAGE.render(Context({"form": form})))


urlpatterns = [path("pay-saved/<int:order_pk>/", pay_page), *test_urls.urlpatterns]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def store(buyer: Any, account: ConnectedAccount | None, reference: str) -> CardToken:
    """The buyer's Visa stored with ``account`` (a paid order that keeps the card)."""
    services.create_order(
        order_payload(reference, charges=[charge(500, raw_card(store=True))]),
        user=buyer,
        account=account,
    )
    return CardToken.objects.get(user=buyer, account=account)


def unpaid(account: ConnectedAccount | None, reference: str) -> Order:
    return services.create_order(order_payload(reference, charges=None), account=account)


def offered(answer: HttpResponse) -> list[int]:
    """The saved cards a rendered page offers (their row ids)."""
    return [int(pk) for pk in re.findall(r'name="card_token" value="(\d+)"', answer.text)]


def plans_shown(answer: HttpResponse) -> dict[str, list[dict[str, Any]]]:
    shown = re.search(r'data-orderpay-saved-plans="([^"]*)"', answer.text)
    assert shown is not None
    return json.loads(html.unescape(shown[1]))


@pytest.fixture
def cards(orderpay_emulator, accounts, buyer, client) -> tuple[CardToken, CardToken]:
    """The buyer's same Visa stored twice: with seller A, and with the shop's own account;
    the buyer logged in to ``client``."""
    seller_a, _ = accounts
    client.force_login(buyer)
    return store(buyer, seller_a, "keep-a"), store(buyer, None, "keep-own")


def test_a_card_stored_for_seller_a_is_offered_on_as_page_only(accounts, cards, client):
    seller_a, seller_b = accounts
    card_a, card_own = cards
    order_a, order_b, order_own = (
        unpaid(seller_a, "for-a"),
        unpaid(seller_b, "for-b"),
        unpaid(None, "for-own"),
    )

    page_a = client.get(f"/pay-saved/{order_a.pk}/")
    assert offered(page_a) == [card_a.pk]
    assert list(plans_shown(page_a)) == [str(card_a.pk)]
    assert offered(client.get(f"/pay-saved/{order_b.pk}/")) == []
    assert offered(client.get(f"/pay-saved/{order_own.pk}/")) == [card_own.pk]
    assert card_a.provider_id not in page_a.text
    assert not SavedCardForm(user=card_a.user, account=seller_b, request=None).has_cards


def test_as_page_shows_as_plans_and_charges_them_with_as_token(
    orderpay_emulator, accounts, cards, client, seen
):
    seller_a, _ = accounts
    card_a, _ = cards
    order = unpaid(seller_a, "for-a")

    page = client.get(f"/pay-saved/{order.pk}/")
    assert seen(FEES) == [seller_a.account_id]
    [plan] = [
        p
        for p in offered_plans(AMOUNT, card_bin="411111", fee_plans=True, account=seller_a)
        if p.installments == 4
    ]
    assert plan.interest  # the buyer pays interest: the total charged is the plan's
    shown = {p["installments"]: p["total"] for p in plans_shown(page)[str(card_a.pk)]}
    assert shown[4] == plan.total

    paid = client.post(f"/pay-saved/{order.pk}/", {"card_token": card_a.pk, "installments": "4"})
    assert paid.text == "paid: PAID"
    assert seen(f"/orders/{order.provider_id}/pay") == [seller_a.account_id]
    charge = Order.objects.get(pk=order.pk).charges.get()
    assert (charge.amount_value, charge.installments, charge.card_token) == (
        plan.total,
        4,
        card_a,
    )
    provider_order = orderpay_emulator.emulator._state.orders[order.provider_id]
    assert provider_order.account == seller_a.account_id


def test_a_card_of_another_account_posted_is_refused_naming_the_field(
    accounts, cards, client, seen
):
    seller_a, seller_b = accounts
    card_a, card_own = cards

    for order, posted in (
        (unpaid(seller_b, "for-b"), card_a),
        (unpaid(None, "for-own"), card_a),
        (unpaid(seller_a, "for-a"), card_own),
    ):
        answer = client.post(
            f"/pay-saved/{order.pk}/", {"card_token": posted.pk, "installments": "1"}
        )
        assert answer.status_code == 200
        form = answer.context["form"]
        assert form.errors == {"card_token": [NOT_A_SAVED_CARD]}
        assert str(NOT_A_SAVED_CARD) in answer.text
        assert seen(f"/orders/{order.provider_id}/pay") == []
        assert not Order.objects.get(pk=order.pk).charges.exists()


def test_a_form_given_another_accounts_order_sends_nothing(accounts, cards, buyer, seen):
    """The shop's mistake (a form of one account paying another's order) is refused before
    any call, naming ``account``: its cards and plans are not the order's account's."""
    seller_a, seller_b = accounts
    card_a, card_own = cards

    for account, card, order in (
        (seller_a, card_a, unpaid(seller_b, "for-b")),
        (seller_a, card_a, unpaid(None, "for-own")),
        (None, card_own, unpaid(seller_a, "for-a")),
    ):
        form = SavedCardForm(
            {"card_token": card.pk, "installments": "1"}, user=buyer, account=account, request=None
        )
        assert form.is_valid(), form.errors
        assert form.pay(order, 500) is None
        [error] = form.non_field_errors()
        assert "account:" in error and order.provider_id in error
        assert "card_token" not in form.errors
        assert seen(f"/orders/{order.provider_id}/pay") == []
