"""The emulator mounted in a Django project (``tests/urls.py`` mounts it at ``/emulator/``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.core.wsgi import get_wsgi_application
from django.test import Client, override_settings
from django.urls import include, path, reverse

from django_orderpay.emulator import DEFAULT_TOKEN, account_for
from django_orderpay.emulator.serving.django_view import discard_emulator, get_emulator
from django_orderpay.emulator.serving.wsgi import ConnectionDropped, serving
from tests.emulator.core_support import ORDER_ID, charge_payload, error_of, order_payload

TOKEN = "test-token-merchant-a"  # ORDERPAY["TOKEN"] in tests/settings.py
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# A second URLconf, for the test that mounts the emulator deeper (pytest.mark.urls).
urlpatterns = [path("shop/psp/", include("django_orderpay.emulator.urls"))]


#: The secret that opens the mounted control plane to these tests' scripts.
SECRET = "control-plane-secret"
CONTROL = {"X-Emulator-Secret": SECRET}


@pytest.fixture(autouse=True)
def fresh_emulator(settings) -> Iterator[None]:
    # A project's demo serves the mounted emulator with DEBUG on; tests run with it off.
    settings.DEBUG = True
    settings.ORDERPAY = {**settings.ORDERPAY, "EMULATOR_CONTROL_SECRET": SECRET}
    discard_emulator()
    yield
    discard_emulator()


@pytest.fixture
def client() -> Client:
    """The test client, carrying the control plane's secret (its own tests are in
    tests/test_security_emulator.py)."""
    return Client(headers=CONTROL)


def post(client: Client, url: str, payload: Any, **headers: str) -> Any:
    return client.post(
        url, json.dumps(payload), content_type="application/json", headers={**AUTH, **headers}
    )


def inject(client: Client, **fault: Any) -> None:
    response = client.post("/emulator/_emulator/faults", fault, content_type="application/json")
    assert response.status_code == 201, response.content


def test_an_order_through_the_test_client(client):
    response = post(client, "/emulator/orders", order_payload(charges=[charge_payload()]))

    assert response.status_code == 201
    assert response["Content-Type"] == "application/json"
    order = response.json()
    assert ORDER_ID.match(order["id"])
    assert order["charges"][0]["status"] == "PAID"
    # hrefs are absolute on the mount point
    assert order["links"][0]["href"] == f"http://testserver/emulator/orders/{order['id']}"
    fetched = client.get(f"/emulator/orders/{order['id']}", headers=AUTH)
    assert fetched.status_code == 200
    assert fetched.json() == order


def test_the_mount_point_reverses():
    assert reverse("orderpay_emulator:root", kwargs={"path": ""}) == "/emulator/"


@pytest.mark.urls(__name__)
def test_a_deeper_mount_point_is_the_base_url(client):
    response = post(client, "/shop/psp/orders", order_payload())

    assert response.status_code == 201
    order = response.json()
    assert order["links"][0]["href"] == f"http://testserver/shop/psp/orders/{order['id']}"


def test_get_emulator_is_the_instance_that_serves(client):
    order = post(client, "/emulator/orders", order_payload()).json()

    emulator = get_emulator()
    assert emulator is get_emulator()
    assert emulator.accounts == {TOKEN: account_for(TOKEN)}
    listed = client.get("/emulator/_emulator/orders").json()["orders"]
    assert listed == [order["id"]]
    emulator.reset()
    assert client.get(f"/emulator/orders/{order['id']}", headers=AUTH).status_code == 404


def test_get_emulator_creates_one_instance_under_concurrent_first_use():
    seen: list[int] = []
    start = threading.Barrier(8)

    def first_use() -> None:
        start.wait()
        seen.append(id(get_emulator()))

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(seen) == 8
    assert set(seen) == {id(get_emulator())}


def test_emulator_tokens_setting_gives_the_merchants(client):
    tokens = {"token-x": "ACCO_11111111-2222-3333-4444-555555555555", "token-y": "ACCO_Y"}
    with override_settings(
        ORDERPAY={
            "ENVIRONMENT": "emulator",
            "EMULATOR_TOKENS": tokens,
            "EMULATOR_STATE_FILE": False,
        }
    ):
        assert get_emulator().accounts == tokens
        ok = client.get("/emulator/public-keys/card", headers={"Authorization": "Bearer token-x"})
        refused = client.get("/emulator/public-keys/card", headers=AUTH)
        assert ok.status_code == 200
        assert refused.status_code == 401
    # leaving the override brings the settings' TOKEN back
    assert client.get("/emulator/public-keys/card", headers=AUTH).status_code == 200


def test_without_any_token_setting_the_default_token_works(client, monkeypatch):
    monkeypatch.delenv("ORDERPAY_TOKEN", raising=False)
    monkeypatch.delenv("ORDERPAY_EMULATOR_TOKENS", raising=False)
    with override_settings(ORDERPAY={"ENVIRONMENT": "emulator", "EMULATOR_STATE_FILE": False}):
        assert get_emulator().accounts == {DEFAULT_TOKEN: account_for(DEFAULT_TOKEN)}
        response = client.get(
            "/emulator/public-keys/card", headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"}
        )
        assert response.status_code == 200


def test_the_view_is_csrf_exempt():
    client = Client(enforce_csrf_checks=True)

    response = post(client, "/emulator/orders", order_payload())

    assert response.status_code == 201


def test_the_sdk_script_is_served(client):
    response = client.get("/emulator/sdk/pagseguro.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript"
    assert b"encryptCard" in response.content


def test_unknown_paths_and_bad_bodies_answer_in_the_provider_shape(client):
    unknown = client.get("/emulator/nowhere", headers=AUTH)
    not_json = client.post(
        "/emulator/orders", "{not json", content_type="application/json", headers=AUTH
    )

    assert unknown.status_code == 404
    assert error_of(unknown)["code"] == "NOT_FOUND"
    assert not_json.status_code == 400
    assert error_of(not_json)["parameter_name"] == "body"


def test_a_body_over_one_mebibyte_gets_413_naming_the_body(client):
    response = client.post(
        "/emulator/orders",
        b"{" + b" " * (1024 * 1024) + b"}",
        content_type="application/json",
        headers=AUTH,
    )

    assert response.status_code == 413
    assert response.json()["error_messages"][0]["parameter_name"] == "body"


def test_an_answer_without_content_type_is_passed_on_without_one(client):
    inject(client, kind="http_500")

    response = client.get("/emulator/public-keys/card", headers=AUTH)

    assert response.status_code == 500
    assert response.content == b""
    assert not response.has_header("Content-Type")


def test_idempotency_key_header_reaches_the_core(client):
    first = post(client, "/emulator/orders", order_payload(), **{"x-idempotency-key": "dj-1"})
    again = post(client, "/emulator/orders", order_payload(), **{"x-idempotency-key": "dj-1"})

    assert again.json()["id"] == first.json()["id"]


def test_a_delay_fault_answers_after_the_delay(client):
    inject(client, kind="timeout", delay=0.05)

    response = post(client, "/emulator/orders", order_payload())

    assert response.status_code == 201
    assert client.get("/emulator/_emulator/orders").json()["orders"] == [response.json()["id"]]


def test_a_reset_fault_raises_under_the_test_client(client):
    inject(client, kind="reset")

    # Django cannot drop a connection; the test client re-raises what the view raised.
    with pytest.raises(ConnectionDropped):
        post(client, "/emulator/orders", order_payload())
    assert client.get("/emulator/_emulator/orders").json()["orders"] == []


@pytest.fixture
def django_server() -> Iterator[str]:
    """The test project (tests/urls.py) served over real HTTP by the emulator's WSGI server."""
    with serving(get_wsgi_application()) as server:
        yield server.url


def test_over_real_http_links_use_the_host_and_mount(django_server):
    response = requests.post(
        f"{django_server}/emulator/orders", json=order_payload(), headers=AUTH, timeout=10
    )

    assert response.status_code == 201
    order = response.json()
    assert order["links"][0]["href"] == f"{django_server}/emulator/orders/{order['id']}"


def test_over_real_http_a_reset_drops_the_connection(django_server):
    faults = f"{django_server}/emulator/_emulator/faults"
    assert (
        requests.post(faults, json={"kind": "reset"}, headers=CONTROL, timeout=10).status_code
        == 201
    )

    with pytest.raises(requests.exceptions.ConnectionError) as caught:
        requests.post(
            f"{django_server}/emulator/orders", json=order_payload(), headers=AUTH, timeout=10
        )

    assert not isinstance(caught.value, requests.exceptions.Timeout)
    listed = requests.get(
        f"{django_server}/emulator/_emulator/orders", headers=CONTROL, timeout=10
    ).json()
    assert listed["orders"] == []


def test_over_real_http_a_delay_past_the_timeout_is_a_read_timeout(django_server):
    faults = f"{django_server}/emulator/_emulator/faults"
    assert requests.post(
        faults, json={"kind": "timeout", "delay": 3}, headers=CONTROL, timeout=10
    ).ok
    headers = {**AUTH, "x-idempotency-key": "dj-slow"}

    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(
            f"{django_server}/emulator/orders",
            json=order_payload(),
            headers=headers,
            timeout=(5, 0.3),
        )

    retry = requests.post(
        f"{django_server}/emulator/orders", json=order_payload(), headers=headers, timeout=10
    )
    assert retry.status_code == 201
    listed = requests.get(
        f"{django_server}/emulator/_emulator/orders", headers=CONTROL, timeout=10
    ).json()
    assert listed["orders"] == [retry.json()["id"]]


@pytest.mark.parametrize("environment", ["production", "sandbox"])
@pytest.mark.parametrize(
    "path",
    ["/emulator/_emulator/accounts", "/emulator/_emulator/faults", "/emulator/orders"],
)
def test_outside_the_emulator_environment_the_urlconf_serves_nothing(client, environment, path):
    # Left mounted in a deployment: no control plane, no token's tail, no reset.
    production = {"ENVIRONMENT": environment, "TOKEN": "real-production-token-1234"}
    with override_settings(DEBUG=False, ORDERPAY=production):
        get = client.get(path)
        reset = client.post("/emulator/_emulator/reset", content_type="application/json")

    assert get.status_code == reset.status_code == 404
    assert b"1234" not in get.content
