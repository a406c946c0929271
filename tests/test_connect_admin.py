"""Connected accounts in the admin: state, re-authorise links, refresh and disconnect, no token
shown anywhere; the mirrors' screens gain the account only when Connect is on."""

from __future__ import annotations

import pytest

from django_orderpay import services
from django_orderpay.models import AccountState, ConnectedAccount
from tests.admin_support import (
    action_names,
    change,
    changelist,
    client_for,
    confirmation_fields,
    make_user,
    messages_of,
    post_action,
)
from tests.connect_support import accounts, grant_of, staff
from tests.test_services_support import charge, order_payload

__all__ = ["accounts", "staff"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager():
    return make_user("manager", "view_connectedaccount", "change_connectedaccount", "view_order")


def _tokens(orderpay_connect, *sellers) -> list[str]:
    found = []
    for seller in sellers:
        grant = grant_of(orderpay_connect, seller.account_id)
        found += [grant["access_token"], grant["refresh_token"]]
    return found


def test_the_list_and_page_show_state_and_links_never_a_token(orderpay_connect, accounts, manager):
    seller_a, seller_b = accounts
    ConnectedAccount.objects.filter(pk=seller_b.pk).update(state=AccountState.NEEDS_AUTHORIZATION)
    client = client_for(manager)

    listing = client.get(changelist("connectedaccount"))
    page = client.get(change("connectedaccount", seller_a.pk))

    html = listing.content.decode() + page.content.decode()
    for token in _tokens(orderpay_connect, seller_a, seller_b):
        assert token not in html
    assert seller_a.access_token_encrypted not in html
    assert "Needs re-authorisation" in listing.content.decode()
    assert f'data-reauthorize="{seller_b.pk}"' in listing.content.decode()
    assert f"/orderpay/connect/authorize/?account={seller_b.pk}" in listing.content.decode()
    assert "data-connect-account" in listing.content.decode()


def test_the_reauthorise_link_runs_the_flow_for_that_account(orderpay_connect, accounts, manager):
    seller_a, _ = accounts
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(state=AccountState.NEEDS_AUTHORIZATION)
    client = client_for(manager)
    response = orderpay_connect.authorize(
        client,
        "seller-a@example.com",
        account=str(seller_a.pk),
        next=change("connectedaccount", seller_a.pk),
    )
    assert response.status_code == 302
    seller_a.refresh_from_db()
    assert seller_a.state == AccountState.ACTIVE


def test_disconnecting_revokes_at_pagbank_and_forgets_the_tokens(
    orderpay_connect, accounts, manager
):
    seller_a, _ = accounts
    client = client_for(manager)
    first = post_action(client, "connectedaccount", "disconnect_accounts", [seller_a])
    assert first.status_code == 200  # the confirmation page
    done = post_action(
        client,
        "connectedaccount",
        "disconnect_accounts",
        [seller_a],
        confirm=confirmation_fields(first),
        follow=True,
    )
    assert any("disconnected" in text for _, text in messages_of(done))
    seller_a.refresh_from_db()
    assert seller_a.state == AccountState.REVOKED
    assert seller_a.access_token_encrypted == seller_a.refresh_token_encrypted == ""
    assert grant_of(orderpay_connect, seller_a.account_id) == {}


def test_refreshing_now_asks_pagbank_for_new_tokens(orderpay_connect, accounts, manager):
    seller_a, _ = accounts
    client = client_for(manager)
    first = post_action(client, "connectedaccount", "refresh_account_tokens", [seller_a])
    post_action(
        client,
        "connectedaccount",
        "refresh_account_tokens",
        [seller_a],
        confirm=confirmation_fields(first),
    )
    assert grant_of(orderpay_connect, seller_a.account_id)["refreshes"] == 1
    seller_a.refresh_from_db()
    assert (
        seller_a.access_token() == grant_of(orderpay_connect, seller_a.account_id)["access_token"]
    )


def test_staff_without_the_permission_get_no_actions(orderpay_connect, accounts):
    viewer = make_user("viewer", "view_connectedaccount")
    assert action_names(client_for(viewer), "connectedaccount") == []
    assert action_names(
        client_for(make_user("m2", "view_connectedaccount", "change_connectedaccount")),
        "connectedaccount",
    ) == [
        "refresh_account_tokens",
        "disconnect_accounts",
    ]


def test_no_one_adds_or_edits_an_account_by_hand(orderpay_connect, accounts):
    superuser = make_user("root", superuser=True)
    client = client_for(superuser)
    assert client.get(changelist("connectedaccount") + "add/").status_code == 403
    page = client.get(change("connectedaccount", accounts[0].pk))
    assert b'name="_save"' not in page.content


def test_orders_show_their_account_when_connect_is_on(orderpay_connect, accounts, manager):
    seller_a, _ = accounts
    order = services.create_order(order_payload("adm", charges=[charge(500)]), account=seller_a)
    client = client_for(manager)
    listing = client.get(changelist("order"))
    assert seller_a.account_id in listing.content.decode()
    assert "account__id__exact" in listing.content.decode()
    page = client.get(change("order", order.pk))
    assert seller_a.account_id in page.content.decode()


def test_orders_show_no_account_when_connect_is_off(orderpay_emulator):
    services.create_order(order_payload("plain", charges=[charge(500)]))
    client = client_for(make_user("viewer", "view_order"))
    listing = client.get(changelist("order"))
    assert "account__id__exact" not in listing.content.decode()
