"""The emulator's state file: the provider's state survives a restart of the CLI and of the
in-process mount (``runserver`` reloading), so the shop's database and its provider agree."""

from __future__ import annotations

import json
import logging
import pickle
from pathlib import Path

import pytest
import requests
from django.test import Client, override_settings

from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.django_view import discard_emulator, state_file
from django_orderpay.emulator.serving.http import Request
from tests.emulator.cli_support import listening
from tests.emulator.core_support import charge_payload, order_payload

TOKEN = "test-token-merchant-a"  # ORDERPAY["TOKEN"] in tests/settings.py
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(autouse=True)
def fresh_emulator():
    discard_emulator()
    yield
    discard_emulator()


def _post(emulator: Emulator, path: str, payload: object, token: str = TOKEN) -> dict:
    answer = emulator.handle(
        Request(
            method="POST",
            path=path,
            body=json.dumps(payload).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            query="",
            base_url="http://emulator.test",
        )
    )
    assert answer.status < 300, answer.body
    return json.loads(answer.body)


def _get(emulator: Emulator, path: str, token: str = TOKEN) -> tuple[int, dict]:
    answer = emulator.handle(
        Request(
            method="GET",
            path=path,
            body=b"",
            headers={"Authorization": f"Bearer {token}"},
            query="",
            base_url="http://emulator.test",
        )
    )
    return answer.status, json.loads(answer.body)


def test_a_new_emulator_with_the_same_file_has_the_orders_cards_and_key(tmp_path):
    path = tmp_path / "provider.state"
    first = Emulator([TOKEN], state_file=path, notify_in_background=False)
    order = _post(first, "/orders", order_payload(charges=[charge_payload(store=True)]))
    charge = order["charges"][0]
    _post(first, f"/charges/{charge['id']}/cancel", {"amount": {"value": 100}})
    first.close()

    again = Emulator([TOKEN], state_file=path, notify_in_background=False)
    status, fetched = _get(again, f"/orders/{order['id']}")

    assert status == 200
    assert fetched["charges"][0]["amount"]["summary"]["refunded"] == 100
    assert again.public_key == first.public_key  # cards encrypted before still decrypt
    card_id = order["charges"][0]["payment_method"]["card"]["id"]
    paid = _post(
        again,
        f"/orders/{_post(again, '/orders', order_payload())['id']}/pay",
        {"charges": [charge_payload(card={"id": card_id, "security_code": "123"})]},
    )
    assert paid["charges"][0]["status"] == "PAID"  # the stored card is still there
    again.close()


def test_without_a_file_a_new_emulator_knows_nothing(tmp_path):
    first = Emulator([TOKEN], notify_in_background=False)
    order = _post(first, "/orders", order_payload(charges=[charge_payload()]))
    again = Emulator([TOKEN], notify_in_background=False)
    assert _get(again, f"/orders/{order['id']}")[0] == 404
    assert list(tmp_path.iterdir()) == []


def test_a_reset_empties_the_file_too(tmp_path):
    path = tmp_path / "provider.state"
    first = Emulator([TOKEN], state_file=path, notify_in_background=False)
    order = _post(first, "/orders", order_payload(charges=[charge_payload()]))
    first.reset()
    again = Emulator([TOKEN], state_file=path, notify_in_background=False)
    assert _get(again, f"/orders/{order['id']}")[0] == 404


def test_an_unreadable_file_is_set_aside_with_a_warning(tmp_path, caplog):
    path = tmp_path / "provider.state"
    path.write_bytes(pickle.dumps({"format": 0}))
    with caplog.at_level(logging.WARNING, logger="django_orderpay.emulator"):
        emulator = Emulator([TOKEN], state_file=path, notify_in_background=False)
    assert "could not be read" in caplog.text
    assert (tmp_path / "provider.state.unreadable").exists()
    assert path.exists()  # a fresh state file, written at once
    assert _post(emulator, "/orders", order_payload())["id"]


def test_the_cli_keeps_its_state_across_a_restart(tmp_path):
    path = tmp_path / "cli.state"
    with listening("--state-file", str(path), "--token", TOKEN) as cli:
        created = requests.post(
            cli.url + "/orders",
            json=order_payload(charges=[charge_payload()]),
            headers=AUTH,
            timeout=10,
        ).json()
        key = requests.get(cli.url + "/public-keys/card", headers=AUTH, timeout=10).json()
        status, printed, _ = cli.stop()
        assert status == 0 and f"state kept in {path}" in printed

    with listening("--state-file", str(path), "--token", TOKEN) as cli:
        fetched = requests.get(cli.url + f"/orders/{created['id']}", headers=AUTH, timeout=10)
        again = requests.get(cli.url + "/public-keys/card", headers=AUTH, timeout=10).json()

    assert fetched.status_code == 200
    assert fetched.json()["charges"][0]["status"] == "PAID"
    assert again["public_key"] == key["public_key"]


def test_the_in_process_mount_keeps_its_state_across_a_restart(tmp_path, settings):
    path = tmp_path / "mounted.state"
    settings.DEBUG = True  # a mounted emulator answers only with DEBUG on (a demo's)
    settings.ORDERPAY = {**settings.ORDERPAY, "EMULATOR_STATE_FILE": str(path)}
    client = Client()
    created = client.post(
        "/emulator/orders",
        json.dumps(order_payload(charges=[charge_payload()])),
        content_type="application/json",
        headers=AUTH,
    ).json()

    discard_emulator()  # what a runserver reload does: a new process, a new emulator

    fetched = client.get(f"/emulator/orders/{created['id']}", headers=AUTH)
    assert fetched.status_code == 200
    assert fetched.json()["charges"][0]["status"] == "PAID"


@pytest.mark.parametrize(
    ("debug", "configured", "database", "expected"),
    [
        (True, None, "/srv/shop/db.sqlite3", Path("/srv/shop/db.sqlite3.orderpay-emulator")),
        (False, None, "/srv/shop/db.sqlite3", None),
        (True, False, "/srv/shop/db.sqlite3", None),
        (False, "/tmp/mine.state", "/srv/shop/db.sqlite3", Path("/tmp/mine.state")),
    ],
)
def test_where_the_mounted_emulator_keeps_its_state(debug, configured, database, expected):
    orderpay = {"TOKEN": TOKEN, "ENVIRONMENT": "emulator"}
    if configured is not None:
        orderpay["EMULATOR_STATE_FILE"] = configured
    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": database}
    with override_settings(DEBUG=debug, ORDERPAY=orderpay):
        assert state_file(sqlite) == expected


def test_in_debug_a_database_that_is_not_a_file_gets_one_in_the_temp_folder():
    server = {"ENGINE": "django.db.backends.postgresql", "NAME": "shop", "HOST": "db"}
    other = {**server, "NAME": "other"}
    unset = {"TOKEN": TOKEN, "ENVIRONMENT": "emulator"}  # tests/settings.py sets False
    with override_settings(DEBUG=True, ORDERPAY=unset):
        first, second = state_file(server), state_file(other)
        in_memory = state_file({"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"})
    assert first is not None and second is not None and first != second
    assert first.name.startswith("orderpay-emulator-")
    assert in_memory is None  # the database dies with the process: so does the provider
