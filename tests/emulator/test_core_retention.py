"""Retention: the emulator remembers the newest orders only, so a long demo's memory is bounded."""

from __future__ import annotations

import gc
import tracemalloc
import uuid

import pytest
import requests

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.emulator.state.retention import (
    ANSWERS_PER_ORDER,
    DEFAULT_RETAINED_ORDERS,
    MAX_RETAINED_ORDERS,
)
from tests.emulator.core_support import AUTH, BASE_URL, TOKEN_A, charge_payload, order_payload


class Shop:
    """An emulator behind the transport adapter; notifications answered 204 by nobody."""

    def __init__(self, **options) -> None:
        self.emulator = Emulator(
            [TOKEN_A],
            notification_sender=lambda url, body, headers: 204,
            notify_in_background=False,
            **options,
        )
        self.session = requests.Session()
        self.base = mount(self.session, self.emulator, BASE_URL, sleep=lambda seconds: None)

    def create(self, stored_card: bool = False) -> dict:
        payload = order_payload(charges=[charge_payload(store=True if stored_card else None)])
        headers = {**AUTH, "x-idempotency-key": str(uuid.uuid4())}
        answer = self.session.post(f"{self.base}/orders", json=payload, headers=headers, timeout=5)
        assert answer.status_code == 201, answer.text
        self.emulator.notifier.flush()
        return answer.json()

    def control(self, method: str, path: str, body=None) -> requests.Response:
        return self.session.request(method, f"{self.base}/_emulator/{path}", json=body, timeout=5)

    def close(self) -> None:
        self.emulator.close()


@pytest.fixture
def shop():
    shops: list[Shop] = []

    def make(**options) -> Shop:
        shops.append(Shop(**options))
        return shops[-1]

    yield make
    for made in shops:
        made.close()


def test_past_the_limit_the_oldest_orders_are_forgotten_whole(shop):
    emulator = shop(retain_orders=3)
    orders = [emulator.create(stored_card=True) for _ in range(5)]

    listed = emulator.control("GET", "orders").json()["orders"]
    assert listed == [order["id"] for order in orders[2:]]
    oldest = orders[0]
    gone = emulator.session.get(f"{emulator.base}/orders/{oldest['id']}", headers=AUTH, timeout=5)
    assert gone.status_code == 404
    charge_id = oldest["charges"][0]["id"]
    charge = emulator.session.get(f"{emulator.base}/charges/{charge_id}", headers=AUTH, timeout=5)
    assert charge.status_code == 404
    newest = orders[-1]
    kept = emulator.session.get(f"{emulator.base}/orders/{newest['id']}", headers=AUTH, timeout=5)
    assert kept.status_code == 200
    state = emulator.control("GET", "retention").json()
    assert state["retention"] == {"orders": 3}
    assert state["kept"]["orders"] == 3
    assert state["kept"]["charges"] == 3
    assert state["kept"]["cards"] == 3  # each order stored a card
    assert state["kept"]["idempotent_answers"] == 5  # within 3 x ANSWERS_PER_ORDER


def test_the_limit_itself_keeps_everything(shop):
    emulator = shop(retain_orders=4)
    orders = [emulator.create() for _ in range(4)]

    assert emulator.control("GET", "orders").json()["orders"] == [o["id"] for o in orders]


def test_the_control_plane_changes_it_at_once_and_a_reset_puts_it_back(shop):
    emulator = shop(retain_orders=10)
    orders = [emulator.create() for _ in range(4)]

    answer = emulator.control("POST", "retention", {"orders": 2})

    assert answer.status_code == 200
    assert answer.json()["retention"] == {"orders": 2}
    assert answer.json()["kept"]["orders"] == 2
    assert emulator.control("GET", "orders").json()["orders"] == [o["id"] for o in orders[2:]]
    emulator.control("POST", "reset")
    assert emulator.control("GET", "retention").json()["retention"] == {"orders": 10}


@pytest.mark.parametrize("orders", [0, MAX_RETAINED_ORDERS + 1, True, "5", 2.5, None])
def test_bad_values_are_refused_naming_the_field(shop, orders):
    emulator = shop()

    answer = emulator.control("POST", "retention", {"orders": orders})

    assert answer.status_code == 400
    [error] = answer.json()["error_messages"]
    assert error["parameter_name"] == "orders"
    assert emulator.control("GET", "retention").json()["retention"] == {
        "orders": DEFAULT_RETAINED_ORDERS
    }


def test_the_bounds_themselves_are_accepted(shop):
    emulator = shop()

    for orders in (1, MAX_RETAINED_ORDERS):
        assert emulator.control("POST", "retention", {"orders": orders}).status_code == 200


def test_notification_deliveries_and_idempotent_answers_are_bounded_too(shop):
    emulator = shop(retain_orders=20)
    for _ in range(60):
        emulator.create()

    kept = emulator.control("GET", "retention").json()["kept"]

    assert kept["orders"] == 20
    assert kept["deliveries"] <= 20 + 2  # trimmed once a tenth over
    assert kept["idempotent_answers"] <= 20 * ANSWERS_PER_ORDER


def test_a_long_run_does_not_grow_once_the_limit_is_reached(shop):
    """What ``make demo`` running for a day does, compressed: memory stops growing."""
    retained = 10
    emulator = shop(retain_orders=retained)
    tracemalloc.start()  # traces what is allocated from now on
    try:
        # Past every store's bound (the idempotent answers are the last to
        # fill: one per create here, ANSWERS_PER_ORDER per retained order), so
        # everything kept was allocated while traced.
        for _ in range(retained * ANSWERS_PER_ORDER + 20):
            emulator.create(stored_card=True)
        gc.collect()
        settled, _ = tracemalloc.get_traced_memory()
        for _ in range(100):
            emulator.create(stored_card=True)
        gc.collect()
        later, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    per_order = 9 * 1024  # what an order cost when nothing was ever forgotten
    assert later - settled < 10 * per_order, (settled, later)  # not 100 orders' worth
    assert emulator.control("GET", "retention").json()["kept"]["orders"] == retained
