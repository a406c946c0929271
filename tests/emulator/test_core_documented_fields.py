"""Fields PagBank documents on a charge, taken and checked as documented: ``sub_merchant``
(payment facilitators), ``charges[].notification_urls``, ``card.network_token`` and its
``token_data``, ``authentication_method.type`` INAPP, ``card.wallet`` (Google Pay, Apple
Pay). Each example is the use-case page's own, through HTTP."""

from __future__ import annotations

import json

import pytest

from tests.emulator.core_support import charge_payload, error_of, order_payload, raw_card, refusal
from tests.pagbank_docs import docs_example

EXTERNAL_3DS = {"type": "THREEDS", "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=", "eci": "05"}


def docs_charge(name: str) -> dict:
    """The first charge of the docs' example ``name``, its card's year moved forward."""
    charge = docs_example(name)["request"]["charges"][0]
    card = charge["payment_method"].get("card") or {}
    if "exp_year" in card:
        card["exp_year"] = "2031"
    return charge


def create(api, charge):
    return api.post("/orders", order_payload(charges=[charge]))


def test_a_payment_facilitators_sub_merchant_is_taken_and_echoed(api):
    charge = docs_charge("03-1")
    response = create(api, charge)
    assert response.status_code == 201, response.text
    answered = response.json()["charges"][0]
    assert answered["sub_merchant"] == charge["sub_merchant"]
    assert answered["payment_method"]["soft_descriptor"] == "Lojadomeuteste"


@pytest.mark.parametrize(
    ("field", "value", "parameter"),
    [
        ("tax_id", "42167200804", "sub_merchant.tax_id"),  # check digits (documented)
        ("tax_id", "4216720080", "sub_merchant.tax_id"),
        ("name", "Lu", "sub_merchant.name"),  # at least 3 characters
        ("reference_id", None, "sub_merchant.reference_id"),
        ("mcc", "51a9", "sub_merchant.mcc"),
        ("mcc", None, "sub_merchant.mcc"),
    ],
)
def test_a_sub_merchant_follows_the_documented_rules(api, field, value, parameter):
    charge = docs_charge("03-1")
    charge["sub_merchant"][field] = value
    if value is None:
        del charge["sub_merchant"][field]
    code, name = refusal(create(api, charge))
    assert code in ("40001", "40002") and name == f"charges[0].{parameter}"


def test_a_masked_sub_merchant_tax_id_and_the_tables_phone_object_are_taken(api):
    charge = docs_charge("03-1")
    charge["sub_merchant"]["tax_id"] = "421.672.008-03"
    phone = charge["sub_merchant"].pop("phones")[0]
    charge["sub_merchant"]["phone"] = {**phone, "number": "988778877", "type": "BUSINESS"}
    assert create(api, charge).status_code == 201


def test_a_charges_own_notification_url_is_notified(api, recorder):
    charge = docs_charge("03-1")
    url = charge["notification_urls"][0]
    assert create(api, charge).status_code == 201
    api.post("/_emulator/notifications/flush", {}, token=None)
    assert url in {call[0] for call in recorder.calls}
    plain = charge_payload(notification_urls=["http://shop.example.com/n"])  # not HTTPS
    assert refusal(create(api, plain)) == ("40002", "charges[0].notification_urls[0]")
    two = charge_payload(notification_urls=["https://a.example.com/n", "https://b.example.com"])
    assert refusal(create(api, two)) == ("40002", "charges[0].notification_urls")


@pytest.mark.parametrize("name", ["06-1", "06-2", "06-3", "06-4"])
def test_network_tokens_as_the_docs_send_them(api, name):
    charge = docs_charge(name)
    response = create(api, charge)
    assert response.status_code == 201, response.text
    answered = response.json()["charges"][0]
    assert answered["status"] == "PAID"
    card = answered["payment_method"]["card"]
    token = charge["payment_method"]["card"]["network_token"]
    assert (card["first_digits"], card["last_digits"]) == (token[:6], token[-4:])
    sent_data = charge["payment_method"]["card"].get("token_data")
    if sent_data:
        assert card["token_data"] == {k: v for k, v in sent_data.items() if k != "cryptogram"}
    assert token not in response.text and "BNQ1qJkmBYWiAAuzyDDhAoABFA==" not in response.text


def test_a_network_token_is_charged_at_once_and_never_stored(api):
    charge = docs_charge("06-1")
    charge["payment_method"]["capture"] = False
    assert refusal(create(api, charge)) == ("40002", "charges[0].payment_method.capture")
    charge = docs_charge("06-1")
    charge["payment_method"]["card"]["store"] = True
    assert refusal(create(api, charge)) == ("40002", "charges[0].payment_method.card.store")


def test_token_data_in_payment_method_as_the_charge_object_lists_it(api):
    charge = docs_charge("06-1")
    token_data = charge["payment_method"]["card"].pop("token_data")
    charge["payment_method"]["token_data"] = token_data
    response = create(api, charge)
    assert response.status_code == 201, response.text
    assert response.json()["charges"][0]["payment_method"]["card"]["token_data"]["wallet"] == (
        "APPLE_PAY"
    )
    charge["payment_method"]["token_data"] = {**token_data, "wallet": "PAYPAL"}
    assert refusal(create(api, charge)) == (
        "40002",
        "charges[0].payment_method.token_data.wallet",
    )


def test_inapp_authentication_is_echoed_without_a_status(api):
    answered = create(api, docs_charge("06-3")).json()["charges"][0]
    assert answered["payment_method"]["authentication_method"] == {
        "type": "INAPP",
        "eci": "04",
        "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=",
    }
    charge = docs_charge("06-3")
    del charge["payment_method"]["authentication_method"]["cavv"]
    assert refusal(create(api, charge)) == (
        "40001",
        "charges[0].payment_method.authentication_method.cavv",
    )


@pytest.mark.parametrize(("name", "wallet"), [("11-1", "GOOGLE_PAY"), ("12-1", "APPLE_PAY")])
def test_a_wallets_key_pays_once(api, name, wallet):
    charge = docs_charge(name)
    response = create(api, charge)
    assert response.status_code == 201, response.text
    card = response.json()["charges"][0]["payment_method"]["card"]
    assert card["wallet"] == {"type": wallet}
    assert (card["brand"], card["last_digits"]) == ("visa", "9948")
    again = create(api, charge)
    assert again.status_code == 409
    assert error_of(again)["code"] == "40009"
    assert json.dumps(charge["payment_method"]["card"]["wallet"]["key"]) not in again.text


def test_a_card_is_named_by_exactly_one_source(api):
    card = raw_card()
    card["wallet"] = {"type": "GOOGLE_PAY", "key": "{}"}
    assert refusal(create(api, charge_payload(card))) == ("40002", "charges[0].payment_method.card")


def test_an_external_eci_01_is_answered_authenticated_as_the_docs_example(api):
    """The docs' network-token debit sends ``eci: "01"`` and answers AUTHENTICATED."""
    answered = create(api, docs_charge("06-2")).json()["charges"][0]
    assert answered["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"
