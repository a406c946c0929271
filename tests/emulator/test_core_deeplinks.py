"""Deeplink orders through HTTP: creation, the pay simulator, one approved payment, expiry."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest

from tests.emulator.core_support import (
    BASE_URL,
    CHARGE_ID,
    ITEMS,
    charge_payload,
    error_of,
    order_payload,
)

DEEP_LINKS = [{"amount": {"value": 1500}, "redirect_url": "myshop://orders/ex-00002"}]
DEEPLINK_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"


def deeplink_order(api, deep_links=DEEP_LINKS):
    items = [{key: value for key, value in ITEMS[0].items() if key != "reference_id"}]
    return api.create_order(reference_id="ex-00002", items=items, deep_links=deep_links)


def deeplink_id(order):
    return order["deep_links"][0]["url"].rsplit("r=", 1)[1]


def simulator_error(response):
    assert response.headers["Content-Type"] == "application/json"
    [error] = response.json()["errors"]
    assert set(error) == {"code", "message"}
    return error["code"]


def test_deeplink_order_returns_the_generated_url(api):
    order = deeplink_order(api)

    [deep_link] = order["deep_links"]
    assert deep_link["amount"] == {"value": 1500}
    assert deep_link["redirect_url"] == "myshop://orders/ex-00002"
    assert re.fullmatch(
        rf"{re.escape(BASE_URL)}/pagpay/download\?f=order&r={DEEPLINK_ID}", deep_link["url"]
    )
    assert re.fullmatch(DEEPLINK_ID, deeplink_id(order))
    assert order["charges"] == []  # as the docs' answers before a payment
    assert api.get(f"/orders/{order['id']}").json() == order


@pytest.mark.parametrize(
    "redirect_url", ["myshop://orders/ex-00002", "https://shop.example.com/orders/2", "a1://"]
)
def test_an_app_scheme_or_a_universal_link_is_accepted_and_echoed(api, redirect_url):
    order = deeplink_order(api, [{"amount": {"value": 1}, "redirect_url": redirect_url}])

    assert order["deep_links"][0]["redirect_url"] == redirect_url
    assert order["deep_links"][0]["amount"] == {"value": 1}


def test_redirect_url_is_optional(api):
    order = deeplink_order(api, [{"amount": {"value": 1500}}])

    assert "redirect_url" not in order["deep_links"][0]


@pytest.mark.parametrize(
    ("deep_links", "parameter_name"),
    [
        (
            [{"amount": {"value": 1500}, "redirect_url": "myshop:/orders"}],
            "deep_links[0].redirect_url",
        ),
        ([{"amount": {"value": 1500}, "redirect_url": "://x"}], "deep_links[0].redirect_url"),
        (DEEP_LINKS * 2, "deep_links"),
        ([], "deep_links"),
        ([{"amount": {"value": "1500"}}], "deep_links[0].amount.value"),
        ({"amount": {"value": 1500}}, "deep_links"),
    ],
)
def test_invalid_deep_links_are_40002_naming_the_field(api, deep_links, parameter_name):
    response = api.post("/orders", order_payload(deep_links=deep_links))

    assert response.status_code == 400
    assert error_of(response) == {
        "code": "40002",
        "description": "invalid_parameter",
        "parameter_name": parameter_name,
    }


def test_deep_links_and_charges_together_are_refused(api):
    response = api.post("/orders", order_payload(deep_links=DEEP_LINKS, charges=[charge_payload()]))

    assert error_of(response)["parameter_name"] == "deep_links"


def only_charge(api, order) -> dict:
    [charge] = api.get(f"/orders/{order['id']}").json()["charges"]
    return charge


def test_balance_payment_adds_a_paid_charge_and_closes_the_deeplink(api):
    order = deeplink_order(api)
    pay = f"/pagpay/balance/{deeplink_id(order)}"

    response = api.post(pay, {"status": "PAID"}, token=None)

    # As the sandbox's simulator: the bare status; the charge comes by notification.
    assert response.status_code == 200
    assert response.json() == "PAID"
    charge = only_charge(api, order)
    assert CHARGE_ID.match(charge["id"]) and charge["status"] == "PAID"
    assert charge["amount"]["summary"] == {"total": 1500, "paid": 1500, "refunded": 0}
    assert charge["payment_method"] == {"type": "ACCOUNT_BALANCE"}

    again = api.post(pay, {"status": "PAID"}, token=None)
    assert again.status_code == 409 and simulator_error(again) == "40901"
    card = api.post(
        f"/pagpay/credit-card/{deeplink_id(order)}", {"card_number": "4111111111111111"}
    )
    assert card.status_code == 409


def test_a_declined_payment_leaves_the_deeplink_open(api):
    order = deeplink_order(api)
    link = deeplink_id(order)

    declined = api.post(f"/pagpay/balance/{link}", {"status": "DECLINED"}, token=None)
    paid = api.post(f"/pagpay/credit-card/{link}", {"card_number": "4111111111111111"}, token=None)

    assert (declined.status_code, declined.json()) == (200, "DECLINED")
    assert (paid.status_code, paid.json()) == (200, "PAID")
    first, second = api.get(f"/orders/{order['id']}").json()["charges"]
    assert (first["status"], first["payment_response"]["code"]) == ("DECLINED", "10000")
    assert second["status"] == "PAID"
    assert second["payment_method"]["card"]["brand"] == "visa"
    assert second["payment_method"]["card"]["last_digits"] == "1111"


def test_credit_card_simulation_follows_the_card_table(api):
    order = deeplink_order(api)

    response = api.post(
        f"/pagpay/credit-card/{deeplink_id(order)}", {"card_number": "4929291898380766"}
    )

    assert response.json() == "DECLINED"
    assert only_charge(api, order)["payment_response"]["code"] == "20003"


def test_unknown_deeplink_is_404_40401(api):
    for path in ("/pagpay/balance/DEEP_X", "/pagpay/credit-card/DEEP_X"):
        response = api.post(path, {"status": "PAID", "card_number": "4111111111111111"})
        assert response.status_code == 404 and simulator_error(response) == "40401"


def test_expired_deeplink_is_410_41001_once_the_clock_passes_the_next_day(api):
    order = deeplink_order(api)
    created = datetime.fromisoformat(order["created_at"])
    last_moment = datetime.combine(
        created.date() + timedelta(days=1), datetime.max.time(), created.tzinfo
    ) - timedelta(seconds=5)
    pay = f"/pagpay/balance/{deeplink_id(order)}"

    api.post("/_emulator/clock", {"now": last_moment.isoformat()})
    still_open = api.post(pay, {"status": "DECLINED"})
    api.post("/_emulator/clock", {"advance_seconds": 10})
    expired = api.post(pay, {"status": "PAID"})

    assert still_open.status_code == 200
    assert expired.status_code == 410 and simulator_error(expired) == "41001"
    assert date.fromisoformat(api.get("/_emulator/clock").json()["now"][:10]) > created.date()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("balance", {"status": "MAYBE"}),
        ("balance", {}),
        ("balance", ["PAID"]),
        ("credit-card", {"card_number": "4111111111111112"}),
        ("credit-card", {"card_number": 4111111111111111}),
        ("credit-card", {"card_number": "6011111111111117"}),
    ],
)
def test_malformed_simulation_bodies_are_400_in_the_simulator_shape(api, path, body):
    order = deeplink_order(api)

    response = api.post(f"/pagpay/{path}/{deeplink_id(order)}", body)

    assert response.status_code == 400 and simulator_error(response) == "40002"


def test_simulation_body_that_is_not_json_is_400_in_the_simulator_shape(api):
    order = deeplink_order(api)

    response = api.post(
        f"/pagpay/balance/{deeplink_id(order)}",
        data=b"status=PAID",
        headers={"Content-Type": "text/plain"},
    )

    assert response.status_code == 400 and simulator_error(response) == "40002"


def test_amount_outside_the_simulator_range_is_400(api):
    order = deeplink_order(api, [{"amount": {"value": 150_001}}])

    response = api.post(f"/pagpay/balance/{deeplink_id(order)}", {"status": "PAID"})

    assert response.status_code == 400 and simulator_error(response) == "40002"


def test_the_deeplink_url_answers_the_deeplink_state(api):
    order = deeplink_order(api)
    url = order["deep_links"][0]["url"]

    before = api.get(url, token=None).json()
    api.post(before["simulate"]["balance"], {"status": "PAID"})
    after = api.get(url, token=None).json()

    assert before["status"] == "OPEN" and before["order_id"] == order["id"]
    assert before["amount"] == {"value": 1500}
    assert after["status"] == "PAID"


def test_a_deeplink_order_paid_by_card_refuses_the_app_payment(api):
    order = deeplink_order(api)
    api.post(f"/orders/{order['id']}/pay", {"charges": [charge_payload()]})

    response = api.post(f"/pagpay/balance/{deeplink_id(order)}", {"status": "PAID"})

    assert response.status_code == 409
