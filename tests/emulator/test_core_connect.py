"""The emulator as PagBank Connect's OAuth 2 server, over HTTP.

Registry (control plane and ``/oauth2/application``), the authorisation page
and its answer, the code exchanged with its PKCE verifier, tokens that act for
the seller's own account only (and only within their scopes), expiry by the
emulator's clock, refresh that rotates both tokens, revocation by the
application and by the seller, and who signs a seller's notifications.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.emulator.state.oauth import s256, seller_account

from .core_support import ACCOUNT_A, NOTIFY_URL, TOKEN_A, Api, charge_payload, error_of

CLIENT_ID = "app-marketplace"
SECRET = "app-secret-0123456789"
REDIRECT = "https://platform.example/orderpay/connect/callback/"
PUB = {"Authorization": f"Pub {SECRET}"}
VERIFIER = "v" * 20 + "-verifier-of-forty-three-chars-at-least"
SCOPE = "payments.read payments.create payments.refund"


@pytest.fixture
def app(api: Api) -> dict[str, Any]:
    response = api.post(
        "/_emulator/oauth/applications",
        {
            "client_id": CLIENT_ID,
            "client_secret": SECRET,
            "name": "Marketplace",
            "redirect_uri": REDIRECT,
        },
        token=None,
    )
    assert response.status_code == 201, response.text
    return response.json()


def page(api: Api, query: str) -> Any:
    """``GET /oauth2/authorize?query`` as a browser, redirects not followed."""
    return api.session.get(api.url("/oauth2/authorize?" + query), allow_redirects=False, timeout=10)


def answer_page(api: Api, fields: dict[str, str]) -> Any:
    """The page's form posted, redirects not followed."""
    return api.session.post(
        api.url("/oauth2/authorize"),
        data=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        allow_redirects=False,
        timeout=10,
    )


def authorize_query(**overrides: str) -> str:
    params = {
        "client_id": CLIENT_ID,
        "response_type": "code",
        "redirect_uri": REDIRECT,
        "scope": SCOPE,
        "state": "abc123",
        "code_challenge": s256(VERIFIER),
        "code_challenge_method": "S256",
    }
    params.update(overrides)
    return urlencode({k: v for k, v in params.items() if v is not None})


def consent(
    api: Api, email: str = "seller-a@example.com", decision: str = "allow", **overrides: str
) -> Any:
    """The seller's answer on the page: the redirect's query, parsed."""
    form = parse_qs(authorize_query(**overrides))
    fields = {key: values[0] for key, values in form.items()}
    fields.update(email=email, decision=decision)
    response = answer_page(api, fields)
    assert response.status_code == 302, response.text
    location = response.headers["Location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def exchange(
    api: Api,
    code: str,
    *,
    verifier: str | None = VERIFIER,
    headers: dict[str, str] | None = None,
    redirect_uri: str = REDIRECT,
) -> Any:
    body = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    if verifier is not None:
        body["code_verifier"] = verifier
    return api.post("/oauth2/token", body, token=None, headers=headers or PUB)


def connect(api: Api, email: str = "seller-a@example.com", **overrides: str) -> dict[str, Any]:
    answer = exchange(api, consent(api, email, **overrides)["code"])
    assert answer.status_code == 200, answer.text
    return answer.json()


def code_of(response: Any) -> str:
    assert response.headers["Content-Type"].startswith("application/json"), response.text
    return error_of(response)["code"]


# --- the page -----------------------------------------------------------------------


def test_the_page_names_the_application_and_each_scope_in_pagbank_words(api: Api, app) -> None:
    response = page(api, authorize_query())
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    text = response.text
    assert "<strong data-connect-app>Marketplace</strong>" in text
    # In the seller's language: English here, PagBank's own words in pt-BR
    # (tests/emulator/test_pages_language.py).
    assert 'data-scope="payments.refund">make refunds' in text
    assert 'name="code_challenge"' in text and s256(VERIFIER) in text


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"client_id": "nobody"}, "invalid_client"),
        ({"redirect_uri": "https://attacker.example/steal"}, "invalid_redirect_uri"),
        # "A mesma utilizada na criação da aplicação": the same URL, not one like it.
        ({"redirect_uri": REDIRECT.rstrip("/")}, "invalid_redirect_uri"),
        ({"redirect_uri": REDIRECT + "?shop=2"}, "invalid_redirect_uri"),
    ],
)
def test_an_unknown_application_or_redirect_is_a_page_never_a_redirect(
    api: Api, app, overrides, error
) -> None:
    response = page(api, authorize_query(**overrides))
    assert response.status_code == 400
    assert "Location" not in response.headers
    assert f'data-connect-error="{error}"' in response.text


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "payments.read payments.everything"}, "invalid_scope"),
        ({"scope": ""}, "invalid_scope"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"state": "x" * 129}, "invalid_request"),
    ],
)
def test_other_problems_go_back_to_the_application_with_error(
    api: Api, app, overrides, error
) -> None:
    response = page(api, authorize_query(**overrides))
    assert response.status_code == 302
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    assert query["error"] == [error]


def test_the_longest_state_is_accepted_and_carried_back(api: Api, app) -> None:
    answer = consent(api, state="s" * 128)
    assert answer["state"] == "s" * 128 and answer["code"]


def test_scopes_joined_with_plus_as_the_official_plugin_sends_them(api: Api, app) -> None:
    query = authorize_query(scope="X").replace("scope=X", "scope=payments.read+payments.create")
    response = page(api, query)
    assert response.status_code == 200
    assert 'data-scope="payments.create"' in response.text


def test_denying_goes_back_with_access_denied_and_the_state(api: Api, app) -> None:
    assert consent(api, decision="deny") == {"error": "access_denied", "state": "abc123"}


def test_allowing_without_an_email_shows_the_page_again(api: Api, app) -> None:
    fields = {k: v[0] for k, v in parse_qs(authorize_query()).items()}
    fields.update(email="", decision="allow")
    response = answer_page(api, fields)
    assert response.status_code == 400
    assert 'role="alert"' in response.text


# --- the code for tokens --------------------------------------------------------------


def test_a_code_and_its_verifier_get_the_sellers_tokens(api: Api, app) -> None:
    answered = consent(api, "Seller-A@Example.com")
    assert answered["state"] == "abc123"
    response = exchange(api, answered["code"])
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert set(tokens) == {
        "token_type",
        "access_token",
        "expires_in",
        "refresh_token",
        "scope",
        "account_id",
    }
    assert tokens["token_type"] == "Bearer"
    assert tokens["scope"] == SCOPE
    assert tokens["expires_in"] == 365 * 24 * 3600
    assert tokens["account_id"] == seller_account("seller-a@example.com")
    assert tokens["access_token"] != tokens["refresh_token"]


@pytest.mark.parametrize("verifier", [None, "another-verifier-entirely-of-forty-three-chars"])
def test_a_code_without_its_pkce_verifier_is_refused(api: Api, app, verifier) -> None:
    response = exchange(api, consent(api)["code"], verifier=verifier)
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "41004",
        "description": "invalid_grant",
        "parameter_name": "code_verifier",
    }


def test_a_code_asked_without_pkce_needs_no_verifier(api: Api, app) -> None:
    # Virtuaria's authorisation link carries no code_challenge.
    answered = consent(api, code_challenge="", code_challenge_method="")
    assert exchange(api, answered["code"], verifier=None).status_code == 200


def test_a_code_is_used_once(api: Api, app) -> None:
    code = consent(api)["code"]
    assert exchange(api, code).status_code == 200
    again = exchange(api, code)
    assert again.status_code == 400 and code_of(again) == "41004"


def test_a_code_expires_by_the_emulators_clock(api: Api, app) -> None:
    code = consent(api)["code"]
    api.post("/_emulator/clock", {"advance_seconds": 601}, token=None)
    assert code_of(exchange(api, code)) == "41004"


def test_a_code_just_within_its_ten_minutes_is_accepted(api: Api, app) -> None:
    code = consent(api)["code"]
    api.post("/_emulator/clock", {"advance_seconds": 590}, token=None)
    assert exchange(api, code).status_code == 200


def test_the_redirect_uri_must_be_the_one_the_code_was_asked_with(api: Api, app) -> None:
    response = exchange(api, consent(api)["code"], redirect_uri="https://platform.example/other")
    assert code_of(response) == "41002"


def test_with_the_setting_any_shops_callback_is_taken_as_pagbanks_shared_applications_do(
    api: Api, app
) -> None:
    # The official WooCommerce plugin sends each shop's own callback under one application
    # id; Magento's carries the PKCE verifier in its path.
    shop = "https://loja.example/wp-admin/admin-ajax.php?action=pagbank_oauth&environment=sandbox"
    magento = f"https://loja.example/admin/pagbank/oauth/code_verifier/{VERIFIER}/"
    assert page(api, authorize_query(redirect_uri=shop)).status_code == 400
    answer = api.post("/_emulator/oauth/settings", {"redirect_uri": "any"}, token=None)
    assert answer.json()["settings"]["redirect_uri"] == "any"
    for callback in (shop, magento):
        assert page(api, authorize_query(redirect_uri=callback)).status_code == 200
        for sent, status in ((callback, 200), (REDIRECT, 400)):
            fields = {k: v[0] for k, v in parse_qs(authorize_query(redirect_uri=callback)).items()}
            back = answer_page(api, {**fields, "email": "seller@example.com", "decision": "allow"})
            assert back.headers["Location"].startswith(callback)
            code = parse_qs(urlsplit(back.headers["Location"]).query)["code"][0]
            # The token call needs the authorisation's own URI, whatever the setting ("a
            # mesma do momento da permissão").
            assert exchange(api, code, redirect_uri=sent).status_code == status
    for refused in ("ftp://loja.example/callback", "https://" + "a" * 343):
        assert page(api, authorize_query(redirect_uri=refused)).status_code == 400, refused
    assert page(api, authorize_query(redirect_uri="https://" + "a" * 342)).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Pub wrong-secret"},
        {"Authorization": f"Bearer {SECRET}"},
    ],
)
def test_the_application_must_prove_itself(api: Api, app, headers) -> None:
    response = exchange(api, consent(api)["code"], headers=headers or {"X-Nothing": "1"})
    assert response.status_code == 401
    assert code_of(response) == "41003"


def test_the_docs_form_a_merchant_bearer_with_client_id_and_secret(api: Api, app) -> None:
    headers = {
        "Authorization": f"Bearer {TOKEN_A}",
        "X_CLIENT_ID": CLIENT_ID,
        "X_CLIENT_SECRET": SECRET,
    }
    assert exchange(api, consent(api)["code"], headers=headers).status_code == 200


@pytest.mark.parametrize("grant_type", ["password", "sms", "challenge"])
def test_grant_types_not_emulated_are_unsupported(api: Api, app, grant_type) -> None:
    response = api.post("/oauth2/token", {"grant_type": grant_type}, token=None, headers=PUB)
    assert code_of(response) == "41005"


# --- acting for the seller ------------------------------------------------------------


def test_an_access_token_acts_for_its_sellers_own_account_only(api: Api, app, recorder) -> None:
    seller_a = connect(api, "seller-a@example.com")
    seller_b = connect(api, "seller-b@example.com")
    assert seller_a["account_id"] != seller_b["account_id"]
    payload = {
        "reference_id": "sale-1",
        "customer": {"name": "Jose da Silva", "email": "jose@example.com", "tax_id": "12345678909"},
        "items": [{"name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        "notification_urls": [NOTIFY_URL],
        "charges": [charge_payload(amount={"value": 500, "currency": "BRL"})],
    }
    created = api.post("/orders", payload, token=seller_a["access_token"])
    assert created.status_code == 201, created.text
    order_id = created.json()["id"]
    assert api.get(f"/orders/{order_id}", token=seller_a["access_token"]).status_code == 200
    assert api.get(f"/orders/{order_id}", token=seller_b["access_token"]).status_code == 404
    assert api.get(f"/orders/{order_id}", token=TOKEN_A).status_code == 404
    listed = api.get("/_emulator/orders", token=None).json()["orders"]
    assert order_id in listed
    assert api.emulator._state.orders[order_id].account == seller_a["account_id"]


def test_an_access_token_is_taken_without_bearer_as_the_official_plugin_sends_it(
    api: Api, app
) -> None:
    seller = connect(api, "seller-a@example.com")
    bare = {"Authorization": seller["access_token"]}
    payload = {
        "reference_id": "sale-1",
        "customer": {"name": "Jose da Silva", "email": "jose@example.com", "tax_id": "12345678909"},
        "items": [{"name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        "charges": [charge_payload(amount={"value": 500, "currency": "BRL"})],
    }
    created = api.session.post(api.url("/orders"), json=payload, headers=bare, timeout=10)
    assert created.status_code == 201, created.text
    assert api.emulator._state.orders[created.json()["id"]].account == seller["account_id"]


def test_a_token_without_the_scope_is_forbidden(api: Api, app) -> None:
    seller = connect(api, scope="payments.read")
    response = api.post("/orders", {"reference_id": "x"}, token=seller["access_token"])
    assert response.status_code == 403
    # What its scope allows it may do: an unknown order is a 404, not a 403.
    assert (
        api.get(
            "/orders/ORDE_00000000-0000-0000-0000-000000000000", token=seller["access_token"]
        ).status_code
        == 404
    )


def test_a_token_expires_by_the_emulators_clock(api: Api, app) -> None:
    api.post("/_emulator/oauth/settings", {"expires_in": 3600}, token=None)
    seller = connect(api)
    assert seller["expires_in"] == 3600
    key = api.post("/public-keys", {"type": "card"}, token=seller["access_token"])
    assert key.ok, key.text
    api.post("/_emulator/clock", {"advance_seconds": 3599}, token=None)
    assert api.get("/public-keys/card", token=seller["access_token"]).status_code == 200
    api.post("/_emulator/clock", {"advance_seconds": 2}, token=None)
    expired = api.get("/public-keys/card", token=seller["access_token"])
    assert expired.status_code == 401
    assert error_of(expired)["code"] == "UNAUTHORIZED"


def test_a_refresh_rotates_both_tokens_and_spends_the_refresh_token(api: Api, app) -> None:
    seller = connect(api)
    response = api.post(
        "/oauth2/refresh",
        {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]},
        token=None,
        headers=PUB,
    )
    assert response.status_code == 200, response.text
    renewed = response.json()
    assert renewed["access_token"] != seller["access_token"]
    assert renewed["refresh_token"] != seller["refresh_token"]
    assert renewed["account_id"] == seller["account_id"]
    again = api.post(
        "/oauth2/refresh",
        {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]},
        token=None,
        headers=PUB,
    )
    assert again.status_code == 400 and code_of(again) == "41012"
    # The replaced access token works until it expires; the new one too.
    assert api.get("/public-keys/card", token=seller["access_token"]).status_code in (200, 404)
    assert api.get("/public-keys/card", token=renewed["access_token"]).status_code in (200, 404)
    grants = api.get("/_emulator/oauth/grants", token=None).json()["grants"]
    assert [grant["refreshes"] for grant in grants] == [1]


def test_a_refresh_through_the_token_endpoint_too(api: Api, app) -> None:
    seller = connect(api)
    body = {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]}
    assert api.post("/oauth2/token", body, token=None, headers=PUB).status_code == 200


def test_an_unknown_refresh_token_is_an_invalid_grant(api: Api, app) -> None:
    body = {"grant_type": "refresh_token", "refresh_token": "rt-made-up"}
    assert code_of(api.post("/oauth2/refresh", body, token=None, headers=PUB)) == "41004"


def test_another_applications_refresh_token_is_refused(api: Api, app) -> None:
    seller = connect(api)
    other = api.post(
        "/_emulator/oauth/applications",
        {
            "client_id": "other",
            "client_secret": "other-secret",
            "name": "Other",
            "redirect_uri": REDIRECT,
        },
        token=None,
    )
    assert other.status_code == 201
    body = {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]}
    response = api.post(
        "/oauth2/refresh", body, token=None, headers={"Authorization": "Pub other-secret"}
    )
    assert code_of(response) == "41004"


def test_the_seller_revoking_ends_access_and_refresh(api: Api, app) -> None:
    seller = connect(api)
    revoked = api.post("/_emulator/oauth/revoke", {"account_id": seller["account_id"]}, token=None)
    assert revoked.json() == {"revoked": 1}
    assert api.get("/public-keys/card", token=seller["access_token"]).status_code == 401
    body = {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]}
    assert code_of(api.post("/oauth2/refresh", body, token=None, headers=PUB)) == "41012"
    again = api.post("/_emulator/oauth/revoke", {"account_id": seller["account_id"]}, token=None)
    assert again.status_code == 400


def test_the_application_revokes_a_token(api: Api, app) -> None:
    seller = connect(api)
    bad = api.post(
        "/oauth2/revoke", {"token_type_hint": "id_token", "token": "x"}, token=None, headers=PUB
    )
    assert code_of(bad) == "41007"
    response = api.post(
        "/oauth2/revoke",
        {"token_type_hint": "access_token", "token": seller["access_token"]},
        token=None,
        headers=PUB,
    )
    assert response.status_code == 200
    assert api.get("/public-keys/card", token=seller["access_token"]).status_code == 401


def test_consenting_again_replaces_the_earlier_grant(api: Api, app) -> None:
    first = connect(api)
    second = connect(api)
    assert api.get("/public-keys/card", token=first["access_token"]).status_code == 401
    assert api.get("/public-keys/card", token=second["access_token"]).status_code != 401


# --- the registry ---------------------------------------------------------------------


def test_a_merchant_creates_and_reads_its_application(api: Api) -> None:
    created = api.post(
        "/oauth2/application",
        {"name": "Loja", "redirect_uri": REDIRECT, "site": "https://loja.example"},
    )
    assert created.status_code == 201, created.text
    app = created.json()
    assert app["client_secret"] and app["client_id"]
    shown = api.get(f"/oauth2/application/{app['client_id']}")
    assert shown.status_code == 200
    assert "client_secret" not in shown.json()
    assert shown.json()["name"] == "Loja"
    other = api.get(f"/oauth2/application/{app['client_id']}", token="token-merchant-b")
    assert code_of(other) == "41003"
    assert (
        api.post(
            "/oauth2/application", {"name": "x", "redirect_uri": REDIRECT, "client_id": "mine"}
        ).status_code
        == 400
    )


# --- notifications --------------------------------------------------------------------


def _seller_order(api: Api, token: str) -> str:
    payload = {
        "reference_id": "sale-2",
        "customer": {"name": "Jose da Silva", "email": "jose@example.com", "tax_id": "12345678909"},
        "items": [{"name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        "notification_urls": [NOTIFY_URL],
        "charges": [charge_payload(amount={"value": 500, "currency": "BRL"})],
    }
    created = api.post("/orders", payload, token=token)
    assert created.status_code == 201, created.text
    return created.json()["id"]


@pytest.mark.parametrize("signer", ["account", "application"])
def test_a_sellers_notification_is_signed_as_the_settings_say(
    api: Api, app, recorder, signer
) -> None:
    assert api.post("/_emulator/oauth/settings", {"signer": signer}, token=None).status_code == 200
    seller = connect(api)
    _seller_order(api, seller["access_token"])
    api.emulator.notifier.flush(5)
    [(_, body, headers)] = recorder.calls
    key = seller["access_token"] if signer == "account" else SECRET
    assert headers["x-authenticity-token"] == authenticity_token(key, body)
    assert json.loads(body)["id"].startswith("ORDE_")


def test_a_merchants_own_notification_is_still_signed_with_its_token(
    api: Api, app, recorder
) -> None:
    _seller_order(api, TOKEN_A)
    api.emulator.notifier.flush(5)
    [(_, body, headers)] = recorder.calls
    assert headers["x-authenticity-token"] == authenticity_token(TOKEN_A, body)
    assert api.emulator.accounts[TOKEN_A] == ACCOUNT_A


def test_settings_are_checked_and_a_reset_puts_them_back(api: Api) -> None:
    assert (
        api.post("/_emulator/oauth/settings", {"signer": "nobody"}, token=None).status_code == 400
    )
    assert api.post("/_emulator/oauth/settings", {"expires_in": 0}, token=None).status_code == 400
    assert api.post("/_emulator/oauth/settings", {"ttl": 5}, token=None).status_code == 400
    assert api.post(
        "/_emulator/oauth/settings",
        {"expires_in": 60, "signer": "application", "redirect_uri": "any"},
        token=None,
    ).json() == {"settings": {"expires_in": 60, "signer": "application", "redirect_uri": "any"}}
    assert (
        api.post("/_emulator/oauth/settings", {"redirect_uri": "prefix"}, token=None).status_code
        == 400
    )
    api.post("/_emulator/reset", token=None)
    assert api.get("/_emulator/oauth/settings", token=None).json()["settings"] == {
        "expires_in": 365 * 24 * 3600,
        "signer": "account",
        "redirect_uri": "application",
    }


def test_s256_is_rfc_7636s_example() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert hashlib.sha256(verifier.encode()).digest()


def test_a_state_file_keeps_applications_and_grants_across_a_restart(tmp_path, recorder) -> None:
    import requests

    from django_orderpay.emulator import Emulator
    from django_orderpay.emulator.serving.transport import mount

    from .core_support import ACCOUNT_A, BASE_URL

    path = tmp_path / "emulator.state"

    def api_of(emulator: Emulator) -> Api:
        session = requests.Session()
        return Api(session, mount(session, emulator, BASE_URL, sleep=lambda s: None), emulator)

    first = Emulator({TOKEN_A: ACCOUNT_A}, notification_sender=recorder, state_file=path)
    api = api_of(first)
    api.post(
        "/_emulator/oauth/applications",
        {"client_id": CLIENT_ID, "client_secret": SECRET, "name": "M", "redirect_uri": REDIRECT},
        token=None,
    )
    seller = connect(api)
    first.close()

    again = Emulator({TOKEN_A: ACCOUNT_A}, notification_sender=recorder, state_file=path)
    try:
        api = api_of(again)
        assert api.get("/public-keys/card", token=seller["access_token"]).status_code != 401
        body = {"grant_type": "refresh_token", "refresh_token": seller["refresh_token"]}
        assert api.post("/oauth2/refresh", body, token=None, headers=PUB).status_code == 200
    finally:
        again.close()
