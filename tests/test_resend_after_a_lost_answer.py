"""A card payment whose answer was lost is sent again as it was, and the provider answers it.

The provider charged the card; its answer never came (and no notification
either). Paying again with the card encrypted anew would reuse the
operation's key with another body: a 409, the outcome still unknown. So the
payment page names the attempt still waiting (``data-orderpay-resend``) and
the browser posts the very same fields again: same key, same body, and the
provider's idempotent replay returns the order, paid, charged once.
"""

from __future__ import annotations

import re
import time

import pytest
from django.urls import reverse

from django_orderpay.client import get_client
from django_orderpay.models import Operation
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    check_out,
    encrypted,
    products,
    shop,
    status_json,
)

pytestmark = pytest.mark.django_db


def the_pages_intent(client, purchase) -> str:
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    [intent] = re.findall(r'name="intent" value="([^"]+)"', page)
    return intent


@pytest.fixture
def lost_answer(client, products, shop, settings):
    """A purchase whose card payment the provider made, its answer lost: what was posted."""
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0, "TIMEOUT": 0.3}
    purchase = check_out(client, products)
    posted = {
        "holder_name": "Jose da Silva",
        "encrypted_card": encrypted("4111111111111111"),
        "installments": "1",
        "intent": the_pages_intent(client, purchase),
    }
    shop.inject_fault("timeout", delay=1, path_prefix="/orders/")  # the pay's answer

    first = client.post(reverse("shop:pay_card", args=[purchase.reference]), posted)

    assert first["Location"] == purchase.get_absolute_url()
    time.sleep(1)  # the provider's work is done by the time its answer is due
    [operation] = Operation.objects.filter(kind="pay")
    assert operation.state == "unknown"
    return purchase, posted


def test_the_page_names_the_attempt_still_waiting(client, lost_answer):
    purchase, posted = lost_answer

    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()

    assert f'data-orderpay-resend="{posted["intent"]}"' in page
    assert "Pressing pay sends it again exactly as it was" in page  # checkout.js shows it


def test_the_same_post_again_is_answered_with_the_charge(client, shop, lost_answer):
    purchase, posted = lost_answer

    again = client.post(reverse("shop:pay_card", args=[purchase.reference]), posted)

    assert again["Location"] == purchase.get_absolute_url()
    assert status_json(client, purchase)["status"] == "PAID"
    [order_id] = shop.order_ids()
    assert len(get_client().get_order(order_id)["charges"]) == 1
    [operation] = Operation.objects.filter(kind="pay")
    assert (operation.state, operation.calls) == ("succeeded", 2)
    page = client.get(reverse("shop:pay", args=[purchase.reference]))
    assert page.status_code == 302  # paid: nothing more to pay, nothing to send again


def test_a_card_encrypted_anew_is_refused_by_the_provider_and_charges_nothing(
    client, shop, lost_answer
):
    """What the browser would send without the remembered post: the same order's payment
    joins the waiting operation and sends its key with a new body; PagBank answers 409
    (the key's body differs), so the outcome stays unknown, and nothing more is charged."""
    purchase, posted = lost_answer
    anew = {**posted, "encrypted_card": encrypted("4111111111111111")}
    anew["intent"] = the_pages_intent(client, purchase)

    response = client.post(reverse("shop:pay_card", args=[purchase.reference]), anew)

    assert response["Location"] == purchase.get_absolute_url()
    page = client.get(response["Location"]).content.decode()
    assert "may have gone through" in page
    [operation] = Operation.objects.filter(kind="pay")
    assert (operation.state, operation.calls) == ("unknown", 2)
    [order_id] = shop.order_ids()
    assert len(get_client().get_order(order_id)["charges"]) == 1
