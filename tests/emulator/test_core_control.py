"""The control plane through HTTP: reset, deliveries, analysis resolution, clock, orders list."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

from django_orderpay.emulator import IN_ANALYSIS_CARD
from tests.emulator.core_support import (
    TIMESTAMP,
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
    refusal,
)


def analysed_charge(api, **overrides):
    order = api.create_order(charges=[charge_payload(raw_card(IN_ANALYSIS_CARD), **overrides)])
    return order["charges"][0]


def resolve(api, charge_id, status):
    return api.post(f"/_emulator/charges/{charge_id}/resolve", {"status": status}, token=None)


def test_reset_forgets_the_world_but_keeps_tokens_and_key(api, emulator):
    key = api.get("/public-keys/card").json()
    order = api.create_order(charges=[charge_payload()])
    api.post("/_emulator/faults", {"kind": "http_500", "path_prefix": "/charges"})
    api.post("/_emulator/clock", {"advance_seconds": 86400})
    emulator.notifier.flush()

    response = api.post("/_emulator/reset", token=None)

    assert response.status_code == 200 and response.json() == {"reset": True}
    assert api.get("/_emulator/orders").json() == {"orders": []}
    assert api.get(f"/orders/{order['id']}").status_code == 404
    assert api.get("/_emulator/notifications").json() == {"deliveries": []}
    assert api.get("/_emulator/faults").json()["faults"] == []
    assert api.get("/public-keys/card").json() == key


def test_reset_puts_the_clock_back(api):
    api.post("/_emulator/clock", {"now": "2031-05-01T12:00:00-03:00"})

    api.post("/_emulator/reset")

    assert not api.get("/_emulator/clock").json()["now"].startswith("2031-05-01")


def test_orders_lists_every_merchants_orders_oldest_first(api):
    first = api.create_order()
    second = api.post("/orders", order_payload(), token=TOKEN_B).json()

    assert api.get("/_emulator/orders", token=None).json() == {
        "orders": [first["id"], second["id"]]
    }


def test_notifications_lists_deliveries_with_body_and_headers(api):
    order = api.create_order(charges=[charge_payload()])
    assert api.post("/_emulator/notifications/flush", {"timeout": 5}).json()["flushed"] is True

    [delivery] = api.get("/_emulator/notifications").json()["deliveries"]

    assert delivery["url"] == order["notification_urls"][0]
    assert delivery["delivered"] is True and delivery["status"] == 204
    assert json.loads(delivery["body"])["id"] == order["id"]
    assert "x-authenticity-token" in delivery["headers"]
    assert TIMESTAMP.match(delivery["created_at"])


@pytest.mark.parametrize("timeout", [-1, 301, 1e308, "5", True])
def test_flush_checks_its_timeout(api, timeout):
    response = api.post("/_emulator/notifications/flush", {"timeout": timeout})

    assert refusal(response) == ("40002", "timeout")


def test_drop_loses_the_next_deliveries(api, recorder):
    response = api.post("/_emulator/notifications/drop", {"count": 1})
    api.create_order(charges=[charge_payload()])
    api.create_order(charges=[charge_payload()])
    api.post("/_emulator/notifications/flush")

    deliveries = api.get("/_emulator/notifications").json()["deliveries"]

    assert response.json() == {"dropping": 1}
    assert [d["dropped"] for d in deliveries] == [True, False]
    assert len(recorder.calls) == 1


@pytest.mark.parametrize(
    ("body", "code", "parameter_name"),
    [
        ({}, "40001", "count"),
        ({"count": 0}, "40002", "count"),
        ({"count": "2"}, "40002", "count"),
        ({"count": 1, "extra": 1}, "40003", "extra"),
    ],
)
def test_drop_checks_its_count(api, body, code, parameter_name):
    response = api.post("/_emulator/notifications/drop", body)

    assert refusal(response) == (code, parameter_name)


def test_resolve_paid_approves_the_charge(api):
    charge = analysed_charge(api)

    response = resolve(api, charge["id"], "PAID")

    assert response.status_code == 200
    resolved = response.json()
    assert resolved["status"] == "PAID" and TIMESTAMP.match(resolved["paid_at"])
    assert resolved["payment_response"]["code"] == "20000"
    assert resolved["payment_response"]["raw_data"]["reason_code"] == "00"
    assert resolved["amount"]["summary"]["paid"] == 500
    assert [link["rel"] for link in resolved["links"]] == ["SELF", "CHARGE.CANCEL"]
    assert api.get(f"/charges/{charge['id']}").json() == resolved


def test_resolve_paid_of_an_uncaptured_charge_authorizes_it(api):
    charge = analysed_charge(api, capture=False)

    resolved = resolve(api, charge["id"], "PAID").json()

    assert resolved["status"] == "AUTHORIZED"
    assert "capture_before" in resolved["payment_method"]


def test_resolve_declined_refuses_the_charge_by_anti_fraud(api):
    charge = analysed_charge(api)

    resolved = resolve(api, charge["id"], "DECLINED").json()

    assert resolved["status"] == "DECLINED"
    assert resolved["payment_response"]["code"] == "10000"
    assert resolved["payment_response"]["message"] == "NAO AUTORIZADO PELO PAGSEGURO"


def test_resolve_works_only_on_a_charge_in_analysis(api):
    charge = analysed_charge(api)
    resolve(api, charge["id"], "PAID")
    paid = api.create_order(charges=[charge_payload()])["charges"][0]

    for charge_id in (charge["id"], paid["id"]):
        response = resolve(api, charge_id, "DECLINED")
        assert response.status_code == 400
        assert error_of(response) == {
            "code": "40002",
            "description": "charge_not_in_analysis",
            "parameter_name": "status",
        }


@pytest.mark.parametrize(
    ("body", "code"), [({"status": "AUTHORIZED"}, "40002"), ({}, "40001"), ({"status": 1}, "40002")]
)
def test_resolve_checks_its_status(api, body, code):
    charge = analysed_charge(api)

    response = api.post(f"/_emulator/charges/{charge['id']}/resolve", body)

    assert error_of(response)["code"] == code and error_of(response)["parameter_name"] == "status"


def test_resolve_of_an_unknown_charge_is_404(api):
    response = resolve(api, "CHAR_00000000-0000-0000-0000-000000000000", "PAID")

    assert response.status_code == 404


def test_clock_moves_by_seconds_and_to_a_moment(api):
    now = api.get("/_emulator/clock").json()["now"]
    assert TIMESTAMP.match(now)

    advanced = api.post("/_emulator/clock", {"advance_seconds": 3 * 86400}).json()["now"]
    assert (date.fromisoformat(advanced[:10]) - date.fromisoformat(now[:10])).days == 3

    moved = api.post("/_emulator/clock", {"now": "2030-01-01T12:00:00-03:00"}).json()["now"]
    assert moved.startswith("2030-01-01T12:00:")
    order = api.create_order(charges=[charge_payload()])
    assert order["created_at"].startswith("2030-01-01T12:00:")
    assert order["charges"][0]["paid_at"].startswith("2030-01-01T12:00:")


def test_clock_in_another_offset_answers_in_the_providers_offset(api):
    moved = api.post("/_emulator/clock", {"now": "2030-01-01T15:00:00+00:00"}).json()["now"]

    assert moved.startswith("2030-01-01T12:00:") and moved.endswith("-03:00")
    assert datetime.fromisoformat(moved).utcoffset().total_seconds() == -3 * 3600


@pytest.mark.parametrize(
    ("body", "code", "parameter_name"),
    [
        ({}, "40001", "advance_seconds"),
        ({"advance_seconds": "10"}, "40002", "advance_seconds"),
        ({"advance_seconds": True}, "40002", "advance_seconds"),
        ({"now": "tomorrow"}, "40002", "now"),
        ({"now": "2030-01-01T12:00:00"}, "40002", "now"),
        ({"now": "2030-01-01T12:00:00-03:00", "advance_seconds": 1}, "40002", "now"),
        ({"speed": 2}, "40003", "speed"),
        ({"advance_seconds": 1e300}, "40002", "advance_seconds"),
        ({"advance_seconds": 10**30}, "40002", "advance_seconds"),
        ({"advance_seconds": -50 * 365 * 86400}, "40002", "advance_seconds"),
        ({"now": "9999-12-31T23:59:59+14:00"}, "40002", "now"),
        ({"now": "1999-12-31T12:00:00-03:00"}, "40002", "now"),
    ],
)
def test_clock_checks_its_body(api, body, code, parameter_name):
    before = api.get("/_emulator/clock").json()["now"]

    response = api.post("/_emulator/clock", body)

    assert refusal(response) == (code, parameter_name)
    assert api.get("/_emulator/clock").json()["now"][:16] == before[:16]


def test_control_plane_body_must_be_json(api):
    response = api.post(
        "/_emulator/clock", data=b"advance=1", headers={"Content-Type": "text/plain"}
    )

    assert response.status_code == 400 and error_of(response)["parameter_name"] == "body"
