"""Orders through HTTP: create (raw card, no charges), get, pay; shapes as the samples show."""

from __future__ import annotations

from django_orderpay.testing import samples
from tests.emulator.core_support import (
    BASE_URL,
    CARD_ID,
    CHARGE_ID,
    CUSTOMER,
    ITEMS,
    NOTIFY_URL,
    ORDER_ID,
    SHIPPING,
    TIMESTAMP,
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
)

SAMPLE_ORDER_KEYS = [
    "id",
    "reference_id",
    "created_at",
    "customer",
    "items",
    "shipping",
    "charges",
    "notification_urls",
    "links",
]
SAMPLE_CHARGE_KEYS = [
    "id",
    "reference_id",
    "status",
    "created_at",
    "paid_at",
    "description",
    "amount",
    "payment_response",
    "payment_method",
    "links",
]


def test_one_step_raw_card_with_store_answers_the_sample_field_for_field(api):
    response = api.post("/orders", order_payload(charges=[charge_payload(raw_card(store=True))]))

    assert response.status_code == 201
    assert response.headers["Content-Type"] == "application/json"
    order = response.json()
    assert list(order) == SAMPLE_ORDER_KEYS
    assert ORDER_ID.match(order["id"])
    assert TIMESTAMP.match(order["created_at"])
    assert order["reference_id"] == "ex-00001"
    assert order["customer"] == CUSTOMER
    assert order["items"] == ITEMS
    assert order["shipping"] == SHIPPING
    assert order["notification_urls"] == [NOTIFY_URL]
    assert order["links"] == [
        {
            "rel": "SELF",
            "href": f"{BASE_URL}/orders/{order['id']}",
            "media": "application/json",
            "type": "GET",
        },
        {
            "rel": "PAY",
            "href": f"{BASE_URL}/orders/{order['id']}/pay",
            "media": "application/json",
            "type": "POST",
        },
    ]

    [charge] = order["charges"]
    assert list(charge) == SAMPLE_CHARGE_KEYS
    assert CHARGE_ID.match(charge["id"])
    assert charge["reference_id"] == "ch-00001"
    assert charge["description"] == "Pedido ex-00001"
    assert charge["status"] == "PAID"
    assert TIMESTAMP.match(charge["created_at"]) and TIMESTAMP.match(charge["paid_at"])
    assert charge["amount"] == {
        "value": 500,
        "currency": "BRL",
        "summary": {"total": 500, "paid": 500, "refunded": 0},
    }
    payment_response = charge["payment_response"]
    assert list(payment_response) == ["code", "message", "reference", "raw_data"]
    assert payment_response["code"] == "20000"
    assert payment_response["message"] == "SUCESSO"
    raw_data = payment_response["raw_data"]
    assert payment_response["reference"] == raw_data["nsu"]
    assert raw_data["reason_code"] == "00"
    assert raw_data["nsu"].isdigit() and len(raw_data["nsu"]) == 12
    assert raw_data["authorization_code"].isdigit() and len(raw_data["authorization_code"]) == 6

    method = charge["payment_method"]
    assert list(method) == ["type", "installments", "capture", "card", "soft_descriptor"]
    assert method["type"] == "CREDIT_CARD"
    assert method["installments"] == 1 and method["capture"] is True
    assert method["soft_descriptor"] == "LOJAEXEMPLO"
    card = method["card"]
    assert CARD_ID.match(card["id"])
    sample_card = samples.order_response()["charges"][0]["payment_method"]["card"]
    del sample_card["id"]
    # PagBank's own answers echo the holder's tax_id beside the name (its use-case pages).
    sample_card["holder"]["tax_id"] = "12345678909"
    assert {key: value for key, value in card.items() if key != "id"} == sample_card
    assert "4111111111111111" not in response.text and '"123"' not in response.text
    assert [link["rel"] for link in charge["links"]] == ["SELF", "CHARGE.CANCEL"]
    assert charge["links"][0]["href"] == f"{BASE_URL}/charges/{charge['id']}"
    assert charge["links"][1] == {
        "rel": "CHARGE.CANCEL",
        "href": f"{BASE_URL}/charges/{charge['id']}/cancel",
        "media": "application/json",
        "type": "POST",
    }


def test_get_order_answers_what_create_answered(api):
    created = api.create_order(charges=[charge_payload()])

    response = api.get(f"/orders/{created['id']}")

    assert response.status_code == 200
    assert response.json() == created


def test_the_self_link_is_followable(api):
    created = api.create_order()

    response = api.get(created["links"][0]["href"])

    assert response.status_code == 200
    assert response.json()["id"] == created["id"]


def test_order_without_charges_has_no_charges_key_and_can_be_paid_later(api):
    created = api.create_order()
    assert created["charges"] == []

    response = api.post(created["links"][1]["href"], {"charges": [charge_payload()]})

    assert response.status_code == 201
    order = response.json()
    assert order["id"] == created["id"]
    assert order["created_at"] == created["created_at"]
    assert [charge["status"] for charge in order["charges"]] == ["PAID"]
    assert api.get(f"/orders/{created['id']}").json() == order


def test_pay_with_store_true_returns_a_token_two_step(api):
    created = api.create_order()

    response = api.post(
        f"/orders/{created['id']}/pay",
        {"charges": [charge_payload(store=True, capture=False)]},
    )

    card = response.json()["charges"][0]["payment_method"]["card"]
    assert CARD_ID.match(card["id"]) and card["store"] is True


def test_pay_again_after_a_decline_is_allowed_but_not_after_a_payment(api):
    created = api.create_order()
    pay = f"/orders/{created['id']}/pay"
    declined = api.post(pay, {"charges": [charge_payload(raw_card("4929291898380766"))]})
    assert declined.json()["charges"][0]["status"] == "DECLINED"

    paid = api.post(pay, {"charges": [charge_payload()]})
    assert [c["status"] for c in paid.json()["charges"]] == ["DECLINED", "PAID"]

    again = api.post(pay, {"charges": [charge_payload()]})
    assert again.status_code == 400
    assert error_of(again) == {
        "code": "40002",
        "description": "order_already_paid",
        "parameter_name": "charges",
    }
    assert len(api.get(f"/orders/{created['id']}").json()["charges"]) == 2


def test_an_order_may_carry_several_charges(api):
    order = api.create_order(
        charges=[charge_payload(reference_id="a"), charge_payload(reference_id="b")]
    )

    assert [charge["reference_id"] for charge in order["charges"]] == ["a", "b"]
    assert len({charge["id"] for charge in order["charges"]}) == 2


def test_an_error_in_the_second_charge_creates_nothing(api):
    response = api.post(
        "/orders",
        order_payload(charges=[charge_payload(), charge_payload(raw_card("4111111111111112"))]),
    )

    assert response.status_code == 400
    assert error_of(response)["parameter_name"] == "charges[1].payment_method.card.number"
    assert api.get("/_emulator/orders").json() == {"orders": []}


def test_orders_are_private_to_their_merchant(api):
    created = api.create_order()

    response = api.get(f"/orders/{created['id']}", token=TOKEN_B)
    pay = api.post(f"/orders/{created['id']}/pay", {"charges": [charge_payload()]}, token=TOKEN_B)

    assert response.status_code == 404
    assert error_of(response) == {"code": "NOT_FOUND", "description": "order not found"}
    assert pay.status_code == 404


def test_unknown_order_is_404(api):
    response = api.get("/orders/ORDE_00000000-0000-0000-0000-000000000000")
    pay = api.post("/orders/nonsense/pay", {"charges": [charge_payload()]})

    assert response.status_code == 404 and error_of(response)["code"] == "NOT_FOUND"
    assert pay.status_code == 404


def test_optional_parts_of_an_order_may_be_left_out(api):
    order = api.create_order(reference_id=None, shipping=None, notification_urls=None)

    assert "reference_id" not in order and "shipping" not in order
    assert order["notification_urls"] == []


def test_a_cnpj_customer_without_phones_and_an_address_without_complement_are_accepted(api):
    customer = {
        "name": "Loja Exemplo Ltda",
        "email": "compras@example.com",
        "tax_id": "11222333000181",
    }
    shipping = {"address": {k: v for k, v in SHIPPING["address"].items() if k != "complement"}}

    order = api.create_order(customer=customer, shipping=shipping, charges=[charge_payload()])

    assert order["customer"] == customer
    assert order["shipping"] == shipping
    assert order["charges"][0]["status"] == "PAID"


def test_an_order_is_found_by_its_charge_id(api):
    """``GET /orders?charge_id=`` (the docs' "consultar pedido através de parâmetros")."""
    from tests.emulator.core_support import TOKEN_B, charge_payload, error_of

    order = api.create_order(charges=[charge_payload()])
    charge_id = order["charges"][0]["id"]

    found = api.get(f"/orders?charge_id={charge_id}")
    assert found.status_code == 200, found.text
    assert found.json() == api.get(f"/orders/{order['id']}").json()
    assert api.get(f"/orders?charge_id={charge_id}", token=TOKEN_B).status_code == 404
    assert api.get("/orders?charge_id=CHAR_00000000-0000-0000-0000-000000000000").status_code == 404
    missing = api.get("/orders")
    assert missing.status_code == 400 and error_of(missing)["parameter_name"] == "charge_id"
