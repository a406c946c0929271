"""The emulator's hosted Checkout over HTTP: the API, its lifecycle, the page's JSON calls.

The page in a browser is tested in ``tests/browser/test_hosted_checkout.py``;
here its endpoints are called as its script calls them, with a card
encrypted by ``cardcrypto`` under the emulator's key.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.testing import checkout_samples
from tests.emulator.core_support import TOKEN_A, TOKEN_B

NOTIFY = "https://shop.example.com/orderpay/notifications/"
SHOP = "https://shop.example.com/orders/1/"


def checkout_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "reference_id": "shop-1",
        "items": [
            {"reference_id": "sku-1", "name": "Camiseta", "quantity": 2, "unit_amount": 5990}
        ],
        "redirect_url": SHOP,
        "notification_urls": [NOTIFY],
        "payment_notification_urls": [NOTIFY],
    }
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not None}


def create(api, **overrides: Any) -> dict[str, Any]:
    response = api.post("/checkouts", checkout_body(**overrides))
    assert response.status_code == 201, response.text
    return response.json()


def refused(api, body: dict[str, Any]) -> tuple[str, str | None]:
    """``(error, parameter_name)`` of a refused create (asserting a 400 in the Checkout shape)."""
    response = api.post("/checkouts", body)
    assert response.status_code == 400, response.text
    (entry,) = response.json()["error_messages"]
    assert set(entry) <= {"error", "description", "parameter_name"}
    return entry["error"], entry.get("parameter_name")


def code_of(checkout: dict[str, Any]) -> str:
    pay = next(link["href"] for link in checkout["links"] if link["rel"] == "PAY")
    return parse_qs(urlsplit(pay).query)["code"][0]


def page_pay(api, checkout: dict[str, Any], body: dict[str, Any]):
    return api.post(f"/pagamento/{code_of(checkout)}", body, token=None)


def encrypted(api, number: str = "4111111111111111") -> dict[str, Any]:
    blob = encrypt_card(
        api.emulator.public_key,
        number=number,
        exp_month="12",
        exp_year="2030",
        security_code="123",
        holder="Jose da Silva",
    )
    return {"encrypted": blob, "holder": {"name": "Jose da Silva"}}


BUYER = {"name": "Jose da Silva", "email": "jose@example.com", "tax_id": "12345678909"}


# --- the documented example ------------------------------------------------------------


def test_the_documented_request_is_answered_as_documented(api):
    api.post("/_emulator/clock", {"now": checkout_samples.CREATED_AT})
    response = api.post("/checkouts", checkout_samples.create_request())

    assert response.status_code == 201, response.text
    answer = response.json()
    documented = checkout_samples.create_response()
    assert list(answer) == list(documented)
    for key in documented:
        if key in ("id", "customer", "links"):
            continue
        assert answer[key] == documented[key], key
    # The documented answer shows its customer as "João Teste" with zeros; the sent one stays.
    assert answer["customer"] == checkout_samples.create_request()["customer"]
    assert answer["id"].startswith("CHEC_")
    assert [(link["rel"], link["method"]) for link in answer["links"]] == [
        (link["rel"], link["method"]) for link in documented["links"]
    ]
    assert answer["links"][1]["href"].endswith(f"/checkouts/{answer['id']}")


def test_a_checkout_expires_two_hours_after_it_is_made_unless_told(api):
    now = datetime.fromisoformat(create(api)["created_at"])
    made = create(api)
    assert datetime.fromisoformat(made["expiration_date"]) - now == timedelta(hours=2)

    later = (now + timedelta(days=1)).isoformat()
    assert create(api, expiration_date=later)["expiration_date"] == later


# --- validation, by the Checkout API's named errors --------------------------------------


@pytest.mark.parametrize(
    ("overrides", "error", "field"),
    [
        ({"items": None}, "field_cannot_be_empty", "items"),
        ({"items": []}, "field_cannot_be_empty", "items"),
        ({"items": [{"quantity": 1}]}, "field_cannot_be_empty", "items[0].unit_amount"),
        ({"items": [{"quantity": 0, "unit_amount": 1}]}, "invalid_value", "items[0].quantity"),
        (
            {"items": [{"quantity": 1, "unit_amount": 999_999_901}]},
            "invalid_value",
            "items[0].unit_amount",
        ),
        ({"items": [{"quantity": "1", "unit_amount": 5}]}, "invalid_format", "items[0].quantity"),
        ({"reference_id": "r" * 65}, "invalid_length", "reference_id"),
        ({"soft_descriptor": "s" * 18}, "invalid_length", "soft_descriptor"),
        ({"redirect_url": "shop.example.com"}, "invalid_value", "redirect_url"),
        (
            {"payment_notification_urls": ["http"]},
            "invalid_list_element_value",
            "payment_notification_urls[0]",
        ),
        (
            {"payment_notification_urls": ["https://x.example/" + "a" * 83]},
            "invalid_list_element_length",
            "payment_notification_urls[0]",
        ),
        (
            {"notification_urls": ["https://x.example/" + "a" * 83]},
            "invalid_list_element_length",
            "notification_urls[0]",
        ),
        ({"expiration_date": "2020-01-01T00:00:00-03:00"}, "invalid_value", "expiration_date"),
        ({"expiration_date": "tomorrow"}, "invalid_format", "expiration_date"),
        ({"discount_amount": 11_981}, "invalid_discount_value", "discount_amount"),
        ({"customer_modifiable": False}, "field_cannot_be_empty", "customer"),
        (
            {"customer_modifiable": False, "customer": {**BUYER}},
            "field_cannot_be_empty",
            "customer.phone",
        ),
        (
            {
                "customer": {
                    **BUYER,
                    "phone": {"country": "+55", "area": "11", "number": "812345678"},
                }
            },
            "invalid_value",
            "customer.phone.number",
        ),
        ({"customer": {**BUYER, "tax_id": "12345678900"}}, "invalid_value", "customer.tax_id"),
        ({"customer": {"email": "j@x.co"}}, "invalid_length", "customer.email"),
        (
            {"shipping": {"type": "FIXED"}},
            "invalid_fixed_shipping_configuration",
            "shipping.amount",
        ),
        ({"shipping": {"type": "CALCULATE"}}, "invalid_calculate_shipping_config", "shipping.box"),
        ({"shipping": {"type": "TELEPORT"}}, "invalid_enum", "shipping.type"),
        (
            {"shipping": {"type": "FREE", "address_modifiable": False}},
            "invalid_unmodifiable_address",
            "shipping.address",
        ),
        ({"payment_methods": [{"type": "CHEQUE"}]}, "invalid_enum", "payment_methods[0].type"),
        (
            {"payment_methods": [{"type": "PIX", "brands": ["visa"]}]},
            "field_brands_is_not_compatible_with_payment_method",
            "payment_methods[0].brands",
        ),
        (
            {
                "payment_methods": [{"type": "PIX"}],
                "payment_methods_configs": [
                    {
                        "type": "CREDIT_CARD",
                        "config_options": [{"option": "INSTALLMENTS_LIMIT", "value": "3"}],
                    }
                ],
            },
            "inconsistent_checkout_payment_method_configs",
            "payment_methods_configs[0].type",
        ),
        (
            {
                "payment_methods_configs": [
                    {
                        "type": "CREDIT_CARD",
                        "config_options": [
                            {"option": "INSTALLMENTS_LIMIT", "value": "3"},
                            {"option": "installments_limit", "value": "4"},
                        ],
                    }
                ]
            },
            "repeated_options",
            "payment_methods_configs[0].config_options[1].option",
        ),
        (
            {
                "payment_methods_configs": [
                    {
                        "type": "CREDIT_CARD",
                        "config_options": [{"option": "CASHBACK", "value": "1"}],
                    }
                ]
            },
            "invalid_config_option",
            "payment_methods_configs[0].config_options[0].option",
        ),
        (
            {"recurrence_plan": {"name": "Mensal"}},
            "recurrent_checkout_disabled",
            "recurrence_plan",
        ),
    ],
)
def test_a_bad_field_is_refused_by_its_name(api, overrides, error, field):
    assert refused(api, checkout_body(**overrides)) == (error, field)


def test_the_limits_themselves_are_accepted(api):
    phone = {"country": "55", "area": "11", "number": "912345678"}
    made = create(
        api,
        reference_id="r" * 64,
        soft_descriptor="s" * 17,
        discount_amount=11_980,
        additional_amount=1,
        payment_notification_urls=["https://x.example/" + "a" * 82],
        customer={**BUYER, "email": "j@xample.co", "phone": phone},
        items=[{"quantity": 1, "unit_amount": 999_999_900}, {"quantity": 1, "unit_amount": 11_979}],
    )
    assert made["status"] == "ACTIVE"
    assert made["discount_amount"] == 11_980
    assert "name" not in made["items"][0]  # items need only quantity and unit_amount


def test_the_discount_may_equal_the_items_plus_the_additional_amount_not_exceed_it(api):
    # "Não deve superar a soma do valor dos itens com o valor adicional": the sum itself is
    # taken, a cent more is not. Shipping is no part of it (here it keeps the total above 0).
    items = [{"quantity": 2, "unit_amount": 5990}]  # 11 980
    shipping = {"type": "FIXED", "amount": 1500}
    made = create(api, items=items, additional_amount=20, discount_amount=12_000, shipping=shipping)
    assert made["discount_amount"] == 12_000
    assert refused(
        api,
        checkout_body(items=items, additional_amount=20, discount_amount=12_001, shipping=shipping),
    ) == ("invalid_discount_value", "discount_amount")


def test_fields_the_api_does_not_know_are_dropped_not_refused(api):
    # A sandbox capture: qr_codes and customer.phones sent to /checkouts, answered 201 without.
    made = create(api, qr_codes=[{"amount": {"value": 1}}], customer={**BUYER, "phones": []})
    assert "qr_codes" not in made
    assert made["customer"] == BUYER


def test_recurrence_with_the_option_follows_its_rules(api):
    api.post("/_emulator/options", {"recurrent_checkout": True})
    plan = {"name": "Mensal", "interval": {"unit": "month", "length": 1}}
    assert refused(api, checkout_body(recurrence_plan=plan, payment_methods=[{"type": "PIX"}])) == (
        "payment_method_not_allowed_for_recurrence",
        "payment_methods",
    )
    two_items = [{"quantity": 1, "unit_amount": 100}] * 2
    assert refused(api, checkout_body(recurrence_plan=plan, items=two_items))[0] == (
        "more_than_one_item_not_allowed_for_recurrence"
    )
    made = create(api, recurrence_plan=plan, items=[{"quantity": 1, "unit_amount": 2990}])
    assert made["recurrence_plan"] == {"name": "Mensal", "interval": {"unit": "MONTH", "length": 1}}


# --- get, activate, inactivate, expiry ----------------------------------------------------


def test_get_lists_the_orders_of_its_page_a_page_at_a_time(api):
    made = create(api)
    for _ in range(3):
        paid = api.post(f"/_emulator/checkouts/{made['id']}/pay", {"method": "PIX"})
        assert paid.status_code == 201, paid.text

    whole = api.get(f"/checkouts/{made['id']}").json()
    assert [order["charges"][0]["status"] for order in whole["orders"]] == ["PAID"] * 3
    assert whole["orders"][0]["reference_id"] == "shop-1"
    second = api.get(f"{api.url('/checkouts/' + made['id'])}?offset=1&limit=1").json()
    assert [order["id"] for order in second["orders"]] == [whole["orders"][1]["id"]]
    assert api.get(f"{api.url('/checkouts/' + made['id'])}?limit=100").status_code == 200
    too_many = api.get(f"{api.url('/checkouts/' + made['id'])}?limit=101")
    assert too_many.status_code == 400
    assert too_many.json()["error_messages"][0]["parameter_name"] == "limit"


@pytest.mark.parametrize("status", [404, 400])
def test_another_merchant_and_an_unknown_id_get_the_same_not_found(api, status):
    # The error table names checkout_not_found without its status; the get, activate and
    # inactivate pages list only 200 and 400: the option picks which the emulator answers.
    api.post("/_emulator/options", {"checkout_not_found_status": status})
    made = create(api)
    calls = [("GET", f"/checkouts/{made['id']}", TOKEN_B), ("GET", "/checkouts/CHEC_NOPE", TOKEN_A)]
    calls += [
        ("POST", f"/checkouts/{made['id']}/{verb}", TOKEN_B) for verb in ("inactivate", "activate")
    ]
    for method, path, token in calls:
        response = api.request(method, path, token=token)
        assert response.status_code == status, path
        assert response.json()["error_messages"][0]["error"] == "checkout_not_found"
    # The control plane is not the Checkout API: its unknown checkout stays a 404.
    assert api.post("/_emulator/checkouts/CHEC_NOPE/expire").status_code == 404
    assert api.post("/_emulator/options", {"checkout_not_found_status": 401}).status_code == 400


def test_inactivate_then_activate_switch_the_page_and_notify(api, recorder):
    made = create(api)
    code = code_of(made)

    off = api.post(f"/checkouts/{made['id']}/inactivate")
    assert off.status_code == 200
    assert off.json()["status"] == "INACTIVE"
    assert [link["rel"] for link in off.json()["links"]] == ["PAY", "SELF", "ACTIVATE"]
    page = api.get(f"/pagamento?code={code}", token=None)
    assert "not available" in page.text
    assert page_pay(api, made, {"method": "PIX", "customer": BUYER}).json()["error"] == (
        "checkout_inactive"
    )

    on = api.post(f"/checkouts/{made['id']}/activate")
    assert on.json()["status"] == "ACTIVE"
    api.emulator.notifier.flush(5)
    statuses = [json.loads(body)["status"] for _, body, _ in recorder.calls]
    assert statuses == ["INACTIVE", "ACTIVE"]
    again = api.post(f"/checkouts/{made['id']}/activate")  # already active: nothing to tell
    assert again.status_code == 200
    api.emulator.notifier.flush(5)
    assert len(recorder.calls) == 2


def test_the_clock_expires_it_and_it_says_so_once_signed_and_named(api, recorder):
    made = create(api)
    api.post("/_emulator/clock", {"advance_seconds": 2 * 3600 - 1})
    assert api.get(f"/checkouts/{made['id']}").json()["status"] == "ACTIVE"
    api.post("/_emulator/clock", {"advance_seconds": 1})

    expired = api.get(f"/checkouts/{made['id']}").json()
    assert expired["status"] == "EXPIRED"
    assert [link["rel"] for link in expired["links"]] == ["PAY", "SELF"]
    api.emulator.notifier.flush(5)
    ((url, body, headers),) = recorder.calls
    assert url == NOTIFY
    assert json.loads(body)["status"] == "EXPIRED"
    assert headers["x-product-id"] == made["id"]
    assert (
        headers["x-authenticity-token"] == hashlib.sha256(f"{TOKEN_A}-".encode() + body).hexdigest()
    )
    for action in ("activate", "inactivate"):
        response = api.post(f"/checkouts/{made['id']}/{action}")
        assert response.status_code == 400
        assert response.json()["error_messages"][0]["error"] == "checkout_expired"
    assert "expired" in api.get(f"/pagamento?code={code_of(made)}", token=None).text


# --- the page's calls ----------------------------------------------------------------


def test_a_card_paid_on_the_page_is_an_order_notified_with_the_checkout(api, recorder):
    made = create(api)
    answer = page_pay(
        api,
        made,
        {"method": "CREDIT_CARD", "customer": BUYER, "card": encrypted(api), "installments": 1},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "PAID"
    assert answer.json()["next"] == SHOP

    order = api.get(f"/orders/{answer.json()['order_id']}").json()
    assert order["reference_id"] == "shop-1"
    assert order["charges"][0]["amount"]["value"] == 11_980
    assert order["items"] == [
        {"reference_id": "sku-1", "name": "Camiseta", "quantity": 2, "unit_amount": 5990}
    ]
    page = api.get(f"/pagamento?code={code_of(made)}", token=None).text
    assert "This checkout has received a payment already." in page  # it may take another
    api.emulator.notifier.flush(5)
    kinds = [json.loads(body)["id"][:5] for _, body, _ in recorder.calls]
    assert sorted(kinds) == ["CHEC_", "ORDE_"]
    assert {headers["x-product-id"] for _, _, headers in recorder.calls} == {made["id"]}


def test_installments_past_the_interest_free_ones_carry_the_fee_tables_interest(api):
    configs = [
        {
            "type": "CREDIT_CARD",
            "config_options": [
                {"option": "INSTALLMENTS_LIMIT", "value": 3},
                {"option": "INTEREST_FREE_INSTALLMENTS", "value": "2"},
            ],
        }
    ]
    made = create(api, payment_methods_configs=configs)
    assert made["payment_methods_configs"][0]["config_options"][0]["value"] == "3"

    def pay(installments: int):
        body = {
            "method": "CREDIT_CARD",
            "customer": BUYER,
            "card": encrypted(api),
            "installments": installments,
        }
        return page_pay(api, made, body)

    assert (
        api.get(f"/orders/{pay(2).json()['order_id']}").json()["charges"][0]["amount"]["value"]
        == 11_980
    )
    three = api.get(f"/orders/{pay(3).json()['order_id']}").json()["charges"][0]["amount"]
    assert three["value"] > 11_980
    assert three["fees"]["buyer"]["interest"]["total"] == three["value"] - 11_980
    assert pay(4).json()["error"] == "invalid_installments"


def test_a_declined_card_says_so_and_the_shopper_may_try_again(api):
    made = create(api)
    body = {"method": "CREDIT_CARD", "customer": BUYER, "card": encrypted(api, "4929291898380766")}
    declined = page_pay(api, made, body)
    assert declined.json()["status"] == "DECLINED"
    assert "declined" in declined.json()["message"]
    approved = page_pay(api, made, {**body, "card": encrypted(api)})
    assert approved.json()["status"] == "PAID"


def test_the_orders_api_refusals_reach_the_page_as_the_field_to_check(api):
    made = create(api)
    answer = page_pay(
        api, made, {"method": "PIX", "customer": {**BUYER, "tax_id": "111"}, "language": "pt-BR"}
    )
    assert answer.status_code == 400
    assert answer.json()["field"] == "customer.tax_id"
    assert answer.json()["message"] == "Confira este campo: CPF ou CNPJ."
    missing = page_pay(api, made, {"method": "PIX", "customer": {"name": "Jose"}})
    assert missing.json() == {
        "error": "customer_required",
        "field": "customer.email",
        "message": "Fill in your name, e-mail and CPF or CNPJ.",
    }


def test_pix_on_the_page_shows_its_qr_code_and_the_bank_app_pays_it(api):
    made = create(api)
    answer = page_pay(api, made, {"method": "PIX", "customer": BUYER}).json()
    assert answer["status"] == "WAITING"
    assert answer["qr_code"]["text"].startswith("000201")
    assert api.get(answer["qr_code"]["image"], token=None).status_code in (200, 501)

    paid = api.post(answer["pay"], {}, token=None)
    assert paid.json() == {"status": "PAID", "next": SHOP}
    assert api.post(answer["pay"], {}, token=None).status_code == 400  # paid once
    order = api.get(f"/orders/{answer['order_id']}").json()
    assert order["charges"][0]["payment_method"]["type"] == "PIX"


def test_a_boleto_on_the_page_waits_with_its_line(api):
    made = create(api, payment_methods=[{"type": "BOLETO"}])
    address = {
        "street": "Rua A",
        "number": "1",
        "locality": "Centro",
        "city": "Recife",
        "region_code": "PE",
        "postal_code": "50000000",
    }
    without = page_pay(api, made, {"method": "BOLETO", "customer": BUYER})
    assert without.json()["error"] == "address_required"
    answer = page_pay(api, made, {"method": "BOLETO", "customer": BUYER, "address": address})
    assert answer.json()["status"] == "WAITING"
    assert answer.json()["boleto"]["line"].startswith("29")
    assert page_pay(api, made, {"method": "PIX", "customer": BUYER}).json()["error"] == (
        "method_not_accepted"
    )


def test_a_customer_the_shop_fixed_is_the_one_charged(api):
    phone = {"country": "+55", "area": "11", "number": "999999999"}
    fixed = {
        "name": "Maria Souza",
        "email": "maria@example.com",
        "tax_id": "12345678909",
        "phone": phone,
    }
    made = create(api, customer=fixed, customer_modifiable=False)
    answer = page_pay(api, made, {"method": "PIX", "customer": {**BUYER, "name": "Someone Else"}})
    order = api.get(f"/orders/{answer.json()['order_id']}").json()
    assert order["customer"]["name"] == "Maria Souza"
    assert order["customer"]["phones"][0]["number"] == "999999999"


def test_the_page_speaks_the_shoppers_language(api):
    made = create(api)
    code = code_of(made)
    english = api.session.get(api.url(f"/pagamento?code={code}"), timeout=5)
    portuguese = api.session.get(
        api.url(f"/pagamento?code={code}"), headers={"Accept-Language": "pt-BR,pt;q=0.9"}, timeout=5
    )
    assert "Pay with PagBank" in english.text and 'lang="en"' in english.text
    assert "Pague com PagBank" in portuguese.text and 'lang="pt-BR"' in portuguese.text
    assert "R$ 119,80" in portuguese.text and "R$ 119.80" in english.text
    chosen = api.session.get(api.url(f"/pagamento?code={code}&lang=pt-BR"), timeout=5)
    assert "Pague com PagBank" in chosen.text
    assert api.get("/pagamento?code=NOPE", token=None).status_code == 404


def test_a_paid_shopper_without_a_redirect_url_lands_on_the_pages_own_end(api):
    made = create(api, redirect_url=None, return_url="https://shop.example.com/")
    answer = page_pay(
        api, made, {"method": "CREDIT_CARD", "customer": BUYER, "card": encrypted(api)}
    )
    done = api.get(answer.json()["next"], token=None)
    assert "Payment received" in done.text
    assert "https://shop.example.com/" in done.text


# --- the control plane --------------------------------------------------------------


def test_the_control_plane_pays_and_expires_without_a_browser(api, recorder):
    made = create(api)
    card = api.post(f"/_emulator/checkouts/{made['id']}/pay", {"method": "CREDIT_CARD"})
    assert card.status_code == 201
    assert card.json()["charges"][0]["status"] == "PAID"
    boleto = api.post(f"/_emulator/checkouts/{made['id']}/pay", {"method": "BOLETO"}).json()
    assert boleto["charges"][0]["status"] == "WAITING"
    waiting = api.post(
        f"/_emulator/checkouts/{made['id']}/pay", {"method": "PIX", "pay_pix": False}
    )
    assert waiting.json()["charges"] == []  # a Pix order has no charge until paid

    expired = api.post(f"/_emulator/checkouts/{made['id']}/expire")
    assert expired.json()["status"] == "EXPIRED"
    assert api.get("/_emulator/checkouts").json() == {"checkouts": [made["id"]]}
    # Orders made before it expired keep their state: expiry cancels nothing.
    assert api.get(f"/orders/{card.json()['id']}").json()["charges"][0]["status"] == "PAID"
    refused_pay = api.post(f"/_emulator/checkouts/{made['id']}/pay", {"method": "PIX"})
    assert refused_pay.status_code == 400


def test_a_reset_forgets_checkouts(api):
    made = create(api)
    api.post("/_emulator/reset")
    assert api.get(f"/checkouts/{made['id']}").status_code == 404
