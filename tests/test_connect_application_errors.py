"""PagBank refusing the Connect *application* is a configuration error, not the sellers'.

A wrong ``CONNECT_CLIENT_SECRET`` is answered ``41003 invalid_client`` by the
emulator's OAuth server, as PagBank's Connect error table names it: no
account is marked, a token that still works is used, and the error names the
settings. Only a refused grant (``41004 invalid_grant``, ``41012
token_is_no_longer_active``) marks an account, and staff can retry the
refresh of a marked account from the admin. Through the emulator, the
services and the admin (Django test client).
"""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.utils import timezone

from django_orderpay import services, signals
from django_orderpay.client.connect import is_application_refused, is_refused_grant
from django_orderpay.exceptions import (
    AccountNeedsAuthorization,
    ConfigurationError,
    ConnectApplicationRefused,
    ErrorMessage,
    ProviderError,
)
from django_orderpay.models import AccountState, ConnectedAccount, Operation
from tests.admin_support import client_for, confirmation_fields, make_user, messages_of, post_action
from tests.connect_support import SELLER_A, SELLER_B, grant_of, staff
from tests.test_services_support import buyer, charge, order_payload

__all__ = ["buyer", "staff"]

pytestmark = pytest.mark.django_db

WRONG_SECRET = "not-the-applications-secret"
SETTINGS_NAMED = ("CONNECT_CLIENT_ID", "CONNECT_CLIENT_SECRET")


@pytest.fixture
def seller(orderpay_connect, staff, client) -> ConnectedAccount:
    """Seller A, connected with tokens that live an hour."""
    orderpay_connect.configure(expires_in=3600)
    return orderpay_connect.connect_seller(client, staff, SELLER_A)


@pytest.fixture
def sellers(orderpay_connect, staff, client) -> tuple[ConnectedAccount, ConnectedAccount]:
    """Sellers A and B, connected with tokens that live an hour."""
    orderpay_connect.configure(expires_in=3600)
    return (
        orderpay_connect.connect_seller(client, staff, SELLER_A),
        orderpay_connect.connect_seller(client, staff, SELLER_B),
    )


@pytest.fixture
def manager():
    return make_user("manager", "view_connectedaccount", "change_connectedaccount")


@pytest.fixture
def heard(django_capture_on_commit_callbacks):
    """``(said, committed)``: what ``account_needs_authorization`` said, and a context
    whose on-commit callbacks run as it ends (the test's transaction never commits)."""
    said: list[dict] = []
    signals.account_needs_authorization.connect(
        lambda **kw: said.append(kw), weak=False, dispatch_uid="heard"
    )
    yield said, lambda: django_capture_on_commit_callbacks(execute=True)
    signals.account_needs_authorization.disconnect(dispatch_uid="heard")


def _due(account: ConnectedAccount) -> None:
    """Issued 50 minutes ago, expiring in 10: a refresh is due, the token still works."""
    now = timezone.now()
    ConnectedAccount.objects.filter(pk=account.pk).update(
        token_issued_at=now - dt.timedelta(minutes=50),
        token_expires_at=now + dt.timedelta(minutes=10),
    )


def _refreshes(orderpay_connect, account) -> int:
    return grant_of(orderpay_connect, account.account_id)["refreshes"]


def _refresh_in_admin(client, account):
    first = post_action(client, "connectedaccount", "refresh_account_tokens", [account])
    done = post_action(
        client,
        "connectedaccount",
        "refresh_account_tokens",
        [account],
        confirm=confirmation_fields(first),
        follow=True,
    )
    return first, [text for _, text in messages_of(done)]


def test_a_wrong_client_secret_after_a_401_names_the_settings_and_marks_no_one(
    orderpay_connect, orderpay_emulator, sellers, buyer, orderpay, heard, caplog
):
    seller_a, seller_b = sellers
    order = services.create_order(
        order_payload("wrong-secret", charges=[charge(500)]), user=buyer, account=seller_a
    )
    orderpay(CONNECT_CLIENT_SECRET=WRONG_SECRET)
    orderpay_emulator.advance_clock(3601)  # every seller's token expired at PagBank

    said, committed = heard
    with (
        committed(),
        caplog.at_level(logging.ERROR, logger="django_orderpay.connect"),
        pytest.raises(ConnectApplicationRefused) as refused,
    ):
        services.cancel_charge(order.charges.get(), 200)

    error = refused.value
    assert isinstance(error, ConfigurationError) and error.status == 401
    assert not isinstance(error, AccountNeedsAuthorization)
    assert all(name in str(error) for name in SETTINGS_NAMED) and "41003" in str(error)
    assert "ORDERPAY['TOKEN']" not in str(error)
    for seller in (seller_a, seller_b):
        seller.refresh_from_db()
        assert seller.state == AccountState.ACTIVE
    assert "invalid_client" in seller_a.last_error and said == []
    assert Operation.objects.get(kind="cancel").state == "refused"  # a 401: nothing done
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "CONNECT_CLIENT_SECRET" in logged and seller_a.account_id in logged
    for secret in (WRONG_SECRET, orderpay_connect.client_secret):
        assert secret not in logged and secret not in str(error)
        assert secret not in seller_a.last_error

    # The secret put right, the same account refreshes and acts.
    orderpay(CONNECT_CLIENT_SECRET=orderpay_connect.client_secret)
    refunded = services.cancel_charge(order.charges.get(), 200)
    assert refunded.amount_refunded == 200 and _refreshes(orderpay_connect, seller_a) == 1


def test_a_wrong_client_secret_before_expiry_keeps_using_the_token(
    orderpay_connect, seller, buyer, orderpay, heard, caplog
):
    _due(seller)
    orderpay(CONNECT_CLIENT_SECRET=WRONG_SECRET)

    said, committed = heard
    with committed(), caplog.at_level(logging.ERROR, logger="django_orderpay.connect"):
        order = services.create_order(
            order_payload("still-works", charges=[charge(500)]), user=buyer, account=seller
        )

    assert order.status == "PAID" and order.account == seller
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE and said == []
    assert "invalid_client" in seller.last_error
    assert _refreshes(orderpay_connect, seller) == 0
    assert any("CONNECT_CLIENT_SECRET" in r.getMessage() for r in caplog.records)


def test_the_bearer_form_names_the_platform_token_too(
    orderpay_connect, orderpay_emulator, seller, orderpay
):
    orderpay(CONNECT_AUTH="bearer", CONNECT_CLIENT_SECRET=WRONG_SECRET)
    orderpay_emulator.advance_clock(3601)
    with pytest.raises(ConnectApplicationRefused) as refused:
        services.get_public_key(account=seller)
    assert "ORDERPAY['TOKEN']" in str(refused.value) and "CONNECT_AUTH" in str(refused.value)
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE


def test_a_revoked_refresh_token_still_marks_the_account(
    orderpay_connect, orderpay_emulator, seller, heard
):
    orderpay_connect.revoke(seller.account_id)  # the seller, in PagBank
    orderpay_emulator.advance_clock(3601)

    said, committed = heard
    with committed(), pytest.raises(AccountNeedsAuthorization):
        services.get_public_key(account=seller)

    seller.refresh_from_db()
    assert seller.state == AccountState.NEEDS_AUTHORIZATION
    assert "41012" in seller.last_error and [h["account"] for h in said] == [seller]


def test_a_refresh_token_pagbank_never_issued_marks_the_account(
    orderpay_connect, orderpay_emulator, seller
):
    seller.set_tokens(
        access_token=seller.access_token(), refresh_token="rt-never-issued", expires_in=3600
    )
    seller.save()
    orderpay_emulator.advance_clock(3601)
    with pytest.raises(AccountNeedsAuthorization):
        services.get_public_key(account=seller)
    seller.refresh_from_db()
    assert seller.state == AccountState.NEEDS_AUTHORIZATION and "41004" in seller.last_error


def test_staff_retry_a_marked_account_whose_grant_is_valid_again(
    orderpay_connect, seller, manager, buyer
):
    # Marked by a refusal that was not the seller's (an earlier version counted a wrong
    # client secret as one): PagBank still holds its grant.
    marked_at = timezone.now() - dt.timedelta(days=1)
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        state=AccountState.NEEDS_AUTHORIZATION, state_changed_at=marked_at, last_error="x"
    )
    client = client_for(manager)

    first, said = _refresh_in_admin(client, seller)

    assert "try its refresh token again" in first.content.decode()
    assert any("active again" in text for text in said), said
    seller.refresh_from_db()
    grant = grant_of(orderpay_connect, seller.account_id)
    assert (seller.state, seller.last_error) == (AccountState.ACTIVE, "")
    assert seller.state_changed_at > marked_at and grant["refreshes"] == 1
    assert seller.access_token() == grant["access_token"]
    assert seller.refresh_token() == grant["refresh_token"]
    order = services.create_order(
        order_payload("again", charges=[charge(500)]), user=buyer, account=seller
    )
    assert order.status == "PAID"


def test_staff_retry_of_a_revoked_grant_says_the_seller_must_authorise_again(
    orderpay_connect, seller, manager, heard
):
    orderpay_connect.revoke(seller.account_id)
    marked_at = timezone.now() - dt.timedelta(days=1)
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        state=AccountState.NEEDS_AUTHORIZATION, state_changed_at=marked_at
    )

    announced, committed = heard
    with committed():
        _, said = _refresh_in_admin(client_for(manager), seller)

    assert any("authorise the platform again" in text for text in said), said
    assert not any("TOKEN" in text for text in said)
    seller.refresh_from_db()
    assert seller.state == AccountState.NEEDS_AUTHORIZATION
    assert seller.state_changed_at == marked_at and "41012" in seller.last_error
    assert announced == []  # already marked: not announced twice


def test_staff_refresh_with_a_wrong_client_secret_names_the_settings(
    orderpay_connect, seller, manager, orderpay
):
    orderpay(CONNECT_CLIENT_SECRET=WRONG_SECRET)
    _, said = _refresh_in_admin(client_for(manager), seller)
    assert any(all(name in text for name in SETTINGS_NAMED) for text in said), said
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE


def test_a_disconnected_account_is_not_retried(orderpay_connect, seller, manager):
    ConnectedAccount.objects.filter(pk=seller.pk).update(state=AccountState.REVOKED)
    first = post_action(client_for(manager), "connectedaccount", "refresh_account_tokens", [seller])
    assert "it was disconnected" in first.content.decode()
    assert _refreshes(orderpay_connect, seller) == 0


def test_staff_without_the_permission_cannot_retry(orderpay_connect, seller):
    viewer = client_for(make_user("viewer", "view_connectedaccount"))
    ConnectedAccount.objects.filter(pk=seller.pk).update(state=AccountState.NEEDS_AUTHORIZATION)
    response = post_action(viewer, "connectedaccount", "refresh_account_tokens", [seller])
    assert response.status_code in (200, 302, 403)
    seller.refresh_from_db()
    assert seller.state == AccountState.NEEDS_AUTHORIZATION
    assert _refreshes(orderpay_connect, seller) == 0


def _answer(status: int, *entries: dict) -> ProviderError:
    messages = [
        ErrorMessage(e.get("code", ""), e.get("description", ""), error=e.get("error"))
        for e in entries
    ]
    return ProviderError("refused", status=status, error_messages=messages)


@pytest.mark.parametrize(
    ("answer", "grant", "application"),
    [
        (_answer(400, {"code": "41004", "description": "invalid_grant"}), True, False),
        (_answer(401, {"code": "41012"}), True, False),
        (_answer(400, {"code": "invalid_grant", "error": "invalid_grant"}), True, False),
        (_answer(401, {"code": "41003", "description": "invalid_client"}), False, True),
        (_answer(400, {"code": "41006"}), False, True),
        (_answer(400, {"error": "unauthorized_client"}), False, True),
        (_answer(401, {"code": "41008"}), False, True),
        (_answer(401, {"code": "UNAUTHORIZED"}), False, True),
        (_answer(403, {"code": "FORBIDDEN"}), False, True),
        (_answer(400, {"code": "41001"}), False, False),  # our request: neither
        (_answer(400), False, False),
        (_answer(429, {"code": "41004"}), False, False),
        (_answer(500, {"code": "41003"}), False, False),
        (ProviderError("no answer"), False, False),
    ],
)
def test_whose_refusal_an_answer_is(answer, grant, application):
    assert (is_refused_grant(answer), is_application_refused(answer)) == (grant, application)


def test_a_seller_connected_with_a_wrong_client_secret_is_not_and_the_log_says_why(
    orderpay_connect, staff, client, orderpay, caplog
):
    orderpay(CONNECT_CLIENT_SECRET=WRONG_SECRET)
    client.force_login(staff)
    with caplog.at_level(logging.ERROR, logger="django_orderpay.connect"):
        response = orderpay_connect.authorize(client, SELLER_A)
    assert b'data-connect-result="exchange_failed"' in response.content
    assert not ConnectedAccount.objects.exists()
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert all(name in logged for name in SETTINGS_NAMED) and WRONG_SECRET not in logged
