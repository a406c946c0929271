"""A connected seller's card checkout asks its two browser endpoints for the seller's account.

The page a shop renders for a seller (``CardCheckoutForm(account=seller)``,
or ``{% orderpay_card_form form order=<the seller's order> %}``) carries
signed tokens naming the seller: ``/orderpay/installments/`` then asks
PagBank's fees with the seller's token (fees are each account's own), and
``/orderpay/3ds-session/`` makes the 3-D Secure session with it (a session
says which merchant the SDK authenticates for). Everything runs through the
template tag, the Django test client and the emulator over HTTP; which
account's token reached the emulator is read from the requests it was sent.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.core import signing
from django.core.exceptions import ImproperlyConfigured
from django.template import Context, Template
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse_lazy

from django_orderpay import services
from django_orderpay.checkout import (
    PLANS_SALT,
    THREEDS_SESSION_SALT,
    CardCheckoutForm,
    check_threeds_session_token,
    read_plans_token,
    session_binding,
    sign_plans,
    sign_threeds_session,
)
from django_orderpay.connect.accounts import disconnect
from django_orderpay.models import ConnectedAccount, Order
from tests.connect_support import accounts, seen, staff
from tests.test_services_support import order_payload
from tests.test_threeds_debit_fees import FRICTIONLESS, authenticate_with, posted

__all__ = ["accounts", "seen", "staff"]

pytestmark = pytest.mark.django_db

PLANS_URL = reverse_lazy("orderpay:installment_plans")
SESSION_URL = reverse_lazy("orderpay:threeds_session")
FEES = "/charges/fees/calculate"
SESSIONS = "/checkout-sdk/sessions"
CARD_FORM = (
    "{% load orderpay %}"
    "{% orderpay_card_form form order=order account=account customer=customer address=address %}"
)
CUSTOMER = {"name": "Jose da Silva", "email": "jose@example.com"}
ADDRESS = {"street": "Av. Paulista", "postal_code": "01311300", "city": "Sao Paulo"}


@pytest.fixture
def shopper() -> Client:
    """A shopper's browser (not the staff's client that connected the sellers), with its
    session: the page's plans token is good with it only."""
    browser = Client()
    browser.session.save()
    return browser


def page(shopper: Client, form: Any, *, order: Order | None = None, account: Any = None):
    """The card form as the shopper's page has it: (the plans token, the 3-D Secure config)."""
    request = RequestFactory().get("/pay/")
    request.session = shopper.session
    rendered = Template(CARD_FORM).render(
        Context(
            {
                "form": form,
                "order": order,
                "account": account,
                "customer": None if order else CUSTOMER,
                "address": None if order else ADDRESS,
                "request": request,
            }
        )
    )
    plans = re.search(r'data-orderpay-plans="([^"]+)"', rendered)
    threeds = re.search(r'data-orderpay-3ds="([^"]+)"', rendered)
    return (
        html.unescape(plans[1]) if plans else "",
        json.loads(html.unescape(threeds[1])) if threeds else {},
    )


def _binding(shopper: Client) -> str:
    class Request:
        session = shopper.session

    return session_binding(Request())


def test_a_sellers_page_gets_the_sellers_plans_asked_with_its_token(
    orderpay_emulator, accounts, seen, shopper
):
    seller_a, seller_b = accounts
    token_a, _ = page(
        shopper, CardCheckoutForm(amount=10000, fee_plans=True, account=seller_a, request=None)
    )
    assert read_plans_token(token_a, _binding(shopper)).account_pk == seller_a.pk

    answer = shopper.get(PLANS_URL, {"bin": "411111", "plans": token_a})
    assert answer.status_code == 200
    assert answer.json()["plans"][3]["total"] == 10887
    assert seen(FEES) == [seller_a.account_id]

    # The same amount and BIN on seller B's page and on the platform's own: each account
    # asked with its own token (a cached answer is never another account's).
    token_b, _ = page(
        shopper, CardCheckoutForm(amount=10000, fee_plans=True, account=seller_b, request=None)
    )
    token_own, _ = page(shopper, CardCheckoutForm(amount=10000, fee_plans=True, request=None))
    for token in (token_b, token_own, token_a):
        assert shopper.get(PLANS_URL, {"bin": "411111", "plans": token}).status_code == 200
    assert seen(FEES) == [
        seller_a.account_id,
        seller_b.account_id,
        orderpay_emulator.account_id,
    ]


def test_the_sellers_form_charges_the_plan_its_page_showed(orderpay_emulator, accounts, shopper):
    """The form prices the posted plan from the seller's plans (the ones its page showed),
    not the platform's: with the fees now refused, only the seller's cached plans price it."""
    seller_a, _ = accounts
    token, _ = page(
        shopper, CardCheckoutForm(amount=10000, fee_plans=True, account=seller_a, request=None)
    )
    assert shopper.get(PLANS_URL, {"bin": "411111", "plans": token}).status_code == 200
    orderpay_emulator.control("POST", "options", {"fees_configured": False})

    data = posted(orderpay_emulator, "4111111111111111", installments="4", card_bin="411111")
    platforms = CardCheckoutForm(data, fee_plans=True, amount=10000, request=None)
    assert not platforms.is_valid()
    form = CardCheckoutForm(data, fee_plans=True, amount=10000, account=seller_a, request=None)
    assert form.is_valid(), form.errors
    order = services.create_order(order_payload(charges=None), account=seller_a)
    charge = form.pay(order, 10000).charges.get()
    assert (charge.status, charge.amount_value, charge.installments) == ("PAID", 10887, 4)
    assert charge.order.account == seller_a


def test_a_sellers_3ds_sessions_are_made_with_its_token_and_pay_its_order(
    orderpay_emulator, accounts, seen, shopper
):
    seller_a, _ = accounts
    order = services.create_order(order_payload(charges=None), account=seller_a)
    form = CardCheckoutForm(threeds=True, amount=500, account=seller_a, request=None)
    _, config = page(shopper, form, order=order)
    assert check_threeds_session_token(config["sessionToken"]) == seller_a.pk

    answer = shopper.post(SESSION_URL, {"token": config["sessionToken"]})
    assert answer.status_code == 200
    session = answer.json()["session"]
    sessions = orderpay_emulator.emulator._state.threeds.sessions
    assert sessions[session].account == seller_a.account_id
    # The page's first session and the fresh one: both the seller's.
    assert seen(SESSIONS) == [seller_a.account_id, seller_a.account_id]

    # The shopper authenticates with it (the SDK), and the seller's order is paid with it.
    authentication = authenticate_with(orderpay_emulator, session, FRICTIONLESS, 500).json()
    data = posted(orderpay_emulator, FRICTIONLESS, authentication_id=authentication["id"])
    paying = CardCheckoutForm(data, threeds=True, amount=500, account=seller_a, request=None)
    assert paying.is_valid(), paying.errors
    assert paying.pay(order, 500).charges.get().status == "PAID"


def test_the_platforms_own_page_keeps_its_tokens_and_its_sessions(
    orderpay_emulator, accounts, seen, shopper, caplog
):
    """A page without an account: its tokens are as before Connect, and its session is the
    platform's, whose authentication pays none of a seller's orders."""
    seller_a, _ = accounts
    _, config = page(
        shopper, CardCheckoutForm(threeds=True, amount=500, request=None), account=None
    )
    assert (
        signing.TimestampSigner(salt=THREEDS_SESSION_SALT).unsign(config["sessionToken"])
        == "session"
    )
    assert len(signing.loads(sign_plans(10000, 12, 0), salt=PLANS_SALT)) == 4
    session = shopper.post(SESSION_URL, {"token": config["sessionToken"]}).json()["session"]
    assert seen(SESSIONS) == [orderpay_emulator.account_id] * 2

    authentication = authenticate_with(orderpay_emulator, session, FRICTIONLESS, 500).json()
    data = posted(orderpay_emulator, FRICTIONLESS, authentication_id=authentication["id"])
    sellers_order = services.create_order(order_payload(charges=None), account=seller_a)
    form = CardCheckoutForm(data, threeds=True, amount=500, account=seller_a, request=None)
    assert form.is_valid()
    with caplog.at_level("WARNING", logger="django_orderpay.forms"):
        assert form.pay(sellers_order, 500) is None
    assert "authentication_not_found" in caplog.text  # PagBank's word: not this merchant's
    assert not sellers_order.charges.filter(status="PAID").exists()


def test_a_token_naming_another_account_is_refused(accounts, seen, shopper):
    seller_a, seller_b = accounts
    binding = _binding(shopper)
    token, config = page(
        shopper,
        CardCheckoutForm(
            threeds=True, amount=10000, fee_plans=True, account=seller_a, request=None
        ),
    )

    # The shopper rewrites the account in the plans token (its payload is readable JSON).
    payload, signed = token.split(":", 1)
    values = [10000, 12, 0, binding, seller_a.pk]
    assert json.loads(signing.b64_decode(payload.encode())) == values
    assert signing.loads(token, salt=PLANS_SALT) == values
    forged = signing.b64_encode(
        json.dumps([10000, 12, 0, binding, seller_b.pk], separators=(",", ":")).encode()
    ).decode()
    answer = shopper.get(PLANS_URL, {"bin": "411111", "plans": f"{forged}:{signed}"})
    assert answer.status_code == 400
    assert answer.json() == {"error": "plans: not a parameter this shop made"}

    # And in the 3-D Secure token (``account:<pk>``, signed).
    value, stamp, signature = config["sessionToken"].rsplit(":", 2)
    assert value == f"account:{seller_a.pk}"
    for forged_token in (
        f"account:{seller_b.pk}:{stamp}:{signature}",
        f"session:{stamp}:{signature}",
    ):
        answer = shopper.post(SESSION_URL, {"token": forged_token})
        assert answer.status_code == 400
        assert answer.json() == {"error": "token: not a parameter this shop made"}
    # A value signed with the salt that names no account (never made by the page) either.
    junk = signing.TimestampSigner(salt=THREEDS_SESSION_SALT).sign(f"seller:{seller_b.pk}")
    assert shopper.post(SESSION_URL, {"token": junk}).status_code == 400
    # One endpoint's token is no good at the other.
    assert shopper.post(SESSION_URL, {"token": token}).status_code == 400
    assert (
        shopper.get(PLANS_URL, {"bin": "411111", "plans": config["sessionToken"]}).status_code
        == 400
    )
    assert seen(FEES) == [] and seen(SESSIONS) == [seller_a.account_id]


@pytest.mark.parametrize("how", ["revoked by the seller", "disconnected", "removed"])
def test_a_page_of_an_account_no_longer_connected_is_told_so(
    how, orderpay_emulator, orderpay_connect, accounts, seen, shopper
):
    seller_a, _ = accounts
    form = CardCheckoutForm(
        threeds=True, amount=10000, fee_plans=True, account=seller_a, request=None
    )
    token, config = page(shopper, form)
    assert shopper.get(PLANS_URL, {"bin": "411111", "plans": token}).status_code == 200
    fees_before = len(seen(FEES))

    if how == "revoked by the seller":
        orderpay_connect.revoke(seller_a.account_id)  # in PagBank: the next call learns it
    elif how == "disconnected":
        disconnect(seller_a)
    else:
        ConnectedAccount.objects.filter(pk=seller_a.pk).delete()

    # A BIN not asked yet (the call meets the revocation), then the one cached before.
    for card_bin in ("524008", "411111"):
        answer = shopper.get(PLANS_URL, {"bin": card_bin, "plans": token})
        assert answer.status_code == 503
        assert answer.json()["error"] == (
            "account: the seller's PagBank account is not connected; the shop must connect it again"
        )
    answer = shopper.post(SESSION_URL, {"token": config["sessionToken"]})
    assert answer.status_code == 503 and "not connected" in answer.json()["error"]
    # Only a seller's revocation is learnt from PagBank (one refused call); otherwise none.
    assert len(seen(FEES)) == fees_before + (how == "revoked by the seller")

    # The platform's own page is not affected.
    own, _ = page(shopper, CardCheckoutForm(amount=10000, fee_plans=True, request=None))
    assert shopper.get(PLANS_URL, {"bin": "411111", "plans": own}).status_code == 200


def test_the_card_form_tag_and_its_form_name_the_same_account(accounts, shopper, caplog):
    """The tag pays the form's account when it is given no other; a page paying one
    account with a form pricing another's plans is a mistake said at once."""
    seller_a, _ = accounts
    token, config = page(
        shopper,
        CardCheckoutForm(
            threeds=True, amount=10000, fee_plans=True, account=seller_a, request=None
        ),
    )
    assert read_plans_token(token, _binding(shopper)).account_pk == seller_a.pk
    assert check_threeds_session_token(config["sessionToken"]) == seller_a.pk

    order = services.create_order(order_payload(charges=None), account=seller_a)
    platforms_form = CardCheckoutForm(amount=10000, fee_plans=True, request=None)
    with (
        override_settings(DEBUG=True),
        pytest.raises(ImproperlyConfigured, match=seller_a.account_id),
    ):
        page(shopper, platforms_form, order=order)
    with caplog.at_level("ERROR", logger="django_orderpay.templatetags"):
        page(shopper, platforms_form, order=order)
    assert "give the form the same account" in caplog.text.lower()
    assert sign_threeds_session(seller_a) != sign_threeds_session()
