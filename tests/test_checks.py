"""System checks: stable ids, each raised by the configuration that deserves it."""

from __future__ import annotations

import sys
from io import StringIO

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings


@pytest.fixture(autouse=True)
def without_the_emulator_urls(settings):
    """The package's own URLconf: the test suite's mounts the emulator (E006's test uses it)."""
    settings.ROOT_URLCONF = "django_orderpay.urls"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for key in ("TOKEN", "ENVIRONMENT", "BASE_URL", "NOTIFICATION_URL", "NOTIFICATION_VERIFY"):
        monkeypatch.delenv("ORDERPAY_" + key, raising=False)
    monkeypatch.delenv("ORDERPAY_NOTIFICATION_TRUST_BODY", raising=False)


def ids(**overrides):
    """The ids of the orderpay checks under the given settings (infos left out)."""
    with override_settings(**overrides):
        return sorted(
            m.id for m in checks.run_checks(tags=["orderpay"]) if m.is_serious(checks.WARNING)
        )


def test_a_sound_production_configuration_passes():
    good = {"TOKEN": "tok", "ENVIRONMENT": "production", "NOTIFICATION_URL": "https://s.example/n"}
    assert ids(DEBUG=False, ORDERPAY=good) == []


def test_missing_token_is_e001():
    assert ids(DEBUG=True, ORDERPAY={"ENVIRONMENT": "sandbox"}) == ["orderpay.E001"]


def test_token_from_the_environment_satisfies_e001(monkeypatch):
    monkeypatch.setenv("ORDERPAY_TOKEN", "env-token")
    assert ids(DEBUG=True, ORDERPAY={}) == []


def test_emulator_without_debug_is_e002():
    emulator = {"TOKEN": "tok", "ENVIRONMENT": "emulator"}
    assert ids(DEBUG=False, ORDERPAY=emulator) == ["orderpay.E002"]
    assert ids(DEBUG=True, ORDERPAY=emulator) == []


def test_plain_http_base_url_without_debug_is_e003():
    plain = {"TOKEN": "tok", "BASE_URL": "http://proxy.internal/pagbank"}
    assert ids(DEBUG=False, ORDERPAY=plain) == ["orderpay.E003"]
    assert ids(DEBUG=True, ORDERPAY=plain) == []


def test_invalid_value_is_e004_naming_the_key():
    with override_settings(ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "staging"}):
        messages = checks.run_checks(tags=["orderpay"])
    assert [m.id for m in messages] == ["orderpay.E004"]
    assert "ENVIRONMENT" in messages[0].msg


@pytest.mark.parametrize("trust_body", [True, False])
def test_unverified_notifications_are_w001(trust_body):
    unverified = {
        "TOKEN": "tok",
        "NOTIFICATION_VERIFY": False,
        "NOTIFICATION_TRUST_BODY": trust_body,
    }
    # Unverified bodies are re-fetched, never trusted; still anyone can trigger
    # those fetches, so the shop hears about it whatever TRUST_BODY says.
    assert ids(DEBUG=True, ORDERPAY=unverified) == ["orderpay.W001"]


def test_plain_http_notification_url_without_debug_is_w002():
    conf = {"TOKEN": "tok", "NOTIFICATION_URL": "http://shop.example.com/n/"}
    assert ids(DEBUG=False, ORDERPAY=conf) == ["orderpay.W002"]


def test_unknown_key_is_w003():
    with override_settings(DEBUG=True, ORDERPAY={"TOKEN": "tok", "TIMEOUTS": 3}):
        messages = [m for m in checks.run_checks(tags=["orderpay"]) if m.id != "orderpay.I001"]
    assert [m.id for m in messages] == ["orderpay.W003"]
    assert "TIMEOUTS" in messages[0].msg
    assert messages[0].hint == "Did you mean 'TIMEOUT'?"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("NOTIFICATIONS_URL", "NOTIFICATION_URL"),
        ("notification_url", "NOTIFICATION_URL"),
        ("NOTIFICATION_TOKEN", "NOTIFICATION_TOKENS"),
        ("ENVIROMENT", "ENVIRONMENT"),
        ("THREE_DS", "THREEDS"),
    ],
)
def test_w003_suggests_the_closest_known_key(typed, meant):
    with override_settings(DEBUG=True, ORDERPAY={"TOKEN": "tok", typed: "x"}):
        (message,) = [m for m in checks.run_checks(tags=["orderpay"]) if m.id == "orderpay.W003"]
    assert message.hint == f"Did you mean {meant!r}?"


def test_w003_lists_the_known_keys_when_nothing_is_close():
    with override_settings(DEBUG=True, ORDERPAY={"TOKEN": "tok", "SHIPPING_PROVIDER": 1}):
        (message,) = [m for m in checks.run_checks(tags=["orderpay"]) if m.id == "orderpay.W003"]
    assert message.hint.startswith("Known keys: ") and "NOTIFICATION_URL" in message.hint


def test_verification_with_no_token_to_check_against_is_w004():
    empty = {"TOKEN": "tok", "NOTIFICATION_TOKENS": []}
    assert ids(DEBUG=True, ORDERPAY=empty) == ["orderpay.W004"]
    # Not verifying at all needs no token (and is W001 instead).
    assert ids(DEBUG=True, ORDERPAY={**empty, "NOTIFICATION_VERIFY": False}) == ["orderpay.W001"]


def test_background_notifications_with_the_tasks_framework_pass():
    # django-tasks is installed in this environment.
    assert ids(DEBUG=True, ORDERPAY={"TOKEN": "tok", "NOTIFICATION_BACKGROUND": True}) == []


def test_background_notifications_without_a_tasks_framework_is_e005(monkeypatch):
    # Given neither django.tasks nor django_tasks importable (None in
    # sys.modules makes an import fail, as for a package not installed)
    monkeypatch.setitem(sys.modules, "django.tasks", None)
    monkeypatch.setitem(sys.modules, "django_tasks", None)
    background = {"TOKEN": "tok", "NOTIFICATION_BACKGROUND": True}

    with override_settings(DEBUG=True, ORDERPAY=background):
        messages = [m for m in checks.run_checks(tags=["orderpay"]) if m.id != "orderpay.I001"]

    assert [m.id for m in messages] == ["orderpay.E005"]
    assert "django_tasks" in messages[0].msg
    assert "NOTIFICATION_BACKGROUND" in messages[0].hint
    # Off, nothing is needed.
    assert ids(DEBUG=True, ORDERPAY={"TOKEN": "tok"}) == []


def test_manage_py_check_fails_on_an_error_and_names_it():
    with override_settings(DEBUG=True, ORDERPAY={}):
        with pytest.raises(SystemCheckError, match=r"orderpay\.E001"):
            call_command("check", tags=["orderpay"])


def test_a_silenced_check_does_not_fail_the_command():
    emulator = {"TOKEN": "tok", "ENVIRONMENT": "emulator"}
    with override_settings(
        DEBUG=False, ORDERPAY=emulator, SILENCED_SYSTEM_CHECKS=["orderpay.E002"]
    ):
        out = StringIO()
        call_command("check", tags=["orderpay"], stdout=out)
    assert "no issues (1 silenced)" in out.getvalue()


def test_atomic_requests_is_w005_naming_the_database(settings, monkeypatch):
    monkeypatch.setitem(settings.DATABASES["default"], "ATOMIC_REQUESTS", True)
    with override_settings(ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "production"}):
        messages = checks.run_checks(tags=["orderpay"])
    assert [m.id for m in messages] == ["orderpay.W005"]
    assert "ATOMIC_REQUESTS is on for default" in messages[0].msg
    assert "non_atomic_requests" in messages[0].hint


def test_the_sandbox_explains_unsigned_notifications_as_i001():
    messages = []
    with override_settings(ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "sandbox"}):
        messages = checks.run_checks(tags=["orderpay"])
    assert [m.id for m in messages] == ["orderpay.I001"]
    assert "re-fetched with your API token" in messages[0].msg
    assert ids(DEBUG=True, ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "production"}) == []


def test_the_emulator_mounted_outside_the_emulator_environment_is_e006(settings):
    settings.ROOT_URLCONF = "tests.urls"  # mounts it at emulator/
    production = {"TOKEN": "tok", "ENVIRONMENT": "production"}
    with override_settings(DEBUG=False, ORDERPAY=production):
        messages = [m for m in checks.run_checks(tags=["orderpay"]) if m.id == "orderpay.E006"]
    assert len(messages) == 1
    assert "mounted at 'emulator/'" in messages[0].msg
    assert ids(DEBUG=True, ORDERPAY={"TOKEN": "tok", "ENVIRONMENT": "emulator"}) == []


def test_a_dummy_cache_counts_no_limit_and_is_w006():
    dummy = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    good = {"TOKEN": "tok", "ENVIRONMENT": "production", "NOTIFICATION_URL": "https://s.example/n"}
    assert ids(DEBUG=False, ORDERPAY=good, CACHES=dummy) == ["orderpay.W006"]
    off = {**good, "CARD_TESTING_LIMITS": False}
    assert ids(DEBUG=False, ORDERPAY=off, CACHES=dummy) == []


def test_a_per_process_cache_is_i002_under_check_deploy():
    local = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    shared = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache"}}
    # The package's checks only: Django's model checks may ask the database (Django 6.1
    # reads SQLite's JSON support there), which this test has no access to.
    deploy = {"include_deployment_checks": True, "tags": ["orderpay"]}
    with override_settings(CACHES=local):
        found = [m.id for m in checks.run_checks(**deploy)]
        plain = [m.id for m in checks.run_checks(tags=["orderpay"])]
    assert "orderpay.I002" in found and "orderpay.I002" not in plain
    with override_settings(CACHES=shared):
        found = [m.id for m in checks.run_checks(**deploy)]
    assert "orderpay.I002" not in found


def test_a_captcha_field_that_cannot_be_imported_is_e008():
    good = {"TOKEN": "tok", "ENVIRONMENT": "production", "NOTIFICATION_URL": "https://s.example/n"}
    asked = {**good, "CARD_CAPTCHA_AFTER_DECLINES": 2}
    assert ids(DEBUG=False, ORDERPAY=asked) == []  # django-simple-captcha is installed here
    missing = {**asked, "CARD_CAPTCHA_FIELD": "no_such_package.fields.Captcha"}
    assert ids(DEBUG=False, ORDERPAY=missing) == ["orderpay.E008"]
    assert ids(DEBUG=False, ORDERPAY={**missing, "CARD_CAPTCHA_AFTER_DECLINES": 0}) == []
