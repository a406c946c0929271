"""The operation record: written before the call, reused while open, settled from the provider.

Through the emulator's HTTP interface and fault injection; ``test_money_moves_once``
runs the whole fault matrix, this module pins each rule on its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import threading

import pytest
import requests
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from django_orderpay.client import OrderPayClient, client_from_settings, get_client
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.exceptions import CardTokenNotOwned, OutcomeUnknown, ProviderError
from django_orderpay.models import CardToken, Charge, ChargeStatusChange, Operation, Order
from django_orderpay.services import (
    cancel_charge,
    create_order,
    get_public_key,
    pay_order,
    pay_with_card_token,
)
from django_orderpay.services.idempotency import digest, operation_key
from django_orderpay.sync import sync_order
from django_orderpay.testing import samples
from tests.test_services_support import (
    APPROVED_VISA,
    CVV,
    buyer,
    charge,
    encrypted_card,
    encrypted_visa,
    no_retries,
    order_payload,
    other_buyer,
    raw_card,
)

__all__ = ["buyer", "no_retries", "other_buyer"]

pytestmark = pytest.mark.django_db


def timeout(emulator, prefix: str, count: int = 1) -> None:
    """The provider acts, and its answer arrives after the client gave up."""
    emulator.inject_fault("timeout", count, delay=1.0, path_prefix=prefix)


def paid_charge(value: int = 2000) -> Charge:
    return create_order(order_payload("paid-1", charges=[charge(value)])).charges.get()


def refunded_at_provider(charge: Charge) -> int:
    return get_client().get_charge(charge.provider_id)["amount"]["summary"]["refunded"]


# --- the record ---------------------------------------------------------------------


def test_a_created_order_is_recorded_as_a_succeeded_operation(orderpay_emulator, buyer):
    order = create_order(order_payload("rec-1", charges=[charge(500)]), user=buyer)

    [operation] = Operation.objects.all()
    assert (operation.kind, operation.state, operation.reported) == ("create", "succeeded", True)
    assert (operation.target, operation.order, operation.user) == ("rec-1", order, buyer)
    assert operation.scope == f"create:{buyer.pk}:rec-1"
    assert operation.sequence == 0
    assert operation.calls == 1
    assert operation.resolved_at is not None
    # The body is kept without the card's secrets, so it can't be sent again as it was.
    card = operation.body["charges"][0]["payment_method"]["card"]
    assert "number" not in card and "security_code" not in card
    assert card["exp_year"] == "2030"
    assert operation.replayable is False
    assert operation.body_digest == digest(order_payload("rec-1", charges=[charge(500)]))


def test_a_refund_is_recorded_whole_and_replayable(orderpay_emulator):
    row = paid_charge()

    cancel_charge(row, 300)

    operation = Operation.objects.get(kind="cancel")
    assert operation.body == {"amount": {"value": 300}}
    assert operation.replayable is True
    assert (operation.target, operation.amount, operation.charge) == (row.provider_id, 300, row)
    assert operation.basis == {"status": "PAID", "refunded": 0}
    assert operation.scope == f"cancel:{row.provider_id}:300"


def test_the_record_is_committed_before_the_request_leaves(
    orderpay_emulator, transactional_db, settings
):
    seen: list[tuple[str, str]] = []

    class Watching:
        """The emulator, asked first what another connection sees of the operations."""

        def handle(self, request):
            if request.method == "POST" and request.path == "/orders":

                def look() -> None:
                    seen.extend(Operation.objects.values_list("state", "idempotency_key"))
                    connection.close()

                reader = threading.Thread(target=look)
                reader.start()
                reader.join()
                seen.append(("sent", request.header("x-idempotency-key")))
            return orderpay_emulator.emulator.handle(request)

    session = requests.Session()
    base = mount(session, Watching())
    client = OrderPayClient(base, orderpay_emulator.token, session=session)

    create_order(order_payload("committed-1", charges=[charge(500)]), client=client)

    key = Operation.objects.get().idempotency_key
    assert seen == [("sending", key), ("sent", key)]


# --- repeats while the outcome is unknown ------------------------------------------------


def test_an_unknown_outcome_is_its_own_exception_carrying_the_operation(
    orderpay_emulator, no_retries
):
    timeout(orderpay_emulator, "/orders")

    with pytest.raises(OutcomeUnknown) as caught:
        create_order(order_payload("lost-1", charges=[charge(500)]))

    error = caught.value
    operation = Operation.objects.get()
    assert error.operation == operation
    assert operation.state == "unknown"
    assert error.idempotency_key == operation.idempotency_key
    assert "the provider may have acted" in str(error)
    assert "orderpay_sync" in str(error)
    assert "timeout" in operation.error
    assert APPROVED_VISA not in str(error) + operation.error


def test_a_repeat_that_succeeds_clears_the_unknown_outcomes_error(orderpay_emulator, no_retries):
    timeout(orderpay_emulator, "/orders")
    body = order_payload("clear-1", charges=[charge(500)])
    with pytest.raises(OutcomeUnknown):
        create_order(body)
    assert Operation.objects.get().error.startswith("ProviderUnavailable")

    order = create_order(body)

    operation = Operation.objects.get()
    assert (operation.state, operation.reported, operation.error) == ("succeeded", True, "")
    assert operation.order == order


def test_a_500_with_a_json_body_never_moves_to_a_new_key(orderpay_emulator, no_retries):
    row = paid_charge()
    orderpay_emulator.inject_fault("http_500_json", path_prefix="/charges/")

    with pytest.raises(OutcomeUnknown) as first:
        cancel_charge(row, 300)
    assert first.value.status == 500
    assert Operation.objects.get(kind="cancel").is_open

    refunded = cancel_charge(Charge.objects.get(pk=row.pk), 300)

    operation = Operation.objects.get(kind="cancel")
    assert operation.idempotency_key == first.value.idempotency_key
    assert (operation.state, operation.calls, operation.sequence) == ("succeeded", 2, 0)
    assert refunded.amount_refunded == 300


def test_a_refund_repeated_after_its_notification_refunds_once(orderpay_emulator, no_retries):
    # Failure 2 of the issue: the notification records the refund, then the caller repeats.
    row = paid_charge()
    timeout(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)
    orderpay_emulator.deliver_notifications()
    row.refresh_from_db()
    assert row.amount_refunded == 300
    # The notification proves the refund: settled, not yet heard by a caller.
    settled = Operation.objects.get(kind="cancel")
    assert (settled.state, settled.reported) == ("succeeded", False)

    again = cancel_charge(row, 300)

    assert again.amount_refunded == 300
    assert refunded_at_provider(row) == 300
    [operation] = Operation.objects.filter(kind="cancel")
    assert (operation.state, operation.reported) == ("succeeded", True)
    # A refund of the same amount asked for after that is a new one.
    cancel_charge(again, 300)
    assert refunded_at_provider(row) == 600
    assert Operation.objects.filter(kind="cancel").count() == 2


def test_a_refusal_on_a_repeat_after_a_timeout_keeps_the_outcome_unknown(
    orderpay_emulator, no_retries
):
    # Failure 1 of the issue: a timeout, then a gateway's JSON 403 on the repeat.
    timeout(orderpay_emulator, "/orders")
    with pytest.raises(OutcomeUnknown):
        create_order(order_payload("buy-403", charges=[charge(500)]))
    orderpay_emulator.inject_fault("http_403_json", path_prefix="/orders")

    with pytest.raises(OutcomeUnknown) as caught:
        create_order(order_payload("buy-403", charges=[charge(500)]))

    assert caught.value.status == 403
    paid = create_order(order_payload("buy-403", charges=[charge(500)]))
    assert orderpay_emulator.order_ids() == [paid.provider_id]
    assert Operation.objects.get().calls == 3


def test_a_first_call_refused_is_final_and_the_next_call_is_a_new_operation(
    orderpay_emulator, no_retries
):
    orderpay_emulator.inject_fault("http_403_json", path_prefix="/orders")
    with pytest.raises(ProviderError) as caught:
        create_order(order_payload("refused-1", charges=[charge(500)]))
    assert not isinstance(caught.value, OutcomeUnknown)

    paid = create_order(order_payload("refused-1", charges=[charge(500)]))

    first, second = Operation.objects.order_by("sequence")
    assert (first.state, second.state) == ("refused", "succeeded")
    assert first.idempotency_key != second.idempotency_key
    assert paid.status == "PAID"


def test_a_settled_operation_answers_the_next_repeat_without_a_call(
    orderpay_emulator, no_retries, buyer, caplog
):
    # Failure 3: the notification arrives (and adopts the order) before the create's answer.
    timeout(orderpay_emulator, "/orders")
    with pytest.raises(OutcomeUnknown):
        create_order(order_payload("adopt-1", charges=[charge(500)]), user=buyer)
    assert not Order.objects.exists()

    orderpay_emulator.deliver_notifications()

    adopted = Order.objects.get()
    assert (adopted.reference_id, adopted.user) == ("adopt-1", buyer)
    operation = Operation.objects.get()
    assert (operation.state, operation.reported, operation.order) == ("succeeded", False, adopted)
    caplog.set_level("INFO", logger="django_orderpay.client")
    caplog.clear()

    answered = create_order(order_payload("adopt-1", charges=[charge(500)]), user=buyer)

    assert answered == adopted
    assert not [r for r in caplog.records if r.name == "django_orderpay.client"]
    operation.refresh_from_db()
    assert operation.reported is True


def test_a_notification_during_the_create_call_is_adopted_and_tied_to_it(
    orderpay_emulator, transactional_db, orderpay, buyer
):
    # The provider's notification is processed while the create call still waits.
    orderpay(TIMEOUT=5)
    orderpay_emulator.inject_fault("timeout", delay=1.0, path_prefix="/orders")
    notified = threading.Event()

    def notify() -> None:
        try:
            while not orderpay_emulator.emulator.notifier.deliveries():
                threading.Event().wait(0.02)
            orderpay_emulator.deliver_notifications()
            notified.set()
        finally:
            connection.close()

    worker = threading.Thread(target=notify)
    worker.start()
    order = create_order(order_payload("race-1", charges=[charge(500)]), user=buyer)
    worker.join()

    assert notified.is_set()
    assert Order.objects.get() == order
    # The notification adopted the order before the call's own answer came back.
    assert ChargeStatusChange.objects.get().source == "notification"
    assert order.user == buyer
    operation = Operation.objects.get()
    assert (operation.state, operation.reported, operation.order) == ("succeeded", True, order)


# --- orderpay_sync -----------------------------------------------------------------------


def age(operation: Operation, minutes: int) -> None:
    then = timezone.now() - dt.timedelta(minutes=minutes)
    Operation.objects.filter(pk=operation.pk).update(created_at=then, updated_at=then)


def test_orderpay_sync_re_sends_an_open_refund_with_its_key(orderpay_emulator, no_retries):
    row = paid_charge()
    orderpay_emulator.inject_fault("reset", path_prefix="/charges/")  # nothing done
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)
    operation = Operation.objects.get(kind="cancel")
    age(operation, 5)

    call_command("orderpay_sync", verbosity=0)

    operation.refresh_from_db()
    assert (operation.state, operation.reported, operation.calls) == ("succeeded", False, 2)
    assert refunded_at_provider(row) == 300
    # The caller's repeat hears it, and nothing more is refunded.
    again = cancel_charge(Charge.objects.get(pk=row.pk), 300)
    assert again.amount_refunded == 300
    assert refunded_at_provider(row) == 300


def test_orderpay_sync_leaves_a_call_still_in_flight_alone(orderpay_emulator, no_retries):
    row = paid_charge()
    orderpay_emulator.inject_fault("reset", path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)

    call_command("orderpay_sync", verbosity=0)  # within the grace period: not re-sent

    assert Operation.objects.get(kind="cancel").calls == 1
    assert refunded_at_provider(row) == 0


def test_orderpay_sync_does_not_re_send_an_operation_older_than_a_day(
    orderpay_emulator, no_retries
):
    row = paid_charge()
    orderpay_emulator.inject_fault("reset", path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)
    age(Operation.objects.get(kind="cancel"), 25 * 60)

    call_command("orderpay_sync", verbosity=0)

    assert Operation.objects.get(kind="cancel").state == "unknown"
    assert refunded_at_provider(row) == 0


def test_orderpay_sync_never_re_sends_a_payment_whose_card_it_does_not_keep(
    orderpay_emulator, no_retries
):
    order = create_order(order_payload("no-card-kept"))
    orderpay_emulator.inject_fault("reset", path_prefix=f"/orders/{order.provider_id}/pay")
    with pytest.raises(OutcomeUnknown):
        pay_order(order, [charge(500, encrypted_card())])
    operation = Operation.objects.get(kind="pay")
    assert operation.replayable is False  # its encrypted card was never stored
    age(operation, 5)

    call_command("orderpay_sync", verbosity=0)

    operation.refresh_from_db()
    assert (operation.state, operation.calls) == ("unknown", 1)
    assert get_client().get_order(order.provider_id).get("charges", []) == []


def test_orderpay_sync_settles_a_pay_from_the_orders_new_charge(
    orderpay_emulator, no_retries, buyer
):
    order = create_order(order_payload("two-step"), user=buyer)
    key = get_public_key()
    encrypted = encrypted_visa(key)
    timeout(orderpay_emulator, f"/orders/{order.provider_id}/pay")
    with pytest.raises(OutcomeUnknown):
        pay_order(
            order, [charge(500, {"encrypted": encrypted, "holder": {"name": "Jose da Silva"}})]
        )
    operation = Operation.objects.get(kind="pay")
    assert operation.replayable is False  # its card can't be sent again

    call_command("orderpay_sync", verbosity=0)  # refreshes the order of the open operation

    operation.refresh_from_db()
    new_charge = Charge.objects.get(order=order)
    assert (operation.state, operation.charge) == ("succeeded", new_charge)
    assert new_charge.status == "PAID"


# --- stored cards: only their owner's ------------------------------------------------------


def stored_card(user) -> CardToken:
    create_order(order_payload("store-1", charges=[charge(500, raw_card(store=True))]), user=user)
    return CardToken.objects.get(user=user)


def token_charge_body(token: CardToken) -> dict:
    return charge(800, {"id": token.provider_id, "security_code": CVV})


def test_create_with_someone_elses_card_is_refused_without_a_call(
    orderpay_emulator, buyer, other_buyer
):
    token = stored_card(buyer)
    before = orderpay_emulator.order_ids()

    with pytest.raises(CardTokenNotOwned) as caught:
        create_order(order_payload("theft", charges=[token_charge_body(token)]), user=other_buyer)

    assert str(caught.value).startswith("charges[0].payment_method.card.id:")
    assert orderpay_emulator.order_ids() == before
    with pytest.raises(CardTokenNotOwned):
        create_order(order_payload("theft", charges=[token_charge_body(token)]))


def test_pay_with_someone_elses_card_is_refused_whoever_pays(orderpay_emulator, buyer, other_buyer):
    token = stored_card(buyer)
    theirs = create_order(order_payload("theirs"), user=other_buyer)

    # The payer is the order's user unless given.
    with pytest.raises(CardTokenNotOwned):
        pay_order(theirs, [token_charge_body(token)])
    with pytest.raises(CardTokenNotOwned):
        pay_order(theirs, [token_charge_body(token)], user=other_buyer)
    assert get_client().get_order(theirs.provider_id)["charges"] == []

    mine = create_order(order_payload("mine"), user=buyer)
    assert pay_order(mine, [token_charge_body(token)]).status == "PAID"
    assert pay_with_card_token(
        create_order(order_payload("mine-2"), user=buyer), token, user=buyer
    ).is_paid


# --- keys and digests ------------------------------------------------------------------------


def test_a_creates_key_depends_on_its_body():
    body = order_payload("k-1", charges=[charge(500)])
    other = order_payload("k-1", charges=[charge(501)])

    assert operation_key("create", "s", 0, body) != operation_key("create", "s", 0, other)
    assert operation_key("create", "s", 0, body) == operation_key("create", "s", 0, dict(body))


def test_a_key_is_the_same_whatever_order_the_body_was_built_in():
    # Two processes (or two versions during a deploy) must derive the same key for the
    # same operation: the digest is of canonical JSON, sorted keys and no spaces.
    body = {"amount": {"value": 300, "currency": "BRL"}, "reference_id": "r-1"}
    built_backwards = {"reference_id": "r-1", "amount": {"currency": "BRL", "value": 300}}
    canonical = b'{"amount":{"currency":"BRL","value":300},"reference_id":"r-1"}'

    assert digest(body) == digest(built_backwards) == hashlib.sha256(canonical).hexdigest()
    key = operation_key("cancel", "cancel:CHAR_1:300", 0, body)
    assert re.fullmatch(r"orderpay-cancel-[0-9a-f]{40}", key)
    assert key == operation_key("cancel", "cancel:CHAR_1:300", 0, built_backwards)
    assert key != operation_key("capture", "cancel:CHAR_1:300", 0, body)


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body["shipping"]["address"].update(number="1385"),
        lambda body: body["customer"]["phones"][0].update(number="988888888"),
    ],
    ids=["address number", "phone number"],
)
def test_numbers_that_are_not_card_secrets_stay_in_the_digest(change):
    body = samples.order_request()
    changed = samples.order_request()
    change(changed)

    assert digest(body) != digest(changed)


def test_a_late_copy_with_a_newer_status_never_shrinks_the_sums(orderpay_emulator):
    row = paid_charge()
    cancel_charge(row, 300)
    row.refresh_from_db()
    canceled_without_sums = {
        **row.data,
        "status": "CANCELED",
        "amount": {"value": 2000, "currency": "BRL", "summary": {"total": 2000}},
    }
    from django_orderpay.sync import sync_charge

    synced = sync_charge(canceled_without_sums, source="notification")

    assert synced.status == "CANCELED"
    assert (synced.amount_paid, synced.amount_refunded) == (2000, 300)


def test_operations_of_a_client_from_settings_share_the_shop_key_space(orderpay_emulator):
    # Two clients (two processes' worth) derive the same key for the same operation.
    body = order_payload("shared-1", charges=[charge(500)])
    first = create_order(body, client=client_from_settings())
    Operation.objects.all().delete()  # as if another process had its own database view

    again = create_order(body, client=client_from_settings())

    assert again.provider_id == first.provider_id  # the provider answered the same key
    assert len(orderpay_emulator.order_ids()) == 1


def test_an_order_of_another_amount_under_the_same_reference_is_not_the_operations(
    orderpay_emulator, no_retries, buyer
):
    # Another system on the account made an order with the same reference first.
    elsewhere = get_client().create_order(order_payload("same-ref", charges=[charge(900)]))
    timeout(orderpay_emulator, "/orders")
    with pytest.raises(OutcomeUnknown):
        create_order(order_payload("same-ref", charges=[charge(500)]), user=buyer)

    orderpay_emulator.deliver_notifications()  # the other order's notification comes first

    operation = Operation.objects.get()
    ours = Order.objects.exclude(provider_id=elsewhere["id"]).get()
    assert operation.order == ours
    assert ours.user == buyer
    assert Order.objects.get(provider_id=elsewhere["id"]).user is None


# --- text the database can't store ---------------------------------------------------------


def test_provider_text_with_a_nul_is_mirrored_storable(orderpay_emulator):
    # Whatever the provider holds (here an order made around our builders), sync stores it.
    body = order_payload("nul-1", charges=[charge(500)])
    body["customer"]["name"] = "Jose\x00da Silva"
    body["items"][0]["name"] = "Camiseta\x00"
    made = get_client().create_order(body)

    orderpay_emulator.deliver_notifications()  # adopted through its notification

    order = Order.objects.get(provider_id=made["id"])
    assert order.customer_name == "Jose\ufffdda Silva"
    assert order.data["items"][0]["name"] == "Camiseta\ufffd"
    assert order.charges.get().status == "PAID"


def test_a_lone_surrogate_from_the_provider_is_mirrored_storable(orderpay_emulator):
    answer = get_client().create_order(order_payload("sur-1", charges=[charge(500)]))
    answer["customer"]["name"] = "Jose \ud800 Silva"
    answer["charges"][0]["payment_method"]["card"]["holder"]["name"] = "\udfff"

    order = sync_order(answer, source="notification")

    assert order.customer_name == "Jose \ufffd Silva"
    card = order.charges.get().data["payment_method"]["card"]
    assert card["holder"]["name"] == "\ufffd"
