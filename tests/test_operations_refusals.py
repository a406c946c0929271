"""Which answers close an operation as refused, and which leave its outcome unknown.

A refusal closes the operation (the next call is a new operation, with a
new key); anything that may hide work done leaves it open, its key kept.
Through the emulator's HTTP interface, its fault injection and its options.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings

from django_orderpay.client import get_client, reset_client
from django_orderpay.exceptions import (
    CardTokenNotOwned,
    IdempotencyConflict,
    OutcomeUnknown,
    ProviderError,
    ProviderUnavailable,
)
from django_orderpay.models import CardToken, Charge, Operation, Order
from django_orderpay.services import cancel_charge, create_order
from tests.test_services_support import (
    CVV,
    buyer,
    charge,
    closed_port,
    encrypted_card,
    no_retries,
    order_payload,
    other_buyer,
    raw_card,
)

__all__ = ["buyer", "no_retries", "other_buyer"]

pytestmark = pytest.mark.django_db


# --- a 409 is never a refusal -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "code"), [("production", "IDEMPOTENCY_CONFLICT"), ("docs", "40005")]
)
def test_a_409_on_a_first_call_leaves_the_outcome_unknown(
    orderpay_emulator, no_retries, shape, code
):
    orderpay_emulator.control("POST", "options", {"idempotency_conflict": shape})
    # The key was used before this shop's record of it (another system, a restored database).
    made = get_client().create_order(
        order_payload("k-409", charges=[charge(500, encrypted_card())]), idempotency_key="key-1"
    )

    with pytest.raises(OutcomeUnknown) as caught:
        create_order(
            order_payload("k-409", charges=[charge(500, encrypted_card())]),
            idempotency_key="key-1",
        )

    assert isinstance(caught.value.__cause__, IdempotencyConflict)
    assert (caught.value.status, caught.value.codes) == (409, [code])
    operation = Operation.objects.get()
    assert (operation.state, operation.idempotency_key) == ("unknown", "key-1")
    # The provider's notification settles it with the order made under that key.
    orderpay_emulator.deliver_notifications()
    operation.refresh_from_db()
    assert (operation.state, operation.order.provider_id) == ("succeeded", made["id"])
    assert orderpay_emulator.order_ids() == [made["id"]]


# --- the API's own 400 on a repeat is the provider's answer --------------------------------------


def test_a_400_on_a_repeat_after_an_unknown_outcome_is_the_providers_refusal(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("k-400", charges=[charge(2000)])).charges.get()
    get_client().cancel_charge(row.provider_id, 1900)  # refunded elsewhere, not mirrored yet
    orderpay_emulator.inject_fault("reset", path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)

    # The provider looks the key up before it validates: its 400 says nothing was done.
    with pytest.raises(ProviderError) as caught:
        cancel_charge(Charge.objects.get(pk=row.pk), 300)

    assert not isinstance(caught.value, OutcomeUnknown)
    assert caught.value.status == 400
    operation = Operation.objects.get(kind="cancel")
    assert (operation.state, operation.calls) == ("refused", 2)
    assert get_client().get_charge(row.provider_id)["amount"]["summary"]["refunded"] == 1900


def test_a_gateways_400_without_error_codes_on_a_repeat_leaves_the_outcome_unknown(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("k-400-page", charges=[charge(2000)])).charges.get()
    orderpay_emulator.inject_fault("lost_response", path_prefix="/charges/")  # refunded, unheard
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)
    orderpay_emulator.inject_fault("http_400_html", path_prefix="/charges/")

    # A proxy's page, not the API's: it says nothing about the key's first call.
    with pytest.raises(OutcomeUnknown) as caught:
        cancel_charge(Charge.objects.get(pk=row.pk), 300)

    assert (caught.value.status, caught.value.codes) == (400, [])
    operation = Operation.objects.get(kind="cancel")
    assert (operation.state, operation.calls) == ("unknown", 2)
    # The next repeat still sends the first key: the provider answers the first refund.
    answered = cancel_charge(Charge.objects.get(pk=row.pk), 300)
    assert answered.amount_refunded == 300
    assert Operation.objects.get(kind="cancel").state == "succeeded"
    assert get_client().get_charge(row.provider_id)["amount"]["summary"]["refunded"] == 300


# --- a create's scope is its reference --------------------------------------------------------


def test_a_create_repeated_with_an_edited_body_while_unknown_makes_one_order(
    orderpay_emulator, no_retries
):
    # A two-step order (no card data): its request can be sent again as it was.
    orderpay_emulator.inject_fault("timeout", delay=1.0, path_prefix="/orders")
    with pytest.raises(OutcomeUnknown):
        create_order(order_payload("k-edit", items=1))

    # The shop's view builds the body again, and the cart changed meanwhile.
    answered = create_order(order_payload("k-edit", items=2))

    # The repeat is the first operation: its key, with the request it was first sent with.
    [operation] = Operation.objects.all()
    assert (operation.state, operation.calls) == ("succeeded", 2)
    assert orderpay_emulator.order_ids() == [answered.provider_id]
    assert len(answered.data["items"]) == 1


# --- every stored card a body charges is checked -------------------------------------------


def test_a_second_charge_with_someone_elses_card_is_refused_without_a_call(
    orderpay_emulator, buyer, other_buyer
):
    create_order(order_payload("store-1", charges=[charge(500, raw_card(store=True))]), user=buyer)
    token = CardToken.objects.get(user=buyer)
    before = orderpay_emulator.order_ids()
    charges = [charge(500), charge(300, {"id": token.provider_id, "security_code": CVV})]

    with pytest.raises(CardTokenNotOwned) as caught:
        create_order(order_payload("theft-2", charges=charges, unit_amount=800), user=other_buyer)

    assert str(caught.value).startswith("charges[1].payment_method.card.id:")
    assert orderpay_emulator.order_ids() == before
    assert not Order.objects.filter(reference_id="theft-2").exists()


# --- a connection refused before anything was sent ---------------------------------------


@pytest.fixture
def nowhere(orderpay_emulator, orderpay):
    """The shop pointed at an address where nothing answers (a wrong EMULATOR_URL)."""
    orderpay(BASE_URL=closed_port(), RETRIES=1, TIMEOUT=2)


def test_a_refused_connection_is_a_refusal_not_an_unknown_outcome(nowhere):
    with pytest.raises(ProviderUnavailable) as caught:
        create_order(order_payload("refused-1", charges=[charge(500, encrypted_card())]))

    assert not isinstance(caught.value, OutcomeUnknown)
    assert (caught.value.sent, caught.value.attempts) == (False, 2)
    assert "could not connect" in caught.value.reason
    operation = Operation.objects.get()
    assert operation.state == "refused"  # nothing reached the provider: no key to keep
    assert not Order.objects.exists()


def test_a_refused_repeat_of_an_unknown_operation_stays_unknown(orderpay_emulator, no_retries):
    orderpay_emulator.inject_fault("timeout", delay=1, path_prefix="/orders")
    payload = order_payload("refused-2", charges=[charge(500, encrypted_card())])
    with pytest.raises(OutcomeUnknown):
        create_order(payload)  # the first call may have reached the provider

    with override_settings(ORDERPAY={**settings.ORDERPAY, "BASE_URL": closed_port()}):
        reset_client()
        with pytest.raises(OutcomeUnknown) as caught:
            create_order(payload)  # its repeat could not connect: the first still may have acted
    reset_client()

    assert caught.value.__cause__.sent is False
    operation = Operation.objects.get()
    assert (operation.state, operation.calls) == ("unknown", 2)


def test_a_timeout_after_connecting_is_still_unknown(orderpay_emulator, no_retries):
    orderpay_emulator.inject_fault("timeout", delay=1, path_prefix="/orders")
    with pytest.raises(OutcomeUnknown) as caught:
        create_order(order_payload("timeout-1", charges=[charge(500, encrypted_card())]))
    assert caught.value.__cause__.sent is True
