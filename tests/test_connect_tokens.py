"""A connected account's token: refreshed before it expires and once on a 401; revoked, marked.

Through the emulator's OAuth server: its clock decides when a token has
expired, its control plane revokes as a seller would, and its grants say how
many refreshes PagBank saw.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from django_orderpay import services, signals
from django_orderpay.exceptions import AccountNeedsAuthorization, AuthenticationError
from django_orderpay.models import AccountState, ConnectedAccount, Operation
from django_orderpay.models.accounts import refresh_due
from tests.connect_support import SELLER_A, accounts, grant_of, staff
from tests.test_services_support import buyer, charge, order_payload

__all__ = ["accounts", "buyer", "staff"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def seller(orderpay_connect, staff, client) -> ConnectedAccount:
    """Seller A, connected with tokens that live an hour."""
    orderpay_connect.configure(expires_in=3600)
    return orderpay_connect.connect_seller(client, staff, SELLER_A)


def _refreshes(orderpay_connect, account) -> int:
    return grant_of(orderpay_connect, account.account_id)["refreshes"]


def test_a_token_due_is_refreshed_before_the_call(orderpay_connect, seller, buyer):
    # Issued 50 minutes ago, expiring in 10: within the last quarter of its hour.
    now = timezone.now()
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        token_issued_at=now - dt.timedelta(minutes=50),
        token_expires_at=now + dt.timedelta(minutes=10),
    )
    first = seller.access_token()

    order = services.create_order(
        order_payload("due", charges=[charge(500)]), user=buyer, account=seller
    )

    assert order.status == "PAID"
    assert _refreshes(orderpay_connect, seller) == 1
    seller.refresh_from_db()
    grant = grant_of(orderpay_connect, seller.account_id)
    assert seller.access_token() == grant["access_token"] != first
    assert seller.refresh_token() == grant["refresh_token"]
    assert seller.notification_tokens() == (grant["access_token"], first)
    assert seller.refreshed_at is not None and seller.state == AccountState.ACTIVE


def test_a_token_not_due_is_not_refreshed(orderpay_connect, seller, buyer):
    now = timezone.now()
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        token_issued_at=now - dt.timedelta(minutes=40),
        token_expires_at=now + dt.timedelta(minutes=20),
    )
    services.create_order(order_payload("fresh", charges=[charge(500)]), user=buyer, account=seller)
    assert _refreshes(orderpay_connect, seller) == 0


@pytest.mark.parametrize(
    ("lifetime", "margin", "lead"),
    [
        (dt.timedelta(hours=1), 30 * 86400, dt.timedelta(minutes=15)),  # a quarter of an hour
        (
            dt.timedelta(days=365),
            30 * 86400,
            dt.timedelta(days=30),
        ),  # the official plugin's 30 days
        (dt.timedelta(days=365), 0, dt.timedelta(0)),  # margin 0: only once expired
    ],
)
def test_when_a_refresh_is_due(lifetime, margin, lead):
    issued = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    expires = issued + lifetime
    boundary = expires - lead
    assert refresh_due(expires, issued, margin, boundary)
    assert not refresh_due(expires, issued, margin, boundary - dt.timedelta(seconds=1))
    assert not refresh_due(None, issued, margin, boundary)


def test_a_401_is_refreshed_once_and_the_call_sent_again(
    orderpay_connect, orderpay_emulator, seller, buyer
):
    order = services.create_order(
        order_payload("exp", charges=[charge(500)]), user=buyer, account=seller
    )
    # PagBank's clock says the token expired; ours does not know yet.
    orderpay_emulator.advance_clock(3601)

    refunded = services.cancel_charge(order.charges.get(), 200)

    assert refunded.amount_refunded == 200
    assert _refreshes(orderpay_connect, seller) == 1
    assert Operation.objects.get(kind="cancel").state == "succeeded"
    seller.refresh_from_db()
    assert seller.access_token() == grant_of(orderpay_connect, seller.account_id)["access_token"]


def test_a_401_after_a_refresh_stands(orderpay_connect, orderpay_emulator, seller, buyer):
    # Every token PagBank issues now lives a second, and its answer takes 1.5 s to
    # arrive: the refreshed token is expired when the call is sent again.
    orderpay_connect.configure(expires_in=1)
    orderpay_emulator.advance_clock(3601)
    orderpay_emulator.control("POST", "latency", {"seconds": 1.5, "path_prefix": "/oauth2/refresh"})

    with pytest.raises(AuthenticationError) as refused:
        services.get_public_key(account=seller)

    assert not isinstance(refused.value, AccountNeedsAuthorization)
    # One refresh after the 401, one more because the token it brought had expired by
    # our clock too (its answer took longer than its life); the call is then sent once
    # more, and that 401 stands: no loop.
    assert _refreshes(orderpay_connect, seller) == 2
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE


def test_a_revoked_account_is_marked_and_raises(
    orderpay_connect, orderpay_emulator, seller, buyer, django_capture_on_commit_callbacks
):
    order = services.create_order(
        order_payload("rev", charges=[charge(500)]), user=buyer, account=seller
    )
    orderpay_connect.revoke(seller.account_id)
    heard = []
    signals.account_needs_authorization.connect(
        lambda **kw: heard.append(kw), weak=False, dispatch_uid="t"
    )
    try:
        with (
            django_capture_on_commit_callbacks(execute=True),
            pytest.raises(AccountNeedsAuthorization) as raised,
        ):
            services.cancel_charge(order.charges.get(), 100)
    finally:
        signals.account_needs_authorization.disconnect(dispatch_uid="t")

    error = raised.value
    assert error.account_id == seller.account_id and error.status == 401
    seller.refresh_from_db()
    assert seller.state == AccountState.NEEDS_AUTHORIZATION
    assert "41012" in seller.last_error
    assert [h["account"].pk for h in heard] == [seller.pk]
    # Refused, nothing done: the operation is closed, not left unknown.
    assert Operation.objects.get(kind="cancel").state == "refused"
    grant = grant_of(orderpay_connect, seller.account_id)
    for text in (str(error), seller.last_error):
        assert "rt-" not in text and "at-" not in text
    # Marked: the next call raises before anything is sent.
    operations = Operation.objects.count()
    with pytest.raises(AccountNeedsAuthorization):
        services.create_order(order_payload("after"), user=buyer, account=seller)
    assert Operation.objects.count() == operations
    assert grant == {}


def test_authorised_again_it_acts_again(orderpay_connect, seller, buyer, staff, client):
    orderpay_connect.revoke(seller.account_id)
    with pytest.raises(AccountNeedsAuthorization):
        services.get_public_key(account=seller)
    again = orderpay_connect.connect_seller(client, staff, SELLER_A)
    assert again.pk == seller.pk and again.state == AccountState.ACTIVE
    order = services.create_order(
        order_payload("back", charges=[charge(500)]), user=buyer, account=again
    )
    assert order.status == "PAID"


def test_a_refresh_pagbank_cannot_answer_keeps_the_token_that_still_works(
    orderpay_connect, orderpay_emulator, seller, buyer
):
    now = timezone.now()
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        token_issued_at=now - dt.timedelta(minutes=50),
        token_expires_at=now + dt.timedelta(minutes=10),
    )
    orderpay_emulator.inject_fault("http_500", path_prefix="/oauth2/refresh")

    order = services.create_order(
        order_payload("keep", charges=[charge(500)]), user=buyer, account=seller
    )

    assert order.status == "PAID"
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE
    assert "ProviderUnavailable" in seller.last_error
    assert _refreshes(orderpay_connect, seller) == 0


def test_after_a_401_a_refresh_pagbank_cannot_answer_lets_the_401_stand(
    orderpay_connect, orderpay_emulator, seller, buyer
):
    orderpay_emulator.advance_clock(3601)
    orderpay_emulator.inject_fault("http_500", path_prefix="/oauth2/refresh")
    with pytest.raises(AuthenticationError) as refused:
        services.create_order(
            order_payload("later", charges=[charge(500)]), user=buyer, account=seller
        )
    assert not isinstance(refused.value, AccountNeedsAuthorization)
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE
    assert Operation.objects.get().state == "refused"


def test_a_refresh_inside_a_callers_transaction(orderpay_connect, orderpay_emulator, seller, buyer):
    orderpay_emulator.advance_clock(3601)
    with transaction.atomic():
        key = services.get_public_key(account=seller)
    assert key == orderpay_emulator.emulator.public_key
    seller.refresh_from_db()
    assert seller.access_token() == grant_of(orderpay_connect, seller.account_id)["access_token"]


def test_a_refresh_pagbank_cannot_answer_is_not_tried_on_every_call(
    orderpay_connect, orderpay_emulator, seller
):
    now = timezone.now()
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        token_issued_at=now - dt.timedelta(minutes=50),
        token_expires_at=now + dt.timedelta(minutes=10),
    )
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/oauth2/refresh")

    for _ in range(3):
        services.get_public_key(account=seller)
        services.clear_public_key_cache()

    # One refresh asked (and failed); the next waits REFRESH_RETRY_AFTER.
    calls = [d for d in orderpay_emulator.control("GET", "faults")["faults"]]
    assert calls == [] and _refreshes(orderpay_connect, seller) == 0


def test_a_401_for_a_token_another_client_refreshed_takes_its_token(
    orderpay_connect, orderpay_emulator, seller
):
    # Two clients of one account (two threads, two processes) met the same expired token:
    # the second finds the first's refresh under the lock and sends nothing.
    from django_orderpay.connect.tokens import AccountTokens

    first, second = AccountTokens(seller.pk), AccountTokens(seller.pk)
    expired = first.token()
    assert second.token() == expired
    orderpay_emulator.advance_clock(3601)

    renewed = first.renewed(expired)

    assert renewed is not None and renewed != expired
    assert second.renewed(expired) == renewed
    assert _refreshes(orderpay_connect, seller) == 1
