"""``orderpay_sync`` and ``orderpay_expire`` per connected account, through the emulator."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from django_orderpay import services
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.models import AccountState, ConnectedAccount, Operation, Order, QrCode
from tests.connect_support import accounts, staff
from tests.test_services_support import charge, order_payload, raw_card

__all__ = ["accounts", "staff"]

pytestmark = pytest.mark.django_db


def _run(name: str, *args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _in_analysis(account, reference):
    return services.create_order(
        order_payload(reference, charges=[charge(500, raw_card(IN_ANALYSIS_CARD))]), account=account
    )


def test_sync_fetches_each_order_with_its_accounts_token(
    orderpay_emulator, orderpay_connect, accounts
):
    seller_a, seller_b = accounts
    order_a, order_b = _in_analysis(seller_a, "s-a"), _in_analysis(seller_b, "s-b")
    for order in (order_a, order_b):
        orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")

    out, _ = _run("orderpay_sync", "--concurrency", "1")

    assert f"{order_a.provider_id}: IN_ANALYSIS -> PAID" in out
    assert f"{order_b.provider_id}: IN_ANALYSIS -> PAID" in out
    assert {o.account for o in Order.objects.filter(status="PAID")} == {seller_a, seller_b}


def test_sync_of_one_account_and_of_an_id_for_it(orderpay_emulator, orderpay_connect, accounts):
    seller_a, seller_b = accounts
    order_a, order_b = _in_analysis(seller_a, "o-a"), _in_analysis(seller_b, "o-b")

    out, _ = _run("orderpay_sync", "--account", seller_a.account_id)
    assert order_a.provider_id in out and order_b.provider_id not in out

    Order.objects.filter(pk=order_b.pk).delete()
    with pytest.raises(CommandError):  # fetched with A's token: not A's order
        _run("orderpay_sync", order_b.provider_id, "--account", seller_a.account_id)
    _run("orderpay_sync", order_b.provider_id, "--account", seller_b.account_id)
    assert Order.objects.get(provider_id=order_b.provider_id).account == seller_b
    with pytest.raises(CommandError, match="not a connected account"):
        _run("orderpay_sync", "--account", "ACCO_00000000-0000-0000-0000-000000000000")


def test_sync_leaves_out_an_account_needing_authorisation(
    orderpay_emulator, orderpay_connect, accounts
):
    seller_a, seller_b = accounts
    _in_analysis(seller_a, "x-a")
    order_b = _in_analysis(seller_b, "x-b")
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(state=AccountState.NEEDS_AUTHORIZATION)

    out, err = _run("orderpay_sync")

    assert f"1 orders of connected account {seller_a.account_id} skipped" in err
    assert order_b.provider_id in out and "1 of 1 orders re-fetched" in out


def test_sync_sends_an_open_operation_again_with_its_accounts_token(
    orderpay_emulator, orderpay_connect, accounts
):
    seller_a, _ = accounts
    order = services.create_order(order_payload("op", charges=[charge(900)]), account=seller_a)
    row = order.charges.get()
    orderpay_emulator.inject_fault("http_500", count=10, path_prefix="/charges/")
    with pytest.raises(Exception):
        services.cancel_charge(row, 300)
    orderpay_emulator.control("DELETE", "faults")
    Operation.objects.filter(kind="cancel").update(
        updated_at=Operation.objects.get(kind="cancel").updated_at.replace(year=2000),
        created_at=Operation.objects.get(kind="cancel").created_at,
    )
    import datetime as dt

    from django.utils import timezone

    Operation.objects.filter(kind="cancel").update(
        updated_at=timezone.now() - dt.timedelta(minutes=5)
    )

    _run("orderpay_sync")

    cancel = Operation.objects.get(kind="cancel")
    assert cancel.state == "succeeded" and cancel.account == seller_a
    row.refresh_from_db()
    assert row.amount_refunded == 300


def test_expire_asks_each_orders_account(orderpay_emulator, orderpay_connect, accounts):
    seller_a, _ = accounts
    order = services.create_order(
        order_payload(
            "pix",
            qr_codes=[{"amount": {"value": 500}, "expiration_date": "2030-01-01T00:00:00-03:00"}],
        ),
        account=seller_a,
    )
    assert order.status == "WAITING"

    QrCode.objects.filter(order=order).update(
        expires_at=QrCode.objects.get(order=order).expires_at.replace(year=2001)
    )
    orderpay_emulator.control("POST", "clock", {"now": "2030-01-02T00:00:00-03:00"})

    out, _ = _run("orderpay_expire")

    # Asked with the seller's token (refreshed on the way: a year later by PagBank's clock,
    # its token had expired); a default-token fetch would have been a 404 and a failure.
    assert f"{order.provider_id}: WAITING -> " in out
    assert "1 of 1 orders past their window checked" in out
