"""What settles an open operation, and what must not: the proofs ``sync`` reads.

An operation whose call got no answer stays open until the provider's state
proves it done (``django_orderpay.sync.operations``). Each test here leaves
an operation open through an injected fault, lets a sync run (a refresh, a
notification, ``orderpay_sync``, another call's answer), and checks the
proof: a state that does not show the work leaves the operation open, so
the caller's repeat still sends its key and the money moves, once.
"""

from __future__ import annotations

import threading

import pytest
import requests
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection

from django_orderpay.client import OrderPayClient, get_client
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.exceptions import OutcomeUnknown, ProviderError, ProviderUnavailable
from django_orderpay.models import Charge, Operation, Order
from django_orderpay.services import (
    cancel_charge,
    capture_charge,
    create_order,
    pay_order,
    refresh_order,
)
from tests.test_services_support import (
    DECLINED_VISA,
    buyer,
    charge,
    closed_port,
    encrypted_card,
    no_retries,
    order_payload,
    raw_card,
)

__all__ = ["buyer", "no_retries"]

pytestmark = pytest.mark.django_db


def done_unheard(emulator, prefix: str) -> None:
    """The provider acts, and its answer arrives after the client gave up."""
    emulator.inject_fault("timeout", delay=1.0, path_prefix=prefix)


def never_arrived(emulator, prefix: str) -> None:
    """The connection drops before the provider does anything."""
    emulator.inject_fault("reset", path_prefix=prefix)


def at_provider(row: Charge) -> dict:
    return get_client().get_charge(row.provider_id)


# --- refunds: several open on one charge -----------------------------------------------


@pytest.mark.parametrize("arrived", [300, 200])
def test_two_open_refunds_of_one_charge_are_not_told_apart_by_the_sum(
    orderpay_emulator, no_retries, arrived
):
    row = create_order(order_payload(f"r-1-{arrived}", charges=[charge(2000)])).charges.get()
    for amount in (300, 200):  # the older first; only ``arrived`` reached the provider
        if amount == arrived:
            done_unheard(orderpay_emulator, "/charges/")
        else:
            never_arrived(orderpay_emulator, "/charges/")
        with pytest.raises(OutcomeUnknown):
            cancel_charge(Charge.objects.get(pk=row.pk), amount)

    refresh_order(row.order)  # the provider shows ``arrived`` refunded

    # Either refund could have made that sum: neither is called done from it.
    assert set(Operation.objects.filter(kind="cancel").values_list("state", flat=True)) == {
        "unknown"
    }
    # Their repeats send their keys: the provider acts for the one that never arrived.
    for amount in (300, 200):
        cancel_charge(Charge.objects.get(pk=row.pk), amount)
    assert at_provider(row)["amount"]["summary"]["refunded"] == 500
    assert Charge.objects.get(pk=row.pk).amount_refunded == 500
    assert set(Operation.objects.filter(kind="cancel").values_list("state", flat=True)) == {
        "succeeded"
    }


def test_two_open_refunds_stay_apart_from_a_third_ones_answer(orderpay_emulator, no_retries):
    row = create_order(order_payload("r-8", charges=[charge(2000)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 200)
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(Charge.objects.get(pk=row.pk), 300)

    # A third refund's answer shows 400 refunded: its own 100, and 300 or 200 of the
    # others, which the sum cannot tell apart. Only the answered one is settled.
    cancel_charge(Charge.objects.get(pk=row.pk), 100)

    states = dict(Operation.objects.filter(kind="cancel").values_list("amount", "state"))
    assert states == {200: "unknown", 300: "unknown", 100: "succeeded"}
    for amount in (200, 300):  # their repeats send their keys
        cancel_charge(Charge.objects.get(pk=row.pk), amount)
    assert at_provider(row)["amount"]["summary"]["refunded"] == 600


def test_two_open_refunds_stay_apart_behind_an_open_capture_of_the_order(
    orderpay_emulator, no_retries
):
    # The order's open operations are read oldest first: a capture of its other charge,
    # still open, comes before the two refunds. It is no refund, and no reason to stop
    # looking at the rest: the two refunds share a charge whatever comes before them.
    body = order_payload("r-10", charges=[charge(800, capture=False), charge(2000)], items=2)
    authorised, paid = create_order(body).charges.order_by("pk")
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        capture_charge(authorised)
    never_arrived(orderpay_emulator, "/charges/")  # the older refund never arrives
    with pytest.raises(OutcomeUnknown):
        cancel_charge(paid, 200)
    done_unheard(orderpay_emulator, "/charges/")  # the newer one does
    with pytest.raises(OutcomeUnknown):
        cancel_charge(Charge.objects.get(pk=paid.pk), 300)

    refresh_order(paid.order)  # 300 refunded: enough for the 200 that never arrived

    states = dict(Operation.objects.exclude(kind="create").values_list("amount", "state"))
    assert states == {800: "unknown", 200: "unknown", 300: "unknown"}
    for amount in (200, 300):  # their repeats send their keys
        cancel_charge(Charge.objects.get(pk=paid.pk), amount)
    assert at_provider(paid)["amount"]["summary"]["refunded"] == 500
    assert capture_charge(Charge.objects.get(pk=authorised.pk)).amount_paid == 800


def test_two_open_refunds_stay_apart_from_a_refused_refund_sent_again_with_its_key(
    orderpay_emulator, no_retries
):
    # A confirmation page's refund that could not connect is closed as refused (nothing
    # reached the provider); the same page posted again sends the same key, and the
    # provider acts. Its answer is about an operation no longer open: it is not one of
    # the open refunds the count holds, so the two others are still two.
    row = create_order(order_payload("r-11", charges=[charge(2000)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 200)
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(Charge.objects.get(pk=row.pk), 300)
    nowhere = OrderPayClient(closed_port(), "token", retries=0)
    with pytest.raises(ProviderUnavailable):
        cancel_charge(Charge.objects.get(pk=row.pk), 100, idempotency_key="page-1", client=nowhere)
    assert Operation.objects.get(amount=100).state == "refused"

    # Answered: 400 refunded, its own 100 and the 300, or the 200 that never arrived.
    cancel_charge(Charge.objects.get(pk=row.pk), 100, idempotency_key="page-1")

    states = dict(Operation.objects.exclude(kind="create").values_list("amount", "state"))
    assert states == {200: "unknown", 300: "unknown", 100: "succeeded"}
    for amount in (200, 300):
        cancel_charge(Charge.objects.get(pk=row.pk), amount)
    assert at_provider(row)["amount"]["summary"]["refunded"] == 600


def test_open_refunds_of_two_charges_are_each_proven_by_their_own_charge(
    orderpay_emulator, no_retries
):
    order = create_order(order_payload("r-9", charges=[charge(2000), charge(1000)], items=2))
    for row, amount in zip(order.charges.order_by("pk"), (300, 200), strict=True):
        done_unheard(orderpay_emulator, "/charges/")
        with pytest.raises(OutcomeUnknown):
            cancel_charge(row, amount)

    refresh_order(order)

    assert set(Operation.objects.filter(kind="cancel").values_list("state", flat=True)) == {
        "succeeded"
    }


def test_a_refund_that_never_arrived_is_not_proven_by_a_later_refund(orderpay_emulator, no_retries):
    row = create_order(order_payload("r-3", charges=[charge(2000)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 200)
    cancel_charge(Charge.objects.get(pk=row.pk), 300)  # answered: 300 refunded

    lost = Operation.objects.get(kind="cancel", amount=200)
    assert lost.state == "unknown"
    refresh_order(row.order)  # still 300: the 300's own success, not the 200
    lost.refresh_from_db()
    assert lost.state == "unknown"
    assert cancel_charge(Charge.objects.get(pk=row.pk), 200).amount_refunded == 500
    assert at_provider(row)["amount"]["summary"]["refunded"] == 500


@pytest.mark.parametrize("partial_status", ["PAID", "CANCELED"])
def test_a_refund_that_never_arrived_is_not_proven_by_an_earlier_refund(
    orderpay_emulator, no_retries, partial_status
):
    # The real API's status after a partial refund is unsettled: PAID, or CANCELED
    # with more left to refund (the emulator's option). Under CANCELED the lost
    # refund's basis says CANCELED: it is still a refund, never taken for a void.
    orderpay_emulator.control("POST", "options", {"partial_refund_status": partial_status})
    row = create_order(order_payload("r-4", charges=[charge(2000)])).charges.get()
    first = cancel_charge(row, 300)  # answered and mirrored: 300 refunded
    assert (first.status, first.amount_refunded) == (partial_status, 300)
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(Charge.objects.get(pk=row.pk), 200)

    refresh_order(row.order)  # still 300: the earlier refund's sum, not this one's

    lost = Operation.objects.get(kind="cancel", amount=200)
    assert lost.state == "unknown"
    assert lost.basis == {"status": partial_status, "refunded": 300}
    assert cancel_charge(Charge.objects.get(pk=row.pk), 200).amount_refunded == 500
    assert at_provider(row)["amount"]["summary"]["refunded"] == 500


def test_a_refund_settled_after_a_later_one_began_does_not_prove_it(orderpay_emulator, no_retries):
    row = create_order(order_payload("r-5", charges=[charge(2000)])).charges.get()
    for amount in (300, 200):  # neither reaches the provider
        never_arrived(orderpay_emulator, "/charges/")
        with pytest.raises(OutcomeUnknown):
            cancel_charge(Charge.objects.get(pk=row.pk), amount)
    # The older one's repeat arrives and is answered: it settles after the 200 began.
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 300

    refresh_order(row.order)  # 300 refunded: the 300's own, counted on top of the 200's basis

    lost = Operation.objects.get(kind="cancel", amount=200)
    assert lost.state == "unknown"
    assert cancel_charge(Charge.objects.get(pk=row.pk), 200).amount_refunded == 500
    assert at_provider(row)["amount"]["summary"]["refunded"] == 500


def test_another_refunds_answer_settles_an_open_one_it_proves(orderpay_emulator, no_retries):
    row = create_order(order_payload("r-2", charges=[charge(2000)])).charges.get()
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)

    # Before any notification, staff refund 200 more: its answer shows 500 refunded.
    cancel_charge(Charge.objects.get(pk=row.pk), 200)

    first, second = Operation.objects.filter(kind="cancel").order_by("pk")
    assert (first.state, first.reported) == ("succeeded", False)
    assert (second.state, second.reported) == ("succeeded", True)
    # The caller repeating the 300 hears it, and nothing more is refunded.
    assert cancel_charge(Charge.objects.get(pk=row.pk), 300).amount_refunded == 500
    assert at_provider(row)["amount"]["summary"]["refunded"] == 500


def test_a_refund_that_arrived_after_an_earlier_one_is_proven_by_the_sum(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("r-6", charges=[charge(2000)])).charges.get()
    cancel_charge(row, 300)  # answered before the next one began: its basis has it
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(Charge.objects.get(pk=row.pk), 200)

    refresh_order(row.order)  # 500 refunded: the 300 it saw, and its own 200

    assert Operation.objects.get(kind="cancel", amount=200).state == "succeeded"


def test_a_refund_is_proven_whatever_other_charges_or_refused_refunds_did_since(
    orderpay_emulator, no_retries
):
    order = create_order(order_payload("r-7", charges=[charge(2000), charge(1000)], items=2))
    row, other = order.charges.order_by("pk")
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row, 300)
    # Since it began: another charge refunded, and a refund of this one refused
    # (the provider has only 1700 left of it).
    cancel_charge(other, 200)
    with pytest.raises(ProviderError):
        cancel_charge(Charge.objects.get(pk=row.pk), 1800)
    assert Operation.objects.get(amount=1800).state == "refused"

    refresh_order(order)  # this charge shows its 300 refunded: nothing else counts

    assert Operation.objects.get(kind="cancel", amount=300).state == "succeeded"


# --- a void or a capture is proven by the charge's status ---------------------------------


def test_an_open_void_is_not_settled_while_the_charge_is_still_authorised(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("v-1", charges=[charge(800, capture=False)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row)

    refresh_order(row.order)

    assert Operation.objects.get(kind="cancel").state == "unknown"
    voided = cancel_charge(Charge.objects.get(pk=row.pk))
    assert voided.status == "CANCELED"
    assert at_provider(row)["status"] == "CANCELED"


def test_an_open_void_is_settled_once_the_charge_is_cancelled(orderpay_emulator, no_retries):
    row = create_order(order_payload("v-2", charges=[charge(800, capture=False)])).charges.get()
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row)

    refresh_order(row.order)  # CANCELED, nothing refunded: a void's proof, not a refund's

    assert Operation.objects.get(kind="cancel").state == "succeeded"


def test_an_open_capture_is_not_settled_while_the_charge_is_still_authorised(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("c-1", charges=[charge(800, capture=False)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        capture_charge(row)

    refresh_order(row.order)

    assert Operation.objects.get(kind="capture").state == "unknown"
    captured = capture_charge(Charge.objects.get(pk=row.pk))
    assert (captured.status, captured.amount_paid) == ("PAID", 800)
    assert at_provider(row)["amount"]["summary"]["paid"] == 800


def test_an_open_capture_is_proven_by_the_money_paid_even_once_refunded(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("c-3", charges=[charge(800, capture=False)])).charges.get()
    done_unheard(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        capture_charge(row, 1)  # one cent captured; the answer lost
    get_client().cancel_charge(row.provider_id, 1)  # and refunded at once, elsewhere

    refresh_order(row.order)  # CANCELED, but 1 cent was paid: the capture happened

    assert (at_provider(row)["status"], at_provider(row)["amount"]["summary"]["paid"]) == (
        "CANCELED",
        1,
    )
    assert Operation.objects.get(kind="capture").state == "succeeded"


def test_an_open_capture_is_not_settled_by_the_charge_being_voided(orderpay_emulator, no_retries):
    row = create_order(order_payload("c-2", charges=[charge(800, capture=False)])).charges.get()
    never_arrived(orderpay_emulator, "/charges/")
    with pytest.raises(OutcomeUnknown):
        capture_charge(row)
    get_client().cancel_charge(row.provider_id, 800)  # voided meanwhile (staff, at PagBank)

    refresh_order(row.order)  # CANCELED, nothing paid: no capture happened

    assert Operation.objects.get(kind="capture").state == "unknown"
    # Its repeat is refused by the provider (the charge is no longer authorised).
    with pytest.raises(ProviderError) as caught:
        capture_charge(Charge.objects.get(pk=row.pk))
    assert caught.value.codes == ["40006"]
    assert Operation.objects.get(kind="capture").state == "refused"
    assert (at_provider(row)["status"], at_provider(row)["amount"]["summary"].get("paid", 0)) == (
        "CANCELED",
        0,
    )


# --- a pay is proven by a charge the order did not have --------------------------------------


def declined_order(user) -> Order:
    order = create_order(order_payload("p-1"), user=user)
    declined = pay_order(order, [charge(500, raw_card(DECLINED_VISA))])
    assert declined.status == "DECLINED"
    return declined


def test_a_pay_is_not_proven_by_a_charge_the_order_already_had(
    orderpay_emulator, no_retries, buyer
):
    order = declined_order(buyer)
    never_arrived(orderpay_emulator, f"/orders/{order.provider_id}/pay")
    with pytest.raises(OutcomeUnknown):
        pay_order(order, [charge(500, encrypted_card())])

    refresh_order(order)  # still only the declined charge

    assert Operation.objects.filter(kind="pay").latest("pk").state == "unknown"
    # The customer's second submit (the card encrypted again) is sent with the same key.
    paid = pay_order(Order.objects.get(pk=order.pk), [charge(500, encrypted_card())])
    assert paid.status == "PAID"
    assert [c["status"] for c in get_client().get_order(order.provider_id)["charges"]] == [
        "DECLINED",
        "PAID",
    ]


def test_orderpay_sync_refreshes_a_final_order_with_an_open_pay(
    orderpay_emulator, no_retries, buyer
):
    # A declined order is final: only its open operation makes orderpay_sync look at it.
    order = declined_order(buyer)
    done_unheard(orderpay_emulator, f"/orders/{order.provider_id}/pay")
    with pytest.raises(OutcomeUnknown):
        pay_order(order, [charge(500, encrypted_card())])

    call_command("orderpay_sync", verbosity=0)

    operation = Operation.objects.filter(kind="pay").latest("pk")
    assert operation.state == "succeeded"
    assert operation.charge.status == "PAID"
    assert Order.objects.get(pk=order.pk).status == "PAID"


# --- a create is proven by its order, adopted ------------------------------------------------


def test_an_adopted_order_gets_the_creates_user_and_shop_object(
    orderpay_emulator, no_retries, buyer
):
    cart = Group.objects.create(name="cart 1")
    done_unheard(orderpay_emulator, "/orders")
    with pytest.raises(OutcomeUnknown):
        create_order(order_payload("a-1", charges=[charge(500)]), user=buyer, shop_object=cart)

    orderpay_emulator.deliver_notifications()

    adopted = Order.objects.get()
    assert (adopted.user, adopted.shop_object) == (buyer, cart)
    assert Operation.objects.get().order == adopted


# --- a settled operation never moves back ----------------------------------------------------


def test_an_operation_settled_during_its_call_stays_settled_when_the_call_times_out(
    orderpay_emulator, transactional_db, buyer
):
    class NotifiedBeforeTheAnswer:
        """The provider does the work and notifies; its answer then arrives too late."""

        def handle(self, request):
            answer = orderpay_emulator.emulator.handle(request)
            if request.method == "POST" and request.path == "/orders":

                def deliver() -> None:
                    try:
                        orderpay_emulator.deliver_notifications()
                    finally:
                        connection.close()

                worker = threading.Thread(target=deliver)
                worker.start()
                worker.join()
            return answer

    session = requests.Session()
    base = mount(session, NotifiedBeforeTheAnswer(), sleep=lambda seconds: None)
    client = OrderPayClient(base, orderpay_emulator.token, session=session, retries=0, timeout=0.3)
    done_unheard(orderpay_emulator, "/orders")

    answer = create_order(order_payload("s-1", charges=[charge(500)]), user=buyer, client=client)

    operation = Operation.objects.get()
    adopted = Order.objects.get()
    # The notification proved it: the lost answer neither makes it unknown again nor
    # leaves the caller without it (the settled success is its answer, and heard).
    assert answer == adopted
    assert (operation.state, operation.reported, operation.order) == ("succeeded", True, adopted)
    assert operation.unheard_calls == 0
    assert len(orderpay_emulator.order_ids()) == 1
