"""3-D Secure, debit cards, installment plans with interest and cards stored without a
charge, through the services, the checkout forms, the plans view and the template tag,
on the emulator over HTTP (the browser's part played with requests and cardcrypto)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from django.core.exceptions import ImproperlyConfigured
from django.template import Context, Template
from django.test import override_settings

from django_orderpay import payloads, services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.checkout import (
    CardCheckoutForm,
    DebitCardForm,
    sign_plans,
    threeds_required,
)
from django_orderpay.emulator import CHALLENGE_CODE, THREEDS_NOT_SUPPORTED_CARD
from django_orderpay.exceptions import CardTokenNotOwned, PayloadError, ProviderError
from django_orderpay.models import CardToken, Order
from tests.test_services_support import buyer, order_payload, other_buyer

__all__ = ["buyer", "other_buyer"]

pytestmark = pytest.mark.django_db

FRICTIONLESS = "4000000000002701"
CHALLENGED = "4000000000002503"
NEEDS_AUTHENTICATION = "4000000000003204"


def authenticate(provider, number: str, amount: int, kind: str = "CREDIT_CARD", **extra) -> dict:
    """What the browser SDK does: authenticate3DS against the emulator, with a fresh session."""
    session = services.create_3ds_session().session
    return authenticate_with(provider, session, number, amount, kind, **extra).json()


def authenticate_with(
    provider, session: str, number: str, amount: int, kind: str = "CREDIT_CARD", **extra
) -> requests.Response:
    """``authenticate3DS`` with ``session``: the emulator's answer."""
    data = {
        "customer": {"name": "Jose da Silva", "email": "jose@example.com"},
        "paymentMethod": {
            "type": kind,
            "installments": extra.pop("installments", 1),
            "card": {"number": number, "expMonth": "12", "expYear": "2030"},
        },
        "amount": {"value": amount, "currency": "BRL"},
        "billingAddress": {"street": "Av. Paulista", "postalCode": "01311300"},
    }
    return requests.post(
        provider.base_url + "/checkout-sdk/authentications",
        json={"session": session, "data": data},
        timeout=5,
    )


def encrypted(provider, number: str) -> str:
    return encrypt_card(
        provider.emulator.public_key,
        number=number,
        security_code="123",
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )


def open_order(user=None) -> Order:
    return services.create_order(order_payload(charges=None), user=user)


def posted(provider, number: str, **fields: Any) -> dict[str, Any]:
    return {
        "encrypted_card": encrypted(provider, number),
        "holder_name": "Jose da Silva",
        "installments": "1",
        **fields,
    }


def test_session_is_made_on_the_server_for_the_environment(orderpay_emulator):
    session = services.create_3ds_session()
    assert len(session.session) == 64
    assert session.env == "SANDBOX"
    assert session.expires_at is not None
    assert session.session not in repr(session)


def test_3ds_form_pays_with_the_authentication_once(orderpay_emulator):
    order = open_order()
    result = authenticate(orderpay_emulator, FRICTIONLESS, 500)
    data = posted(orderpay_emulator, FRICTIONLESS, authentication_id=result["id"])
    form = CardCheckoutForm(data, threeds=True, amount=500, request=None)
    assert form.is_valid(), form.errors
    paid = form.pay(order, 500)
    charge = paid.charges.get()
    assert (charge.status, charge.payment_method) == ("PAID", "CREDIT_CARD")
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"

    # The same id again (a replayed post): refused by the provider, named on the form.
    again = CardCheckoutForm(dict(data), threeds=True, amount=500, request=None)
    assert again.is_valid()
    second = open_order()
    assert again.pay(second, 500) is None
    assert again.non_field_errors() and not second.charges.exists()


def test_3ds_form_needs_an_authentication_and_not_supported_is_refused_by_default(
    orderpay_emulator,
):
    missing = CardCheckoutForm(
        posted(orderpay_emulator, FRICTIONLESS), threeds=True, amount=500, request=None
    )
    assert not missing.is_valid()
    assert "not authenticated by its bank" in str(missing.errors)
    # AUTH_NOT_SUPPORTED is the browser's word: a card tester types it for any card.
    data = posted(orderpay_emulator, CHALLENGED, authentication_status="AUTH_NOT_SUPPORTED")
    form = CardCheckoutForm(data, threeds=True, amount=500, request=None)
    assert form.allow_not_supported is False
    assert not form.is_valid()
    assert "does not authenticate this card" in str(form.errors)


def test_not_supported_pays_unauthenticated_only_where_the_shop_opts_in(
    orderpay_emulator, orderpay, admin_client
):
    data = posted(
        orderpay_emulator, THREEDS_NOT_SUPPORTED_CARD, authentication_status="AUTH_NOT_SUPPORTED"
    )
    orderpay(THREEDS_ALLOW_NOT_SUPPORTED=True)
    form = CardCheckoutForm(data, threeds=True, amount=500, request=None)
    assert form.is_valid(), form.errors
    charge = form.pay(open_order(), 500).charges.get()
    assert charge.status == "PAID"
    assert "authentication_method" not in charge.data["payment_method"]
    # The admin says the charge went without 3-D Secure.
    page = admin_client.get(f"/admin/django_orderpay/charge/{charge.pk}/change/")
    assert "not authenticated: sent without 3-D Secure" in page.content.decode()
    # The form's own argument wins over the setting, both ways.
    strict = CardCheckoutForm(
        dict(data), threeds=True, allow_not_supported=False, amount=500, request=None
    )
    assert not strict.is_valid()
    orderpay(THREEDS_ALLOW_NOT_SUPPORTED=False)
    lenient = CardCheckoutForm(
        dict(data), threeds=True, allow_not_supported=True, amount=500, request=None
    )
    assert lenient.is_valid()


def test_the_form_follows_the_threeds_setting_which_is_always_by_default(settings):
    settings.ORDERPAY = {k: v for k, v in settings.ORDERPAY.items() if k != "THREEDS"}
    assert CardCheckoutForm(amount=500, request=None).threeds is True
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "never"}
    assert CardCheckoutForm(amount=500, request=None).threeds is False
    assert CardCheckoutForm(amount=500, threeds=True, request=None).threeds is True


def test_challenge_failed_leaves_no_id_and_nothing_is_charged(orderpay_emulator):
    result = authenticate(orderpay_emulator, CHALLENGED, 500)
    assert result["status"] == "REQUIRE_CHALLENGE"
    requests.post(result["challenge"]["url"], json={"cancel": True}, timeout=5)
    data = posted(orderpay_emulator, CHALLENGED, authentication_id=result["id"])
    form = CardCheckoutForm(data, threeds=True, amount=500, request=None)
    assert form.is_valid()
    order = open_order()
    assert form.pay(order, 500) is None
    assert form.non_field_errors()
    assert not order.charges.exists()


def test_after_decline_mode_asks_for_3ds_only_after_a_20159(orderpay_emulator):
    order = open_order()
    with override_settings(ORDERPAY={**_orderpay(), "THREEDS": "after_decline"}):
        assert not threeds_required(order)
        form = CardCheckoutForm(
            posted(orderpay_emulator, NEEDS_AUTHENTICATION), amount=500, request=None
        )
        assert form.is_valid()
        declined = form.pay(order, 500).charges.get()
        assert declined.payment_response_code == "20159"
        assert threeds_required(order)

        result = authenticate(orderpay_emulator, NEEDS_AUTHENTICATION, 500)
        data = posted(orderpay_emulator, NEEDS_AUTHENTICATION, authentication_id=result["id"])
        form = CardCheckoutForm(data, threeds=threeds_required(order), amount=500, request=None)
        assert form.is_valid()
        statuses = sorted(form.pay(order, 500).charges.values_list("status", flat=True))
        assert statuses == ["DECLINED", "PAID"]
    assert threeds_required(order, mode="always")
    assert not threeds_required(order, mode="never")


def _orderpay() -> dict[str, Any]:
    from django.conf import settings

    return dict(settings.ORDERPAY)


# --- debit -----------------------------------------------------------------------------


def test_debit_is_refused_without_authentication_and_paid_with_it(orderpay_emulator, buyer):
    plain = payloads.ChargeRequest(
        amount=500,
        payment_method=payloads.PaymentMethod(
            card=payloads.Card.from_encrypted(
                encrypted(orderpay_emulator, FRICTIONLESS), holder="Jose da Silva"
            ),
            type="DEBIT_CARD",
        ),
    )
    with pytest.raises(PayloadError, match="authentication_method"):
        services.pay_order(open_order(), [plain])
    # A dict body is held to the same rule.
    with pytest.raises(PayloadError, match="authentication_method"):
        services.pay_order(open_order(), [_debit_dict(orderpay_emulator)])

    form = DebitCardForm(
        posted(orderpay_emulator, FRICTIONLESS), amount=500, user=buyer, request=None
    )
    assert "installments" not in form.fields and "save_card" not in form.fields
    assert not form.is_valid()
    result = authenticate(orderpay_emulator, FRICTIONLESS, 500, kind="DEBIT_CARD")
    data = posted(orderpay_emulator, FRICTIONLESS, authentication_id=result["id"])
    form = DebitCardForm(data, amount=500, user=buyer, request=None)
    assert form.is_valid(), form.errors
    charge = form.pay(open_order(), 500).charges.get()
    assert (charge.status, charge.payment_method, charge.installments) == (
        "PAID",
        "DEBIT_CARD",
        1,
    )


def _debit_dict(provider) -> dict[str, Any]:
    return {
        "amount": {"value": 500, "currency": "BRL"},
        "payment_method": {
            "type": "DEBIT_CARD",
            "installments": 1,
            "capture": True,
            "card": {
                "encrypted": encrypted(provider, FRICTIONLESS),
                "holder": {"name": "Jose da Silva"},
            },
        },
    }


def test_debit_not_supported_is_stopped_by_the_form(orderpay_emulator):
    data = posted(
        orderpay_emulator, THREEDS_NOT_SUPPORTED_CARD, authentication_status="AUTH_NOT_SUPPORTED"
    )
    form = DebitCardForm(data, amount=500, request=None)
    assert not form.is_valid()
    assert "cannot be authenticated for debit" in str(form.errors)


# --- installment plans --------------------------------------------------------------------


def test_plans_are_cached_by_bin(orderpay_emulator):
    plans = services.installment_plans(10000, card_bin="411111", max_installments_no_interest=3)
    assert [p.installments for p in plans] == list(range(1, 13))
    assert plans[2].interest_free and plans[2].total == 10000
    assert (plans[3].total, plans[3].interest, plans[3].interest_installments) == (10349, 349, 1)
    orderpay_emulator.control("POST", "options", {"fees_configured": False})
    # Cached: the same BIN is answered without asking; another BIN asks, and is refused.
    again = services.installment_plans(10000, card_bin="411111", max_installments_no_interest=3)
    assert again == plans
    with pytest.raises(ProviderError, match="fees_not_configured"):
        services.installment_plans(10000, card_bin="524008", max_installments_no_interest=3)
    with pytest.raises(PayloadError, match="card_bin"):
        services.installment_plans(10000, card_bin="41111")


def test_the_docs_plans_and_their_8x_charge(orderpay_emulator):
    """PagBank's example: R$ 100,00, up to 10x, the shop absorbing 4. The 8x plan charges
    10887 with ``interest{total: 887, installments: 4}``; the 5x plan's interest is on 1."""
    plans = services.installment_plans(
        10000, card_bin="552100", max_installments=10, max_installments_no_interest=4
    )
    assert [p.total for p in plans] == [10000] * 4 + [10349, 10526, 10706, 10887, 11071, 11256]
    five, eight = plans[4], plans[7]
    assert (five.interest, five.interest_installments) == (349, 1)
    assert eight.amount().to_dict() == {
        "value": 10887,
        "currency": "BRL",
        "fees": {"buyer": {"interest": {"total": 887, "installments": 4}}},
    }
    data = posted(orderpay_emulator, "5240082975622454", installments="8", card_bin="524008")
    form = CardCheckoutForm(
        data,
        fee_plans=True,
        amount=10000,
        max_installments=10,
        max_installments_no_interest=4,
        request=None,
    )
    assert form.is_valid(), form.errors
    charge = form.pay(open_order(), 10000).charges.get()
    assert (charge.status, charge.amount_value, charge.installments) == ("PAID", 10887, 8)
    assert charge.data["amount"]["fees"]["buyer"]["interest"] == {"total": 887, "installments": 4}


def test_plan_form_charges_the_total_with_the_buyer_interest(orderpay_emulator):
    data = posted(orderpay_emulator, "4111111111111111", installments="4", card_bin="411111")
    form = CardCheckoutForm(data, fee_plans=True, amount=10000, request=None)
    assert form.is_valid(), form.errors
    charge = form.pay(open_order(), 10000).charges.get()
    assert (charge.amount_value, charge.installments) == (10887, 4)
    assert charge.data["amount"]["fees"] == {
        "buyer": {"interest": {"total": 887, "installments": 4}}
    }
    no_bin = CardCheckoutForm(
        posted(orderpay_emulator, "4111111111111111", installments="4"),
        fee_plans=True,
        amount=10000,
        request=None,
    )
    assert not no_bin.is_valid()
    too_many = CardCheckoutForm(
        posted(orderpay_emulator, "4111111111111111", installments="13", card_bin="411111"),
        fee_plans=True,
        amount=10000,
        request=None,
    )
    assert not too_many.is_valid()


def test_plans_view_answers_only_signed_parameters(client, orderpay_emulator):
    token = sign_plans(10000, 12, 0)
    answer = client.get("/orderpay/installments/", {"bin": "411111", "plans": token})
    assert answer.status_code == 200
    plans = answer.json()["plans"]
    assert plans[0] == {
        "installments": 1,
        "label": "1x R$ 100.00 (no interest)",
        "total": 10000,
        "total_display": "R$ 100.00",
    }
    # 4 x 27.22 is 108.88: the first installment carries the cent less.
    assert plans[3]["label"] == "4x: the first R$ 27.21 and 3x R$ 27.22 (total R$ 108.87)"
    tampered = client.get("/orderpay/installments/", {"bin": "411111", "plans": token + "x"})
    assert tampered.status_code == 400
    assert client.get("/orderpay/installments/", {"bin": "4111", "plans": token}).status_code == 400
    pt = client.get(
        "/orderpay/installments/", {"bin": "411111", "plans": token}, HTTP_ACCEPT_LANGUAGE="pt-br"
    )
    assert (
        pt.json()["plans"][3]["label"] == "4x: a primeira R$ 27,21 e 3x R$ 27,22 (total R$ 108,87)"
    )


def test_card_form_tag_carries_the_session_never_the_token(orderpay_emulator):
    order = open_order()
    form = CardCheckoutForm(threeds=True, fee_plans=True, amount=500, request=None)
    html = Template("{% load orderpay %}{% orderpay_card_form form order=order %}").render(
        Context({"form": form, "order": order})
    )
    assert orderpay_emulator.token not in html
    start = html.index('data-orderpay-3ds="') + len('data-orderpay-3ds="')
    raw = html[start : html.index('"', start)].replace("&quot;", '"')
    config = json.loads(raw.replace("&#x27;", "'").replace("&amp;", "&"))
    assert len(config["session"]) == 64 and config["env"] == "SANDBOX"
    assert (config["type"], config["amount"]) == ("CREDIT_CARD", 500)
    assert config["customer"]["email"] == order.customer_email
    assert config["billingAddress"]["postalCode"]
    assert 'name="authentication_id"' in html and 'name="card_bin"' in html
    assert "data-orderpay-plans-url" in html


# --- cards stored without a charge --------------------------------------------------------


def test_card_stored_without_a_charge_then_pays_for_its_owner_only(
    orderpay_emulator, buyer, other_buyer
):
    card = payloads.Card.from_encrypted(
        encrypted(orderpay_emulator, "5240082975622454"), holder="Jose da Silva"
    )
    token = services.store_card(card, user=buyer)
    assert (token.user, token.brand, token.last_digits) == (buyer, "mastercard", "2454")
    assert not Order.objects.exists()  # nothing was charged
    paid = services.pay_with_card_token(open_order(buyer), token, user=buyer)
    assert paid.charges.get().status == "PAID"
    with pytest.raises(CardTokenNotOwned):
        services.pay_with_card_token(open_order(other_buyer), token, user=other_buyer)
    # Stored again: the owner's older token of the same card is replaced, listed once.
    again = services.store_card(card, user=buyer)
    assert list(CardToken.objects.active().filter(user=buyer)) == [again]


def test_store_card_refusals(orderpay_emulator, buyer):
    declined = payloads.Card.from_encrypted(
        encrypted(orderpay_emulator, "4929291898380766"), holder="Jose da Silva"
    )
    with pytest.raises(ProviderError, match="card_cannot_be_stored"):
        services.store_card(declined, user=buyer)
    with pytest.raises(PayloadError, match="user"):
        services.store_card(declined, user=None)
    with pytest.raises(PayloadError, match="card"):
        services.store_card(payloads.Card.token("CARD_X"), user=buyer)
    assert not CardToken.objects.exists()


def test_challenge_code_is_the_documented_one(orderpay_emulator):
    result = authenticate(orderpay_emulator, CHALLENGED, 500)
    passed = requests.post(result["challenge"]["url"], json={"code": CHALLENGE_CODE}, timeout=5)
    assert passed.json()["status"] == "AUTH_FLOW_COMPLETED"


def test_challenge_page_listens_before_its_form_can_be_answered(orderpay_emulator):
    # A shopper (or a test) can answer as soon as the form shows: a listener added at
    # the end of the body missed that answer, and the form went out as a plain GET.
    result = authenticate(orderpay_emulator, CHALLENGED, 500)
    page = requests.get(result["challenge"]["url"], timeout=5).text
    head, body = page.split("</head>")
    assert 'document.addEventListener("submit"' in head
    assert "<script" not in body


# --- admin ----------------------------------------------------------------------------------


def test_admin_shows_the_debit_type_the_3ds_result_and_the_interest(orderpay_emulator):
    from tests.admin_support import change, client_for, make_user

    result = authenticate(orderpay_emulator, FRICTIONLESS, 500, kind="DEBIT_CARD")
    form = DebitCardForm(
        posted(orderpay_emulator, FRICTIONLESS, authentication_id=result["id"]),
        amount=500,
        request=None,
    )
    assert form.is_valid()
    debit = form.pay(open_order(), 500).charges.get()
    plan = CardCheckoutForm(
        posted(orderpay_emulator, "4111111111111111", installments="4", card_bin="411111"),
        fee_plans=True,
        amount=10000,
        request=None,
    )
    assert plan.is_valid()
    credit = plan.pay(open_order(), 10000).charges.get()
    boss = client_for(make_user("boss", superuser=True))

    page = boss.get(change("charge", debit.pk)).content.decode()
    assert "Debit card" in page
    assert f"authenticated ({result['id']})" in page
    page = boss.get(change("charge", credit.pk)).content.decode()
    assert "R$ 8.87" in page  # the buyer's interest of 4 installments of R$ 100.00
    pt = boss.get(change("charge", debit.pk), HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Cartão de débito" in pt and f"autenticado ({result['id']})" in pt


def card_form_config(order=None, form=None) -> dict[str, Any]:
    form = form or CardCheckoutForm(threeds=True, amount=500, request=None)
    html = Template("{% load orderpay %}{% orderpay_card_form form order=order %}").render(
        Context({"form": form, "order": order or open_order()})
    )
    start = html.index('data-orderpay-3ds="') + len('data-orderpay-3ds="')
    raw = html[start : html.index('"', start)].replace("&quot;", '"')
    return json.loads(raw.replace("&#x27;", "'").replace("&amp;", "&"))


def test_a_page_left_open_past_30_minutes_gets_a_new_session(client, orderpay_emulator):
    """A 3-D Secure session lasts 30 minutes (PagBank's guide: then a new one, and setUp
    again). The page carries where to ask for a fresh one; checkout.js asks before each
    authentication, as the official plugin does."""
    order = open_order()
    config = card_form_config(order)
    orderpay_emulator.advance_clock(31 * 60)
    stale = authenticate_with(orderpay_emulator, config["session"], FRICTIONLESS, 500)
    assert stale.status_code == 400  # the page's own session has expired

    renewed = client.post(config["sessionUrl"], {"token": config["sessionToken"]})
    assert renewed.status_code == 200, renewed.content
    fresh = renewed.json()
    assert fresh["env"] == "SANDBOX" and fresh["session"] != config["session"]
    assert orderpay_emulator.token not in renewed.content.decode()
    result = authenticate_with(orderpay_emulator, fresh["session"], FRICTIONLESS, 500).json()
    assert result["status"] == "AUTH_FLOW_COMPLETED"
    form = CardCheckoutForm(
        posted(orderpay_emulator, FRICTIONLESS, authentication_id=result["id"]),
        threeds=True,
        amount=500,
        request=None,
    )
    assert form.is_valid(), form.errors
    assert form.pay(order, 500).charges.get().status == "PAID"


def test_the_session_view_answers_only_a_token_this_shop_made(client, orderpay_emulator):
    config = card_form_config()
    url = config["sessionUrl"]
    assert client.post(url, {"token": config["sessionToken"] + "x"}).status_code == 400
    assert client.post(url, {}).status_code == 400
    assert client.get(url, {"token": config["sessionToken"]}).status_code == 405
    orderpay_emulator.inject_fault("http_500_json", path_prefix="/checkout-sdk/sessions")
    failed = client.post(url, {"token": config["sessionToken"]})
    assert failed.status_code == 502 and "session" not in failed.json()


# --- the card form without the shopper 3-D Secure needs ------------------------------------

CARD_FORM = "{% load orderpay %}{% orderpay_card_form form %}"


def test_card_form_without_the_shopper_fails_to_render_in_debug(orderpay_emulator, settings):
    settings.DEBUG = True
    form = CardCheckoutForm(threeds=True, amount=500, request=None)
    with pytest.raises(ImproperlyConfigured) as raised:
        Template(CARD_FORM).render(Context({"form": form}))
    message = str(raised.value)
    assert "customer name, customer email, billing address" in message
    assert "order=" in message and "customer=" in message and "address=" in message


def test_card_form_without_the_shopper_renders_and_logs_in_production(
    orderpay_emulator, settings, caplog
):
    settings.DEBUG = False
    form = CardCheckoutForm(threeds=True, amount=500, request=None)
    with caplog.at_level("ERROR", logger="django_orderpay.templatetags"):
        html = Template(CARD_FORM).render(Context({"form": form}))
    assert "data-orderpay-3ds=" in html
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert "runs 3-D Secure but has no customer name" in record.getMessage()


def test_card_form_with_customer_and_address_or_an_order_says_nothing(
    orderpay_emulator, settings, caplog
):
    settings.DEBUG = True
    form = CardCheckoutForm(threeds=True, amount=500, request=None)
    customer = payloads.Customer(
        name="Jose da Silva", email="jose@example.com", tax_id="12345678909"
    )
    address = {
        "street": "Av. Paulista",
        "number": "1000",
        "city": "Sao Paulo",
        "region_code": "SP",
        "country": "BRA",
        "postal_code": "01311300",
    }
    with caplog.at_level("ERROR"):
        Template(
            "{% load orderpay %}{% orderpay_card_form form customer=customer address=address %}"
        ).render(Context({"form": form, "customer": customer, "address": address}))
        Template("{% load orderpay %}{% orderpay_card_form form order=order %}").render(
            Context({"form": form, "order": open_order()})
        )
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []


@pytest.mark.parametrize(
    ("customer", "address", "missing"),
    [
        ({"name": "Jose", "email": "j@example.com"}, {}, ["billing address"]),
        ({"name": "Jose"}, {"street": "x"}, ["customer email"]),
        ({"email": "j@example.com"}, {"street": "x"}, ["customer name"]),
        ({"name": "Jose", "email": "j@example.com"}, {"street": "x"}, []),
    ],
)
def test_what_3ds_needs_of_the_shopper(customer, address, missing):
    from django_orderpay.templatetags._threeds import missing_shopper

    assert missing_shopper(customer, address) == missing


def test_a_card_form_without_3ds_needs_no_shopper(orderpay_emulator, settings):
    settings.DEBUG = True
    html = Template(CARD_FORM).render(Context({"form": CardCheckoutForm(amount=500, request=None)}))
    assert "data-orderpay-3ds" not in html or 'data-orderpay-3ds=""' in html
