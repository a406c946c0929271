"""Charges through HTTP: get, capture, cancel (void, full and partial refunds), links by state."""

from __future__ import annotations

import pytest

from django_orderpay.emulator import IN_ANALYSIS_CARD
from tests.emulator.core_support import (
    NOTIFY_URL,
    TIMESTAMP,
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
)


def create_charge(api, card=None, **overrides):
    body = order_payload(charges=[charge_payload(card, **overrides)])
    response = api.post("/orders", body)
    assert response.status_code == 201, response.text
    return response.json()["charges"][0]


def rels(charge):
    return [link["rel"] for link in charge["links"]]


def amount(value):
    return {"amount": {"value": value}}


def test_get_charge_answers_the_charge_as_in_its_order(api):
    charge = create_charge(api)

    response = api.get(f"/charges/{charge['id']}")

    assert response.status_code == 200
    # As PagBank's: a charge fetched alone also names its order's notification URLs.
    assert response.json() == {**charge, "notification_urls": [NOTIFY_URL]}


def test_charges_are_private_to_their_merchant(api):
    charge = create_charge(api, capture=False)

    assert api.get(f"/charges/{charge['id']}", token=TOKEN_B).status_code == 404
    assert (
        api.post(f"/charges/{charge['id']}/capture", amount(500), token=TOKEN_B).status_code == 404
    )
    assert (
        api.post(f"/charges/{charge['id']}/cancel", amount(500), token=TOKEN_B).status_code == 404
    )


def test_unknown_charge_is_404(api):
    response = api.get("/charges/CHAR_00000000-0000-0000-0000-000000000000")

    assert response.status_code == 404
    assert error_of(response) == {"code": "NOT_FOUND", "description": "charge not found"}


def test_capture_pays_an_authorized_charge(api):
    charge = create_charge(api, capture=False)

    response = api.post(f"/charges/{charge['id']}/capture", amount(500))

    assert response.status_code == 201
    captured = response.json()
    assert captured["status"] == "PAID"
    assert TIMESTAMP.match(captured["paid_at"])
    assert captured["amount"]["summary"] == {"total": 500, "paid": 500, "refunded": 0}
    assert "capture_before" not in captured["payment_method"]
    assert rels(captured) == ["SELF", "CHARGE.CANCEL"]
    assert api.get(f"/charges/{charge['id']}").json() == captured


def test_capture_through_the_capture_link(api):
    charge = create_charge(api, capture=False)
    capture_link = next(link for link in charge["links"] if link["rel"] == "CHARGE.CAPTURE")

    response = api.post(capture_link["href"], amount(500))

    assert response.status_code == 201 and response.json()["status"] == "PAID"


def test_partial_capture_pays_less_than_authorized(api):
    charge = create_charge(api, capture=False)

    captured = api.post(f"/charges/{charge['id']}/capture", amount(300)).json()

    assert captured["amount"]["summary"] == {"total": 500, "paid": 300, "refunded": 0}


def test_capture_without_a_body_captures_everything(api):
    charge = create_charge(api, capture=False)

    captured = api.post(f"/charges/{charge['id']}/capture", data=b"")

    assert captured.status_code == 201
    assert captured.json()["amount"]["summary"]["paid"] == 500


def test_capture_more_than_authorized_is_40006(api):
    charge = create_charge(api, capture=False)

    response = api.post(f"/charges/{charge['id']}/capture", amount(501))

    assert response.status_code == 400 and error_of(response)["code"] == "40006"
    assert api.get(f"/charges/{charge['id']}").json()["status"] == "AUTHORIZED"


@pytest.mark.parametrize(
    "card", [raw_card(), raw_card("4929291898380766"), raw_card(IN_ANALYSIS_CARD)]
)
def test_capture_of_a_charge_that_is_not_authorized_is_40006(api, card):
    charge = create_charge(api, card)

    response = api.post(f"/charges/{charge['id']}/capture", amount(500))

    assert response.status_code == 400
    assert error_of(response)["code"] == "40006"


def test_capture_twice_is_40006(api):
    charge = create_charge(api, capture=False)
    api.post(f"/charges/{charge['id']}/capture", amount(500))

    response = api.post(f"/charges/{charge['id']}/capture", amount(500))

    assert error_of(response)["code"] == "40006"


def test_capture_after_capture_before_is_40006(api):
    charge = create_charge(api, capture=False)
    api.post("/_emulator/clock", {"advance_seconds": 29 * 86400 + 60})

    response = api.post(f"/charges/{charge['id']}/capture", amount(500))

    assert error_of(response)["code"] == "40006"


@pytest.mark.parametrize(
    ("body", "parameter_name", "code"),
    [
        ({"amount": {"value": "500"}}, "amount.value", "40002"),
        ({"amount": {"value": 0}}, "amount.value", "40002"),
        ({"amount": {}}, "amount.value", "40001"),
        ({"amount": 500}, "amount", "40002"),
        ({"amount": {"value": 500, "currency": "USD"}}, "amount.currency", "40002"),
        ({"value": 500}, "value", "40003"),
    ],
)
def test_malformed_capture_and_cancel_amounts_name_the_field(api, body, parameter_name, code):
    charge = create_charge(api, capture=False)
    for action in ("capture", "cancel"):
        response = api.post(f"/charges/{charge['id']}/{action}", body)

        assert response.status_code == 400
        assert error_of(response)["code"] == code
        assert error_of(response)["parameter_name"] == parameter_name


def test_cancel_voids_an_authorized_charge(api):
    charge = create_charge(api, capture=False)

    response = api.post(f"/charges/{charge['id']}/cancel", amount(500))

    assert response.status_code == 201
    canceled = response.json()
    assert canceled["status"] == "CANCELED"
    assert canceled["amount"]["summary"] == {"total": 500, "paid": 0, "refunded": 0}
    assert rels(canceled) == ["SELF"]


def test_cancel_refunds_a_paid_charge_in_full(api):
    charge = create_charge(api)
    cancel_link = next(link for link in charge["links"] if link["rel"] == "CHARGE.CANCEL")

    response = api.post(cancel_link["href"], amount(500))

    canceled = response.json()
    assert response.status_code == 201 and canceled["status"] == "CANCELED"
    assert canceled["amount"]["summary"] == {"total": 500, "paid": 500, "refunded": 500}
    assert rels(canceled) == ["SELF"]


def test_partial_refunds_keep_the_charge_paid_until_they_reach_the_paid_amount(api):
    charge = create_charge(api)
    cancel = f"/charges/{charge['id']}/cancel"

    first = api.post(cancel, amount(200)).json()
    assert first["status"] == "PAID"
    assert first["amount"]["summary"] == {"total": 500, "paid": 500, "refunded": 200}
    assert rels(first) == ["SELF", "CHARGE.CANCEL"]

    too_much = api.post(cancel, amount(301))
    assert too_much.status_code == 400 and error_of(too_much)["code"] == "40007"

    last = api.post(cancel, amount(300)).json()
    assert last["status"] == "CANCELED"
    assert last["amount"]["summary"]["refunded"] == 500


def test_cancel_without_an_amount_refunds_what_is_left(api):
    charge = create_charge(api)
    api.post(f"/charges/{charge['id']}/cancel", amount(100))

    last = api.post(f"/charges/{charge['id']}/cancel", {}).json()

    assert last["status"] == "CANCELED" and last["amount"]["summary"]["refunded"] == 500


def test_refund_of_a_partially_captured_charge_is_bounded_by_the_captured_amount(api):
    charge = create_charge(api, capture=False)
    api.post(f"/charges/{charge['id']}/capture", amount(300))

    response = api.post(f"/charges/{charge['id']}/cancel", amount(500))

    assert error_of(response)["code"] == "40007"


@pytest.mark.parametrize("card", [raw_card("4929291898380766"), raw_card(IN_ANALYSIS_CARD)])
def test_cancel_from_another_state_is_40007(api, card):
    charge = create_charge(api, card)

    response = api.post(f"/charges/{charge['id']}/cancel", amount(500))

    assert response.status_code == 400
    assert error_of(response)["code"] == "40007"


def test_cancel_of_a_canceled_charge_is_40007(api):
    charge = create_charge(api)
    api.post(f"/charges/{charge['id']}/cancel", amount(500))

    response = api.post(f"/charges/{charge['id']}/cancel", amount(500))

    assert error_of(response)["code"] == "40007"


def test_void_of_more_than_authorized_is_40007(api):
    charge = create_charge(api, capture=False)

    response = api.post(f"/charges/{charge['id']}/cancel", amount(501))

    assert error_of(response)["code"] == "40007"


def test_the_order_shows_the_charge_as_it_is_now(api):
    charge = create_charge(api, capture=False)
    api.post(f"/charges/{charge['id']}/capture", amount(500))
    api.post(f"/charges/{charge['id']}/cancel", amount(100))

    orders = api.get("/_emulator/orders").json()["orders"]
    order = api.get(f"/orders/{orders[0]}").json()
    assert order["charges"][0]["amount"]["summary"] == {"total": 500, "paid": 500, "refunded": 100}


# --- refund windows (PagBank's "cancelando uma cobrança") ----------------------------------


def _move_to(api, moment):
    response = api.post("/_emulator/clock", {"now": moment.isoformat()}, token=None)
    assert response.status_code == 200, response.text


def _refund_near_the_end(api, charge, days):
    """Refunds 100 a second before the window closes (allowed) and a second after (not)."""
    from datetime import datetime, timedelta

    paid_at = datetime.fromisoformat(charge["paid_at"])
    _move_to(api, paid_at + timedelta(days=days, seconds=-1))
    inside = api.post(f"/charges/{charge['id']}/cancel", amount(100))
    assert inside.status_code == 201, inside.text
    _move_to(api, paid_at + timedelta(days=days, seconds=1))
    outside = api.post(f"/charges/{charge['id']}/cancel", amount(100))
    assert outside.status_code == 400 and outside.json()["error_messages"][0]["code"] == "40007"


DEBIT_3DS = {"type": "THREEDS", "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=", "eci": "02"}


def _debit(api, number):
    charge = charge_payload(raw_card(number))
    charge["payment_method"].update(type="DEBIT_CARD", authentication_method=DEBIT_3DS)
    response = api.post("/orders", order_payload(charges=[charge]))
    assert response.status_code == 201, response.text
    return response.json()["charges"][0]


def test_a_credit_card_is_refundable_for_350_days(api):
    _refund_near_the_end(api, create_charge(api), 350)


def test_a_mastercard_credit_card_is_refundable_for_350_days(api):
    # Only a Mastercard *debit* has the shorter window: the brand alone does not shorten it.
    charge = create_charge(api, raw_card("5240082975622454"))
    assert (charge["payment_method"]["type"], charge["payment_method"]["card"]["brand"]) == (
        "CREDIT_CARD",
        "mastercard",
    )
    _refund_near_the_end(api, charge, 350)


def test_a_mastercard_debit_is_refundable_for_180_days(api):
    _refund_near_the_end(api, _debit(api, "5240082975622454"), 180)


def test_a_visa_debit_is_refundable_for_350_days(api):
    _refund_near_the_end(api, _debit(api, "4111111111111111"), 350)


def test_a_boleto_is_refundable_for_350_days(api):
    from datetime import timedelta

    from django_orderpay import rules
    from django_orderpay.testing import samples

    due = (rules.provider_today() + timedelta(days=3)).isoformat()
    order = api.create_order(charges=[samples.boleto_charge_request(due)])
    charge_id = order["charges"][0]["id"]
    paid = api.post(f"/_emulator/boletos/{charge_id}/pay", token=None).json()
    _refund_near_the_end(api, paid, 350)
