"""Shared fixtures and payloads for the emulator core's tests (``test_core_*.py``).

Every test talks to the emulator through HTTP: a ``requests.Session`` with the
emulator mounted by the transport adapter (no socket), payloads shaped as
``/work/shared/samples.md`` shows them.
"""

from __future__ import annotations

import re
import threading
from types import ModuleType
from typing import Any

import pytest
import requests

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

TOKEN_A = "token-merchant-a"
TOKEN_B = "token-merchant-b"
ACCOUNT_A = "ACCO_11111111-2222-3333-4444-555555555555"
ACCOUNT_B = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
ACCOUNT_C = "ACCO_0A0B0C0D-1111-2222-3333-444444444444"
BASE_URL = "http://emulator.orderpay.test/api"
#: Merchant A's credentials as request headers.
AUTH = {"Authorization": f"Bearer {TOKEN_A}"}
[NOTIFY_URL] = samples.order_request()["notification_urls"]

UUID = r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"
ORDER_ID = re.compile(rf"^ORDE_{UUID}$")
CHARGE_ID = re.compile(rf"^CHAR_{UUID}$")
CARD_ID = re.compile(rf"^CARD_{UUID}$")
SPLIT_ID = re.compile(rf"^SPLI_{UUID}$")
ACCOUNT_ID = re.compile(rf"^ACCO_{UUID}$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+[+-]\d{2}:\d{2}$")

CUSTOMER = samples.customer()
ITEMS = samples.items()
SHIPPING = samples.shipping()


class Recorder:
    """A notification sender that records each POST and answers ``status``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes, dict[str, str]]] = []
        self.statuses: list[int] = []  # answered in order, then 204
        self.lock = threading.Lock()

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        with self.lock:
            self.calls.append((url, body, headers))
            return self.statuses.pop(0) if self.statuses else 204


class Api:
    """The emulator over HTTP, as merchant A unless told otherwise."""

    def __init__(self, session: requests.Session, base_url: str, emulator: Emulator) -> None:
        self.session = session
        self.base_url = base_url
        self.emulator = emulator

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def headers(self, token: str | None, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(extra or {})
        return headers

    def post(
        self,
        path: str,
        payload: Any = None,
        *,
        token: str | None = TOKEN_A,
        headers: dict[str, str] | None = None,
        data: bytes | str | None = None,
        timeout: float = 10,
    ) -> requests.Response:
        if data is not None:
            return self.session.post(
                self.url(path), data=data, headers=self.headers(token, headers), timeout=timeout
            )
        return self.session.post(
            self.url(path), json=payload, headers=self.headers(token, headers), timeout=timeout
        )

    def get(self, path: str, *, token: str | None = TOKEN_A) -> requests.Response:
        return self.session.get(self.url(path), headers=self.headers(token, None), timeout=10)

    def request(self, method: str, path: str, *, token: str | None = TOKEN_A) -> requests.Response:
        return self.session.request(
            method, self.url(path), headers=self.headers(token, None), timeout=10
        )

    def create_order(self, **overrides: Any) -> dict[str, Any]:
        """POST /orders, asserting 201; the Order."""
        response = self.post("/orders", order_payload(**overrides))
        assert response.status_code == 201, response.text
        return response.json()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def emulator(recorder: Recorder):
    emulator = Emulator({TOKEN_A: ACCOUNT_A, TOKEN_B: ACCOUNT_B}, notification_sender=recorder)
    yield emulator
    emulator.close()


@pytest.fixture
def api(emulator: Emulator) -> Api:
    session = requests.Session()
    base_url = mount(session, emulator, BASE_URL, sleep=lambda seconds: None)
    return Api(session, base_url, emulator)


def raw_card(number: str = "4111111111111111", **overrides: Any) -> dict[str, Any]:
    """The sample's card, not stored; ``None`` in ``overrides`` sends ``null``."""
    return samples.card(**{"number": number, "store": OMIT, **overrides})


def charge_payload(card: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
    """One ``charges[]`` entry; ``capture``/``store``/``installments`` go into payment_method."""
    charge = samples.charge_request()
    method = charge["payment_method"]
    del method["card"]  # put back last, after what the overrides add
    for key in ("capture", "store", "installments", "soft_descriptor", "type"):
        if key in overrides:
            method[key] = overrides.pop(key)
    method["card"] = raw_card() if card is None else card
    charge.update(overrides)
    return charge


def order_payload(**overrides: Any) -> dict[str, Any]:
    """The sample's order (no charges unless given); ``None`` leaves a field out."""
    order = samples.order_request(charges=OMIT)
    order.update(overrides)
    return {key: value for key, value in order.items() if value is not None}


def inject_fault(http: requests.Session | ModuleType, base_url: str, **fault: Any) -> None:
    """``POST {base_url}/_emulator/faults`` through ``http`` (a Session or ``requests``): 201."""
    response = http.post(f"{base_url}/_emulator/faults", json=fault, timeout=5)
    assert response.status_code == 201, response.text


def listed_order_ids(http: requests.Session | ModuleType, base_url: str) -> list[str]:
    """The order ids ``GET {base_url}/_emulator/orders`` lists."""
    return http.get(f"{base_url}/_emulator/orders", timeout=5).json()["orders"]


def documented(answer: dict[str, Any]) -> dict[str, Any]:
    """An error body with each entry cut to its documented fields (``message`` and
    ``error``, which real answers add and the emulator too, are checked in test_errors)."""
    entries = answer.get("error_messages")
    if not isinstance(entries, list):
        return answer
    return {
        **answer,
        "error_messages": [
            {k: v for k, v in entry.items() if k not in ("message", "error")} for entry in entries
        ],
    }


def error_of(response: requests.Response) -> dict[str, str]:
    """The first ``error_messages`` entry of a provider error, its documented fields.

    ``message`` and ``error`` (which real answers add, and the emulator too)
    are checked once, in test_errors; elsewhere the documented three matter.
    """
    assert response.headers["Content-Type"].startswith("application/json"), response.text
    entry = response.json()["error_messages"][0]
    assert set(entry) >= {"code", "message", "error"}, entry
    return {k: v for k, v in entry.items() if k not in ("message", "error")}


def refusal(response: requests.Response) -> tuple[str, str]:
    """``(code, parameter_name)`` of a provider 400 (asserting it is one)."""
    assert response.status_code == 400, response.text
    error = error_of(response)
    return error["code"], error["parameter_name"]
