"""Money moves once under every fault the provider is known for, with a caller that retries.

Each case injects a fault through the emulator's control plane on one
money-moving call (create, pay, capture, partial refund, full refund), then
acts as a shop's code does: it calls the service, and after any exception
it reads its rows again and calls once more (a view, a task retry, a customer
pressing "pay" again). Then the provider's notifications arrive and
``orderpay_sync`` runs. What must hold, for every fault and every call:

- every exception on the way is the package's own;
- the provider acted exactly once (one order, one paid charge, the captured
  amount once, the refunded amount once), never twice;
- everything charged at the provider is mirrored here, and matches it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.management import call_command

from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.client import client_from_settings, get_client
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import Charge, Operation, Order
from django_orderpay.services import (
    cancel_charge,
    capture_charge,
    create_order,
    get_public_key,
    pay_order,
)
from tests.test_services_support import APPROVED_VISA, CVV, charge, order_payload

pytestmark = pytest.mark.django_db

#: The client gives up on an answer after this long; a ``timeout`` fault answers later.
TIMEOUT = 0.2
FAULT_DELAY = 1.0
CALLS = 4

#: Each fault as it reaches the first call: the client makes 1 + 3 attempts.
FAULTS: dict[str, list[tuple[str, int]]] = {
    "timeout": [("timeout", 4)],
    "lost response": [("lost_response", 4)],
    "reset": [("reset", 4)],
    "empty 500": [("http_500", 4)],
    "500 with JSON": [("http_500_json", 1)],
    "502": [("http_502", 4)],
    "HTML 403": [("http_403_html", 1)],
    # A proxy's 400 page (no error codes) on every try after the first one acted.
    "HTML 400 after a lost response": [("lost_response", 1), ("http_400_html", 3)],
    "JSON 403 after a timeout": [("timeout", 1), ("http_403_json", 3)],
    "JSON 403 after a lost response": [("lost_response", 1), ("http_403_json", 3)],
    "429": [("rate_limit", 4)],
}


@dataclass
class Caller:
    """A shop's code: calls, and after any exception reads its rows again and calls again."""

    errors: list[Exception]

    def until_answered(self, call: Callable[[], Any]) -> Any:
        for _ in range(CALLS):
            try:
                return call()
            except Exception as error:
                assert isinstance(error, OrderPayError), repr(error)
                self.errors.append(error)
        return None


@pytest.fixture
def client(orderpay_emulator, settings):
    """The shop's client: short timeouts, retries at once."""
    settings.ORDERPAY = {**settings.ORDERPAY, "TIMEOUT": TIMEOUT}
    return client_from_settings(backoff=0)


def inject(emulator, faults: list[tuple[str, int]], prefix: str) -> None:
    for kind, count in faults:
        emulator.inject_fault(kind, count, delay=FAULT_DELAY, path_prefix=prefix)


def settle(emulator) -> None:
    """The provider's notifications arrive, then the shop's cron runs ``orderpay_sync``."""
    emulator.control("DELETE", "faults")
    emulator.deliver_notifications()
    try:
        call_command("orderpay_sync", verbosity=0)
    finally:
        emulator.deliver_notifications()


def provider_orders(emulator, reference_id: str) -> list[dict[str, Any]]:
    orders = [get_client().get_order(order_id) for order_id in emulator.order_ids()]
    return [order for order in orders if order.get("reference_id") == reference_id]


def assert_mirrored(provider_order: dict[str, Any]) -> None:
    """The local copy of a provider order holds what the provider holds."""
    local = Order.objects.get(provider_id=provider_order["id"])
    for entry in provider_order.get("charges") or ():
        row = Charge.objects.get(provider_id=entry["id"], order=local)
        summary = entry["amount"].get("summary") or {}
        assert row.status == entry["status"]
        assert row.amount_paid == summary.get("paid", 0)
        assert row.amount_refunded == summary.get("refunded", 0)


def paid_order(value: int, *, capture: bool = True) -> Order:
    return create_order(order_payload("paid-1", charges=[charge(value, capture=capture)]))


# --- create ------------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
def test_create_charges_once(orderpay_emulator, client, fault):
    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], "/orders")

    answered = caller.until_answered(
        lambda: create_order(order_payload("buy-1", charges=[charge(500)]), client=client)
    )
    settle(orderpay_emulator)

    [provider_order] = provider_orders(orderpay_emulator, "buy-1")
    assert [c["status"] for c in provider_order["charges"]] == ["PAID"]
    assert answered is not None and answered.provider_id == provider_order["id"]
    assert_mirrored(provider_order)
    assert not Operation.objects.open().exists()


@pytest.mark.parametrize("fault", FAULTS)
def test_create_with_a_card_encrypted_again_on_each_try_charges_once(
    orderpay_emulator, client, fault
):
    key = get_public_key()

    def submit():
        # The customer's browser encrypts the card again on every submit.
        blob = encrypt_card(
            key,
            number=APPROVED_VISA,
            security_code=CVV,
            exp_month="12",
            exp_year="2030",
            holder="Jose Silva",
        )
        card = {"encrypted": blob, "holder": {"name": "Jose Silva"}}
        return create_order(order_payload("buy-2", charges=[charge(500, card)]), client=client)

    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], "/orders")
    answered = caller.until_answered(submit)
    settle(orderpay_emulator)
    if answered is None:
        # The provider held the first key (a 409 each time): after its notification,
        # the customer's next submit hears the first submit's outcome.
        answered = caller.until_answered(submit)

    [provider_order] = provider_orders(orderpay_emulator, "buy-2")
    assert [c["status"] for c in provider_order["charges"]] == ["PAID"]
    assert answered.provider_id == provider_order["id"]
    assert_mirrored(provider_order)
    assert not Operation.objects.open().exists()


# --- pay ---------------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
def test_pay_charges_once(orderpay_emulator, client, fault):
    order = create_order(order_payload("two-step-1"))
    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], f"/orders/{order.provider_id}/pay")

    caller.until_answered(lambda: pay_order(order, [charge(500)], client=client))
    settle(orderpay_emulator)

    [provider_order] = provider_orders(orderpay_emulator, "two-step-1")
    assert [c["status"] for c in provider_order["charges"]] == ["PAID"]
    assert_mirrored(provider_order)
    assert not Operation.objects.open().exists()


# --- capture and refunds -------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
def test_capture_captures_once(orderpay_emulator, client, fault):
    row = paid_order(1000, capture=False).charges.get()
    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], "/charges/")

    caller.until_answered(lambda: capture_charge(Charge.objects.get(pk=row.pk), client=client))
    settle(orderpay_emulator)

    provider = get_client().get_charge(row.provider_id)
    assert (provider["status"], provider["amount"]["summary"]["paid"]) == ("PAID", 1000)
    row.refresh_from_db()
    assert (row.status, row.amount_paid) == ("PAID", 1000)
    assert not Operation.objects.open().exists()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_partial_refund_refunds_once(orderpay_emulator, client, fault):
    row = paid_order(2000).charges.get()
    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], "/charges/")

    def refund():
        # Between tries the provider's notification may have arrived: read the row again.
        orderpay_emulator.deliver_notifications()
        return cancel_charge(Charge.objects.get(pk=row.pk), 300, client=client)

    caller.until_answered(refund)
    settle(orderpay_emulator)

    provider = get_client().get_charge(row.provider_id)
    assert provider["amount"]["summary"]["refunded"] == 300
    row.refresh_from_db()
    assert (row.status, row.amount_refunded) == ("PAID", 300)
    assert not Operation.objects.open().exists()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_full_refund_refunds_once(orderpay_emulator, client, fault):
    row = paid_order(2000).charges.get()
    caller = Caller([])
    inject(orderpay_emulator, FAULTS[fault], "/charges/")

    def refund_everything():
        orderpay_emulator.deliver_notifications()
        return cancel_charge(Charge.objects.get(pk=row.pk), client=client)

    caller.until_answered(refund_everything)
    settle(orderpay_emulator)

    provider = get_client().get_charge(row.provider_id)
    assert (provider["status"], provider["amount"]["summary"]["refunded"]) == ("CANCELED", 2000)
    row.refresh_from_db()
    assert (row.status, row.amount_refunded) == ("CANCELED", 2000)
    assert not Operation.objects.open().exists()
