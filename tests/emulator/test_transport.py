"""The ``requests`` transport: a Session served by the emulator with no socket."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.transport import DEFAULT_BASE_URL, EmulatorAdapter, mount
from tests.emulator.core_support import (
    AUTH,
    ORDER_ID,
    TOKEN_A,
    charge_payload,
    error_of,
    inject_fault,
    listed_order_ids,
    order_payload,
)


class Sleeps:
    """Records what the adapter sleeps instead of sleeping (no test waits for real)."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def session(emulator: Emulator, sleeps: Sleeps) -> requests.Session:
    session = requests.Session()
    mount(session, emulator, "http://psp.orderpay.test/v1/", sleep=sleeps)
    return session


BASE = "http://psp.orderpay.test/v1"


def post_public_keys(session: requests.Session, body: Any) -> requests.Response:
    """``POST /public-keys`` with ``body`` as requests takes it (bytes, str, a file)."""
    headers = {**AUTH, "Content-Type": "application/json"}
    return session.post(f"{BASE}/public-keys", data=body, headers=headers, timeout=5)


def test_mount_returns_the_base_url_without_its_trailing_slash(emulator):
    assert mount(requests.Session(), emulator, "http://x.orderpay.test/api/") == (
        "http://x.orderpay.test/api"
    )
    assert mount(requests.Session(), emulator) == DEFAULT_BASE_URL


def test_answers_are_real_requests_responses(session):
    payload = order_payload(charges=[charge_payload()])

    response = session.post(f"{BASE}/orders", json=payload, headers=AUTH, timeout=5)

    assert isinstance(response, requests.Response)
    assert response.status_code == 201
    assert response.reason == "Created"
    assert response.ok
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["Content-Length"]) == len(response.content)
    assert response.encoding == "utf-8"
    assert response.url == f"{BASE}/orders"
    assert response.request.method == "POST"
    assert response.request.headers["Authorization"] == f"Bearer {TOKEN_A}"
    order = response.json()
    assert ORDER_ID.match(order["id"])
    assert order["charges"][0]["status"] == "PAID"


def test_links_are_built_on_the_mounted_base_url_including_its_path(session):
    order = session.post(f"{BASE}/orders", json=order_payload(), headers=AUTH, timeout=5).json()

    self_link = next(link for link in order["links"] if link["rel"] == "SELF")
    assert self_link["href"] == f"{BASE}/orders/{order['id']}"
    # and the link leads back to the same order through the same session
    assert session.get(self_link["href"], headers=AUTH, timeout=5).json()["id"] == order["id"]


@pytest.mark.parametrize(
    "body", [b'{"type":"card"}', '{"type":"card"}'], ids=["bytes body", "str body"]
)
def test_prepared_bodies_of_bytes_or_str_reach_the_core(session, body):
    response = post_public_keys(session, body)

    assert response.status_code == 201  # the docs: a public key is created
    assert response.json()["public_key"]


def test_no_body_reaches_the_core_as_an_empty_body(session, emulator):
    response = session.get(f"{BASE}/public-keys/card", headers=AUTH, timeout=5)

    assert response.status_code == 200
    assert response.json()["public_key"] == emulator.public_key


def test_a_file_body_is_read(session, tmp_path):
    payload = tmp_path / "body.json"
    payload.write_text('{"type":"card"}')
    with payload.open("rb") as body:
        response = post_public_keys(session, body)

    assert response.status_code == 201


def test_query_string_and_headers_reach_the_core(session):
    first = session.post(
        f"{BASE}/orders?source=test",
        json=order_payload(),
        headers={**AUTH, "x-idempotency-key": "transport-1"},
        timeout=5,
    )
    again = session.post(
        f"{BASE}/orders",
        json=order_payload(),
        headers={**AUTH, "X-Idempotency-Key": "transport-1"},
        timeout=5,
    )

    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]


def test_streamed_response_can_be_read_in_chunks(session):
    response = session.get(f"{BASE}/sdk/pagseguro.js", stream=True, timeout=5)

    assert response.headers["Content-Type"] == "application/javascript"
    assert b"encryptCard" in b"".join(response.iter_content(chunk_size=256))


def test_errors_come_back_as_responses_in_the_provider_shape(session):
    response = session.get(f"{BASE}/orders/ORDE_UNKNOWN", headers=AUTH, timeout=5)
    assert response.status_code == 404
    assert error_of(response)["code"] == "NOT_FOUND"
    with pytest.raises(requests.HTTPError):
        response.raise_for_status()


def test_a_body_over_one_mebibyte_is_refused_naming_the_body(session):
    response = session.post(
        f"{BASE}/orders",
        data=b"x" * (1024 * 1024 + 1),
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=5,
    )

    assert response.status_code == 413
    assert error_of(response)["parameter_name"] == "body"


def test_an_adapter_mounted_at_a_host_root_uses_the_requests_origin(emulator):
    session = requests.Session()
    session.mount("http://root.orderpay.test/", EmulatorAdapter(emulator))

    order = session.post(
        "http://root.orderpay.test/orders", json=order_payload(), headers=AUTH, timeout=5
    ).json()

    assert order["links"][0]["href"] == f"http://root.orderpay.test/orders/{order['id']}"


def test_delay_past_the_read_timeout_raises_read_timeout_after_the_work(session, sleeps):
    inject_fault(session, BASE, kind="timeout", delay=30)
    headers = {**AUTH, "x-idempotency-key": "slow-1"}
    payload = order_payload(charges=[charge_payload()])

    with pytest.raises(requests.exceptions.ReadTimeout) as caught:
        session.post(f"{BASE}/orders", json=payload, headers=headers, timeout=(3, 0.5))

    assert caught.value.request.url == f"{BASE}/orders"
    # The client waited its read timeout, not the whole delay.
    assert sleeps.calls == [0.5]
    # The core did the work: the order exists, and a retry gets the stored answer.
    [order_id] = listed_order_ids(session, BASE)
    retry = session.post(f"{BASE}/orders", json=payload, headers=headers, timeout=(3, 0.5))
    assert retry.status_code == 201
    assert retry.json()["id"] == order_id
    assert listed_order_ids(session, BASE) == [order_id]


def test_delay_within_the_timeout_answers_after_the_delay(session, sleeps):
    inject_fault(session, BASE, kind="timeout", delay=0.25)

    response = session.post(f"{BASE}/orders", json=order_payload(), headers=AUTH, timeout=5)

    assert response.status_code == 201
    assert sleeps.calls == [0.25]


def test_delay_without_a_timeout_waits_the_whole_delay(session, sleeps):
    inject_fault(session, BASE, kind="timeout", delay=12)

    response = session.post(f"{BASE}/orders", json=order_payload(), headers=AUTH)

    assert response.status_code == 201
    assert sleeps.calls == [12]


def test_reset_raises_connection_error_and_nothing_is_done(session):
    inject_fault(session, BASE, kind="reset")

    with pytest.raises(requests.exceptions.ConnectionError) as caught:
        session.post(f"{BASE}/orders", json=order_payload(), headers=AUTH, timeout=5)

    assert not isinstance(caught.value, requests.exceptions.Timeout)
    assert isinstance(caught.value.args[0].args[1], ConnectionResetError)
    assert listed_order_ids(session, BASE) == []
    # the fault was for one call: the next one goes through
    assert session.post(f"{BASE}/orders", json=order_payload(), headers=AUTH).status_code == 201
