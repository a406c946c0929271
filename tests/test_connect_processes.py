"""Refreshing a connected account's token from several processes, and inside a rolled-back
transaction: one refresh, tokens never lost. PostgreSQL only (the account's row lock is
what serialises the processes; SQLite in memory has no second process).
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from django_orderpay import services
from django_orderpay.models import AccountState, ConnectedAccount, Order
from tests.connect_support import SELLER_A, grant_of, staff
from tests.test_operations_processes import run_in_processes
from tests.test_services_support import charge, order_payload

__all__ = ["staff"]

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("several processes need PostgreSQL (DATABASE_URL=postgres://...)")


@pytest.fixture
def seller(orderpay_connect, staff, client) -> ConnectedAccount:
    orderpay_connect.configure(expires_in=3600)
    return orderpay_connect.connect_seller(client, staff, SELLER_A)


def test_processes_meeting_a_401_together_refresh_once(orderpay_connect, orderpay_emulator, seller):
    order = services.create_order(order_payload("race", charges=[charge(500)]), account=seller)
    orderpay_emulator.advance_clock(3601)  # expired at PagBank, not by our clock
    # The refresh's answer takes a while: the other processes meet the 401 meanwhile.
    orderpay_emulator.control("POST", "latency", {"seconds": 0.5, "path_prefix": "/oauth2/refresh"})

    outcomes = run_in_processes(lambda: services.refresh_order(Order.objects.get(pk=order.pk)))

    assert outcomes == ["answered"] * len(outcomes), outcomes
    grant = grant_of(orderpay_connect, seller.account_id)
    assert grant["refreshes"] == 1
    seller.refresh_from_db()
    assert seller.state == AccountState.ACTIVE
    assert seller.access_token() == grant["access_token"]
    assert seller.refresh_token() == grant["refresh_token"]


def test_processes_finding_the_token_due_together_refresh_once(
    orderpay_connect, orderpay_emulator, seller
):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    ConnectedAccount.objects.filter(pk=seller.pk).update(
        token_issued_at=now - timedelta(minutes=55), token_expires_at=now + timedelta(minutes=5)
    )
    orderpay_emulator.control("POST", "latency", {"seconds": 0.5, "path_prefix": "/oauth2/refresh"})

    outcomes = run_in_processes(
        lambda: services.get_public_key(account=ConnectedAccount.objects.get(pk=seller.pk))
    )

    assert outcomes == ["answered"] * len(outcomes), outcomes
    assert grant_of(orderpay_connect, seller.account_id)["refreshes"] == 1


def test_a_refresh_is_kept_when_the_callers_transaction_rolls_back(
    orderpay_connect, orderpay_emulator, seller
):
    orderpay_emulator.advance_clock(3601)

    class Abandoned(Exception):
        pass

    with pytest.raises(Abandoned), transaction.atomic():
        services.get_public_key(account=ConnectedAccount.objects.get(pk=seller.pk))
        raise Abandoned

    # The new refresh token was committed on its own: the old one is spent at PagBank.
    grant = grant_of(orderpay_connect, seller.account_id)
    assert grant["refreshes"] == 1
    seller.refresh_from_db()
    assert seller.refresh_token() == grant["refresh_token"]
    assert seller.state == AccountState.ACTIVE
