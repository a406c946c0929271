"""Each action is offered to, and performed for, only staff holding its own permission."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.test import Client

from django_orderpay.client import get_client
from django_orderpay.services import create_order
from django_orderpay.testing.factories import ChargeFactory
from tests.admin_support import (
    action_names,
    card_charge,
    changelist,
    client_for,
    csrf_token,
    make_user,
    messages_of,
    order_body,
    post_action,
)

pytestmark = pytest.mark.django_db

CHARGE_ACTIONS = {
    "cancel_charges": "cancel_charge",
    "refund_charges_partially": "cancel_charge",
    "capture_charges": "capture_charge",
    "refresh_orders_of_charges": "refresh_order",
}


@pytest.mark.parametrize(
    ("permissions", "offered"),
    [
        ((), set()),
        (("cancel_charge",), {"cancel_charges", "refund_charges_partially"}),
        (("capture_charge",), {"capture_charges"}),
        (("refresh_order",), {"refresh_orders_of_charges"}),
        (("cancel_charge", "capture_charge", "refresh_order"), set(CHARGE_ACTIONS)),
    ],
)
def test_charge_actions_offered_follow_the_permissions(permissions, offered):
    ChargeFactory()
    user = make_user("clerk", "view_charge", *permissions)

    assert set(action_names(client_for(user), "charge")) == offered


def test_superuser_is_offered_every_action():
    ChargeFactory()
    boss = client_for(make_user("boss", superuser=True))

    assert set(action_names(boss, "charge")) == set(CHARGE_ACTIONS)
    assert action_names(boss, "order") == ["refresh_orders"]
    assert action_names(boss, "notificationdelivery") == ["replay_deliveries"]


def test_order_refresh_and_replay_need_refresh_order():
    ChargeFactory()
    viewer = client_for(make_user("viewer", "view_order", "view_notificationdelivery"))
    refresher = client_for(
        make_user("refresher", "view_order", "view_notificationdelivery", "refresh_order")
    )

    assert action_names(viewer, "order") == []
    assert action_names(viewer, "notificationdelivery") == []
    assert action_names(refresher, "order") == ["refresh_orders"]
    assert action_names(refresher, "notificationdelivery") == ["replay_deliveries"]


@pytest.mark.parametrize("action", sorted(CHARGE_ACTIONS))
def test_a_forged_post_without_the_permission_does_nothing(orderpay_emulator, action):
    paid = create_order(order_body(card_charge(1000))).charges.get()
    authorised = create_order(order_body(card_charge(1000, capture=False))).charges.get()
    # Holds every permission but the one this action needs.
    others = {perm for name, perm in CHARGE_ACTIONS.items() if perm != CHARGE_ACTIONS[action]}
    client = client_for(make_user("clerk", "view_charge", *others))
    forged = {"confirmation": "a" * 32, "amount": "1,00"}

    first = post_action(client, "charge", action, [paid, authorised])
    confirmed = post_action(client, "charge", action, [paid, authorised], confirm=forged)

    for response in (first, confirmed):
        assert response.status_code == 302  # back to the list, no confirmation page
        assert messages_of(response) == [("warning", "No action selected.")]
    for charge, status in ((paid, "PAID"), (authorised, "AUTHORIZED")):
        remote = get_client().get_charge(charge.provider_id)
        assert (remote["status"], remote["amount"]["summary"]["refunded"]) == (status, 0)
        charge.refresh_from_db()
        assert charge.status == status


def test_staff_without_view_permission_get_403():
    ChargeFactory()
    client = client_for(make_user("clerk", "cancel_charge"))

    assert client.get(changelist("charge")).status_code == 403


def test_an_action_post_without_csrf_token_is_refused(orderpay_emulator):
    paid = create_order(order_body(card_charge(1000))).charges.get()
    client = client_for(make_user("boss", superuser=True))
    data = {
        "action": "cancel_charges",
        helpers.ACTION_CHECKBOX_NAME: [str(paid.pk)],
        "post": "yes",
        "confirmation": "b" * 32,
    }

    response = client.post(changelist("charge"), data)

    assert response.status_code == 403
    assert get_client().get_charge(paid.provider_id)["status"] == "PAID"


def test_a_token_from_another_session_is_refused(orderpay_emulator):
    paid = create_order(order_body(card_charge(1000))).charges.get()
    attacker = client_for(make_user("attacker", superuser=True))
    victim = client_for(make_user("victim", superuser=True))
    token = csrf_token(attacker, changelist("charge"))
    victim.get(changelist("charge"))  # the victim's session has its own token cookie
    data = {
        "action": "cancel_charges",
        helpers.ACTION_CHECKBOX_NAME: [str(paid.pk)],
        "post": "yes",
        "confirmation": "c" * 32,
        "csrfmiddlewaretoken": token,
    }

    response = victim.post(changelist("charge"), data)

    assert response.status_code == 403
    assert get_client().get_charge(paid.provider_id)["status"] == "PAID"


def test_anonymous_visitors_are_sent_to_log_in(orderpay_emulator):
    paid = create_order(order_body(card_charge(1000))).charges.get()
    data = {"action": "cancel_charges", helpers.ACTION_CHECKBOX_NAME: [str(paid.pk)]}

    response = Client().post(changelist("charge"), {**data, "post": "yes"})

    assert response.status_code == 302 and "/login/" in response["Location"]
    assert get_client().get_charge(paid.provider_id)["status"] == "PAID"
