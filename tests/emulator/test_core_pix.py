"""Pix on the emulator, over HTTP: an order's QR code, its text and images, its payment
(the sandbox's ``/pix/pay`` and the control plane), expiry by the clock, refunds."""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime, timedelta

import pytest

from django_orderpay.emulator.resources import brcode
from django_orderpay.testing import samples
from tests.emulator.core_support import (
    CHARGE_ID,
    TOKEN_B,
    UUID,
    charge_payload,
    order_payload,
    raw_card,
    refusal,
)

QR_ID = re.compile(rf"^QRCO_{UUID}$")
PNG = b"\x89PNG\r\n\x1a\n"


def pix_order(api, value=500, **qr):
    return api.create_order(qr_codes=samples.qr_codes(value, **qr))


def now(api) -> datetime:
    return datetime.fromisoformat(api.get("/_emulator/clock", token=None).json()["now"])


def move_to(api, moment: datetime) -> None:
    response = api.post("/_emulator/clock", {"now": moment.isoformat()}, token=None)
    assert response.status_code == 200, response.text


def test_a_pix_order_answers_its_qr_code_and_no_charges(api):
    order = pix_order(api, 1234)

    assert order["charges"] == []  # as the docs' answers before a payment
    [qr] = order["qr_codes"]
    assert QR_ID.match(qr["id"])
    assert qr["amount"] == {"value": 1234}
    assert qr["arrangements"] == ["PIX"]
    assert [(link["rel"], link["media"]) for link in qr["links"]] == [
        ("QRCODE.PNG", "image/png"),
        ("QRCODE.BASE64", "text/plain"),
    ]


def test_the_default_expiry_is_the_end_of_the_next_day_in_sao_paulo(api):
    move_to(api, datetime.fromisoformat("2026-11-24T23:30:00-03:00"))

    [qr] = pix_order(api)["qr_codes"]

    assert qr["expiration_date"] == "2026-11-25T23:59:59-03:00"


def test_the_text_is_a_br_code_a_banking_app_would_parse(api):
    [qr] = pix_order(api, 1050)["qr_codes"]

    fields = brcode.parse(qr["text"])  # the CRC16 checks out

    assert fields["00"] == "01"  # payload format
    assert fields["01"] == "12"  # dynamic: one payment
    assert fields["26"].startswith("0014br.gov.bcb.pix25")
    assert qr["id"].removeprefix("QRCO_") in fields["26"]
    assert fields["53"] == "986"  # BRL
    assert fields["54"] == "10.50"
    assert fields["58"] == "BR"


def test_a_br_code_with_one_character_changed_fails_its_crc(api):
    [qr] = pix_order(api)["qr_codes"]
    text = qr["text"]
    tampered = text.replace("986", "987", 1)

    with pytest.raises(ValueError, match="CRC"):
        brcode.parse(tampered)


def test_the_images_are_served_as_the_links_say(api):
    [qr] = pix_order(api)["qr_codes"]
    png_link, base64_link = qr["links"]

    png = api.get(png_link["href"], token=None)
    text = api.get(base64_link["href"], token=None)

    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    assert png.content.startswith(PNG)
    assert base64.b64decode(text.content) == png.content


def test_the_sandbox_payment_makes_a_paid_pix_charge_and_notifies(api, recorder):
    order = pix_order(api, 800)
    qr_id = order["qr_codes"][0]["id"]

    paid = api.post(f"/pix/pay/{qr_id}")

    assert paid.status_code == 200, paid.text
    [charge] = api.get(f"/orders/{order['id']}").json()["charges"]
    assert CHARGE_ID.match(charge["id"])
    assert charge["status"] == "PAID"
    assert charge["amount"]["summary"] == {"total": 800, "paid": 800, "refunded": 0}
    method = charge["payment_method"]
    assert method["type"] == "PIX"
    assert re.fullmatch(r"E\d{8}\d{12}\w{11}", method["pix"]["end_to_end_id"])
    assert set(method["pix"]["holder"]) == {"name", "tax_id"}
    assert "raw_data" not in charge["payment_response"]
    api.emulator.notifier.flush()
    notified = json.loads(recorder.calls[-1][1])
    assert notified["id"] == order["id"]
    assert notified["charges"][0]["status"] == "PAID"


def test_a_qr_code_is_paid_once(api):
    qr_id = pix_order(api)["qr_codes"][0]["id"]
    assert api.post(f"/pix/pay/{qr_id}").status_code == 200

    assert refusal(api.post(f"/pix/pay/{qr_id}")) == ("40002", "qr_code")


def test_another_merchants_qr_code_is_not_found(api):
    qr_id = pix_order(api)["qr_codes"][0]["id"]

    assert api.post(f"/pix/pay/{qr_id}", token=TOKEN_B).status_code == 404


def test_the_control_plane_pays_any_merchants_qr_code(api):
    order = pix_order(api)
    qr_id = order["qr_codes"][0]["id"]

    response = api.post(f"/_emulator/qr_codes/{qr_id}/pay", token=None)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "PAID"
    assert response.json()["payment_method"]["type"] == "PIX"


def test_a_qr_code_is_payable_until_its_last_second_and_not_after(api):
    expiry = now(api) + timedelta(hours=1)
    first = pix_order(api, expiration_date=expiry.isoformat())["qr_codes"][0]["id"]
    second = pix_order(api, expiration_date=expiry.isoformat())["qr_codes"][0]["id"]

    move_to(api, expiry - timedelta(seconds=1))
    assert api.post(f"/pix/pay/{first}").status_code == 200
    move_to(api, expiry)
    assert refusal(api.post(f"/pix/pay/{second}")) == ("40002", "qr_code")


@pytest.mark.parametrize(
    "expiration_date",
    ["2020-01-01T00:00:00-03:00", "2999-01-01T00:00:00", "tomorrow", 20991231],
)
def test_an_expiry_in_the_past_without_an_offset_or_not_a_timestamp_is_refused(
    api, expiration_date
):
    response = api.post(
        "/orders", order_payload(qr_codes=samples.qr_codes(expiration_date=expiration_date))
    )

    assert refusal(response) == ("40002", "qr_codes[0].expiration_date")


@pytest.mark.parametrize(
    ("qr_codes", "field"),
    [
        ([], "qr_codes"),
        (samples.qr_codes() * 2, "qr_codes"),
        (samples.qr_codes(0), "qr_codes[0].amount.value"),
        (samples.qr_codes(arrangements=["BOLETO"]), "qr_codes[0].arrangements[0]"),
        (samples.qr_codes(arrangements=[]), "qr_codes[0].arrangements"),
    ],
)
def test_malformed_qr_codes_are_refused_naming_the_field(api, qr_codes, field):
    response = api.post("/orders", order_payload(qr_codes=qr_codes))

    assert refusal(response)[1] == field


def test_the_pagbank_app_arrangement_is_taken(api):
    [qr] = pix_order(api, arrangements=["PAGBANK"])["qr_codes"]

    assert qr["arrangements"] == ["PAGBANK"]


def test_qr_codes_and_charges_in_one_order_are_refused(api):
    response = api.post(
        "/orders", order_payload(qr_codes=samples.qr_codes(), charges=[charge_payload()])
    )

    assert refusal(response) == ("40002", "qr_codes")


def test_a_declined_card_leaves_the_qr_code_payable_and_a_paid_one_does_not(api):
    order = pix_order(api, 2000)
    qr_id = order["qr_codes"][0]["id"]
    declined = charge_payload(raw_card("4000000000000101"), amount={"value": 2000})
    assert api.post(f"/orders/{order['id']}/pay", {"charges": [declined]}).status_code == 201
    paid = charge_payload(amount={"value": 2000})
    assert api.post(f"/orders/{order['id']}/pay", {"charges": [paid]}).status_code == 201

    assert refusal(api.post(f"/pix/pay/{qr_id}")) == ("40002", "qr_code")


def paid_pix(api, value=1000):
    order = pix_order(api, value)
    api.post(f"/pix/pay/{order['qr_codes'][0]['id']}")
    return api.get(f"/orders/{order['id']}").json()["charges"][0]


def test_a_paid_pix_is_refunded_in_part_then_in_full(api):
    charge = paid_pix(api)

    part = api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 300}})
    rest = api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 700}})

    assert part.status_code == 201 and rest.status_code == 201
    assert rest.json()["status"] == "CANCELED"
    assert rest.json()["amount"]["summary"]["refunded"] == 1000


def test_a_pix_is_refundable_for_90_days_and_not_after(api):
    charge = paid_pix(api)
    paid_at = datetime.fromisoformat(charge["paid_at"])

    # The clock flows on from where it is moved: a second of margin either side.
    move_to(api, paid_at + timedelta(days=90, seconds=-1))
    assert api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 100}}).ok
    move_to(api, paid_at + timedelta(days=90, seconds=1))
    response = api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 100}})

    assert response.status_code == 400
    assert response.json()["error_messages"][0]["code"] == "40007"
