"""Notifications through HTTP: the whole Order after every state change, signed per merchant."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from django_orderpay.emulator import IN_ANALYSIS_CARD, Emulator
from django_orderpay.emulator.serving.transport import mount
from tests.emulator.core_support import (
    NOTIFY_URL,
    TOKEN_A,
    TOKEN_B,
    Api,
    charge_payload,
    order_payload,
    raw_card,
)


def digest(token, body):
    return hashlib.sha256(token.encode() + b"-" + body).hexdigest()


def flushed(api, recorder):
    assert api.emulator.notifier.flush(timeout=5)
    return list(recorder.calls)


def test_a_one_step_order_notifies_the_whole_order_signed_with_the_merchant_token(api, recorder):
    order = api.create_order(charges=[charge_payload()])

    [(url, body, headers)] = flushed(api, recorder)

    assert url == NOTIFY_URL
    assert headers["Content-Type"] == "application/json"
    assert headers["x-authenticity-token"] == digest(TOKEN_A, body)
    assert body == api.get(f"/orders/{order['id']}").content
    assert json.loads(body) == order


def test_another_merchant_signs_with_its_own_token(api, recorder):
    api.post("/orders", order_payload(charges=[charge_payload()]), token=TOKEN_B)

    [(_, body, headers)] = flushed(api, recorder)

    assert headers["x-authenticity-token"] == digest(TOKEN_B, body)
    assert headers["x-authenticity-token"] != digest(TOKEN_A, body)


def test_creating_without_charges_or_with_a_deeplink_notifies_nothing(api, recorder):
    api.create_order()
    api.create_order(deep_links=[{"amount": {"value": 1500}}])

    assert flushed(api, recorder) == []


def test_every_state_change_notifies_the_current_order(api, recorder):
    order = api.create_order()
    paid = api.post(f"/orders/{order['id']}/pay", {"charges": [charge_payload(capture=False)]})
    charge_id = paid.json()["charges"][0]["id"]
    api.post(f"/charges/{charge_id}/capture", {"amount": {"value": 500}})
    api.post(f"/charges/{charge_id}/cancel", {"amount": {"value": 200}})
    api.post(f"/charges/{charge_id}/cancel", {"amount": {"value": 300}})

    bodies = [json.loads(body) for _, body, _ in flushed(api, recorder)]

    states = [
        (b["charges"][0]["status"], b["charges"][0]["amount"]["summary"]["refunded"])
        for b in bodies
    ]
    assert states == [("AUTHORIZED", 0), ("PAID", 0), ("PAID", 200), ("CANCELED", 500)]
    assert bodies[-1] == api.get(f"/orders/{order['id']}").json()


def test_a_failed_call_notifies_nothing(api, recorder):
    order = api.create_order(charges=[charge_payload()])
    api.post(f"/charges/{order['charges'][0]['id']}/capture", {"amount": {"value": 500}})

    assert len(flushed(api, recorder)) == 1


def test_a_repeated_idempotent_call_notifies_once(api, recorder):
    body = order_payload(charges=[charge_payload(capture=False)])
    created = [api.post("/orders", body, headers={"x-idempotency-key": "create-1"}) for _ in "ab"]
    capture = f"/charges/{created[0].json()['charges'][0]['id']}/capture"
    captured = [
        api.post(capture, {"amount": {"value": 500}}, headers={"x-idempotency-key": "capture-1"})
        for _ in "ab"
    ]

    bodies = [json.loads(body) for _, body, _ in flushed(api, recorder)]

    assert [r.status_code for r in created + captured] == [201, 201, 201, 201]
    assert [b["charges"][0]["status"] for b in bodies] == ["AUTHORIZED", "PAID"]
    assert len(api.get("/_emulator/notifications").json()["deliveries"]) == 2


def test_a_retry_after_a_timeout_notifies_once(api, recorder):
    api.post("/_emulator/faults", {"kind": "timeout", "delay": 30})
    body = order_payload(charges=[charge_payload()])
    headers = {"x-idempotency-key": "checkout-1"}

    with pytest.raises(requests.ReadTimeout):
        api.post("/orders", body, headers=headers, timeout=5)
    retry = api.post("/orders", body, headers=headers, timeout=5)

    [(_, notified, _)] = flushed(api, recorder)
    assert json.loads(notified)["id"] == retry.json()["id"]


def test_analysis_resolution_and_deeplink_payment_notify(api, recorder):
    analysed = api.create_order(charges=[charge_payload(raw_card(IN_ANALYSIS_CARD))])
    api.post(f"/_emulator/charges/{analysed['charges'][0]['id']}/resolve", {"status": "PAID"})
    deeplink = api.create_order(deep_links=[{"amount": {"value": 1500}}])
    link_id = deeplink["deep_links"][0]["url"].rsplit("r=", 1)[1]
    api.post(f"/pagpay/balance/{link_id}", {"status": "PAID"}, token=None)

    bodies = [json.loads(body) for _, body, _ in flushed(api, recorder)]

    assert [(b["id"], b["charges"][-1]["status"]) for b in bodies] == [
        (analysed["id"], "IN_ANALYSIS"),
        (analysed["id"], "PAID"),
        (deeplink["id"], "PAID"),
    ]


def test_the_orders_notification_url_gets_the_delivery(api, recorder):
    url = "https://a.example.com/hook"

    api.create_order(notification_urls=[url], charges=[charge_payload()])

    assert [sent for sent, _, _ in flushed(api, recorder)] == [url]


def test_a_non_2xx_answer_is_retried_and_every_attempt_recorded(api, recorder):
    recorder.statuses = [500, 503]

    api.create_order(charges=[charge_payload()])

    assert [url for url, _, _ in flushed(api, recorder)] == [NOTIFY_URL] * 3
    [delivery] = api.get("/_emulator/notifications").json()["deliveries"]
    assert delivery["delivered"] is True and delivery["attempts"] == 3
    assert [attempt["status"] for attempt in delivery["history"]] == [500, 503, 204]


def test_notify_delay_holds_deliveries_until_flushed():
    sent = []
    emulator = Emulator(
        {TOKEN_A: "ACCO_11111111-2222-3333-4444-555555555555"},
        notify_delay=3600,
        notification_sender=lambda url, body, headers: sent.append(url) or 200,
    )
    try:
        session = requests.Session()
        api = Api(session, mount(session, emulator), emulator)
        api.create_order(charges=[charge_payload()])
        [pending] = api.get("/_emulator/notifications").json()["deliveries"]
        assert pending["pending"] is True and sent == []

        response = api.post("/_emulator/notifications/flush", {})

        assert response.json()["flushed"] is True
        assert sent == [NOTIFY_URL]
    finally:
        emulator.close()


def test_foreground_notifier_sends_in_the_flushing_thread():
    threads = []
    emulator = Emulator(
        [TOKEN_A],
        notification_sender=lambda url, body, headers: threads.append(threading.get_ident()) or 200,
        notify_in_background=False,
    )
    try:
        session = requests.Session()
        api = Api(session, mount(session, emulator), emulator)
        api.create_order(charges=[charge_payload()])
        assert threads == []

        assert emulator.notifier.flush()

        assert threads == [threading.get_ident()]
    finally:
        emulator.close()


class _Shop(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def shop_server():
    _Shop.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Shop)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Shop.received
    server.shutdown()
    server.server_close()


def test_the_default_sender_posts_to_a_real_http_server(shop_server):
    url, received = shop_server
    emulator = Emulator([TOKEN_A])
    try:
        session = requests.Session()
        api = Api(session, mount(session, emulator), emulator)
        order = api.create_order(notification_urls=[f"{url}/hook"], charges=[charge_payload()])

        assert emulator.notifier.flush(timeout=10)

        [(path, headers, body)] = received
        assert path == "/hook"
        assert headers["Content-Type"] == "application/json"
        assert headers["x-authenticity-token"] == digest(TOKEN_A, body)
        assert json.loads(body)["id"] == order["id"]
    finally:
        emulator.close()


def test_a_shop_that_fetches_the_order_while_notified_does_not_block_the_flush():
    fetched = []
    holder = {}

    def fetching_sender(url, body, headers):
        # What the official plugins do: re-fetch the order instead of trusting the body.
        fetched.append(holder["api"].get(f"/orders/{json.loads(body)['id']}").status_code)
        return 200

    emulator = Emulator([TOKEN_A], notification_sender=fetching_sender)
    try:
        session = requests.Session()
        holder["api"] = api = Api(session, mount(session, emulator), emulator)
        api.create_order(charges=[charge_payload()])

        response = api.post("/_emulator/notifications/flush", {"timeout": 5})

        assert response.json()["flushed"] is True
        assert fetched == [200]
    finally:
        emulator.close()
