"""Connect's settings, system checks, token encryption and key rotation."""

from __future__ import annotations

from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.checks import run_checks
from django.core.management import CommandError, call_command

from django_orderpay.conf import DEFAULT_CONNECT_SCOPES, get_settings
from django_orderpay.connect import cipher
from django_orderpay.exceptions import ConfigurationError
from django_orderpay.models import ConnectedAccount
from tests.connect_support import SELLER_A, grant_of, staff

__all__ = ["staff"]

KEY_1 = Fernet.generate_key().decode()
KEY_2 = Fernet.generate_key().decode()


def _ids() -> list[str]:
    return sorted(m.id for m in run_checks(tags=["orderpay"]) if m.id == "orderpay.E007")


def test_defaults_leave_connect_off(orderpay):
    conf = get_settings()
    assert not conf.connect_enabled
    assert conf.connect_scopes == DEFAULT_CONNECT_SCOPES
    assert (conf.connect_auth, conf.connect_notification_signer) == ("pub", "either")
    assert conf.connect_refresh_margin == 30 * 24 * 3600


@pytest.mark.parametrize(
    ("environment", "url"),
    [
        ("production", "https://connect.pagseguro.uol.com.br"),
        ("sandbox", "https://connect.sandbox.pagseguro.uol.com.br"),
    ],
)
def test_the_authorisation_host_follows_the_environment(orderpay, environment, url):
    orderpay(ENVIRONMENT=environment)
    assert get_settings().connect_url == url


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("CONNECT_SCOPES", ["payments.read", "payments.everything"]),
        ("CONNECT_SCOPES", []),
        ("CONNECT_AUTH", "basic"),
        ("CONNECT_NOTIFICATION_SIGNER", "nobody"),
        ("ACCOUNT_ID", "ACCO_not-a-uuid"),
        ("CONNECT_REFRESH_MARGIN", -1),
        ("CONNECT_REDIRECT_URI", "/relative/callback/"),
    ],
)
def test_a_wrong_value_is_named(orderpay, key, value):
    orderpay(**{key: value})
    with pytest.raises(ConfigurationError, match=key):
        get_settings()


def test_the_environment_lists_scopes_comma_separated(orderpay, monkeypatch):
    monkeypatch.setenv("ORDERPAY_CONNECT_SCOPES", "payments.read,payments.create")
    assert get_settings().connect_scopes == ("payments.read", "payments.create")


@pytest.mark.parametrize(
    ("keys", "secret", "expected"),
    [
        ([KEY_1], "s", 0),
        ([], "s", 1),
        ([KEY_1], None, 1),
        (["not-a-fernet-key"], "s", 1),
        ([], None, 2),
    ],
)
def test_connect_without_what_it_needs_is_an_error(orderpay, keys, secret, expected):
    orderpay(CONNECT_CLIENT_ID="app", CONNECT_CLIENT_SECRET=secret, CONNECT_KEYS=keys)
    assert len(_ids()) == expected


def test_no_connect_no_check(orderpay):
    orderpay(CONNECT_KEYS=[])
    assert _ids() == []


def test_tokens_cannot_be_stored_without_keys(orderpay):
    orderpay(CONNECT_KEYS=[])
    with pytest.raises(ConfigurationError, match="CONNECT_KEYS"):
        cipher.encrypt("secret")
    orderpay(CONNECT_KEYS=["short"])
    with pytest.raises(ConfigurationError, match="Fernet"):
        cipher.encrypt("secret")


def test_the_first_key_encrypts_and_every_key_decrypts(orderpay):
    orderpay(CONNECT_KEYS=[KEY_1])
    old = cipher.encrypt("the-token")
    orderpay(CONNECT_KEYS=[KEY_2, KEY_1])
    new = cipher.encrypt("the-token")
    assert cipher.decrypt(old) == cipher.decrypt(new) == "the-token"
    assert "the-token" not in old + new
    orderpay(CONNECT_KEYS=[KEY_2])
    assert cipher.decrypt(new) == "the-token"
    with pytest.raises(cipher.InvalidToken):
        cipher.decrypt(old)


@pytest.mark.django_db
def test_rotating_re_encrypts_every_account_with_the_new_key(
    orderpay_connect, staff, client, orderpay
):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    grant = grant_of(orderpay_connect, account.account_id)
    first_key = orderpay_connect.key
    orderpay(CONNECT_KEYS=[KEY_2, first_key])
    out = StringIO()

    call_command("orderpay_rotate_keys", stdout=out)

    assert "1 rows re-encrypted" in out.getvalue()
    orderpay(CONNECT_KEYS=[KEY_2])  # the old key dropped
    account = ConnectedAccount.objects.get(pk=account.pk)
    assert account.access_token() == grant["access_token"]
    assert account.refresh_token() == grant["refresh_token"]


@pytest.mark.django_db
def test_a_token_no_key_opens_is_named_not_shown(orderpay_connect, staff, client, orderpay):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    orderpay(CONNECT_KEYS=[KEY_2])
    with pytest.raises(CommandError, match=f"connectedaccount {account.pk}") as failed:
        call_command("orderpay_rotate_keys", stdout=StringIO())
    assert account.access_token_encrypted not in str(failed.value)


@pytest.mark.django_db
def test_the_docs_form_of_the_application_calls(orderpay_connect, staff, client, orderpay):
    # Authorization: Bearer <the platform's TOKEN> with X_CLIENT_ID and X_CLIENT_SECRET.
    orderpay(CONNECT_AUTH="bearer")
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    assert account.account_id and account.is_active


@pytest.mark.django_db
def test_a_token_no_key_opens_is_a_configuration_error_naming_the_account(
    orderpay_connect, staff, client, orderpay
):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    orderpay(CONNECT_KEYS=[KEY_2])
    with pytest.raises(ConfigurationError, match=account.account_id):
        account.access_token()
