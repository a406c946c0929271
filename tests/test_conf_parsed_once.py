"""Settings are parsed and validated once, and parsed again when they change."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from django_orderpay import conf
from django_orderpay.conf import KNOWN_KEYS, env_var, get_settings, orderpay_settings
from django_orderpay.exceptions import ConfigurationError
from django_orderpay.services import create_order
from tests.test_notifications_view import IN_ANALYSIS_CARD, post
from tests.test_services_support import charge, order_payload


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for key in KNOWN_KEYS:
        monkeypatch.delenv(env_var(key), raising=False)


@pytest.fixture
def parses(monkeypatch):
    """How many times the settings were parsed (conf._parse, counted, not replaced)."""
    calls = []
    parse = conf._parse

    def counted():
        calls.append(1)
        return parse()

    monkeypatch.setattr(conf, "_parse", counted)
    conf.reset_settings()
    return calls


def test_reads_reuse_one_parse(parses):
    with override_settings(ORDERPAY={"TOKEN": "tok", "TIMEOUT": 3}):
        first = get_settings()
        assert get_settings() is first
        assert (orderpay_settings.timeout, orderpay_settings.TOKEN) == (3.0, "tok")
        assert get_settings(strict=False) is first
    assert len(parses) == 1


def test_a_changed_orderpay_is_parsed_again_and_the_old_one_comes_back(parses):
    with override_settings(ORDERPAY={"TOKEN": "first"}):
        assert orderpay_settings.token == "first"
        with override_settings(ORDERPAY={"TOKEN": "second"}):
            assert orderpay_settings.token == "second"
        assert orderpay_settings.token == "first"
    assert len(parses) == 3


def test_the_settings_fixture_refreshes_them(settings, parses):
    settings.ORDERPAY = {"TOKEN": "a"}
    assert get_settings().token == "a"
    settings.ORDERPAY = {"TOKEN": "b", "RETRIES": 0}
    assert (get_settings().token, get_settings().retries) == ("b", 0)
    assert len(parses) == 2


def test_other_settings_changing_keep_the_parse(parses):
    with override_settings(ORDERPAY={"TOKEN": "tok"}):
        first = get_settings()
        with override_settings(DEBUG=True, LANGUAGE_CODE="pt-br"):
            assert get_settings() is first
    assert len(parses) == 1


def test_a_changed_environment_variable_is_seen_at_once(monkeypatch, parses):
    with override_settings(ORDERPAY={}):
        monkeypatch.setenv("ORDERPAY_TOKEN", "from-env")
        assert get_settings().token == "from-env"
        assert get_settings().token == "from-env"
        monkeypatch.setenv("ORDERPAY_TOKEN", "rotated")
        assert get_settings().token == "rotated"
    assert len(parses) == 2


def test_a_change_in_place_is_seen_after_reset_settings(settings):
    settings.ORDERPAY = {"TOKEN": "tok"}
    assert get_settings().timeout == 15.0
    settings.ORDERPAY["TIMEOUT"] = 2  # in place: no signal
    conf.reset_settings()
    assert get_settings().timeout == 2.0


def test_invalid_settings_raise_on_every_read_until_fixed(settings):
    settings.ORDERPAY = {"TOKEN": "tok", "RETRIES": -1}
    for _ in range(2):
        with pytest.raises(ConfigurationError, match="RETRIES"):
            get_settings()
    settings.ORDERPAY = {"TOKEN": "tok", "RETRIES": 1}
    assert get_settings().retries == 1


def test_a_missing_token_still_raises_when_strict(settings):
    settings.ORDERPAY = {"ENVIRONMENT": "sandbox"}
    assert get_settings(strict=False).token is None
    with pytest.raises(ConfigurationError, match="TOKEN"):
        get_settings()


@pytest.mark.django_db
def test_a_notification_parses_the_settings_at_most_once(client, orderpay_emulator, parses):
    order = create_order(order_payload("parsed-once", charges=[charge(500, IN_ANALYSIS_CARD)]))
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")
    parses.clear()  # what the set-up read

    response = post(client, json.dumps(order.data).encode(), token=orderpay_emulator.token)

    assert response.json()["outcome"] == "processed"
    order.refresh_from_db()
    assert order.status == "PAID"
    assert parses == []  # nothing changed since the set-up parsed them
