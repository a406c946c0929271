"""Nasty bodies thrown at the real CLI server: each a 4xx in the provider's shape, no traceback.

One emulator process serves the whole module; the last check reads its
stderr, where a traceback would show if any answer had been a bug of ours.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.emulator.cli_support import LISTENING, Cli, listening, start
from tests.emulator.core_support import ACCOUNT_B, charge_payload, order_payload, raw_card
from tests.emulator.test_core_robustness import leaf_paths, replaced

TOKEN = "cli-bad-input-token"
JSON = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
CARD_NUMBER = "charges[0].payment_method.card.number"


@pytest.fixture(scope="module")
def cli() -> Iterator[Cli]:
    with listening("--token", TOKEN) as running:
        yield running


def post(cli: Cli, path: str, data: bytes, headers: dict[str, str] | None = None) -> Any:
    return requests.post(f"{cli.url}{path}", data=data, headers=headers or JSON, timeout=30)


def encoded(payload: Any) -> bytes:
    """JSON as a client would send it (``ensure_ascii`` keeps lone surrogates as escapes)."""
    return json.dumps(payload).encode()


def with_charge(**charge_overrides: Any) -> bytes:
    return encoded(order_payload(charges=[charge_payload(**charge_overrides)]))


def with_card(**card_overrides: Any) -> bytes:
    return encoded(order_payload(charges=[charge_payload(raw_card(**card_overrides))]))


def error_of(response: requests.Response) -> tuple[str, str, str | None]:
    assert response.headers["Content-Type"] == "application/json", response.text
    [error] = response.json()["error_messages"]
    return error["code"], error["description"], error.get("parameter_name")


BODY_NOT_JSON = ("40002", "body_must_be_json", "body")
NASTY_ORDERS = [
    ("non-UTF-8 bytes", b'{"reference_id": "\xff\xfe\xc0"}', JSON, BODY_NOT_JSON),
    ("UTF-16", json.dumps(order_payload()).encode("utf-16"), JSON, BODY_NOT_JSON),
    ("nested arrays", b"[" * 100_000 + b"]" * 100_000, JSON, BODY_NOT_JSON),
    ("nested objects", b'{"a":' * 50_000 + b"1" + b"}" * 50_000, JSON, BODY_NOT_JSON),
    ("a 5000-digit number", b'{"reference_id": ' + b"9" * 5000 + b"}", JSON, BODY_NOT_JSON),
    ("1e999", b'{"reference_id": 1e999}', JSON, BODY_NOT_JSON),
    ("NaN", b'{"reference_id": NaN}', JSON, BODY_NOT_JSON),
    ("Infinity", b'{"reference_id": -Infinity}', JSON, BODY_NOT_JSON),
    ("empty body", b"", JSON, BODY_NOT_JSON),
    (
        "a JSON array",
        b'[{"reference_id": "ex-1"}]',
        JSON,
        ("40002", "body_must_be_a_json_object", "body"),
    ),
    (
        "no content type",
        encoded(order_payload()),
        {"Authorization": f"Bearer {TOKEN}"},
        ("40002", "content_type_must_be_application_json", "body"),
    ),
    (
        "form content type",
        b"reference_id=ex-1",
        {**JSON, "Content-Type": "application/x-www-form-urlencoded"},
        ("40002", "content_type_must_be_application_json", "body"),
    ),
    (
        "a huge integer amount",
        with_charge(amount={"value": 10**400, "currency": "BRL"}),
        JSON,
        ("40002", "invalid_parameter", "charges[0].amount.value"),
    ),
    (
        "a float amount",
        with_charge(amount={"value": 500.0, "currency": "BRL"}),
        JSON,
        ("40002", "invalid_parameter", "charges[0].amount.value"),
    ),
    (
        "a negative amount",
        with_charge(amount={"value": -500, "currency": "BRL"}),
        JSON,
        ("40002", "invalid_parameter", "charges[0].amount.value"),
    ),
    (
        "a negative unit amount",
        encoded(order_payload(items=[{"name": "x", "quantity": 1, "unit_amount": -1}])),
        JSON,
        ("40002", "invalid_parameter", "items[0].unit_amount"),
    ),
    (
        "a card number with a trailing newline",
        with_card(number="4111111111111111\n"),
        JSON,
        ("40002", "invalid_parameter", CARD_NUMBER),
    ),
    (
        "a card number in Arabic-Indic digits",
        with_card(number="٤١١١١١١١١١١١١١١١"),
        JSON,
        ("40002", "invalid_parameter", CARD_NUMBER),
    ),
    (
        "a security code in Arabic-Indic digits",
        with_card(security_code="١٢٣"),
        JSON,
        ("40002", "invalid_parameter", "charges[0].payment_method.card.security_code"),
    ),
    (
        "an expiry in Arabic-Indic digits",
        with_card(exp_month="١٢"),
        JSON,
        ("40002", "invalid_parameter", "charges[0].payment_method.card.exp_month"),
    ),
    (
        "a lone surrogate in a value",
        encoded(order_payload(reference_id="ex-\ud800")),
        JSON,
        ("40002", "invalid_unicode_string", "reference_id"),
    ),
    (
        "a lone surrogate deep inside",
        with_card(holder={"name": "Jo\udfffse"}),
        JSON,
        ("40002", "invalid_unicode_string", "charges[0].payment_method.card.holder.name"),
    ),
    (
        "a lone surrogate in a key",
        encoded(order_payload(customer={"\ud800": 1})),
        JSON,
        ("40002", "invalid_unicode_string", "customer"),
    ),
    (
        "a 200k-character notification URL",
        encoded(order_payload(notification_urls=["http://" + "a" * 200_000 + " "])),
        JSON,
        ("40002", "invalid_parameter", "notification_urls[0]"),
    ),
]


def test_nasty_bodies_get_the_providers_error_and_never_a_traceback(cli):
    order = requests.post(
        f"{cli.url}/orders", data=encoded(order_payload()), headers=JSON, timeout=30
    ).json()
    deeplink = requests.post(
        f"{cli.url}/orders",
        data=encoded(order_payload(deep_links=[{"amount": {"value": 1500}}])),
        headers=JSON,
        timeout=30,
    ).json()
    deeplink_id = deeplink["deep_links"][0]["url"].rsplit("r=", 1)[1]
    account = requests.get(f"{cli.url}/_emulator/accounts", timeout=30).json()["accounts"][0]["id"]
    splits = {
        "method": "FIXED",
        "receivers": [
            {"account": {"id": account}, "amount": {"value": "9" * 5000}},
            {"account": {"id": ACCOUNT_B}, "amount": {"value": "1"}},
        ],
    }
    failures = []

    def check(label: str, response: requests.Response, expected: tuple[str, str, str | None]):
        if response.status_code != 400 or error_of(response) != expected:
            failures.append(f"{label}: {response.status_code} {response.text[:200]}")

    for label, data, headers, expected in NASTY_ORDERS:
        check(label, post(cli, "/orders", data, headers), expected)
        keyed = {**headers, "x-idempotency-key": f"nasty {label}"}
        check(f"{label} (with an idempotency key)", post(cli, "/orders", data, keyed), expected)

    pay = f"/orders/{order['id']}/pay"
    check(
        "pay with a 5000-digit split amount",
        post(cli, pay, encoded({"charges": [charge_payload(splits=splits)]})),
        ("40002", "invalid_parameter", "charges[0].splits.receivers[0].amount.value"),
    )
    check("pay with nested arrays", post(cli, pay, b"[" * 100_000), BODY_NOT_JSON)
    check(
        "public key with a surrogate key",
        post(cli, "/public-keys", encoded({"type": "card", "\ud800": 1})),
        ("40002", "invalid_unicode_string", "body"),
    )
    for label, body in [
        ("nested", b"[" * 100_000),
        ("array", b'["PAID"]'),
        ("surrogate", encoded({"card_number": "\ud800"})),
        ("newline", encoded({"card_number": "4111111111111111\n"})),
    ]:
        response = post(cli, f"/pagpay/credit-card/{deeplink_id}", body, JSON)
        if response.status_code != 400 or response.json()["errors"][0]["code"] != "40002":
            failures.append(f"simulator {label}: {response.status_code} {response.text[:200]}")
    for path, payload, parameter_name in [
        ("/_emulator/clock", {"advance_seconds": 10**30}, "advance_seconds"),
        ("/_emulator/clock", {"advance_seconds": 1e300}, "advance_seconds"),
        ("/_emulator/clock", {"now": "9999-12-31T23:59:59+14:00"}, "now"),
        ("/_emulator/faults", {"kind": "timeout", "delay": 1e308}, "delay"),
        ("/_emulator/faults", {"kind": "timeout", "path_prefix": "/\ud800"}, "path_prefix"),
        ("/_emulator/notifications/flush", {"timeout": 1e308}, "timeout"),
    ]:
        response = post(cli, path, encoded(payload), {"Content-Type": "application/json"})
        if response.status_code != 400 or error_of(response)[2] != parameter_name:
            failures.append(f"{path} {payload!r}: {response.status_code} {response.text[:200]}")

    status, _, stderr = cli.stop()
    assert failures == []
    assert status == 0
    assert "Traceback" not in stderr and "emulator failed" not in stderr


UNICODE = "José Conceição 😀 ٣ \u202e\u0000 ﷽"


def test_unicode_in_every_string_is_answered_never_a_500():
    running = start("--port", "0", "--quiet", "--token", TOKEN)
    try:
        url = running.read_until(LISTENING).group(1)
        sample = order_payload(charges=[charge_payload(raw_card(store=True))])
        strings = [path for path in leaf_paths(sample) if isinstance(_at(sample, path), str)]
        assert len(strings) > 25
        answers = {}
        for path in strings:
            for text in (UNICODE, "\ud83d"):  # a whole emoji, then half of one
                body = encoded(replaced(sample, path, text))
                response = requests.post(f"{url}/orders", data=body, headers=JSON, timeout=30)
                answers[(path, text)] = response.status_code
                if response.status_code == 400:
                    [error] = response.json()["error_messages"]
                    assert error["parameter_name"] == ".".join(_steps(path)), (path, error)
    finally:
        status, _, stderr = running.stop()
    assert set(answers.values()) <= {201, 400}
    assert status == 0 and "Traceback" not in stderr


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return copy.deepcopy(value)


def _steps(path: tuple[Any, ...]) -> Iterator[str]:
    """``("charges", 0, "amount")`` as the provider names it: ``charges[0]``, ``amount``."""
    parts: list[str] = []
    for step in path:
        if isinstance(step, int):
            parts[-1] += f"[{step}]"
        else:
            parts.append(step)
    return iter(parts)
