"""Two calls of one operation whose answers cross: a refusal that reached the first
caller after another call joined the operation does not close it.

Caller A records a create (the operation's first call). Before A's request
reaches the provider, caller B (another process, a double click) joins the
same operation and sends its key; B's request is the one that charges, and
its answer is lost. A's own request then meets a gateway's 403. A must not
call the operation refused: its key may have acted (through B). Otherwise
the next try would make a new key, and a second order.
"""

from __future__ import annotations

import pytest

from django_orderpay.client import client_from_settings
from django_orderpay.exceptions import OutcomeUnknown
from django_orderpay.models import Operation, OperationKind
from django_orderpay.services import create_order, operations
from django_orderpay.services._bodies import order_body
from django_orderpay.sync import requested_total
from tests.test_services_support import charge, order_payload

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
