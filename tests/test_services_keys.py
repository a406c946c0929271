"""get_public_key: the configured key, else fetched from /public-keys and cached."""

from __future__ import annotations

import pytest

from django_orderpay.client import client_from_settings
from django_orderpay.exceptions import ProviderUnavailable
from django_orderpay.services import clear_public_key_cache, create_order, get_public_key
from tests.test_services_support import charge, encrypted_visa, order_payload


@pytest.fixture
def unconfigured(orderpay_emulator, settings):
    """No PUBLIC_KEY in settings: the services must fetch it."""
    settings.ORDERPAY = {**settings.ORDERPAY, "PUBLIC_KEY": ""}
    return orderpay_emulator


def test_the_configured_key_is_used_as_is(orderpay_emulator, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "PUBLIC_KEY": "configured-key"}
    orderpay_emulator.inject_fault("http_500", count=5, path_prefix="/public-keys")

    assert get_public_key() == "configured-key"
    assert orderpay_emulator.control("GET", "faults")["faults"][0]["remaining"] == 5


def test_fetched_once_then_cached(unconfigured):
    key = get_public_key()
    assert key == unconfigured.emulator.public_key

    # The provider is now unreachable for the key: the cached one still serves.
    unconfigured.inject_fault("http_403_html", count=20, path_prefix="/public-keys")
    assert get_public_key() == key
    assert unconfigured.control("GET", "faults")["faults"][0]["remaining"] == 20

    clear_public_key_cache()
    with pytest.raises(ProviderUnavailable) as caught:
        get_public_key()
    assert "HTML" in str(caught.value)


def test_an_explicit_client_always_fetches(unconfigured):
    client = client_from_settings(backoff=0.01)
    assert get_public_key(client=client) == unconfigured.emulator.public_key
    unconfigured.inject_fault("http_403_html", count=20, path_prefix="/public-keys")
    with pytest.raises(ProviderUnavailable):
        get_public_key(client=client)


@pytest.mark.django_db
def test_the_fetched_key_encrypts_cards_the_provider_decrypts(unconfigured):
    encrypted = encrypted_visa(get_public_key())

    card = {"encrypted": encrypted, "holder": {"name": "Jose da Silva"}}
    order = create_order(order_payload(charges=[charge(500, card)]))

    assert order.charges.get().status == "PAID"


@pytest.mark.parametrize("statuses", ["docs", "plugin"])
def test_the_key_and_the_3ds_session_are_read_whichever_status_answers(orderpay_emulator, statuses):
    """201 or 200 for ``POST /public-keys``, 200 or 201 for the session: both are read."""
    from django_orderpay import services

    orderpay_emulator.control("POST", "options", {"created_statuses": statuses})
    services.clear_public_key_cache()
    assert services.get_public_key() == orderpay_emulator.emulator.public_key
    assert len(services.create_3ds_session().session) == 64
