"""The installment-plans endpoint is no open proxy: attacks through the example shop over HTTP.

The attack (issue 26): 208 anonymous GETs to ``/orderpay/installments/``, no
cookie, with a ``plans`` token copied once from a pay page, made 208 provider
calls (``/charges/fees/calculate``); the token never expired, and the
endpoint was a free BIN lookup. Now the token is good for an hour and only
with the session it was rendered for, each client is throttled, and the
provider's answer for an amount and BIN (a refusal too) is cached.
"""

from __future__ import annotations

import html
import re
import time

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse
from django.utils.crypto import salted_hmac

from django_orderpay.checkout import PLANS_SALT, PLANS_TOKEN_MAX_AGE, sign_plans
from django_orderpay.checkout_views import PLANS_PER_CLIENT, PLANS_WINDOW
from tests.test_example_shop import check_out, products, shop
from tests.test_security_card_testing import provider_calls

__all__ = ["products", "provider_calls", "shop"]

pytestmark = pytest.mark.django_db

PLANS_URL = "/orderpay/installments/"


@pytest.fixture
def pay_page(client, products, shop, settings):
    """A shopper's pay page with fee plans: (the shopper's client, the page's plans token)."""
    settings.SHOP_FEE_PLANS = True
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    token = html.unescape(re.search(r'data-orderpay-plans="([^"]+)"', page).group(1))
    return client, token


def fee_calls(calls) -> int:
    return sum(1 for _, path in calls if path == "/charges/fees/calculate")


def test_a_copied_token_without_its_session_makes_no_provider_call(pay_page, provider_calls):
    _, token = pay_page
    stranger = Client()  # no cookie
    answers = [stranger.get(PLANS_URL, {"plans": token, "bin": "411111"}) for _ in range(20)]
    assert {answer.status_code for answer in answers} == {400}
    assert fee_calls(provider_calls) == 0


def test_the_same_bin_asked_again_is_answered_from_the_cache(pay_page, provider_calls):
    shopper, token = pay_page
    for _ in range(PLANS_PER_CLIENT):
        assert shopper.get(PLANS_URL, {"plans": token, "bin": "411111"}).status_code == 200
    assert fee_calls(provider_calls) == 1


def test_bins_enumerated_are_throttled_per_client(pay_page, provider_calls):
    shopper, token = pay_page
    answers = [shopper.get(PLANS_URL, {"plans": token, "bin": f"4{n:05d}"}) for n in range(208)]
    served = [a for a in answers if a.status_code != 429]
    assert len(served) == PLANS_PER_CLIENT
    assert answers[-1]["Retry-After"] == str(PLANS_WINDOW)
    assert fee_calls(provider_calls) <= PLANS_PER_CLIENT
    # A client without the session, from the same address, is throttled too.
    assert Client().get(PLANS_URL, {"plans": token, "bin": "411111"}).status_code == 429
    # Another address with the session (a bot sharing its cookie) is throttled by the session.
    roaming = Client(REMOTE_ADDR="192.0.2.44")
    roaming.cookies = shopper.cookies
    assert roaming.get(PLANS_URL, {"plans": token, "bin": "411111"}).status_code == 429
    assert Client(REMOTE_ADDR="192.0.2.45").get(PLANS_URL, {"bin": "x"}).status_code == 400


def test_a_refused_bin_is_cached_too(pay_page, provider_calls, shop):
    shopper, token = pay_page
    shop.control("POST", "options", {"fees_configured": False})
    for _ in range(5):
        assert shopper.get(PLANS_URL, {"plans": token, "bin": "524008"}).status_code == 502
    assert fee_calls(provider_calls) == 1


def test_the_token_expires(pay_page, monkeypatch, provider_calls):
    shopper, _ = pay_page
    binding = salted_hmac(
        PLANS_SALT, shopper.cookies["sessionid"].value, algorithm="sha1"
    ).hexdigest()[:24]
    real = time.time()
    with monkeypatch.context() as then:  # tokens signed in the past
        then.setattr(signing.time, "time", lambda: real - PLANS_TOKEN_MAX_AGE - 5)
        old = sign_plans(10000, 12, 0, binding)
        then.setattr(signing.time, "time", lambda: real - PLANS_TOKEN_MAX_AGE + 60)
        fresh = sign_plans(10000, 12, 0, binding)
    expired = shopper.get(PLANS_URL, {"plans": old, "bin": "411111"})
    assert expired.status_code == 400 and "expired" in expired.json()["error"]
    assert shopper.get(PLANS_URL, {"plans": fresh, "bin": "411111"}).status_code == 200
    assert fee_calls(provider_calls) == 1


def test_an_anonymous_visitor_is_given_a_session_for_the_token(client, products, shop, settings):
    settings.SHOP_FEE_PLANS = True
    purchase = check_out(client, products)
    client.cookies.clear()  # the purchase's link, opened without the cart's session
    page = client.get(reverse("shop:pay", args=[purchase.reference]))
    assert "sessionid" in page.cookies
    token = html.unescape(re.search(r'data-orderpay-plans="([^"]+)"', page.content.decode())[1])
    assert client.get(PLANS_URL, {"plans": token, "bin": "411111"}).status_code == 200


def test_the_3ds_session_endpoint_is_throttled_per_client_too(client, shop, provider_calls):
    """Each answer is a new checkout-SDK session made with the merchant's token."""
    from django_orderpay.checkout import sign_threeds_session

    token = sign_threeds_session()
    answers = [client.post("/orderpay/3ds-session/", {"token": token}) for _ in range(60)]
    served = [a for a in answers if a.status_code == 200]
    assert len(served) == PLANS_PER_CLIENT
    assert {a.status_code for a in answers[PLANS_PER_CLIENT:]} == {429}
    sessions = sum(1 for _, path in provider_calls if path == "/checkout-sdk/sessions")
    assert sessions == PLANS_PER_CLIENT
