"""Two calls of one operation whose answers cross: a refusal that reached the first
caller after another call joined the operation does not close it.

Caller A records a create (the operation's first call). Before A's request
reaches the provider, caller B (another process, a double click) joins the
same operation and sends its key; B's request is the one that charges, and
its answer is lost. A's own request then meets a gateway's 403. A must not
call the operation refused: its key may have acted (through B). Otherwise
the next try would make a new key, and a second order.

Refunds of the same amount, where a new operation is a second refund: a
caller told the outcome was unknown is owed it, whoever heard it first.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from django_orderpay.client import client_from_settings, get_client
from django_orderpay.exceptions import OutcomeUnknown
from django_orderpay.models import Charge, Operation, OperationKind, Order
from django_orderpay.services import (
    cancel_charge,
    charges,
    create_order,
    operations,
    pay_order,
    refresh_order,
)
from django_orderpay.services._bodies import order_body, pay_body
from django_orderpay.sync import requested_total
from tests.test_services_support import DECLINED_VISA, charge, order_payload, raw_card

pytestmark = pytest.mark.django_db


def create_intent(reference_id: str) -> operations.Intent:
    """The intent ``create_order`` records for this body (no user: scope ``-``)."""
    body = order_body(order_payload(reference_id, charges=[charge(500)]))
    return operations.Intent(
        kind=OperationKind.CREATE,
        scope=operations.scope(OperationKind.CREATE, "-", reference_id),
        target=reference_id,
        body=body,
        basis={"amount": requested_total(body)},
    )


def test_a_gateways_refusal_after_another_call_joined_keeps_the_operation_open(
    orderpay_emulator,
):
    intent = create_intent("race-1")
    client = client_from_settings(backoff=0)
    first, _ = operations._begin(intent, None)  # caller A records it
    joined, _ = operations._begin(intent, None)  # caller B joins: the same key
    assert joined.pk == first.pk

    orderpay_emulator.inject_fault("lost_response", 4, path_prefix="/orders")
    with pytest.raises(OutcomeUnknown):  # B's request charged; its answers were lost
        operations._send(joined, intent, client, source="api")
    orderpay_emulator.inject_fault("http_403_json", 1, path_prefix="/orders")
    with pytest.raises(OutcomeUnknown):  # A's own first request: a gateway's 403
        operations._send(first, intent, client, source="api")

    assert Operation.objects.get().is_open
    # Trying again sends the same key: answered, one order at the provider.
    order = create_order(order_payload("race-1", charges=[charge(500)]))
    assert orderpay_emulator.order_ids() == [order.provider_id]
    assert Operation.objects.get().state == "succeeded"


def test_a_first_calls_own_refusal_still_closes_it(orderpay_emulator):
    intent = create_intent("race-2")
    first, _ = operations._begin(intent, None)
    orderpay_emulator.inject_fault("http_403_json", 1, path_prefix="/orders")

    with pytest.raises(Exception) as caught:
        operations._send(first, intent, client_from_settings(backoff=0), source="api")

    assert not isinstance(caught.value, OutcomeUnknown)
    assert Operation.objects.get().state == "refused"
    assert orderpay_emulator.order_ids() == []


# --- a refund's callers, each owed its answer -----------------------------------------


def refund_intent(row: Charge, value: int) -> operations.Intent:
    """The intent ``cancel_charge(row, value)`` records."""
    return charges.cancel_intent(row, value)


def paid(reference_id: str) -> Charge:
    return create_order(order_payload(reference_id, charges=[charge(2000)])).charges.get()


def refunded_at_provider(row: Charge) -> int:
    return get_client().get_charge(row.provider_id)["amount"]["summary"]["refunded"]


def test_a_caller_told_unknown_hears_the_success_another_caller_heard_first(orderpay_emulator):
    row = paid("race-3")
    intent = refund_intent(row, 300)
    client = client_from_settings(backoff=0)
    first, _ = operations._begin(intent, None)  # caller A
    joined, _ = operations._begin(intent, None)  # caller B joins: the same key

    orderpay_emulator.inject_fault("lost_response", 4, path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):  # B's request refunded; its answers were lost
        operations._call(joined, intent, client)
    assert Operation.objects.get(kind="cancel").unheard_calls == 1
    operations._call(first, intent, client)  # A's request: the provider answers its key
    assert Operation.objects.get(kind="cancel").state == "succeeded"

    # B repeats, as OutcomeUnknown told it it could: answered, not a second refund.
    again = cancel_charge(Charge.objects.get(pk=row.pk), 300)
    assert again.amount_refunded == 300
    assert refunded_at_provider(row) == 300
    [operation] = Operation.objects.filter(kind="cancel")
    assert operation.unheard_calls == 0

    # Everyone has heard it: the same amount asked again is a second refund.
    second = cancel_charge(Charge.objects.get(pk=row.pk), 300)
    assert second.amount_refunded == 600
    assert refunded_at_provider(row) == 600
    assert Operation.objects.filter(kind="cancel").count() == 2


def test_a_call_failing_after_another_heard_the_success_answers_that_success(
    orderpay_emulator,
):
    row = paid("race-4")
    intent = refund_intent(row, 300)
    client = client_from_settings(backoff=0)
    first, _ = operations._begin(intent, None)
    joined, _ = operations._begin(intent, None)
    operations._call(first, intent, client)  # A hears the refund

    orderpay_emulator.inject_fault("reset", 4, path_prefix="/charges/")
    answer = operations._call(joined, intent, client)  # B's own request never arrives

    assert isinstance(answer, Charge) and answer.amount_refunded == 300
    [operation] = Operation.objects.filter(kind="cancel")
    assert (operation.state, operation.unheard_calls) == ("succeeded", 0)
    # Nobody is owed anything: the same amount again is a second refund.
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 600
    assert refunded_at_provider(row) == 600


def test_a_caller_that_repeats_while_open_and_hears_it_is_owed_nothing_more(
    orderpay_emulator,
):
    row = paid("race-5")
    orderpay_emulator.inject_fault("lost_response", 4, path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300, client=client_from_settings(backoff=0))
    assert Operation.objects.get(kind="cancel").unheard_calls == 1

    heard = cancel_charge(Charge.objects.get(pk=row.pk), 300)  # joins the open operation
    assert heard.amount_refunded == 300
    assert Operation.objects.get(kind="cancel").unheard_calls == 0

    # The next refund of the same amount is a new one, not the last one's answer.
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 600
    assert refunded_at_provider(row) == 600


def test_each_caller_told_unknown_is_answered_once_then_the_next_call_refunds(
    orderpay_emulator,
):
    row = paid("race-6")
    intent = refund_intent(row, 300)
    client = client_from_settings(backoff=0)
    callers = [operations._begin(intent, None)[0] for _ in range(2)]
    orderpay_emulator.inject_fault("lost_response", 8, path_prefix="/charges/")
    for operation in callers:
        with pytest.raises(OutcomeUnknown):
            operations._call(operation, intent, client)
    refresh_order(row.order)  # settled from the provider's state: nobody heard it
    assert Operation.objects.get(kind="cancel").unheard_calls == 2

    for _ in callers:  # each repeat is answered from the settled refund
        assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 300
    assert refunded_at_provider(row) == 300
    assert Operation.objects.get(kind="cancel").unheard_calls == 0
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 600


def test_a_call_answered_from_a_success_nobody_heard_counts_as_hearing_it(orderpay_emulator):
    row = paid("race-7")
    intent = refund_intent(row, 300)
    client = client_from_settings(backoff=0)
    settling, _ = operations._begin(intent, None)
    joined, _ = operations._begin(intent, None)
    operations._send(settling, intent, client, source="sync")  # as orderpay_sync re-sends it
    assert not Operation.objects.get(kind="cancel").reported

    orderpay_emulator.inject_fault("reset", 4, path_prefix="/charges/")
    assert operations._call(joined, intent, client).amount_refunded == 300
    assert Operation.objects.get(kind="cancel").reported

    # Heard: the same amount asked again is a second refund, not this one's answer.
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 600
    assert refunded_at_provider(row) == 600


def test_a_debt_nobody_collects_lapses_and_the_next_refund_is_a_new_one(orderpay_emulator):
    row = paid("race-8")
    intent = refund_intent(row, 300)
    client = client_from_settings(backoff=0)
    lost, _ = operations._begin(intent, None)  # a double click: this half is abandoned
    heard, _ = operations._begin(intent, None)
    orderpay_emulator.inject_fault("reset", 4, path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        operations._call(lost, intent, client)
    operations._call(heard, intent, client)  # the page shows this refund
    operation = Operation.objects.get(kind="cancel")
    assert operation.unheard_calls == 1
    owed_for = operation.unheard_until - timezone.now()
    assert operations.OWED_FOR - dt.timedelta(minutes=1) < owed_for <= operations.OWED_FOR

    # Past OWED_FOR (moved here by hand), another item of the same price comes back.
    Operation.objects.filter(pk=operation.pk).update(unheard_until=timezone.now())
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 600
    assert refunded_at_provider(row) == 600


def test_the_errors_key_names_a_succeeded_refund_which_answers_without_a_call(
    orderpay_emulator,
):
    row = paid("race-9")
    orderpay_emulator.inject_fault("lost_response", 4, path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown) as caught:
        cancel_charge(row, 300, client=client_from_settings(backoff=0))
    refresh_order(row.order)  # settled from the provider's state
    assert Operation.objects.get(kind="cancel").state == "succeeded"

    # Nothing is sent (this reset would meet it): the provider may have forgotten the key.
    orderpay_emulator.inject_fault("reset", 4, path_prefix="/charges/")
    again = cancel_charge(
        Charge.objects.get(pk=row.pk), 300, idempotency_key=caught.value.idempotency_key
    )
    assert again.amount_refunded == 300
    operation = Operation.objects.get(kind="cancel")
    assert (operation.reported, operation.unheard_calls) == (True, 0)


def double_click_pay(emulator, order: Order, card: dict) -> str:
    """ "Pay" pressed twice: one request's answers are lost, the other's is shown (its status)."""
    intent = operations.Intent(
        kind=OperationKind.PAY,
        scope=operations.scope(OperationKind.PAY, order.provider_id),
        target=order.provider_id,
        body=pay_body([charge(500, card)]),
        order=order,
        basis={"charges": []},
    )
    client = client_from_settings(backoff=0)
    lost, _ = operations._begin(intent, None)
    shown, _ = operations._begin(intent, None)
    emulator.inject_fault("reset", 4, path_prefix="/orders/")
    with pytest.raises(OutcomeUnknown):
        operations._call(lost, intent, client)
    status = operations._call(shown, intent, client).charges.get().status
    assert Operation.objects.get(kind="pay").unheard_calls == 1
    return status


def test_a_declined_pay_owes_nothing_the_shoppers_next_card_is_sent(orderpay_emulator):
    order = create_order(order_payload("race-10"))
    assert double_click_pay(orderpay_emulator, order, raw_card(DECLINED_VISA)) == "DECLINED"

    # Another card, at once: sent, and paid (not answered with the old decline).
    again = pay_order(Order.objects.get(pk=order.pk), [charge(500, raw_card())])
    assert sorted(again.charges.values_list("status", flat=True)) == ["DECLINED", "PAID"]
    assert len(get_client().get_order(order.provider_id)["charges"]) == 2


def test_a_paid_pay_is_owed_the_lost_callers_repeat_hears_it(orderpay_emulator):
    # Another shopper's declined card elsewhere: nothing to do with this payment.
    create_order(order_payload("race-11-other", charges=[charge(500, raw_card(DECLINED_VISA))]))
    order = create_order(order_payload("race-11"))
    assert double_click_pay(orderpay_emulator, order, raw_card()) == "PAID"

    # The lost request's repeat is answered with the payment: not sent again.
    again = pay_order(Order.objects.get(pk=order.pk), [charge(500, raw_card())])
    assert list(again.charges.values_list("status", flat=True)) == ["PAID"]
    assert len(get_client().get_order(order.provider_id)["charges"]) == 1
    assert Operation.objects.filter(kind="pay").count() == 1
