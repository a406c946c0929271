"""Idempotency keys and retries, through the emulator's fault injection."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from django_orderpay.client import client_from_settings, get_client
from django_orderpay.exceptions import (
    IdempotencyConflict,
    OutcomeUnknown,
    ProviderError,
    ProviderUnavailable,
)
from django_orderpay.models import Order
from django_orderpay.services import (
    cancel_charge,
    capture_charge,
    create_order,
    get_public_key,
    pay_order,
)
from django_orderpay.services.idempotency import digest, operation_key, without_card_secrets
from tests.test_services_support import (
    DECLINED_VISA,
    charge,
    encrypted_visa,
    order_payload,
    raw_card,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def quick_timeout(settings, orderpay_emulator):
    """The client gives up on an answer after half a second (the faults delay theirs 2 s)."""
    settings.ORDERPAY = {**settings.ORDERPAY, "TIMEOUT": 0.5}


def test_a_create_that_times_out_once_is_retried_with_the_same_key(
    orderpay_emulator, quick_timeout
):
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/orders")

    order = create_order(order_payload(charges=[charge(500)]))

    # The first attempt did the work; the retry got its stored answer.
    assert orderpay_emulator.order_ids() == [order.provider_id]
    assert Order.objects.get().provider_id == order.provider_id
    assert order.charges.get().status == "PAID"
    assert orderpay_emulator.control("GET", "faults")["faults"] == []


@pytest.mark.parametrize("kind", ["reset", "http_500", "http_502", "rate_limit"])
def test_other_transient_failures_are_retried_too(orderpay_emulator, kind):
    orderpay_emulator.inject_fault(kind, count=2, path_prefix="/orders")
    client = client_from_settings(backoff=0.01)  # the shop's own client, retrying at once

    order = create_order(order_payload(charges=[charge(500)]), client=client)

    assert orderpay_emulator.order_ids() == [order.provider_id]
    assert orderpay_emulator.control("GET", "faults")["faults"] == []


def test_a_create_repeated_after_a_lost_answer_is_not_charged_twice(
    orderpay_emulator, quick_timeout, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    body = order_payload(charges=[charge(500)])
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/orders")
    with pytest.raises(ProviderUnavailable):
        create_order(body)
    assert len(orderpay_emulator.order_ids()) == 1  # charged, but we never heard
    assert not Order.objects.exists()

    order = create_order(body)  # the customer presses "pay" again

    assert orderpay_emulator.order_ids() == [order.provider_id]
    assert order.charges.get().status == "PAID"


def test_a_re_encrypted_card_after_a_lost_answer_is_an_unknown_outcome_not_a_charge(
    orderpay_emulator, quick_timeout, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    key = get_public_key()

    def body():
        # Every encryption differs, as the browser SDK's do.
        encrypted = encrypted_visa(key)
        return order_payload(
            charges=[charge(500, {"encrypted": encrypted, "holder": {"name": "Jose da Silva"}})]
        )

    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/orders")
    with pytest.raises(OutcomeUnknown) as first:
        create_order(body())

    with pytest.raises(OutcomeUnknown) as caught:
        create_order(body())

    # The 409 says the provider holds the first call's key: the outcome is
    # still unknown, so the key stays and nothing new is sent.
    assert caught.value.status == 409
    assert caught.value.codes == ["IDEMPOTENCY_CONFLICT"]
    assert caught.value.operation.pk == first.value.operation.pk
    assert caught.value.idempotency_key == first.value.idempotency_key
    with pytest.raises(OutcomeUnknown):
        create_order(body())
    assert len(orderpay_emulator.order_ids()) == 1


def test_a_new_attempt_after_a_synced_decline_is_a_new_order(orderpay_emulator):
    declined = create_order(order_payload(charges=[charge(500, raw_card(DECLINED_VISA))]))
    assert declined.status == "DECLINED"

    paid = create_order(order_payload(charges=[charge(500)]))

    assert paid.provider_id != declined.provider_id
    assert paid.status == "PAID"
    assert len(orderpay_emulator.order_ids()) == 2


def test_an_explicit_key_is_sent_as_given(orderpay_emulator):
    first = create_order(order_payload("a", charges=[charge(500)]), idempotency_key="checkout-42")
    again = create_order(order_payload("a", charges=[charge(500)]), idempotency_key="checkout-42")

    assert again.pk == first.pk
    assert len(orderpay_emulator.order_ids()) == 1
    with pytest.raises(IdempotencyConflict):
        create_order(order_payload("b", charges=[charge(500)]), idempotency_key="checkout-42")
    # The same reference with another amount is another request: not answered with "a".
    with pytest.raises(IdempotencyConflict):
        create_order(order_payload("a", charges=[charge(700)]), idempotency_key="checkout-42")
    assert len(orderpay_emulator.order_ids()) == 1


def test_a_pay_that_times_out_once_is_retried_with_the_same_key(orderpay_emulator, quick_timeout):
    order = create_order(order_payload())
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/orders/")

    paid = pay_order(order, [charge(500)])

    assert paid.charges.get().status == "PAID"
    assert len(get_client().get_order(order.provider_id)["charges"]) == 1


def test_capture_and_refund_that_time_out_once_act_once(orderpay_emulator, quick_timeout):
    row = create_order(order_payload(charges=[charge(1000, capture=False)])).charges.get()
    client = client_from_settings(backoff=0.01)
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/charges/")
    captured = capture_charge(row, client=client)
    assert (captured.status, captured.amount_paid) == ("PAID", 1000)

    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/charges/")
    refunded = cancel_charge(captured, 400, client=client)

    # Retried with one key: refunded once, not twice.
    assert (refunded.status, refunded.amount_refunded) == ("PAID", 400)
    assert get_client().get_charge(row.provider_id)["amount"]["summary"]["refunded"] == 400


def test_keys_never_depend_on_card_secrets():
    body = order_payload(charges=[charge(500, {"encrypted": "QUJD", "security_code": "123"})])
    other = order_payload(charges=[charge(500, {"encrypted": "WFla", "security_code": "999"})])

    assert digest(body) == digest(other)
    assert operation_key("create", "r", 0, body) == operation_key("create", "r", 0, other)
    assert operation_key("create", "r", 0, body) != operation_key("create", "r", 1, body)
    assert len(operation_key("create", "r", 0, body)) < 64
    card = without_card_secrets(body)["charges"][0]["payment_method"]["card"]
    assert card == {}


def foreign_public_key() -> str:
    """A key the provider never issued: what it encrypts, the provider cannot read."""
    public = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


def encrypted_card(key: str) -> dict:
    blob = encrypted_visa(key)
    return {"encrypted": blob, "holder": {"name": "Jose da Silva"}}


def test_a_refused_payment_does_not_lock_the_order_for_the_next_card(orderpay_emulator):
    # Given an order whose first payment the provider refused (a card it cannot decrypt):
    # the refusal is kept at the provider under the derived key
    order = create_order(order_payload())
    with pytest.raises(ProviderError) as caught:
        pay_order(order, [charge(500, encrypted_card(foreign_public_key()))])
    assert caught.value.status == 400
    assert caught.value.parameter_names == ["charges[0].payment_method.card.encrypted"]

    # When the customer types the card again (a new encryption)
    paid = pay_order(order, [charge(500, encrypted_card(get_public_key()))])

    # Then it is a new operation, not a 409, and the order is paid once
    assert paid.status == "PAID"
    assert len(get_client().get_order(order.provider_id)["charges"]) == 1


def test_a_refused_create_does_not_lock_its_reference_id(orderpay_emulator):
    refused_body = order_payload(charges=[charge(500, encrypted_card(foreign_public_key()))])
    with pytest.raises(ProviderError) as caught:
        create_order(refused_body)
    assert caught.value.status == 400
    assert orderpay_emulator.order_ids() == []

    order = create_order(order_payload(charges=[charge(500, encrypted_card(get_public_key()))]))

    assert order.status == "PAID"
    assert orderpay_emulator.order_ids() == [order.provider_id]


def test_after_a_refusal_a_lost_answer_is_still_not_charged_twice(
    orderpay_emulator, quick_timeout, settings
):
    # Given a refused attempt, then an attempt whose answer is lost
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    order = create_order(order_payload())
    with pytest.raises(ProviderError):
        pay_order(order, [charge(500, encrypted_card(foreign_public_key()))])
    body = [charge(500)]
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/orders/")
    with pytest.raises(ProviderUnavailable):
        pay_order(order, body)

    # When the customer presses "pay" again
    paid = pay_order(order, body)

    # Then the provider answers the attempt it already made: one charge
    assert paid.charges.get().status == "PAID"
    assert len(get_client().get_order(order.provider_id)["charges"]) == 1


def test_an_explicit_key_is_the_callers_even_after_a_refusal(orderpay_emulator):
    order = create_order(order_payload())
    bad = [charge(500, encrypted_card(foreign_public_key()))]
    with pytest.raises(ProviderError):
        pay_order(order, bad, idempotency_key="pay-once")

    with pytest.raises(IdempotencyConflict):
        pay_order(order, [charge(500)], idempotency_key="pay-once")
