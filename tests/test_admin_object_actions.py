"""The actions as buttons on a charge's (and an order's) own page, against the emulator over HTTP.

Each button opens the changelist action's confirmation page for that object
alone, under the same permission; confirming acts once and comes back to the
object's page with the outcome.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from django_orderpay.client import get_client
from django_orderpay.models import Charge, ChargeStatus
from django_orderpay.services import create_order
from tests.admin_support import (
    DECLINED_VISA,
    card_charge,
    change,
    client_for,
    make_user,
    messages_of,
    order_body,
)

pytestmark = pytest.mark.django_db


def button_url(model_name: str, obj, action: str) -> str:
    return reverse(f"admin:django_orderpay_{model_name}_object_action", args=[obj.pk, action])


def buttons(client, model_name: str, obj) -> dict[str, str]:
    """``{label: href}`` of the action buttons on ``obj``'s page."""
    html = client.get(change(model_name, obj.pk)).content.decode()
    found = re.findall(r'<a href="([^"]+)" class="orderpay-object-action">([^<]+)</a>', html)
    return {label: href for href, label in found}


def confirm_on_page(client, url: str, **fields: str):
    """Open the confirmation page at ``url`` and confirm it: (page, response after confirming)."""
    page = client.get(url)
    assert page.status_code == 200, page.status_code
    data = {
        "csrfmiddlewaretoken": page.context["csrf_token"],
        "post": "yes",
        "confirmation": page.context["form"]["confirmation"].value(),
        **fields,
    }
    return page, client.post(url, data)


def made(*charges: dict) -> list[Charge]:
    return list(create_order(order_body(*charges)).charges.order_by("pk"))


@pytest.fixture
def boss():
    return client_for(make_user("boss", superuser=True))


def test_a_paid_charge_offers_refunds_and_refresh_not_capture(orderpay_emulator, boss):
    (paid,) = made(card_charge(1000))

    offered = buttons(boss, "charge", paid)

    assert offered == {
        "Refund part": button_url("charge", paid, "refund_charges_partially"),
        "Cancel (full refund)": button_url("charge", paid, "cancel_charges"),
        "Refresh from the provider": button_url("charge", paid, "refresh_orders_of_charges"),
    }


def test_an_authorised_charge_offers_capture_and_void(orderpay_emulator, boss):
    (authorised,) = made(card_charge(1000, capture=False))

    assert set(buttons(boss, "charge", authorised)) == {
        "Capture",
        "Cancel (full refund)",
        "Refresh from the provider",
    }


def test_a_declined_charge_offers_only_refresh(orderpay_emulator, boss):
    (declined,) = made(card_charge(1000, DECLINED_VISA))

    assert set(buttons(boss, "charge", declined)) == {"Refresh from the provider"}


def test_capture_from_the_charge_page(orderpay_emulator, boss):
    (authorised,) = made(card_charge(2500, capture=False))

    page, response = confirm_on_page(boss, button_url("charge", authorised, "capture_charges"))

    assert "capture R$ 25.00" in page.content.decode()
    assert [step.obj.pk for step in page.context["todo"]] == [authorised.pk]
    assert response.status_code == 302
    assert response["Location"] == change("charge", authorised.pk)  # back on its page
    authorised.refresh_from_db()
    assert authorised.status == ChargeStatus.PAID
    assert get_client().get_charge(authorised.provider_id)["status"] == "PAID"
    assert ("success", f"{authorised}: captured R$ 25.00, status Paid") in messages_of(response)


def test_partial_refund_from_the_charge_page_takes_the_amount(orderpay_emulator, boss):
    (paid,) = made(card_charge(5000))
    url = button_url("charge", paid, "refund_charges_partially")

    _page, too_much = confirm_on_page(boss, url, amount="50.01")
    assert too_much.status_code == 200  # the page again, saying why
    assert too_much.context["form"].errors["amount"]
    _page, response = confirm_on_page(boss, url, amount="12.50")

    assert response.status_code == 302
    paid.refresh_from_db()
    assert (paid.amount_refunded, paid.refundable_amount) == (1250, 3750)
    refunded = get_client().get_charge(paid.provider_id)["amount"]["summary"]["refunded"]
    assert refunded == 1250


def test_full_refund_from_the_charge_page_confirmed_twice_refunds_once(orderpay_emulator, boss):
    (paid,) = made(card_charge(3000))
    url = button_url("charge", paid, "cancel_charges")
    page = boss.get(url)
    data = {
        "csrfmiddlewaretoken": page.context["csrf_token"],
        "post": "yes",
        "confirmation": page.context["form"]["confirmation"].value(),
    }

    first = boss.post(url, data)
    second = boss.post(url, data)  # the same page posted again (a double click)

    assert first.status_code == second.status_code == 302
    paid.refresh_from_db()
    assert (paid.status, paid.amount_refunded) == (ChargeStatus.CANCELED, 3000)
    assert get_client().get_charge(paid.provider_id)["amount"]["summary"]["refunded"] == 3000


def test_refresh_from_the_order_page(orderpay_emulator, boss):
    (charge,) = made(card_charge(1000))
    order = charge.order

    url = buttons(boss, "order", order)["Refresh from the provider"]
    _page, response = confirm_on_page(boss, url)

    assert response.status_code == 302
    assert response["Location"] == change("order", order.pk)
    assert any("refreshed, status Paid" in text for _level, text in messages_of(response))


def test_buttons_follow_the_actions_permissions(orderpay_emulator):
    (authorised,) = made(card_charge(1000, capture=False))
    viewer = client_for(make_user("viewer", "view_charge"))
    capturer = client_for(make_user("capturer", "view_charge", "capture_charge"))

    assert buttons(viewer, "charge", authorised) == {}
    assert set(buttons(capturer, "charge", authorised)) == {"Capture"}
    # The pages themselves are guarded too, not only the buttons hidden.
    cancel = button_url("charge", authorised, "cancel_charges")
    assert capturer.get(cancel).status_code == 403
    assert viewer.get(button_url("charge", authorised, "capture_charges")).status_code == 403
    assert capturer.get(button_url("charge", authorised, "capture_charges")).status_code == 200


def test_a_forged_button_is_refused_in_words_not_a_500(orderpay_emulator, boss):
    (paid,) = made(card_charge(1000))

    assert boss.get(button_url("charge", paid, "delete_everything")).status_code == 404
    name = "admin:django_orderpay_charge_object_action"
    for missing in (999999, "abc"):
        assert boss.get(reverse(name, args=[missing, "capture_charges"])).status_code == 404


def test_a_button_that_no_longer_applies_does_nothing(orderpay_emulator, boss):
    (paid,) = made(card_charge(1000))  # paid: nothing to capture

    page, response = confirm_on_page(boss, button_url("charge", paid, "capture_charges"))

    assert page.context["todo"] == []
    assert "it is paid already: there is nothing to capture" in page.content.decode()
    assert response.status_code == 302
    assert ("warning", "Nothing was done.") in messages_of(response)
