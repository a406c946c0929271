"""Each admin action, driven through the Django test client against the emulator over HTTP.

Orders are made for real with the services; staff then act through the
admin's confirmation pages, and the tests look at the charge both at the
emulator (through the client) and in the local mirror.
"""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry

from django_orderpay.client import get_client
from django_orderpay.models import Charge, Order
from django_orderpay.services import create_order
from django_orderpay.testing.factories import NotificationDeliveryFactory, OrderFactory
from tests.admin_support import (
    DECLINED_VISA,
    IN_ANALYSIS_VISA,
    card_charge,
    client_for,
    confirmation_fields,
    make_user,
    messages_of,
    order_body,
    post_action,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss():
    return client_for(make_user("boss", superuser=True))


def paid_charge(amount: int = 1000) -> Charge:
    return create_order(order_body(card_charge(amount))).charges.get()


def authorised_charge(amount: int = 1000) -> Charge:
    return create_order(order_body(card_charge(amount, capture=False))).charges.get()


def declined_charge(amount: int = 1000) -> Charge:
    return create_order(order_body(card_charge(amount, DECLINED_VISA))).charges.get()


def at_provider(charge: Charge) -> dict:
    return get_client().get_charge(charge.provider_id)


def confirm(client, action: str, objects: list, model_name: str = "charge", **fields):
    """Open the confirmation page, then confirm it; answers (page, response after confirming)."""
    page = post_action(client, model_name, action, objects)
    assert page.status_code == 200, page.status_code
    response = post_action(
        client, model_name, action, objects, confirm={**confirmation_fields(page), **fields}
    )
    return page, response


# --- cancel (full refund) ----------------------------------------------------------


def test_cancel_page_lists_what_will_happen_and_what_is_skipped(orderpay_emulator, boss):
    paid, declined = paid_charge(1234), declined_charge(500)

    page = post_action(boss, "charge", "cancel_charges", [paid, declined])

    assert page.status_code == 200
    html = page.content.decode()
    assert [step.obj.pk for step in page.context["todo"]] == [paid.pk]
    assert [step.obj.pk for step in page.context["skipped"]] == [declined.pk]
    assert "refund R$ 12.34, everything still refundable" in html
    assert "it was declined: nothing was paid" in html
    assert "In all, R$ 12.34 will be refunded." in html
    assert "(order loja-1, Jose da Silva)" in html
    assert 'name="csrfmiddlewaretoken"' in html
    # Nothing happened yet.
    assert at_provider(paid)["status"] == "PAID"


def test_cancel_refunds_a_paid_charge_at_the_provider_and_here(orderpay_emulator, boss):
    paid, declined = paid_charge(1234), declined_charge(500)

    _, response = confirm(boss, "cancel_charges", [paid, declined])

    assert response.status_code == 302
    assert at_provider(paid)["status"] == "CANCELED"
    assert at_provider(paid)["amount"]["summary"]["refunded"] == 1234
    paid.refresh_from_db()
    assert (paid.status, paid.amount_refunded) == ("CANCELED", 1234)
    assert messages_of(response) == [
        ("warning", f"{declined}: skipped, it was declined: nothing was paid"),
        ("success", f"{paid}: refunded; R$ 12.34 refunded in all, status Canceled"),
    ]
    assert list(paid.status_changes.values_list("old_status", "new_status")) == [
        ("", "PAID"),
        ("PAID", "CANCELED"),
    ]
    # The charge's admin history says who did it.
    [entry] = LogEntry.objects.filter(object_id=str(paid.pk))
    assert entry.user.username == "boss"
    assert entry.get_change_message() == (
        "Cancel selected charges (full refund): refunded; R$ 12.34 refunded in all, status Canceled"
    )
    assert not LogEntry.objects.filter(object_id=str(declined.pk)).exists()


def test_cancel_voids_an_authorisation(orderpay_emulator, boss):
    authorised = authorised_charge(800)

    page, response = confirm(boss, "cancel_charges", [authorised])

    assert "void the authorisation of R$ 8.00" in page.content.decode()
    assert "In all, authorisations of R$ 8.00 will be voided." in page.content.decode()
    assert at_provider(authorised)["status"] == "CANCELED"
    authorised.refresh_from_db()
    assert authorised.status == "CANCELED"
    assert messages_of(response) == [
        ("success", f"{authorised}: authorisation voided, status Canceled")
    ]


def test_a_confirmation_page_posted_twice_refunds_once(orderpay_emulator, boss):
    paid = paid_charge(1000)
    page = post_action(boss, "charge", "refund_charges_partially", [paid])
    fields = {**confirmation_fields(page), "amount": "3,00"}

    post_action(boss, "charge", "refund_charges_partially", [paid], confirm=fields)
    again = post_action(boss, "charge", "refund_charges_partially", [paid], confirm=fields)

    # The resent page carries the same idempotency keys: the provider answers
    # the first refund again instead of making a second one.
    assert at_provider(paid)["amount"]["summary"]["refunded"] == 300
    paid.refresh_from_db()
    assert paid.amount_refunded == 300
    # ...and staff read which happened.
    [(level, text)] = messages_of(again)
    assert level == "info"
    assert text.startswith(
        f"{paid}: already refunded by the same request (this page was confirmed before; "
        "nothing more was done): refunded R$ 3.00"
    )


# --- partial refund -------------------------------------------------------------------


def test_partial_refund_gives_back_the_amount_typed(orderpay_emulator, boss):
    paid = paid_charge(5000)

    page, response = confirm(boss, "refund_charges_partially", [paid], amount="12,34")

    assert "R$ 50.00 can still be refunded" in page.content.decode()
    assert page.context["form"].fields["amount"].widget.attrs["placeholder"] == "R$ 50.00"
    summary = at_provider(paid)["amount"]["summary"]
    assert (summary["paid"], summary["refunded"]) == (5000, 1234)
    paid.refresh_from_db()
    assert (paid.status, paid.amount_refunded, paid.refundable_amount) == ("PAID", 1234, 3766)
    assert messages_of(response) == [
        ("success", f"{paid}: refunded R$ 12.34; R$ 12.34 refunded in all, status Paid")
    ]


def test_partial_refund_of_everything_left_cancels_the_charge(orderpay_emulator, boss):
    paid = paid_charge(5000)
    confirm(boss, "refund_charges_partially", [paid], amount="10.00")
    paid.refresh_from_db()

    _, response = confirm(boss, "refund_charges_partially", [paid], amount="40")

    assert at_provider(paid)["status"] == "CANCELED"
    paid.refresh_from_db()
    assert (paid.status, paid.amount_refunded) == ("CANCELED", 5000)
    assert messages_of(response)[-1][0] == "success"


def test_partial_refund_above_refundable_is_refused_before_the_provider(orderpay_emulator, boss):
    paid = paid_charge(1000)

    _, response = confirm(boss, "refund_charges_partially", [paid], amount="10,01")

    assert response.status_code == 200
    assert response.context["form"].errors["amount"] == [
        "Enter at most R$ 10.00: the most that can still be refunded."
    ]
    assert at_provider(paid)["amount"]["summary"]["refunded"] == 0


def test_partial_refund_skips_charges_that_are_not_paid(orderpay_emulator, boss):
    authorised = authorised_charge(1000)

    page = post_action(boss, "charge", "refund_charges_partially", [authorised])

    assert page.context["todo"] == []
    assert "use the cancel action to void it" in page.content.decode()
    assert "None of the selected objects can be acted on" in page.content.decode()
    assert 'name="post"' not in page.content.decode()  # no way to confirm


# --- capture ------------------------------------------------------------------------


def test_capture_takes_an_authorised_charge_and_skips_a_paid_one(orderpay_emulator, boss):
    authorised, paid = authorised_charge(2500), paid_charge(700)

    page, response = confirm(boss, "capture_charges", [authorised, paid])

    html = page.content.decode()
    assert "capture R$ 25.00 (authorised until" in html
    assert "it is paid already: there is nothing to capture" in html
    assert "In all, R$ 25.00 will be captured." in html
    assert at_provider(authorised)["status"] == "PAID"
    authorised.refresh_from_db()
    assert (authorised.status, authorised.amount_paid) == ("PAID", 2500)
    assert messages_of(response) == [
        ("warning", f"{paid}: skipped, it is paid already: there is nothing to capture"),
        ("success", f"{authorised}: captured R$ 25.00, status Paid"),
    ]


def test_a_capture_the_provider_refuses_is_reported_in_words(orderpay_emulator, boss):
    authorised = authorised_charge(2500)
    # Someone voids it in the provider's own dashboard; our copy still says AUTHORIZED.
    get_client().cancel_charge(authorised.provider_id, 2500)

    _, response = confirm(boss, "capture_charges", [authorised])

    assert response.status_code == 302
    [(level, text)] = messages_of(response)
    assert level == "error"
    assert text.startswith(f"{authorised}: the charge cannot be captured")
    assert "40006" in text
    authorised.refresh_from_db()
    assert authorised.status == "AUTHORIZED"  # nothing written by hand


# --- refresh ------------------------------------------------------------------------


def test_refresh_brings_an_analysis_decided_at_the_provider(orderpay_emulator, boss):
    order = create_order(order_body(card_charge(1500, IN_ANALYSIS_VISA)))
    charge = order.charges.get()
    assert charge.status == "IN_ANALYSIS"
    orderpay_emulator.resolve_charge(charge.provider_id, "PAID")  # notification never delivered

    page, response = confirm(boss, "refresh_orders", [order], model_name="order")

    assert "fetch it from the provider" in page.content.decode()
    charge.refresh_from_db()
    assert charge.status == "PAID"
    assert Order.objects.get(pk=order.pk).status == "PAID"
    assert messages_of(response) == [
        ("success", f"{order}: refreshed, status Paid (was In analysis)")
    ]
    assert list(charge.status_changes.values_list("new_status", "source")) == [
        ("IN_ANALYSIS", "api"),
        ("PAID", "sync"),
    ]


def test_refresh_from_the_charge_list_refreshes_each_order_once(orderpay_emulator, boss):
    order = create_order(order_body(card_charge(1500, DECLINED_VISA)))
    declined = order.charges.get()
    other = paid_charge(900)

    page, response = confirm(boss, "refresh_orders_of_charges", [declined, other, declined])

    assert [step.obj.pk for step in page.context["todo"]] == sorted([order.pk, other.order_id])
    assert [level for level, _ in messages_of(response)] == ["success", "success"]


def test_provider_unavailable_is_a_message_not_a_500(orderpay_emulator, boss, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 1}
    charge = paid_charge(1000)
    orderpay_emulator.control("POST", "faults", {"kind": "http_502", "count": 10})

    _, response = confirm(boss, "refresh_orders", [charge.order], model_name="order")

    assert response.status_code == 302
    [(level, text)] = messages_of(response)
    assert level == "error"
    assert text.startswith(f"{charge.order}: the provider did not answer (HTTP 502")
    assert "after 2 attempts; nothing was changed: try again later" in text


def test_a_refund_without_an_answer_is_unknown_and_confirming_again_refunds_once(
    orderpay_emulator, boss, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    charge = paid_charge(1000)
    # The provider refunds, but its answer never arrives (a gateway error after the work).
    orderpay_emulator.inject_fault("timeout", delay=2, path_prefix="/charges")
    settings.ORDERPAY = {**settings.ORDERPAY, "TIMEOUT": 0.5}

    _, response = confirm(boss, "refund_charges_partially", [charge], amount="3,00")

    [(level, text)] = messages_of(response)
    assert level == "error"
    assert "it may have acted" in text
    assert "confirming it again acts at most once" in text
    charge.refresh_from_db()
    assert (charge.status, charge.amount_refunded) == ("PAID", 0)

    # Staff open the action again (a new confirmation page) and confirm it.
    _, again = confirm(boss, "refund_charges_partially", [charge], amount="3,00")

    [(level, text)] = messages_of(again)
    assert level == "success", text
    assert "by continuing operation" in text and "(its outcome was unknown)" in text
    charge.refresh_from_db()
    assert charge.amount_refunded == 300
    provider = get_client().get_charge(charge.provider_id)
    assert provider["amount"]["summary"]["refunded"] == 300  # refunded once, not twice


# --- replay -------------------------------------------------------------------------


def test_replay_processes_a_failed_delivery_again(orderpay_emulator, boss):
    order = create_order(order_body(card_charge(1500, IN_ANALYSIS_VISA)))
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "DECLINED")
    body = get_client().get_order(order.provider_id)
    delivery = NotificationDeliveryFactory(order=body, outcome="failed", valid=True)

    page, response = confirm(boss, "replay_deliveries", [delivery], "notificationdelivery")

    assert f"fetch order {order.provider_id} from the provider" in page.content.decode()
    assert messages_of(response) == [("success", f"{delivery}: replayed, outcome Processed")]
    delivery.refresh_from_db()
    assert delivery.outcome == "processed"
    assert order.charges.get().status == "DECLINED"


def test_replay_skips_a_rejected_delivery(orderpay_emulator, boss):
    order = create_order(order_body(card_charge(1500)))
    delivery = NotificationDeliveryFactory(order=order.data, outcome="rejected", valid=False)

    page = post_action(boss, "notificationdelivery", "replay_deliveries", [delivery])

    assert page.context["todo"] == []
    assert "rejected on arrival" in page.content.decode()


def test_a_refund_the_provider_refuses_is_reported_in_words(orderpay_emulator, boss):
    paid = paid_charge(1000)
    # Refunded in part elsewhere (the provider's dashboard); our copy still says 10.00 left.
    get_client().cancel_charge(paid.provider_id, 600)

    _, response = confirm(boss, "refund_charges_partially", [paid], amount="10,00")

    [(level, text)] = messages_of(response)
    assert level == "error"
    assert text.startswith(f"{paid}: the charge cannot be refunded")
    assert "40007" in text
    assert at_provider(paid)["amount"]["summary"]["refunded"] == 600


def test_refreshing_an_order_the_provider_does_not_know_says_so(orderpay_emulator, boss):
    stranger = OrderFactory()  # made here only: the emulator never saw it

    _, response = confirm(boss, "refresh_orders", [stranger], model_name="order")

    [(level, text)] = messages_of(response)
    assert level == "error"
    assert text.startswith(f"{stranger}: the provider does not know this object")
