"""orderpay_sync, orderpay_replay and orderpay_prune, against the emulator and the log."""

from __future__ import annotations

import datetime as dt
import io
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from django_orderpay import services
from django_orderpay.models import (
    ChargeStatusChange,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.testing.factories import NotificationDeliveryFactory
from tests.test_notifications_processing import (
    Heard,
    in_analysis_order,
    listening,
    order_payload,
    resolve_paid,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    with listening() as record:
        yield record


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


# --- orderpay_sync -----------------------------------------------------------------


def test_sync_recovers_a_notification_the_emulator_never_delivered(
    orderpay_emulator, client, heard: Heard, django_capture_on_commit_callbacks
):
    order = in_analysis_order()
    orderpay_emulator.deliver_notifications(client)  # the create's
    orderpay_emulator.control("POST", "notifications/drop", {"count": 1})
    resolve_paid(orderpay_emulator, order)

    assert orderpay_emulator.deliver_notifications(client) == []
    assert orderpay_emulator.notifications()[-1]["dropped"] is True
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"

    with django_capture_on_commit_callbacks(execute=True):
        out, err = run("orderpay_sync")

    assert f"{order.provider_id}: IN_ANALYSIS -> PAID" in out
    assert "1 of 1 orders re-fetched" in out
    assert err == ""
    order.refresh_from_db()
    assert order.status == "PAID"
    change = ChargeStatusChange.objects.get(charge__order=order, new_status="PAID")
    assert change.source == "sync"
    assert heard.named("paid") == [("paid", order.charges.get().provider_id, "sync")]


def test_sync_leaves_final_orders_alone(orderpay_emulator):
    paid = services.create_order(order_payload("final-1", card="4111111111111111"))
    open_order = in_analysis_order("open-1")
    assert paid.status == "PAID"

    out, _ = run("orderpay_sync")

    assert f"{open_order.provider_id}: IN_ANALYSIS" in out
    assert paid.provider_id not in out


def test_sync_refetches_the_given_orders(orderpay_emulator):
    paid = services.create_order(order_payload("final-2", card="4111111111111111"))

    out, _ = run("orderpay_sync", paid.provider_id)

    assert f"{paid.provider_id}: PAID" in out
    assert "1 of 1 orders re-fetched" in out


def test_sync_reports_each_failure_and_exits_with_an_error(orderpay_emulator, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    first = in_analysis_order("open-2")
    second = in_analysis_order("open-3")
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    out = io.StringIO()
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 2 orders re-fetched; 1 failed"):
        call_command("orderpay_sync", stdout=out, stderr=err)

    assert f"{first.provider_id}: ProviderUnavailable" in err.getvalue()
    assert f"{second.provider_id}: IN_ANALYSIS" in out.getvalue()


def test_sync_can_keep_to_recent_orders(orderpay_emulator):
    old = in_analysis_order("open-old")
    recent = in_analysis_order("open-recent")
    Order.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=40))

    out, _ = run("orderpay_sync", "--max-age", "30")

    assert f"{recent.provider_id}: IN_ANALYSIS" in out
    assert old.provider_id not in out
    assert "1 of 1 orders re-fetched" in out


def test_sync_is_quiet_per_order_at_verbosity_0(orderpay_emulator):
    order = in_analysis_order("open-quiet")

    out, _ = run("orderpay_sync", "--verbosity", "0")

    assert order.provider_id not in out
    assert "1 of 1 orders re-fetched" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("foo", "ORDE_0B1C2D3E"), "not an order id \\(ORDE_...\\): foo"),
        (("CHAR_0B1C2D3E",), "not an order id \\(ORDE_...\\): CHAR_0B1C2D3E"),
        (("ORDE_0B1C2D3E", "--max-age", "3"), "--max-age applies only without order ids"),
        (("--max-age", "0"), "--max-age must be 1 or more"),
    ],
)
def test_sync_refuses_bad_arguments_before_fetching_anything(orderpay_emulator, args, message):
    with pytest.raises(CommandError, match=message):
        run("orderpay_sync", *args)
    assert orderpay_emulator.order_ids() == []


def test_sync_names_an_id_the_provider_does_not_know(orderpay_emulator):
    unknown = "ORDE_00000000-0000-0000-0000-000000000000"
    err = io.StringIO()
    with pytest.raises(CommandError, match="0 of 1"):
        call_command("orderpay_sync", unknown, stdout=io.StringIO(), stderr=err)
    assert f"{unknown}: NotFound" in err.getvalue()


def test_sync_reports_an_order_the_provider_forgot_once_then_leaves_it_out(orderpay_emulator):
    forgotten = in_analysis_order("open-forgotten")
    orderpay_emulator.reset()  # a restart without its state: the provider forgot it
    kept = in_analysis_order("open-kept")

    with pytest.raises(CommandError, match="1 of 2 orders re-fetched; 1 failed"):
        out, err = run("orderpay_sync")
    forgotten.refresh_from_db()
    assert forgotten.provider_missing_since is not None

    out, err = run("orderpay_sync")  # the next runs: nothing new failed

    assert err == ""
    assert "1 of 1 orders re-fetched" in out and f"{kept.provider_id}: IN_ANALYSIS" in out
    assert forgotten.provider_id not in out
    assert run("orderpay_sync")[1] == ""


def test_sync_says_once_why_a_forgotten_order_is_left_out(orderpay_emulator):
    forgotten = in_analysis_order("open-forgotten-2")
    orderpay_emulator.reset()
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("orderpay_sync", stdout=io.StringIO(), stderr=err)
    assert f"{forgotten.provider_id}: the provider does not know this order (404): marked" in (
        err.getvalue()
    )


def test_sync_of_a_named_order_the_provider_knows_clears_its_mark(orderpay_emulator):
    order = in_analysis_order("open-marked")
    Order.objects.filter(pk=order.pk).update(provider_missing_since=timezone.now())
    assert "0 of 0 orders re-fetched" in run("orderpay_sync")[0]

    run("orderpay_sync", order.provider_id)

    order.refresh_from_db()
    assert order.provider_missing_since is None
    assert "1 of 1 orders re-fetched" in run("orderpay_sync")[0]


# --- orderpay_replay ---------------------------------------------------------------


def test_replay_applies_deliveries_that_failed(
    orderpay_emulator, client, settings, heard: Heard, django_capture_on_commit_callbacks
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    order = in_analysis_order()
    # The create's notification first, applied: only the PAID one will fail.
    [created] = orderpay_emulator.deliver_notifications(client)
    assert created.status == 200
    applied = NotificationDelivery.objects.get()
    resolve_paid(orderpay_emulator, order)
    # More faults than the provider makes attempts: every one of them fails.
    orderpay_emulator.inject_fault("http_500", count=50, path_prefix="/orders/")
    attempts = orderpay_emulator.deliver_notifications(client)
    assert len(attempts) > 1  # the provider retried
    assert {a.status for a in attempts} == {500}
    assert all(b"Traceback" not in a.response.content for a in attempts)
    copies = NotificationDelivery.objects.exclude(pk=applied.pk).order_by("pk")
    assert len({copy.dedupe_key for copy in copies}) == 1  # one notification, retried
    assert list(copies.values_list("outcome", flat=True)) == ["failed"] * len(attempts)
    assert all(d.error.startswith("ProviderUnavailable: ") for d in copies)
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"
    orderpay_emulator.control("DELETE", "faults")  # the provider is back

    with django_capture_on_commit_callbacks(execute=True):
        out, err = run("orderpay_replay")

    assert f"{len(attempts)} deliveries replayed" in out
    assert err == ""
    order.refresh_from_db()
    assert order.status == "PAID"
    outcomes = Counter(copies.values_list("outcome", flat=True))
    assert outcomes == {DeliveryOutcome.PROCESSED: 1, DeliveryOutcome.DUPLICATE: len(attempts) - 1}
    assert len(heard.named("paid")) == 1
    assert not NotificationDelivery.objects.filter(outcome=DeliveryOutcome.FAILED).exists()


def test_replay_of_given_ids_and_refusals(orderpay_emulator, client):
    order = in_analysis_order()
    [attempt] = orderpay_emulator.deliver_notifications(client)
    assert attempt.status == 200
    processed = NotificationDelivery.objects.get()
    client.post("/orderpay/notifications/", data=b"{}", content_type="application/json")
    rejected = NotificationDelivery.objects.get(outcome=DeliveryOutcome.REJECTED)

    out, err = run("orderpay_replay", str(processed.pk), str(rejected.pk))

    assert f"delivery {processed.pk} ({order.provider_id}): processed" in out
    assert f"delivery {rejected.pk}: rejected deliveries are not replayed" in err
    with pytest.raises(CommandError, match="no notification delivery with id \\[999999\\]"):
        run("orderpay_replay", "999999")


def test_replay_with_received_picks_up_deliveries_no_worker_ran(orderpay_emulator):
    order = in_analysis_order()
    resolve_paid(orderpay_emulator, order)
    body = orderpay_emulator.notifications()[-1]["body"].encode()
    stuck = NotificationDeliveryFactory(body=body, order_provider_id=order.provider_id, valid=True)

    out, _ = run("orderpay_replay")
    assert "0 deliveries replayed" in out

    out, _ = run("orderpay_replay", "--received")

    assert f"delivery {stuck.pk} ({order.provider_id}): processed" in out
    order.refresh_from_db()
    assert order.status == "PAID"


# --- orderpay_prune ----------------------------------------------------------------


def aged(days: float, **kwargs) -> NotificationDelivery:
    delivery = NotificationDeliveryFactory(**kwargs)
    when = timezone.now() - dt.timedelta(days=days)
    NotificationDelivery.objects.filter(pk=delivery.pk).update(received_at=when)
    return delivery


def test_prune_deletes_rows_older_than_n_days_in_batches():
    old = [aged(40) for _ in range(5)]
    recent = [aged(10), aged(0)]

    out, _ = run("orderpay_prune", "--days", "30", "--batch-size", "2")

    assert "5 notification deliveries older than 30 days deleted" in out
    remaining = set(NotificationDelivery.objects.values_list("pk", flat=True))
    assert remaining == {d.pk for d in recent}
    assert not remaining & {d.pk for d in old}


def test_prune_deletes_old_card_attempt_refusals_too():
    from django_orderpay.models import CardAttemptRefusal

    old = CardAttemptRefusal.objects.create(scope="address", kind="declines", limit=10)
    recent = CardAttemptRefusal.objects.create(scope="address", kind="declines", limit=10)
    when = timezone.now() - dt.timedelta(days=40)
    CardAttemptRefusal.objects.filter(pk=old.pk).update(first_refused_at=when)

    out, _ = run("orderpay_prune", "--days", "30")

    assert "1 card attempt refusals older than 30 days deleted" in out
    assert list(CardAttemptRefusal.objects.values_list("pk", flat=True)) == [recent.pk]


def test_prune_can_keep_failed_deliveries():
    failed = aged(40, outcome=DeliveryOutcome.FAILED)
    aged(40, outcome=DeliveryOutcome.PROCESSED)

    out, _ = run("orderpay_prune", "--days", "30", "--keep-failed")

    assert "1 notification deliveries" in out
    assert list(NotificationDelivery.objects.values_list("pk", flat=True)) == [failed.pk]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "--days"),
        (("--days", "-1"), "--days must be 0 or more"),
        (("--days", "30", "--batch-size", "0"), "--batch-size must be 1 or more"),
    ],
)
def test_prune_refuses_bad_arguments(args, message):
    aged(40)
    with pytest.raises(CommandError, match=message):
        run("orderpay_prune", *args)
    assert NotificationDelivery.objects.count() == 1
