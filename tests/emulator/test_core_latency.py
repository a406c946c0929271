"""The latency knob: provider answers held back, the control plane never; set, bounded, reset.

Through HTTP with the transport adapter, whose ``sleep`` is recorded here
instead of slept: the delay each answer carried is what is asserted, never
a time measured.
"""

from __future__ import annotations

import pytest
import requests

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.control.latency import MAX_LATENCY
from django_orderpay.emulator.serving.transport import mount
from tests.emulator.core_support import AUTH, BASE_URL, TOKEN_A, charge_payload, order_payload


class Slept(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def slept() -> Slept:
    return Slept()


@pytest.fixture
def http(slept):
    emulator = Emulator([TOKEN_A], notify_in_background=False)
    session = requests.Session()
    base = mount(session, emulator, BASE_URL, sleep=slept)
    yield session, base, emulator
    emulator.close()


def set_latency(session, base, body):
    return session.post(f"{base}/_emulator/latency", json=body, timeout=5)


def test_every_provider_answer_is_held_back_and_the_control_plane_is_not(http, slept):
    session, base, _ = http

    answer = set_latency(session, base, {"seconds": 0.25})

    assert answer.status_code == 200
    assert answer.json() == {"latency": {"seconds": 0.25, "path_prefix": None}}
    created = session.post(f"{base}/orders", json=order_payload(), headers=AUTH, timeout=5)
    fetched = session.get(f"{base}/orders/{created.json()['id']}", headers=AUTH, timeout=5)
    missing = session.get(f"{base}/orders/ORDE_NONE", headers=AUTH, timeout=5)
    listed = session.get(f"{base}/_emulator/orders", timeout=5)
    assert [created.status_code, fetched.status_code, missing.status_code] == [201, 200, 404]
    assert listed.status_code == 200
    assert slept == [0.25, 0.25, 0.25]  # the control plane's answers were not delayed


def test_a_path_prefix_limits_it_and_zero_turns_it_off(http, slept):
    session, base, _ = http
    set_latency(session, base, {"seconds": 0.1, "path_prefix": "/orders/"})
    order = session.post(f"{base}/orders", json=order_payload(), headers=AUTH, timeout=5).json()

    session.get(f"{base}/orders/{order['id']}", headers=AUTH, timeout=5)
    set_latency(session, base, {"seconds": 0})
    session.get(f"{base}/orders/{order['id']}", headers=AUTH, timeout=5)

    assert slept == [0.1]  # the create (/orders) and the last fetch were not held back
    assert session.get(f"{base}/_emulator/latency", timeout=5).json() == {
        "latency": {"seconds": 0, "path_prefix": None}
    }


def test_it_adds_to_a_faults_delay_and_past_the_timeout_the_call_times_out(http, slept):
    session, base, _ = http
    set_latency(session, base, {"seconds": 0.5})
    session.post(
        f"{base}/_emulator/faults", json={"kind": "timeout", "delay": 1.0, "count": 1}, timeout=5
    )

    with pytest.raises(requests.ReadTimeout):
        body = order_payload(charges=[charge_payload()])
        session.post(f"{base}/orders", json=body, headers=AUTH, timeout=1.2)
    with pytest.raises(requests.ReadTimeout):
        session.get(f"{base}/orders/ORDE_NONE", headers=AUTH, timeout=0.4)


def test_a_reset_puts_back_the_latency_the_emulator_was_built_with(slept):
    emulator = Emulator([TOKEN_A], notify_in_background=False, latency=0.05)
    session = requests.Session()
    base = mount(session, emulator, BASE_URL, sleep=slept)
    try:
        set_latency(session, base, {"seconds": 2, "path_prefix": "/charges"})
        session.post(f"{base}/_emulator/reset", timeout=5)
        latency = session.get(f"{base}/_emulator/latency", timeout=5).json()
    finally:
        emulator.close()

    assert latency == {"latency": {"seconds": 0.05, "path_prefix": None}}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "seconds"),
        ({"seconds": -0.001}, "seconds"),
        ({"seconds": MAX_LATENCY + 0.001}, "seconds"),
        ({"seconds": True}, "seconds"),
        ({"seconds": "0.1"}, "seconds"),
        ({"seconds": 0.1, "path_prefix": "orders"}, "path_prefix"),
        ({"seconds": 0.1, "every": 2}, "every"),
    ],
)
def test_bad_values_are_refused_naming_the_field(http, body, field):
    session, base, _ = http

    answer = set_latency(session, base, body)

    assert answer.status_code == 400
    [error] = answer.json()["error_messages"]
    assert error["parameter_name"] == field
    assert session.get(f"{base}/_emulator/latency", timeout=5).json()["latency"]["seconds"] == 0


def test_the_limits_themselves_are_accepted(http):
    session, base, _ = http

    assert set_latency(session, base, {"seconds": MAX_LATENCY}).status_code == 200
    assert set_latency(session, base, {"seconds": 0}).status_code == 200


def test_the_constructor_refuses_a_negative_latency():
    with pytest.raises(ValueError, match="latency seconds"):
        Emulator([TOKEN_A], latency=-1)
