"""Settings: the ORDERPAY dict, environment fallbacks, defaults and errors."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from django_orderpay.conf import (
    HOSTS,
    KNOWN_KEYS,
    env_var,
    get_settings,
    orderpay_settings,
    unknown_keys,
)
from django_orderpay.exceptions import ConfigurationError
from django_orderpay.models import NotificationDelivery
from django_orderpay.sync import sync_order
from django_orderpay.testing.provider_json import order_json
from tests.test_notifications_view import post


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """No ORDERPAY_* variable of the machine leaks into these tests."""
    for key in KNOWN_KEYS:
        monkeypatch.delenv(env_var(key), raising=False)


def test_defaults_of_the_sandbox():
    with override_settings(ORDERPAY={"TOKEN": "tok"}):
        conf = get_settings()
    assert conf.environment == "sandbox"
    assert conf.base_url == "https://sandbox.api.pagseguro.com"
    assert conf.sdk_url == HOSTS["sandbox"].sdk_url
    assert conf.sdk_url.endswith("/pagseguro.min.js")
    assert conf.simulation_url == "https://sandbox.sdk.pagseguro.com"
    assert conf.timeout == 15.0
    assert conf.retries == 3
    assert conf.notification_tokens == ("tok",)
    assert conf.notification_verify is True
    assert conf.notification_trust_body is False
    assert conf.notification_background is False
    assert conf.notification_max_body == 1024 * 1024
    assert conf.public_key is None
    assert conf.emulator_tokens == ("tok",)


def test_production_hosts():
    with override_settings(ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "production"}):
        conf = get_settings()
    assert conf.base_url == "https://api.pagseguro.com"
    assert conf.simulation_url is None


def test_emulator_urls_follow_emulator_url():
    with override_settings(ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "emulator"}):
        assert get_settings().base_url == "http://127.0.0.1:8000/emulator"
        assert get_settings().sdk_url == "http://127.0.0.1:8000/emulator/sdk/pagseguro.js"
    settings = {"TOKEN": "t", "ENVIRONMENT": "emulator", "EMULATOR_URL": "http://localhost:9/emu/"}
    with override_settings(ORDERPAY=settings):
        conf = get_settings()
    assert conf.base_url == "http://localhost:9/emu"
    assert conf.simulation_url == "http://localhost:9/emu"
    assert conf.sdk_url == "http://localhost:9/emu/sdk/pagseguro.js"


def test_overrides_of_the_urls():
    settings = {
        "TOKEN": "tok",
        "ENVIRONMENT": "production",
        "BASE_URL": "https://proxy.example.com/pagbank/",
        "SDK_URL": "https://cdn.example.com/sdk.js",
    }
    with override_settings(ORDERPAY=settings):
        conf = get_settings()
    assert conf.base_url == "https://proxy.example.com/pagbank"
    assert conf.sdk_url == "https://cdn.example.com/sdk.js"


def test_every_key_reads_from_the_environment(monkeypatch):
    monkeypatch.setenv("ORDERPAY_TOKEN", "env-token")
    monkeypatch.setenv("ORDERPAY_ENVIRONMENT", "production")
    monkeypatch.setenv("ORDERPAY_TIMEOUT", "2.5")
    monkeypatch.setenv("ORDERPAY_RETRIES", "0")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_TOKENS", "new-token,old-token")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_VERIFY", "false")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_TRUST_BODY", "true")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_BACKGROUND", "1")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_URL", "https://shop.example.com/n/")
    monkeypatch.setenv("ORDERPAY_PUBLIC_KEY", "MIIBIjAN")
    monkeypatch.setenv("ORDERPAY_EMULATOR_TOKENS", "a,b")
    monkeypatch.setenv("ORDERPAY_NOTIFICATION_MAX_BODY", "65536")
    with override_settings(ORDERPAY={}):
        conf = get_settings()
    assert conf.token == "env-token"
    assert conf.environment == "production"
    assert conf.timeout == 2.5
    assert conf.retries == 0
    assert conf.notification_tokens == ("new-token", "old-token")
    assert conf.notification_verify is False
    assert conf.notification_trust_body is True
    assert conf.notification_background is True
    assert conf.notification_url == "https://shop.example.com/n/"
    assert conf.public_key == "MIIBIjAN"
    assert conf.emulator_tokens == ("a", "b")
    assert conf.notification_max_body == 65536


def test_the_dict_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("ORDERPAY_TOKEN", "env-token")
    monkeypatch.setenv("ORDERPAY_RETRIES", "7")
    with override_settings(ORDERPAY={"TOKEN": "dict-token", "RETRIES": 1}):
        conf = get_settings()
    assert (conf.token, conf.retries) == ("dict-token", 1)


def test_a_key_set_to_none_falls_back_to_the_environment(monkeypatch):
    monkeypatch.setenv("ORDERPAY_TOKEN", "env-token")
    with override_settings(ORDERPAY={"TOKEN": None}):
        assert get_settings().token == "env-token"


def test_settings_are_read_lazily_on_every_access(monkeypatch):
    with override_settings(ORDERPAY={"TOKEN": "first"}):
        assert orderpay_settings.token == "first"
        assert orderpay_settings.TOKEN == "first"
        with override_settings(ORDERPAY={"TOKEN": "second", "TIMEOUT": 3}):
            assert orderpay_settings.token == "second"
            assert orderpay_settings.timeout == 3.0
        assert orderpay_settings.token == "first"
    with override_settings(ORDERPAY={}):
        monkeypatch.setenv("ORDERPAY_TOKEN", "from-env-now")
        assert orderpay_settings.token == "from-env-now"


def test_missing_token_names_the_key_and_its_variable():
    with override_settings(ORDERPAY={"ENVIRONMENT": "sandbox"}):
        with pytest.raises(ImproperlyConfigured) as caught:
            get_settings()
        assert get_settings(strict=False).token is None
    assert "ORDERPAY['TOKEN']" in str(caught.value)
    assert "ORDERPAY_TOKEN" in str(caught.value)
    assert isinstance(caught.value, ConfigurationError)


def test_no_orderpay_dict_at_all_reads_the_environment(monkeypatch, settings):
    del settings.ORDERPAY
    monkeypatch.setenv("ORDERPAY_TOKEN", "only-env")
    assert get_settings().token == "only-env"


@pytest.mark.parametrize(
    ("key", "value", "variable"),
    [
        ("ENVIRONMENT", "staging", "ORDERPAY_ENVIRONMENT"),
        ("TIMEOUT", 0, "ORDERPAY_TIMEOUT"),
        ("TIMEOUT", "15", "ORDERPAY_TIMEOUT"),
        ("RETRIES", -1, "ORDERPAY_RETRIES"),
        ("RETRIES", True, "ORDERPAY_RETRIES"),
        ("BASE_URL", "api.pagseguro.com", "ORDERPAY_BASE_URL"),
        # The builders would refuse it in every order's notification_urls.
        ("NOTIFICATION_URL", "https://shop/notifications/", "ORDERPAY_NOTIFICATION_URL"),
        ("NOTIFICATION_URL", "/orderpay/notifications/", "ORDERPAY_NOTIFICATION_URL"),
        ("NOTIFICATION_TOKENS", "one-token", "ORDERPAY_NOTIFICATION_TOKENS"),
        ("NOTIFICATION_VERIFY", "yes", "ORDERPAY_NOTIFICATION_VERIFY"),
        ("EMULATOR_TOKENS", {"tok": 3}, "ORDERPAY_EMULATOR_TOKENS"),
        ("NOTIFICATION_MAX_BODY", 0, "ORDERPAY_NOTIFICATION_MAX_BODY"),
        ("NOTIFICATION_MAX_BODY", 1.5e6, "ORDERPAY_NOTIFICATION_MAX_BODY"),
    ],
)
def test_an_invalid_value_names_the_key(key, value, variable):
    with override_settings(ORDERPAY={"TOKEN": "tok", key: value}):
        with pytest.raises(ConfigurationError) as caught:
            get_settings()
    assert f"ORDERPAY['{key}']" in str(caught.value)
    assert variable in str(caught.value)


def test_an_invalid_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("ORDERPAY_RETRIES", "three")
    with override_settings(ORDERPAY={"TOKEN": "tok"}):
        with pytest.raises(ConfigurationError, match="ORDERPAY_RETRIES"):
            get_settings()


def test_emulator_tokens_may_map_tokens_to_accounts():
    accounts = {"tok-a": "ACCO_A", "tok-b": "ACCO_B"}
    with override_settings(ORDERPAY={"TOKEN": "tok-a", "EMULATOR_TOKENS": accounts}):
        assert get_settings().emulator_tokens == accounts


def test_the_token_never_shows_in_a_repr():
    with override_settings(ORDERPAY={"TOKEN": "secret-token-value"}):
        conf = get_settings()
    assert "secret-token-value" not in repr(conf)
    assert "secret-token-value" not in repr(orderpay_settings)


def test_unknown_keys_are_listed():
    with override_settings(ORDERPAY={"TOKEN": "t", "TOKNE": "x", "TIMEOUT": 3}):
        assert unknown_keys() == ["TOKNE"]


@pytest.mark.django_db
def test_notification_max_body_bounds_what_the_notification_view_accepts(client, settings):
    # Given a limit below the size of a real notification
    # (the body trusted, so no provider is asked)
    settings.ORDERPAY = {
        **settings.ORDERPAY,
        "NOTIFICATION_MAX_BODY": 64,
        "NOTIFICATION_TRUST_BODY": True,
    }
    order = order_json()
    sync_order(order, source="api")  # known here, so a trusted body is applied
    body = json.dumps(order).encode()
    token = settings.ORDERPAY["TOKEN"]

    # When the provider posts one to the package's view
    response = post(client, body, token=token)

    # Then it is refused as too large, naming the configured limit, and logged
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    assert "64-byte limit" in NotificationDelivery.objects.get().error

    # And with the default limit the same body is accepted
    settings.ORDERPAY = {
        key: value for key, value in settings.ORDERPAY.items() if key != "NOTIFICATION_MAX_BODY"
    }
    again = post(client, body, token=token)
    assert again.status_code == 200
    assert again.json()["outcome"] == "processed", again.json()
