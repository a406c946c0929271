"""Bad input never reaches a 500: every field of the sample payloads, given every wrong type.

Also: concurrent calls with one idempotency key make one order (the core's lock).
"""

from __future__ import annotations

import copy
import threading

import pytest

from tests.emulator.core_support import (
    ACCOUNT_A,
    ACCOUNT_B,
    charge_payload,
    order_payload,
)

WRONG_VALUES = [None, True, 0, -1, 1.5, "", "x" * 300, [], {}, [1], {"a": 1}]


def leaf_paths(value, path=()):
    """Every path into ``value`` (objects and lists included)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaf_paths(item, (*path, index))


def replaced(value, path, new):
    value = copy.deepcopy(value)
    target = value
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return value


SPLIT_CHARGE = charge_payload(
    splits={
        "method": "FIXED",
        "receivers": [
            {"account": {"id": ACCOUNT_A}, "amount": {"value": "300"}},
            {"account": {"id": ACCOUNT_B}, "amount": {"value": "200"}},
        ],
    },
    recurring={"type": "SUBSEQUENT", "recurrence_id": "158762300000712", "original_amount": 500},
)
SAMPLE = order_payload(charges=[SPLIT_CHARGE])
DEEPLINK_SAMPLE = order_payload(deep_links=[{"amount": {"value": 1500}, "redirect_url": "a://b"}])


def assert_answered(response):
    assert response.status_code in (201, 400), response.text
    if response.status_code == 400:
        [error] = response.json()["error_messages"]
        assert error["code"] in ("40001", "40002", "40003")
        assert error["parameter_name"]


@pytest.mark.parametrize("sample", [SAMPLE, DEEPLINK_SAMPLE], ids=["charges", "deep_links"])
def test_every_field_with_every_wrong_value_is_answered_without_a_500(api, sample):
    paths = [path for path in leaf_paths(sample) if path]
    assert len(paths) > 30

    for path in paths:
        for wrong in WRONG_VALUES:
            assert_answered(api.post("/orders", replaced(sample, path, wrong)))


def test_pay_capture_cancel_with_wrong_values_are_answered_without_a_500(api):
    order = api.create_order()
    pay_body = {"charges": [SPLIT_CHARGE]}
    for path in [path for path in leaf_paths(pay_body) if path]:
        for wrong in WRONG_VALUES:
            response = api.post(f"/orders/{order['id']}/pay", replaced(pay_body, path, wrong))
            assert response.status_code in (201, 400), response.text
            if response.status_code == 201:
                order = api.create_order()

    charge = api.create_order(charges=[charge_payload(capture=False)])["charges"][0]
    for action in ("capture", "cancel"):
        for wrong in WRONG_VALUES:
            for body in ({"amount": wrong}, {"amount": {"value": wrong}}, wrong):
                response = api.post(f"/charges/{charge['id']}/{action}", body)
                assert response.status_code in (201, 400), response.text
                if response.status_code == 201:
                    charge = api.create_order(charges=[charge_payload(capture=False)])["charges"][0]


def test_concurrent_creates_with_one_key_make_one_order(api):
    body = order_payload(charges=[charge_payload()])
    headers = {"x-idempotency-key": "double-click"}
    answers = []

    def create():
        answers.append(api.post("/orders", body, headers=headers))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert {response.status_code for response in answers} == {201}
    assert len({response.json()["id"] for response in answers}) == 1
    assert len(api.get("/_emulator/orders").json()["orders"]) == 1
