"""The demo's test-only controls: a card payment held in analysis decided from its page."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.models import Charge
from django_orderpay.services import capture_charge
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    check_out,
    pay_card,
    products,
    shop,
    status_json,
)

pytestmark = pytest.mark.django_db


def in_analysis(client, products):
    purchase = check_out(client, products)
    pay_card(client, purchase, IN_ANALYSIS_CARD)
    assert status_json(client, purchase)["status"] == "IN_ANALYSIS"
    return purchase


def resolve(client, purchase, outcome):
    url = reverse("shop:resolve_analysis", args=[purchase.reference])
    return client.post(url, {"outcome": outcome}, follow=True)


@pytest.mark.parametrize(("outcome", "status"), [("PAID", "PAID"), ("DECLINED", "DECLINED")])
def test_an_analysis_is_decided_from_the_status_page(client, products, shop, outcome, status):
    purchase = in_analysis(client, products)
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert 'data-testid="approve-analysis"' in page and "test only" in page

    resolve(client, purchase, outcome)

    assert status_json(client, purchase)["status"] == status


def test_nothing_to_decide_is_said_so(client, products, shop):
    purchase = check_out(client, products)
    pay_card(client, purchase)  # paid at once

    response = resolve(client, purchase, "PAID")

    assert "There is no payment in analysis to decide." in html.unescape(response.content.decode())
    assert status_json(client, purchase)["status"] == "PAID"


def test_outside_the_emulator_there_are_no_test_controls(client, products, shop, settings):
    purchase = in_analysis(client, products)
    settings.ORDERPAY = {**settings.ORDERPAY, "ENVIRONMENT": "sandbox"}

    response = resolve(client, purchase, "PAID")

    assert response.status_code == 404
    assert (
        'data-testid="approve-analysis"'
        not in client.get(purchase.get_absolute_url()).content.decode()
    )


def test_authorise_only_leaves_the_card_to_capture_in_the_admin(client, products, shop):
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert 'data-testid="authorise-only"' in page

    pay_card(client, purchase, authorise_only="on")

    charge = Charge.objects.get()
    assert (charge.status, charge.capture) == ("AUTHORIZED", False)
    assert status_json(client, purchase)["status"] == "AUTHORIZED"
    capture_charge(charge)  # what the admin's capture button does
    assert status_json(client, purchase)["status"] == "PAID"


def test_outside_the_emulator_a_card_is_always_captured(client, products, shop, settings):
    purchase = check_out(client, products)
    settings.ORDERPAY = {**settings.ORDERPAY, "ENVIRONMENT": "sandbox"}

    pay_card(client, purchase, authorise_only="on")

    assert Charge.objects.get().status == "PAID"
