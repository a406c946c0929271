"""``orderpay_sync`` fetches several orders at once, safely; its progress line; the settings.

Real transactions (``transaction=True``): the fetching threads have their
own database connections, which see only committed rows. The emulator holds
back every fetch of an order (its latency knob), so the threads' fetches
overlap as they would against the provider.
"""

from __future__ import annotations

import io
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models.signals import post_save
from django.test import override_settings

from django_orderpay import signals
from django_orderpay.conf import MAX_SYNC_CONCURRENCY, get_settings
from django_orderpay.emulator.serving.django_view import discard_emulator, get_emulator
from django_orderpay.emulator.serving.http import Request
from django_orderpay.exceptions import ConfigurationError
from django_orderpay.models import Charge, ChargeStatusChange, Order
from tests.test_notifications_processing import in_analysis_order, resolve_paid

ORDERS = 8


class Terminal(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def paid_unheard(orderpay_emulator):
    """ORDERS orders IN_ANALYSIS here that the provider has since paid, their news lost."""
    orders = [in_analysis_order(f"conc-{n}") for n in range(ORDERS)]
    orderpay_emulator.control("POST", "notifications/drop", {"count": ORDERS})
    for order in orders:
        resolve_paid(orderpay_emulator, order)
    orderpay_emulator.control("POST", "latency", {"seconds": 0.2, "path_prefix": "/orders/"})
    yield orders
    orderpay_emulator.control("POST", "latency", {"seconds": 0})


@pytest.fixture
def paid_in_threads():
    """The names of the threads each ``charge_paid`` was sent from (after their commits)."""
    names: list[str] = []
    lock = threading.Lock()

    def receive(sender, charge, **kwargs):
        with lock:
            names.append(threading.current_thread().name)

    signals.charge_paid.connect(receive, weak=False)
    yield names
    signals.charge_paid.disconnect(receive)


@pytest.mark.django_db(transaction=True)
def test_orders_are_fetched_by_several_threads_and_each_transition_happens_once(
    paid_unheard, paid_in_threads
):
    out, err = io.StringIO(), io.StringIO()

    call_command("orderpay_sync", "--concurrency", "4", stdout=out, stderr=err)

    assert err.getvalue() == ""
    assert f"{ORDERS} of {ORDERS} orders re-fetched" in out.getvalue()
    for order in paid_unheard:
        assert f"{order.provider_id}: IN_ANALYSIS -> PAID" in out.getvalue()
    assert set(Order.objects.values_list("status", flat=True)) == {"PAID"}
    changes = ChargeStatusChange.objects.filter(new_status="PAID")
    assert sorted(changes.values_list("charge__order_id", flat=True)) == sorted(
        order.pk for order in paid_unheard
    )
    assert {change.source for change in changes} == {"sync"}
    assert len(paid_in_threads) == ORDERS
    assert all(name.startswith("orderpay-sync-") for name in paid_in_threads)
    assert len(set(paid_in_threads)) > 1  # the fetches overlapped
    assert not [t for t in threading.enumerate() if t.name.startswith("orderpay-sync-")]


@pytest.mark.django_db(transaction=True)
def test_two_syncs_at_once_still_take_turns_on_each_order(paid_unheard, paid_in_threads):
    failures: list[BaseException] = []

    def sync() -> None:
        try:
            call_command("orderpay_sync", "--concurrency", "3", stdout=io.StringIO())
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    runs = [threading.Thread(target=sync) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()

    assert failures == []
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == ORDERS
    assert len(paid_in_threads) == ORDERS


@pytest.mark.django_db(transaction=True)
def test_on_a_terminal_a_progress_line_stands_for_the_unchanged_orders(orderpay_emulator):
    unchanged = in_analysis_order("conc-still")
    moved = in_analysis_order("conc-moved")
    orderpay_emulator.control("POST", "notifications/drop", {"count": 1})
    resolve_paid(orderpay_emulator, moved)
    out = Terminal()

    call_command("orderpay_sync", stdout=out, stderr=io.StringIO())

    text = out.getvalue()
    assert "\r2/2 orders re-fetched, " in text
    assert f"{moved.provider_id}: IN_ANALYSIS -> PAID\n" in text
    assert unchanged.provider_id not in text
    assert text.endswith("2 of 2 orders re-fetched\n")

    verbose = Terminal()
    call_command("orderpay_sync", "--verbosity", "2", stdout=verbose, stderr=io.StringIO())
    assert f"{unchanged.provider_id}: IN_ANALYSIS\n" in verbose.getvalue()


@pytest.mark.django_db
def test_inside_a_transaction_the_orders_are_fetched_in_this_thread(orderpay_emulator):
    orders = [in_analysis_order(f"conc-atomic-{n}") for n in range(2)]
    orderpay_emulator.control("POST", "notifications/drop", {"count": 2})
    for order in orders:
        resolve_paid(orderpay_emulator, order)
    saved_in: list[str] = []

    def saved(sender, **kwargs):
        saved_in.append(threading.current_thread().name)

    post_save.connect(saved, sender=Charge, weak=False)
    try:
        call_command("orderpay_sync", "--concurrency", "8", stdout=io.StringIO())
    finally:
        post_save.disconnect(saved, sender=Charge)

    # Another connection could not see this test's uncommitted orders.
    assert saved_in == [threading.current_thread().name] * 2
    assert set(Order.objects.values_list("status", flat=True)) == {"PAID"}


@pytest.mark.parametrize("value", ["0", str(MAX_SYNC_CONCURRENCY + 1), "-2"])
@pytest.mark.django_db
def test_a_concurrency_out_of_bounds_is_refused_before_fetching(orderpay_emulator, value):
    in_analysis_order("conc-refused")
    orderpay_emulator.reset()  # any fetch would now fail loudly

    with pytest.raises(CommandError, match=f"--concurrency must be 1 to {MAX_SYNC_CONCURRENCY}"):
        call_command("orderpay_sync", "--concurrency", value, stdout=io.StringIO())


@pytest.mark.parametrize("value", [1, MAX_SYNC_CONCURRENCY])
def test_the_concurrency_setting_takes_its_bounds(value):
    with override_settings(ORDERPAY={"TOKEN": "tok", "SYNC_CONCURRENCY": value}):
        assert get_settings().sync_concurrency == value


@pytest.mark.parametrize("value", [0, MAX_SYNC_CONCURRENCY + 1, 2.0, True, "4"])
def test_a_concurrency_setting_out_of_bounds_names_the_key(value):
    with override_settings(ORDERPAY={"TOKEN": "tok", "SYNC_CONCURRENCY": value}):
        with pytest.raises(ConfigurationError, match="ORDERPAY_SYNC_CONCURRENCY"):
            get_settings()


def test_the_defaults_and_the_environment(monkeypatch):
    with override_settings(ORDERPAY={"TOKEN": "tok"}):
        conf = get_settings()
    assert (conf.sync_concurrency, conf.emulator_retain_orders) == (8, 5000)
    monkeypatch.setenv("ORDERPAY_SYNC_CONCURRENCY", "3")
    monkeypatch.setenv("ORDERPAY_EMULATOR_RETAIN_ORDERS", "40")
    with override_settings(ORDERPAY={"TOKEN": "tok"}):
        conf = get_settings()
    assert (conf.sync_concurrency, conf.emulator_retain_orders) == (3, 40)


def test_the_mounted_emulator_remembers_as_many_orders_as_configured():
    settings = {"ENVIRONMENT": "emulator", "TOKEN": "tok", "EMULATOR_RETAIN_ORDERS": 7}
    with override_settings(ORDERPAY=settings):
        try:
            emulator = get_emulator()
            retention = emulator.handle(Request("GET", "/_emulator/retention"))
        finally:
            discard_emulator()
    assert b'"retention":{"orders":7}' in retention.body


@pytest.mark.parametrize("value", [0, 1_000_001])
def test_a_retention_out_of_bounds_names_the_key(value):
    with override_settings(ORDERPAY={"TOKEN": "tok", "EMULATOR_RETAIN_ORDERS": value}):
        with pytest.raises(ConfigurationError, match="EMULATOR_RETAIN_ORDERS"):
            try:
                get_emulator()
            finally:
                discard_emulator()
