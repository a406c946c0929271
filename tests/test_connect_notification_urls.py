"""A connected account's notification URL: ``NOTIFICATION_URL`` with ``?account=<its pk>``,
short enough for PagBank's Checkout API (100 characters per notification URL), and the
``?account=ACCO_...`` form earlier versions sent still routed.

Through the emulator (which refuses a longer URL as PagBank does), its own
notifications delivered by the Django test client, and ``manage.py check``.
"""

from __future__ import annotations

import json

import pytest
from django.core import checks
from django.test import override_settings

from django_orderpay import payloads, services
from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.connect.routing import LARGEST_ACCOUNT_KEY, longest_notification_url
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.exceptions import ConfigurationError
from django_orderpay.models import ConnectedAccount, DeliveryOutcome, NotificationDelivery, Order
from tests.connect_support import accounts, seen, staff
from tests.test_services_support import charge, order_payload, raw_card

__all__ = ["accounts", "seen", "staff"]

pytestmark = pytest.mark.django_db

PATH = "/orderpay/notifications/"
#: The longest that fits with the largest key: 100 - len("?account=9223372036854775807").
LONGEST = 72


def _url(length: int) -> str:
    """An https URL of ``length`` characters to the notification view (a longer host)."""
    fixed = len("https://") + len(".example.com") + len(PATH)
    return "https://" + "s" * (length - fixed) + ".example.com" + PATH


#: The reported 58 characters: past 50, where the ``ACCO_`` id's URL stopped fitting.
URL_58 = _url(58)


def _checkout(reference: str, account: ConnectedAccount):
    return services.create_checkout(
        payloads.CheckoutRequest(
            reference_id=reference,
            items=[payloads.CheckoutItem(quantity=1, unit_amount=5990, name="Camiseta")],
        ),
        account=account,
    )


def _serious() -> list[checks.CheckMessage]:
    return [m for m in checks.run_checks(tags=["orderpay"]) if m.is_serious(checks.WARNING)]


@pytest.fixture
def largest(accounts) -> ConnectedAccount:
    """Seller A under the largest key a connected account can have (the longest suffix)."""
    seller_a, _ = accounts
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(id=LARGEST_ACCOUNT_KEY)
    return ConnectedAccount.objects.get(pk=LARGEST_ACCOUNT_KEY)


def test_the_limits_arithmetic():
    assert len(_url(LONGEST)) == LONGEST and len(URL_58) == 58
    assert longest_notification_url(_url(LONGEST)) == LONGEST
    # A URL with a query of its own gets "&account=": the same length.
    assert longest_notification_url("https://s.example/n?shop=1") == LONGEST


def test_a_58_character_url_takes_a_sellers_checkout_and_its_payment_comes_back(
    orderpay_emulator, orderpay_connect, accounts, client, orderpay
):
    orderpay(NOTIFICATION_URL=URL_58)
    seller_a, _ = accounts

    checkout = _checkout("long-url", seller_a)

    routed = f"{URL_58}?account={seller_a.pk}"
    assert checkout.data["notification_urls"] == [routed]
    assert checkout.data["payment_notification_urls"] == [routed]
    orderpay_emulator.pay_checkout(checkout.provider_id)
    # The page's order is not mirrored yet: the URL's key is all that routes it.
    attempts = orderpay_emulator.deliver_notifications(client)
    assert attempts and {a.status for a in attempts} == {200}
    [order] = checkout.orders.all()
    assert (order.status, order.account) == ("PAID", seller_a)
    deliveries = NotificationDelivery.objects.all()
    assert {(d.account, d.valid) for d in deliveries} == {(seller_a, True)}


def test_the_longest_url_that_fits_passes_the_check_and_takes_the_largest_keys_checkout(
    orderpay_emulator, orderpay_connect, largest, client, orderpay
):
    orderpay(NOTIFICATION_URL=_url(LONGEST))
    assert "orderpay.E009" not in {m.id for m in _serious()}

    checkout = _checkout("longest", largest)

    assert checkout.data["notification_urls"] == [f"{_url(LONGEST)}?account={LARGEST_ACCOUNT_KEY}"]
    assert len(checkout.data["notification_urls"][0]) == 100
    orderpay_emulator.pay_checkout(checkout.provider_id)
    orderpay_emulator.deliver_notifications(client)
    [order] = checkout.orders.all()
    assert (order.status, order.account) == ("PAID", largest)


def test_one_character_more_is_refused_by_the_check_and_before_any_call(
    orderpay_emulator, orderpay_connect, largest, orderpay, seen
):
    orderpay(NOTIFICATION_URL=_url(LONGEST + 1))

    [problem] = [m for m in _serious() if m.id == "orderpay.E009"]
    assert problem.level == checks.ERROR
    assert "73 characters" in problem.msg and "at most 72" in problem.hint

    with pytest.raises(ConfigurationError) as refused:
        _checkout("too-long", largest)
    message = str(refused.value)
    assert "NOTIFICATION_URL" in message and "orderpay.E009" in message
    assert "at most 72 characters" in message and largest.account_id in message
    assert seen("/checkouts") == []  # refused here, never a 400 from PagBank


def test_a_smaller_key_still_fits_past_the_checks_bound(
    orderpay_emulator, orderpay_connect, accounts, orderpay
):
    # The check is for every key an account can ever have; a URL it refuses still works
    # for the keys it fits with (the shop may silence E009 knowingly).
    orderpay(NOTIFICATION_URL=_url(LONGEST + 1))
    seller_a, _ = accounts
    checkout = _checkout("small-key", seller_a)
    assert checkout.data["notification_urls"] == [f"{_url(LONGEST + 1)}?account={seller_a.pk}"]


def test_no_connect_no_e009(orderpay):
    long_url = _url(100)
    with override_settings(ORDERPAY={"TOKEN": "tok", "NOTIFICATION_URL": long_url}):
        assert "orderpay.E009" not in {m.id for m in _serious()}


def test_an_order_created_before_the_upgrade_is_routed_by_its_acco_url(
    orderpay_emulator, orderpay_connect, accounts, client
):
    # Earlier versions sent ?account=ACCO_...: PagBank keeps notifying that URL.
    seller_a, _ = accounts
    old_url = f"https://shop.example.com{PATH}?account={seller_a.account_id}"
    order = services.create_order(
        order_payload(
            "before", charges=[charge(500, raw_card(IN_ANALYSIS_CARD))], notification_urls=[old_url]
        ),
        account=seller_a,
    )
    Order.objects.filter(pk=order.pk).delete()  # not mirrored: only the URL names it

    attempts = orderpay_emulator.deliver_notifications(client)

    assert {a.status for a in attempts} == {200}
    adopted = Order.objects.get(provider_id=order.provider_id)
    assert adopted.account == seller_a
    [delivery] = NotificationDelivery.objects.all()
    assert (delivery.account, delivery.signed_with) == (seller_a, "account")


def _ignored(client, orderpay_connect, named: str) -> NotificationDelivery:
    """A notification of an order not mirrored here, at ``?account=<named>``, signed with
    the application's secret: answered 200 ``ignored``; its delivery."""
    body = json.dumps({"id": "ORDE_00000000-0000-0000-0000-000000000001", "charges": []}).encode()
    response = client.post(
        f"{PATH}?account={named}",
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_connect.client_secret, body)},
    )
    assert response.status_code == 200 and response.json()["outcome"] == "ignored"
    [delivery] = NotificationDelivery.objects.all()
    assert delivery.outcome == DeliveryOutcome.IGNORED
    return delivery


def test_a_key_not_connected_here_is_ignored(orderpay_emulator, orderpay_connect, client):
    # (An ACCO_ id not connected here: test_connect_notifications.)
    delivery = _ignored(client, orderpay_connect, "999999")
    assert "account 999999 is not connected here" in delivery.error


@pytest.mark.parametrize("named", ["12a", "-1", str(LARGEST_ACCOUNT_KEY + 1), "\u0661"])
def test_a_key_that_is_no_key_names_no_account(
    orderpay_emulator, orderpay_connect, accounts, client, named
):
    # int() reads "\u0661" (an Arabic-Indic one) as 1: an account 1 is there to be misread.
    seller_a, _ = accounts
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(id=1)
    assert _ignored(client, orderpay_connect, named).account is None
