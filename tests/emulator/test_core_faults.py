"""Injected faults through HTTP: what the client sees, and what was (not) done."""

from __future__ import annotations

import pytest
import requests

from tests.emulator.core_support import charge_payload, documented, error_of, order_payload, refusal


def order_count(api):
    return len(api.get("/_emulator/orders").json()["orders"])


def inject(api, **fault):
    response = api.post("/_emulator/faults", fault, token=None)
    assert response.status_code == 201, response.text
    return response.json()


def test_inject_lists_and_clears_faults(api):
    listed = inject(api, kind="http_502", count=2, path_prefix="/orders")

    assert listed["faults"] == [
        {"kind": "http_502", "remaining": 2, "delay": 30.0, "path_prefix": "/orders"}
    ]
    assert "timeout" in listed["kinds"]
    assert api.get("/_emulator/faults").json()["faults"] == listed["faults"]
    assert api.request("DELETE", "/_emulator/faults").json()["faults"] == []


def test_http_500_answers_an_empty_500_and_does_nothing(api):
    inject(api, kind="http_500")

    response = api.post("/orders", order_payload())

    assert response.status_code == 500 and response.content == b""
    assert order_count(api) == 0
    assert api.post("/orders", order_payload()).status_code == 201


def test_http_403_json_is_the_providers_forbidden_answer_and_does_nothing(api):
    inject(api, kind="http_403_json", path_prefix="/orders")

    response = api.post("/orders", order_payload(charges=[charge_payload()]))

    assert response.status_code == 403
    assert response.headers["Content-Type"] == "application/json"
    assert documented(response.json()) == {
        "error_messages": [{"code": "FORBIDDEN", "description": "Access denied to this resource"}]
    }
    assert order_count(api) == 0
    assert api.post("/orders", order_payload()).status_code == 201


@pytest.mark.parametrize(("kind", "status"), [("http_502", 502), ("http_403_html", 403)])
def test_html_pages_from_the_gateway_and_cdn(api, kind, status):
    inject(api, kind=kind)

    response = api.post("/orders", order_payload())

    assert response.status_code == status
    assert response.headers["Content-Type"].startswith("text/html")
    assert b"<html" in response.content.lower()
    assert order_count(api) == 0


def test_rate_limit_is_429_40004_with_retry_after(api):
    inject(api, kind="rate_limit")

    response = api.get("/public-keys/card")

    assert response.status_code == 429
    assert error_of(response)["code"] == "40004"
    assert response.headers["Retry-After"] == "1"


def test_reset_drops_the_connection_and_does_nothing(api):
    inject(api, kind="reset")

    with pytest.raises(requests.ConnectionError):
        api.post("/orders", order_payload())

    assert order_count(api) == 0


def test_timeout_does_the_work_and_a_retry_with_the_key_gets_the_stored_answer(api):
    inject(api, kind="timeout", delay=30)
    body = order_payload(charges=[charge_payload()])
    headers = {"x-idempotency-key": "checkout-ex-00001"}

    with pytest.raises(requests.ReadTimeout):
        api.post("/orders", body, headers=headers, timeout=5)
    retry = api.post("/orders", body, headers=headers, timeout=5)

    assert retry.status_code == 201
    assert order_count(api) == 1
    assert retry.json()["id"] == api.get("/_emulator/orders").json()["orders"][0]


def test_a_short_timeout_delay_still_answers(api):
    inject(api, kind="timeout", delay=1)

    response = api.post("/orders", order_payload(), timeout=5)

    assert response.status_code == 201


def test_count_and_path_prefix_choose_the_calls(api):
    inject(api, kind="http_500", count=2, path_prefix="/charges")
    order = api.create_order(charges=[charge_payload()])
    charge = f"/charges/{order['charges'][0]['id']}"

    statuses = [api.get(charge).status_code for _ in range(3)]

    assert statuses == [500, 500, 200]
    assert api.get("/_emulator/faults").json()["faults"] == []


def test_faults_never_touch_the_control_plane(api):
    inject(api, kind="http_500", count=5)

    assert api.get("/_emulator/orders").status_code == 200
    assert api.get("/_emulator/faults").json()["faults"][0]["remaining"] == 5


@pytest.mark.parametrize(
    ("body", "code", "parameter_name"),
    [
        ({}, "40001", "kind"),
        ({"kind": "meteor"}, "40002", "kind"),
        ({"kind": "http_500", "count": 0}, "40002", "count"),
        ({"kind": "http_500", "count": 1.5}, "40002", "count"),
        ({"kind": "timeout", "delay": -1}, "40002", "delay"),
        ({"kind": "timeout", "delay": "30"}, "40002", "delay"),
        ({"kind": "timeout", "delay": 3601}, "40002", "delay"),
        ({"kind": "timeout", "delay": 1e308}, "40002", "delay"),
        ({"kind": "timeout", "delay": 10**400}, "40002", "delay"),
        ({"kind": "http_500", "path_prefix": "orders"}, "40002", "path_prefix"),
        ({"kind": "http_500", "when": "now"}, "40003", "when"),
    ],
)
def test_inject_checks_its_body(api, body, code, parameter_name):
    response = api.post("/_emulator/faults", body)

    assert refusal(response) == (code, parameter_name)
    assert api.get("/_emulator/faults").json()["faults"] == []
