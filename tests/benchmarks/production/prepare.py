"""Real orders and the notifications the provider sent for them, ready to post (untimed).

Each order is created at the emulator with its analysis card (IN_ANALYSIS),
mirrored into the shop's database from that answer (as ``create_order``
mirrors it), then approved by the provider's analysis: the emulator queues
the PAID notification, signed with the merchant's token, which is taken from
its notifier (never sent) to be posted by the load generator. Posted, it is
a first-time transition; posted again, a duplicate.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import requests

from django_orderpay.emulator import IN_ANALYSIS_CARD, Emulator
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.models import ChangeSource
from django_orderpay.sync import sync_order
from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

from ..bodies import TOKEN, next_reference_id
from .load import Body

#: The share of posts that are copies of a notification already posted.
DUPLICATES = 1 / 3


def _order_body(reference_id: str, notification_url: str) -> dict[str, Any]:
    card = samples.card(number=IN_ANALYSIS_CARD, holder={"name": "Jose da Silva"}, store=OMIT)
    charge = samples.charge_request(
        reference_id=f"{reference_id}-c",
        description="Pedido de teste",
        payment_method=samples.payment_method(card=card),
    )
    return samples.order_request(
        reference_id=reference_id, notification_urls=[notification_url], charges=[charge]
    )


class Provider:
    """The emulator, driven directly (no socket) to make orders and their notifications."""

    def __init__(self, emulator: Emulator, notification_url: str) -> None:
        self.emulator = emulator
        self.notification_url = notification_url
        self.session = requests.Session()
        self.base = mount(self.session, emulator, "http://provider.bench", sleep=lambda s: None)
        self.auth = {"Authorization": f"Bearer {TOKEN}"}

    def _post(self, path: str, body: Any) -> dict[str, Any]:
        answer = self.session.post(self.base + path, json=body, headers=self.auth, timeout=10)
        if answer.status_code >= 300:
            raise RuntimeError(f"the emulator answered {answer.status_code} to {path}")
        return answer.json()

    def in_analysis_order(self) -> dict[str, Any]:
        """An order whose charge is IN_ANALYSIS, created and mirrored; its create answer."""
        body = _order_body(next_reference_id("bench-load"), self.notification_url)
        answer = self._post("/orders", body)
        sync_order(answer, source=ChangeSource.API)
        return answer

    def approve(self, order: dict[str, Any]) -> Body:
        """The provider's analysis approves the order's charge: its PAID notification, signed."""
        self.emulator.notifier.reset()  # the create's notification, and any other, dropped
        charge_id = order["charges"][0]["id"]
        self._post(f"/_emulator/charges/{charge_id}/resolve", {"status": "PAID"})
        [delivery] = self.emulator.notifier.deliveries()
        self.emulator.notifier.reset()
        headers = {name.lower(): value for name, value in delivery["headers"].items()}
        return headers["x-authenticity-token"], delivery["body"].encode()

    def paid_notifications(self, count: int) -> list[Body]:
        """``count`` orders IN_ANALYSIS here, each with the notification that pays it."""
        return [self.approve(self.in_analysis_order()) for _ in range(count)]


def with_duplicates(first_time: Sequence[Body], seed: int) -> list[Body]:
    """The notifications plus copies of some (a third of all posts), shuffled together."""
    chooser = random.Random(seed)
    copies = round(len(first_time) * DUPLICATES / (1 - DUPLICATES))
    posts = [*first_time, *chooser.sample(list(first_time), min(copies, len(first_time)))]
    chooser.shuffle(posts)
    return posts


def orders_for(posts: int) -> int:
    """How many orders make ``posts`` posts, a third of them duplicates."""
    return max(1, round(posts * (1 - DUPLICATES)))
