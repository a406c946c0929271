"""Connected sellers' notifications: routed to their account, verified with its token (or the
application's), and applied to that account's orders only. Through the emulator's own
notifications, delivered to the view by the Django test client.
"""

from __future__ import annotations

import json

import pytest

from django_orderpay import services
from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.models import (
    AccountState,
    ConnectedAccount,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.notifications.processing import process_delivery
from tests.connect_support import accounts, grant_of, staff
from tests.test_notifications_background import DUMMY, background
from tests.test_services_support import buyer, charge, order_payload, raw_card

__all__ = ["accounts", "background", "buyer", "staff"]

pytestmark = pytest.mark.django_db

URL = "/orderpay/notifications/"


@pytest.fixture
def notified(orderpay):
    """The services send each order's notifications to the shop's view."""
    orderpay(NOTIFICATION_URL="https://shop.example.com" + URL)


def _in_analysis(account, reference: str) -> Order:
    # No notification_urls of its own: the services send NOTIFICATION_URL for its account.
    body = order_payload(
        reference, charges=[charge(500, raw_card(IN_ANALYSIS_CARD))], notification_urls=[]
    )
    order = services.create_order(body, account=account)
    assert order.charges.get().status == "IN_ANALYSIS"
    return order


def _deliveries():
    return list(NotificationDelivery.objects.order_by("pk"))


def test_a_notification_for_each_seller_is_verified_and_applied_to_its_account(
    orderpay_emulator, orderpay_connect, accounts, notified, client
):
    seller_a, seller_b = accounts
    order_a = _in_analysis(seller_a, "n-a")
    order_b = _in_analysis(seller_b, "n-b")
    # The account's key here, not its 36-character ACCO_ id: the URL stays short.
    assert order_a.notification_urls == [f"https://shop.example.com{URL}?account={seller_a.pk}"]
    orderpay_emulator.deliver_notifications(client)  # the creates' own
    for order in (order_a, order_b):
        orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")

    attempts = orderpay_emulator.deliver_notifications(client)

    assert [a.status for a in attempts] == [200, 200]
    latest = _deliveries()[-2:]
    assert [(d.account, d.valid, d.signed_with, d.outcome) for d in latest] == [
        (seller_a, True, "account", DeliveryOutcome.PROCESSED),
        (seller_b, True, "account", DeliveryOutcome.PROCESSED),
    ]
    for order, account in ((order_a, seller_a), (order_b, seller_b)):
        order.refresh_from_db()
        assert (order.status, order.account) == ("PAID", account)


def test_signed_with_the_applications_token_is_verified_too(
    orderpay_emulator, orderpay_connect, accounts, notified, client
):
    orderpay_connect.configure(signer="application")
    seller_a, _ = accounts
    order = _in_analysis(seller_a, "app-signed")

    orderpay_emulator.deliver_notifications(client)

    [delivery] = _deliveries()
    assert (delivery.valid, delivery.signed_with, delivery.account) == (
        True,
        "application",
        seller_a,
    )
    assert delivery.outcome == DeliveryOutcome.PROCESSED
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"


def test_accepting_only_the_accounts_token_refuses_the_applications(
    orderpay_emulator, orderpay_connect, accounts, notified, client, orderpay
):
    orderpay(CONNECT_NOTIFICATION_SIGNER="account")
    orderpay_connect.configure(signer="application")
    seller_a, _ = accounts
    _in_analysis(seller_a, "strict")

    attempts = orderpay_emulator.deliver_notifications(client)

    assert {a.status for a in attempts} == {401}
    delivery = _deliveries()[0]
    assert delivery.valid is False and delivery.outcome == DeliveryOutcome.REJECTED
    assert "CONNECT_NOTIFICATION_SIGNER" in delivery.error


def test_accepting_only_the_applications_token_refuses_the_accounts(
    orderpay_emulator, orderpay_connect, accounts, notified, client, orderpay
):
    orderpay(CONNECT_NOTIFICATION_SIGNER="application")
    seller_a, _ = accounts
    _in_analysis(seller_a, "strict-app")
    attempts = orderpay_emulator.deliver_notifications(client)
    assert {a.status for a in attempts} == {401}


def test_a_sellers_order_signed_with_another_sellers_token_is_refused(
    orderpay_emulator, orderpay_connect, accounts, client, orderpay
):
    orderpay(NOTIFICATION_TRUST_BODY=True)
    seller_a, seller_b = accounts
    order = services.create_order(order_payload("victim", charges=[charge(500)]), account=seller_a)
    forged = dict(order.data, charges=[dict(order.data["charges"][0], status="CANCELED")])
    body = json.dumps(forged).encode()
    b_token = grant_of(orderpay_connect, seller_b.account_id)["access_token"]

    response = client.post(
        f"{URL}?account={seller_b.account_id}",
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(b_token, body)},
    )

    assert response.status_code == 401
    order.refresh_from_db()
    assert (order.status, order.account) == ("PAID", seller_a)


def test_a_trusted_body_is_applied_to_its_account(
    orderpay_emulator, orderpay_connect, accounts, notified, client, orderpay
):
    orderpay(NOTIFICATION_TRUST_BODY=True)
    seller_a, _ = accounts
    order = _in_analysis(seller_a, "trusted")
    orderpay_emulator.deliver_notifications(client)
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")
    orderpay_emulator.deliver_notifications(client)
    order.refresh_from_db()
    assert order.status == "PAID"
    assert all(d.account == seller_a for d in _deliveries())


def test_an_order_unknown_here_is_adopted_for_the_account_its_url_names(
    orderpay_emulator, orderpay_connect, accounts, notified, client
):
    seller_a, _ = accounts
    order = _in_analysis(seller_a, "lost")
    Order.objects.filter(pk=order.pk).delete()

    orderpay_emulator.deliver_notifications(client)

    adopted = Order.objects.get(provider_id=order.provider_id)
    assert adopted.account == seller_a
    [delivery] = _deliveries()
    assert delivery.outcome == DeliveryOutcome.PROCESSED and "adopted" in delivery.error


def test_an_account_not_connected_here_is_ignored(orderpay_emulator, orderpay_connect, client):
    body = json.dumps({"id": "ORDE_00000000-0000-0000-0000-000000000001", "charges": []}).encode()
    response = client.post(
        f"{URL}?account=ACCO_00000000-0000-0000-0000-0000000000AA",
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_connect.client_secret, body)},
    )
    assert response.status_code == 200 and response.json()["outcome"] == "ignored"
    [delivery] = _deliveries()
    assert "is not connected here" in delivery.error
    unsigned = client.post(
        f"{URL}?account=ACCO_00000000-0000-0000-0000-0000000000AA",
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": "0" * 64},
    )
    assert unsigned.status_code == 401


def test_the_shops_own_orders_still_go_by_its_token(
    orderpay_emulator, orderpay_connect, accounts, notified, client
):
    order = services.create_order(
        order_payload(
            "own", charges=[charge(500, raw_card(IN_ANALYSIS_CARD))], notification_urls=[]
        )
    )
    assert order.notification_urls == [f"https://shop.example.com{URL}"]
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")

    orderpay_emulator.deliver_notifications(client)

    assert {(d.account, d.valid, d.signed_with) for d in _deliveries()} == {(None, True, "")}
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_notification_of_an_account_needing_authorisation_fails_until_it_is_authorised(
    orderpay_emulator, orderpay_connect, accounts, notified, client, staff
):
    seller_a, _ = accounts
    order = _in_analysis(seller_a, "paused")
    orderpay_emulator.deliver_notifications(client)
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(state=AccountState.NEEDS_AUTHORIZATION)

    attempts = orderpay_emulator.deliver_notifications(client)

    assert attempts[-1].status == 500
    failed = NotificationDelivery.objects.filter(outcome=DeliveryOutcome.FAILED).last()
    assert "AccountNeedsAuthorization" in failed.error
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(state=AccountState.ACTIVE)
    assert process_delivery(failed).outcome == DeliveryOutcome.PROCESSED
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_recorded_delivery_is_processed_for_its_account(
    orderpay_emulator, orderpay_connect, accounts, notified, client, background
):
    background(DUMMY)  # recorded, and left for a worker
    seller_a, _ = accounts
    order = _in_analysis(seller_a, "later")
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")

    orderpay_emulator.deliver_notifications(client)

    waiting = list(NotificationDelivery.objects.filter(outcome=DeliveryOutcome.RECEIVED))
    assert waiting and {d.account for d in waiting} == {seller_a}
    for delivery in waiting:
        assert process_delivery(delivery).ok
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_sellers_order_notified_at_the_plain_url_goes_by_its_order(
    orderpay_emulator, orderpay_connect, accounts, client
):
    # The shop named its own notification_urls (no ?account=): the order, mirrored here,
    # says whose it is, and its seller's token verifies it.
    seller_a, _ = accounts
    order = services.create_order(
        order_payload("own-url", charges=[charge(500, raw_card(IN_ANALYSIS_CARD))]),
        account=seller_a,
    )
    assert "account=" not in order.notification_urls[0]
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")

    attempts = orderpay_emulator.deliver_notifications(client)

    assert {a.status for a in attempts} == {200}
    assert {(d.account, d.signed_with) for d in _deliveries()} == {(seller_a, "account")}
    order.refresh_from_db()
    assert order.status == "PAID"
