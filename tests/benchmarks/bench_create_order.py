"""1. Create a one-step order: ``services.create_order`` against a bare post + INSERT.

Both sides send the same body (one raw-card charge, a fresh ``reference_id``
each time) to the same emulator, served over real HTTP on 127.0.0.1 by its
WSGI adapter, and both send an ``x-idempotency-key`` so the emulator does the
same work for each. Ours adds what a shop gets for it: validation by provider
field path, the operation recorded (and committed) before the call, retries
and logging in the client, and the sync of the answer into Order, Charge and
history rows, the operation settled. The bare side posts, reads the JSON
answer and keeps it with one INSERT (``bare.insert_body``): the least that
remembers a payment was made.
"""

from __future__ import annotations

import uuid
from typing import Any

import requests
from django.test import override_settings

from django_orderpay import services
from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.wsgi import make_wsgi_app, serving
from django_orderpay.models import Order

from .bare import ensure_bare_table, insert_body
from .bodies import TOKEN, next_reference_id, order_body
from .harness import Case, Comparison, compare, expect

ITERATIONS = 300
WARMUP = 30


def _check_order(order: Order) -> None:
    expect(order.pk is not None, "create_order returned an unsaved order")
    expect(order.status == "PAID", f"the order is {order.status}, not PAID")
    expect(order.charges.count() == 1, "the order's charge was not mirrored")


def _check_answer(answer: dict[str, Any]) -> None:
    expect(answer["charges"][0]["status"] == "PAID", "the emulator did not answer a PAID charge")


def run() -> list[Comparison]:
    ensure_bare_table()
    emulator = Emulator([TOKEN], notify_in_background=False)
    try:
        with (
            serving(make_wsgi_app(emulator)) as server,
            requests.Session() as session,
            override_settings(
                ORDERPAY={"ENVIRONMENT": "emulator", "BASE_URL": server.url, "TOKEN": TOKEN}
            ),
        ):
            url = server.url + "/orders"
            auth = {"Authorization": f"Bearer {TOKEN}"}

            def post(given: tuple[dict[str, Any], str]) -> dict[str, Any]:
                body, key = given
                response = session.post(
                    url, json=body, headers={**auth, "x-idempotency-key": key}, timeout=15
                )
                if response.status_code != 201:
                    raise RuntimeError(f"POST /orders answered {response.status_code}")
                answer = response.json()
                insert_body(response.content)
                return answer

            ours = Case(
                "services.create_order",
                services.create_order,
                prepare=lambda: order_body(next_reference_id("bench-create")),
                check=_check_order,
            )
            bare = Case(
                "Session.post + .json() + INSERT",
                post,
                prepare=lambda: (order_body(next_reference_id("bench-post")), str(uuid.uuid4())),
                check=_check_answer,
            )
            return [
                compare(
                    "Create a one-step order over HTTP",
                    ours,
                    bare,
                    iterations=ITERATIONS,
                    warmup=WARMUP,
                )
            ]
    finally:
        emulator.close()
