from __future__ import annotations

import json

import pytest

from django_orderpay.emulator.state import errors
from tests.emulator.core_support import documented


def body(response):
    assert response.header("Content-Type") == "application/json"
    return documented(json.loads(response.body))


@pytest.mark.parametrize(
    ("make", "status", "code", "description"),
    [
        (lambda: errors.required("customer.name"), 400, "40001", "required_parameter"),
        (lambda: errors.invalid("customer.name"), 400, "40002", "invalid_parameter"),
        (lambda: errors.unknown("customer.nome"), 400, "40003", "parameter_unknown"),
    ],
)
def test_field_errors_name_the_parameter(make, status, code, description):
    error = make()
    response = error.to_response()
    assert response.status == status
    message = body(response)["error_messages"][0]
    assert message["code"] == code
    assert message["description"] == description
    assert message["parameter_name"].startswith("customer.")
    assert error.code == code
    assert error.parameter_name == message["parameter_name"]


def test_invalid_matches_the_sample_with_the_fields_real_answers_add():
    response = errors.invalid("deep_links[0].redirect_url").to_response()
    assert response.status == 400
    # The sample's entry, and the message and error real answers carry beside it
    # (e.g. {"code":"40002","message":"...","description":"invalid_parameter",...}).
    assert response.body == (
        b'{"error_messages":[{"code":"40002","message":"Invalid parameter",'
        b'"description":"invalid_parameter","parameter_name":"deep_links[0].redirect_url",'
        b'"error":"invalid_parameter"}]}'
    )


def test_every_entry_carries_message_and_error():
    for error in (
        errors.required("x"),
        errors.unable_refund("amount exceeds the refundable amount"),
        errors.unauthorized(),
        errors.rate_limited(),
    ):
        [entry] = json.loads(error.to_response().body)["error_messages"]
        assert entry["message"] and entry["error"]
    [entry] = json.loads(errors.unauthorized().to_response().body)["error_messages"]
    assert entry["message"] == "Invalid credential. Review AUTHORIZATION header"
    assert entry["error"] == "unauthorized"


def test_unauthorized_has_the_providers_wording():
    response = errors.unauthorized().to_response()
    assert response.status == 401
    assert body(response) == {
        "error_messages": [
            {
                "code": "UNAUTHORIZED",
                "description": "Invalid credential. Review AUTHORIZATION header",
            }
        ]
    }


def test_idempotency_conflict_is_409_in_either_shape():
    response = errors.idempotency_conflict("docs").to_response()
    assert response.status == 409
    assert body(response) == {
        "error_messages": [{"code": "40005", "description": "idempotency_key_in_use"}]
    }
    production = errors.idempotency_conflict().to_response()
    assert production.status == 409
    assert body(production)["error_messages"][0]["code"] == "IDEMPOTENCY_CONFLICT"


def test_rate_limited_is_429_with_retry_after():
    response = errors.rate_limited().to_response()
    assert response.status == 429
    assert response.header("Retry-After") == "1"
    assert body(response)["error_messages"][0] == {"code": "40004", "description": "rate_limit"}


def test_capture_and_refund_errors_carry_the_reason():
    capture = errors.unable_capture("charge is PAID").to_response()
    refund = errors.unable_refund("amount above the refundable balance").to_response()
    assert (capture.status, refund.status) == (400, 400)
    assert body(capture)["error_messages"][0] == {
        "code": "40006",
        "description": "unable_capture: charge is PAID",
    }
    assert body(refund)["error_messages"][0]["code"] == "40007"
    assert "refundable" in body(refund)["error_messages"][0]["description"]
    assert (
        body(errors.refund_temporarily_unavailable().to_response())["error_messages"][0]["code"]
        == "40008"
    )


def test_forbidden_and_not_found():
    forbidden = errors.forbidden().to_response()
    missing = errors.not_found("order").to_response()
    assert forbidden.status == 403
    assert body(forbidden)["error_messages"][0]["code"] == "FORBIDDEN"
    assert missing.status == 404
    assert body(missing)["error_messages"][0] == {
        "code": "NOT_FOUND",
        "description": "order not found",
    }


def test_provider_error_is_an_exception_with_a_readable_message():
    with pytest.raises(
        errors.ProviderError, match=r"400 40002 invalid_parameter \(items\[0\]\.name\)"
    ):
        raise errors.invalid("items[0].name")


@pytest.mark.parametrize(
    ("make", "status", "code"),
    [
        (errors.SimulationError.not_found, 404, "40401"),
        (errors.SimulationError.already_paid, 409, "40901"),
        (errors.SimulationError.expired, 410, "41001"),
        (lambda: errors.SimulationError.bad_request("amount out of range"), 400, "40002"),
    ],
)
def test_simulation_errors_use_the_simulators_shape(make, status, code):
    response = make().to_response()
    assert response.status == status
    payload = body(response)
    assert list(payload) == ["errors"]
    assert payload["errors"][0]["code"] == code
    assert payload["errors"][0]["message"]
