"""4. The emulator itself: ``Emulator.handle`` of a create-order against a trivial handler.

Both get the same :class:`~django_orderpay.emulator.Request` (``POST /orders``
with a bearer token, an idempotency key and the same one-charge body), with
no HTTP in between. The trivial handler parses the JSON and answers it back
as a 201: the floor of any JSON API. The emulator authenticates, validates
every field as the provider does, checks the card, decides the outcome,
stores order and charge, records the idempotent answer and renders the
provider's JSON with its links, all under its one lock.
"""

from __future__ import annotations

import json
import uuid

from django_orderpay.emulator import Emulator, Request, Response

from .bodies import TOKEN, next_reference_id, order_body
from .harness import Case, Comparison, compare, expect

ITERATIONS = 2000
WARMUP = 200
BASE_URL = "http://127.0.0.1:8000"


def _request() -> Request:
    body = json.dumps(order_body(next_reference_id("bench-emulator"))).encode()
    return Request(
        method="POST",
        path="/orders",
        body=body,
        headers={
            "Authorization": f"Bearer {TOKEN}",
            "Content-Type": "application/json",
            "x-idempotency-key": str(uuid.uuid4()),
        },
        base_url=BASE_URL,
    )


def trivial_handler(request: Request) -> Response:
    """Parse the JSON body and answer it back: no auth, no rules, no state."""
    return Response.json(201, json.loads(request.body))


def _check(response: Response) -> None:
    expect(response.status == 201, f"the handler answered {response.status}")


def _check_paid(response: Response) -> None:
    _check(response)
    status = json.loads(response.body)["charges"][0]["status"]
    expect(status == "PAID", f"the emulator's charge is {status}, not PAID")


def run() -> list[Comparison]:
    emulator = Emulator([TOKEN], notify_in_background=False)
    try:
        return [
            compare(
                "Emulator: handle POST /orders",
                Case("Emulator.handle", emulator.handle, prepare=_request, check=_check_paid),
                Case("trivial JSON handler", trivial_handler, prepare=_request, check=_check),
                iterations=ITERATIONS,
                warmup=WARMUP,
            )
        ]
    finally:
        emulator.close()
