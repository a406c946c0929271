"""Connect Authorization through the Django test client and the emulator's OAuth server.

The start view keeps the state and the PKCE verifier on the server, bound to
the user who started; the callback takes them once, from that user only,
within 15 minutes; the seller's tokens are stored encrypted.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone

from django_orderpay import signals
from django_orderpay.connect.cipher import decrypt
from django_orderpay.connect.flow import AUTHORIZATION_TTL, MAX_PENDING_PER_USER
from django_orderpay.emulator.state.oauth import seller_account
from django_orderpay.models import AccountState, ConnectAuthorization, ConnectedAccount
from tests.connect_support import SELLER_A, SELLER_B, grant_of, staff

__all__ = ["staff"]

pytestmark = pytest.mark.django_db


def _start(client, **query):
    response = client.get(reverse("orderpay:connect_start"), query)
    assert response.status_code == 302, response.status_code
    return response["Location"], {
        k: v[0] for k, v in parse_qs(urlsplit(response["Location"]).query).items()
    }


def test_connecting_a_seller_stores_its_tokens_encrypted(
    orderpay_connect, staff, client, django_capture_on_commit_callbacks
):
    heard = []
    signals.account_connected.connect(lambda **kw: heard.append(kw), weak=False, dispatch_uid="t1")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    finally:
        signals.account_connected.disconnect(dispatch_uid="t1")

    grant = grant_of(orderpay_connect, seller_account(SELLER_A))
    assert account.account_id == seller_account(SELLER_A)
    assert (account.state, account.environment, account.user) == (
        AccountState.ACTIVE,
        "emulator",
        staff,
    )
    assert set(account.scope_list) >= {
        "payments.read",
        "payments.create",
        "payments.refund",
        "payments.split.read",
    }
    assert account.client_id == orderpay_connect.client_id
    assert account.access_token() == grant["access_token"]
    assert account.refresh_token() == grant["refresh_token"]
    row = ConnectedAccount.objects.filter(pk=account.pk).values().get()
    stored = repr(row)
    assert grant["access_token"] not in stored and grant["refresh_token"] not in stored
    assert account.token_expires_at - account.token_issued_at == dt.timedelta(days=365)
    assert not ConnectAuthorization.objects.exists()
    assert [(h["account"], h["created"], h["user"]) for h in heard] == [(account, True, staff)]


def test_the_start_keeps_state_and_verifier_on_the_server(orderpay_connect, staff, client):
    client.force_login(staff)
    url, query = _start(client)

    assert url.startswith(orderpay_connect.emulator.base_url + "/oauth2/authorize?")
    assert query["client_id"] == orderpay_connect.client_id
    assert query["response_type"] == "code" and query["code_challenge_method"] == "S256"
    assert query["redirect_uri"] == orderpay_connect.redirect_uri
    assert query["scope"].split() == [
        "payments.read",
        "payments.create",
        "payments.refund",
        "payments.split.read",
        "checkout.create",
        "checkout.view",
        "checkout.update",
    ]
    pending = ConnectAuthorization.objects.get()
    assert (pending.state, pending.user) == (query["state"], staff)
    assert len(query["state"]) == 64 and query["state"].isalnum()
    verifier = decrypt(pending.code_verifier_encrypted)
    assert verifier not in pending.code_verifier_encrypted
    digest = hashlib.sha256(verifier.encode()).digest()
    assert query["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert "code_verifier" not in url and verifier not in url


def test_a_user_without_permission_may_not_connect(orderpay_connect, django_user_model, client):
    client.force_login(django_user_model.objects.create_user("shopper"))
    assert client.get(reverse("orderpay:connect_start")).status_code == 403
    assert not ConnectAuthorization.objects.exists()


def test_someone_not_logged_in_is_sent_to_log_in(orderpay_connect, client, settings):
    settings.LOGIN_URL = "/login/"
    response = client.get(reverse("orderpay:connect_start"))
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    callback = client.get(reverse("orderpay:connect_callback"), {"state": "x", "code": "y"})
    assert callback.status_code == 302 and callback["Location"].startswith("/login/")


def test_another_users_state_is_refused_and_left_for_its_user(
    orderpay_connect, staff, client, django_user_model
):
    client.force_login(staff)
    _, query = _start(client)
    intruder = django_user_model.objects.create_user("intruder", is_staff=True)
    client.force_login(intruder)
    response = client.get(
        reverse("orderpay:connect_callback"), {"state": query["state"], "code": "c"}
    )
    assert response.status_code == 400
    assert b'data-connect-result="wrong_user"' in response.content
    assert ConnectAuthorization.objects.filter(state=query["state"]).exists()
    assert not ConnectedAccount.objects.exists()


def test_a_state_is_used_once(orderpay_connect, staff, client):
    client.force_login(staff)
    first = orderpay_connect.authorize(client, SELLER_A)
    assert first.status_code == 200 and b'data-connect-result="connected"' in first.content
    # The same callback again (a reload, a replay): the state is gone.
    state = first.wsgi_request.GET["state"]
    code = first.wsgi_request.GET["code"]
    again = client.get(reverse("orderpay:connect_callback"), {"state": state, "code": code})
    assert again.status_code == 400 and b'data-connect-result="unknown_state"' in again.content


def test_an_unknown_or_missing_state_is_refused(orderpay_connect, staff, client):
    client.force_login(staff)
    for query in ({"code": "c"}, {"state": "0" * 64, "code": "c"}):
        response = client.get(reverse("orderpay:connect_callback"), query)
        assert b'data-connect-result="unknown_state"' in response.content


def test_an_authorisation_older_than_fifteen_minutes_is_refused(orderpay_connect, staff, client):
    client.force_login(staff)
    _, query = _start(client)
    ConnectAuthorization.objects.update(
        created_at=timezone.now() - AUTHORIZATION_TTL - dt.timedelta(seconds=1)
    )
    response = client.get(
        reverse("orderpay:connect_callback"), {"state": query["state"], "code": "c"}
    )
    assert b'data-connect-result="expired"' in response.content


def test_one_just_within_fifteen_minutes_is_accepted(orderpay_connect, staff, client):
    client.force_login(staff)
    response = orderpay_connect.authorize(client, SELLER_A)
    assert response.status_code == 200
    # The same flow with the authorisation aged to just under the limit:
    _, query = _start(client)
    ConnectAuthorization.objects.update(
        created_at=timezone.now() - AUTHORIZATION_TTL + dt.timedelta(seconds=30)
    )
    code = _consent_code(orderpay_connect, query)
    done = client.get(reverse("orderpay:connect_callback"), {"state": query["state"], "code": code})
    assert b'data-connect-result="connected"' in done.content


def _consent_code(orderpay_connect, query, email=SELLER_A):
    import requests

    fields = dict(query, email=email, decision="allow")
    answer = requests.post(
        orderpay_connect.emulator.base_url + "/oauth2/authorize",
        data=fields,
        allow_redirects=False,
        timeout=10,
    )
    return parse_qs(urlsplit(answer.headers["Location"]).query)["code"][0]


def test_a_denied_authorisation_connects_nothing(orderpay_connect, staff, client):
    client.force_login(staff)
    response = orderpay_connect.authorize(client, SELLER_A, decision="deny")
    assert response.status_code == 400
    assert b'data-connect-result="access_denied"' in response.content
    assert not ConnectedAccount.objects.exists()


def test_a_code_pagbank_refuses_connects_nothing(orderpay_connect, staff, client):
    client.force_login(staff)
    _, query = _start(client)
    response = client.get(
        reverse("orderpay:connect_callback"), {"state": query["state"], "code": "forged"}
    )
    assert b'data-connect-result="exchange_failed"' in response.content
    assert not ConnectedAccount.objects.exists()


def test_authorising_again_keeps_the_account_and_its_owner(orderpay_connect, staff, client):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    ConnectedAccount.objects.filter(pk=account.pk).update(state=AccountState.NEEDS_AUTHORIZATION)
    first_token = account.access_token()

    response = orderpay_connect.authorize(client, SELLER_A, account=str(account.pk))

    assert response.status_code == 200
    account.refresh_from_db()
    assert ConnectedAccount.objects.count() == 1
    assert account.state == AccountState.ACTIVE
    assert account.access_token() != first_token
    assert account.previous_access_token_encrypted == ""


def test_authorising_again_as_another_seller_is_refused(orderpay_connect, staff, client):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    response = orderpay_connect.authorize(client, SELLER_B, account=str(account.pk))
    assert b'data-connect-result="another_account"' in response.content
    assert list(ConnectedAccount.objects.values_list("account_id", flat=True)) == [
        account.account_id
    ]


def test_an_accounts_own_user_may_authorise_it_again(
    orderpay_connect, staff, client, django_user_model
):
    seller = django_user_model.objects.create_user("seller")
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    client.force_login(seller)
    assert client.get(reverse("orderpay:connect_start"), {"account": account.pk}).status_code == 403
    ConnectedAccount.objects.filter(pk=account.pk).update(user=seller)
    assert client.get(reverse("orderpay:connect_start"), {"account": account.pk}).status_code == 302
    assert client.get(reverse("orderpay:connect_start"), {"account": "x"}).status_code == 403
    assert client.get(reverse("orderpay:connect_start"), {"account": "99999"}).status_code == 404


def test_next_goes_back_to_a_local_page_only(orderpay_connect, staff, client):
    client.force_login(staff)
    response = orderpay_connect.authorize(client, SELLER_A, next="/admin/")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    elsewhere = orderpay_connect.authorize(client, SELLER_B, next="https://attacker.example/")
    assert elsewhere.status_code == 200


def test_a_user_keeps_at_most_five_authorisations_under_way(orderpay_connect, staff, client):
    client.force_login(staff)
    states = [_start(client)[1]["state"] for _ in range(MAX_PENDING_PER_USER + 2)]
    kept = set(ConnectAuthorization.objects.values_list("state", flat=True))
    assert kept == set(states[-MAX_PENDING_PER_USER:])


def test_a_repr_or_str_shows_no_token(orderpay_connect, staff, client):
    account = orderpay_connect.connect_seller(client, staff, SELLER_A)
    grant = grant_of(orderpay_connect, account.account_id)
    for shown in (repr(account), str(account)):
        assert grant["access_token"] not in shown and grant["refresh_token"] not in shown
