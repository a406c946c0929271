"""The demo's test-only controls: a card payment held in analysis decided from its page."""

from __future__ import annotations

import html

import pytest
from django.core.wsgi import get_wsgi_application
from django.urls import reverse

from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.emulator.serving.django_view import discard_emulator
from django_orderpay.emulator.serving.wsgi import serving
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


@pytest.fixture
def mounted(settings, orderpay, products):
    """The shop's own mounted emulator as the provider, as ``make demo`` runs (over HTTP)."""
    settings.DEBUG = True
    discard_emulator()
    with serving(get_wsgi_application()) as server:
        url = server.url + "/emulator"
        orderpay(
            ENVIRONMENT="emulator",
            EMULATOR_URL=url,
            BASE_URL=url,
            SDK_URL=url + "/sdk/pagseguro.js",
            PUBLIC_KEY=None,
            EMULATOR_CONTROL_SECRET="demo-secret",
        )
        yield url
    discard_emulator()


def test_the_demo_decides_through_the_mounted_control_plane_with_its_secret(
    client, products, mounted
):
    purchase = in_analysis(client, products)
    resolve(client, purchase, "PAID")
    assert status_json(client, purchase)["status"] == "PAID"


def test_without_the_secret_the_mounted_control_plane_refuses_the_demo(
    client, products, mounted, orderpay
):
    purchase = in_analysis(client, products)
    orderpay(EMULATOR_CONTROL_SECRET=None)
    response = resolve(client, purchase, "PAID")
    assert "The analysis was not decided" in html.unescape(response.content.decode())
    assert status_json(client, purchase)["status"] == "IN_ANALYSIS"
