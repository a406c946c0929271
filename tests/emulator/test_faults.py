"""Injected faults: queued, consumed per call, and acted out as responses."""

from __future__ import annotations

import json

import pytest

from django_orderpay.emulator.control.faults import KINDS, Faults
from django_orderpay.emulator.serving.http import Response
from tests.emulator.core_support import documented


def test_no_fault_by_default():
    assert Faults().take("/orders") is None


def test_a_fault_lasts_count_calls_then_is_gone():
    faults = Faults()
    faults.inject("http_500", 2)
    assert faults.pending() == [
        {"kind": "http_500", "remaining": 2, "delay": 30.0, "path_prefix": None}
    ]
    assert faults.take("/orders").kind == "http_500"
    assert faults.pending()[0]["remaining"] == 1
    assert faults.take("/charges/CHAR_X").kind == "http_500"
    assert faults.take("/orders") is None
    assert faults.pending() == []


def test_faults_come_in_order_and_path_prefix_selects_calls():
    faults = Faults()
    faults.inject("reset", path_prefix="/charges/")
    faults.inject("rate_limit")
    assert faults.take("/orders").kind == "rate_limit"
    assert faults.take("/orders") is None
    assert faults.take("/charges/CHAR_X/capture").kind == "reset"


def test_reset_clears_everything():
    faults = Faults()
    faults.inject("http_502", 5)
    faults.reset()
    assert faults.pending() == []
    assert faults.take("/orders") is None


def test_unknown_kind_lists_the_known_ones():
    with pytest.raises(ValueError) as caught:
        Faults().inject("explode")
    for kind in KINDS:
        assert kind in str(caught.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"count": 0},
        {"count": "2"},
        {"count": True},
        {"delay": -1},
        {"delay": "9"},
        {"delay": float("inf")},
        {"delay": float("nan")},
    ],
)
def test_bad_count_or_delay(kwargs):
    with pytest.raises(ValueError):
        Faults().inject("timeout", **kwargs)


def test_timeout_happens_after_the_work_and_delays_its_answer():
    faults = Faults()
    faults.inject("timeout", delay=12.5)
    fault = faults.take("/orders")
    assert fault.before_work is False
    work = Response.json(201, {"id": "ORDE_X"})
    answer = fault.respond(work)
    assert (answer.status, answer.body, answer.delay) == (201, work.body, 12.5)
    assert work.delay == 0.0  # the stored answer is untouched


def fault_response(kind: str) -> Response:
    faults = Faults()
    faults.inject(kind)
    fault = faults.take("/orders")
    assert fault.before_work is True
    return fault.respond(None)


def test_reset_drops_the_connection():
    assert fault_response("reset").reset is True


def test_http_500_has_an_empty_body():
    response = fault_response("http_500")
    assert (response.status, response.body) == (500, b"")


def test_http_502_is_a_gateway_page():
    response = fault_response("http_502")
    assert response.status == 502
    assert response.header("Content-Type").startswith("text/html")
    assert b"502 Bad Gateway" in response.body


def test_http_400_html_is_a_gateway_page_without_error_codes():
    response = fault_response("http_400_html")
    assert response.status == 400
    assert response.header("Content-Type").startswith("text/html")
    assert b"400 Bad Request" in response.body
    assert b"error_messages" not in response.body


def test_http_403_html_is_a_cdn_page():
    response = fault_response("http_403_html")
    assert response.status == 403
    assert response.header("Content-Type").startswith("text/html")
    assert response.body.startswith(b"<!DOCTYPE HTML")
    assert b"403 ERROR" in response.body
    assert b"</html>" in response.body


def test_http_403_json_is_the_providers_error_body():
    response = fault_response("http_403_json")
    assert response.status == 403
    assert response.header("Content-Type") == "application/json"
    assert documented(json.loads(response.body)) == {
        "error_messages": [{"code": "FORBIDDEN", "description": "Access denied to this resource"}]
    }


def test_rate_limit_is_429_with_40004():
    response = fault_response("rate_limit")
    assert response.status == 429
    assert documented(json.loads(response.body)) == {
        "error_messages": [{"code": "40004", "description": "rate_limit"}]
    }
