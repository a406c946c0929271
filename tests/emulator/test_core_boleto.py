"""Boleto on the emulator, over HTTP: a WAITING charge with its barcode and files, paid
by the payer (control plane or the boleto's page), cancelled after its due date, refunded."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

import pytest

from django_orderpay.emulator.resources import barcode
from django_orderpay.testing import samples
from tests.emulator.core_support import UUID, charge_payload, order_payload, refusal

TODAY_ANCHOR = datetime.fromisoformat("2026-11-24T10:00:00-03:00")


def move_to(api, moment: datetime) -> None:
    response = api.post("/_emulator/clock", {"now": moment.isoformat()}, token=None)
    assert response.status_code == 200, response.text


@pytest.fixture
def today(api) -> date:
    move_to(api, TODAY_ANCHOR)
    return TODAY_ANCHOR.date()


def boleto_order(api, due: date, value: int = 500, **charge):
    body = samples.boleto_charge_request(due.isoformat(), amount={"value": value}, **charge)
    return api.create_order(charges=[body])


def test_a_boleto_charge_waits_with_its_barcode_and_files(api, today):
    order = boleto_order(api, today + timedelta(days=3), 12345)

    [charge] = order["charges"]
    assert charge["status"] == "WAITING"
    assert charge["amount"]["summary"] == {"total": 12345, "paid": 0, "refunded": 0}
    boleto = charge["payment_method"]["boleto"]
    assert re.fullmatch(UUID, boleto["id"])
    assert boleto["due_date"] == "2026-11-27"
    assert re.fullmatch(r"\d{47}", boleto["barcode"])
    assert boleto["formatted_barcode"] == barcode.formatted(boleto["barcode"])
    assert boleto["holder"]["address"]["postal_code"] == "01452002"
    pdf, png, self_link = charge["links"]
    assert (pdf["media"], png["media"]) == ("application/pdf", "image/png")
    assert self_link["rel"] == "SELF" and self_link["href"].endswith(charge["id"])


def test_the_typeable_line_has_right_check_digits_amount_and_due_factor(api, today):
    order = boleto_order(api, today + timedelta(days=3), 12345)
    line = order["charges"][0]["payment_method"]["boleto"]["barcode"]

    code = barcode.barcode_of_line(line)

    assert code[:3] == "290" and code[3] == "9"
    assert code[4] == barcode.modulo_11(code[:4] + code[5:])
    for start, end in ((0, 9), (10, 20), (21, 31)):
        assert line[end] == barcode.modulo_10(line[start:end])
    assert code[5:9] == barcode.due_factor(date(2026, 11, 27))
    assert code[9:19] == "0000012345"


def test_pagbanks_own_sample_line_passes_the_same_checks():
    # The typeable line of the boleto in PagBank's documentation.
    line = "03399853012970000024227020901016278150000015630"
    code = barcode.barcode_of_line(line)

    assert code[4] == barcode.modulo_11(code[:4] + code[5:])
    assert barcode.typeable_line(code) == line


def test_the_due_factor_restarts_at_1000_after_february_2025():
    assert barcode.due_factor(date(2025, 2, 21)) == "9999"
    assert barcode.due_factor(date(2025, 2, 22)) == "1000"


def test_the_pdf_and_png_are_served(api, today):
    charge = boleto_order(api, today + timedelta(days=1))["charges"][0]
    pdf_link, png_link = charge["links"][:2]

    pdf = api.get(pdf_link["href"], token=None)
    png = api.get(png_link["href"], token=None)

    assert pdf.headers["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    assert png.headers["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG")


def test_the_control_plane_pays_it_and_the_order_is_notified(api, today, recorder):
    order = boleto_order(api, today + timedelta(days=1), 700)
    charge_id = order["charges"][0]["id"]

    response = api.post(f"/_emulator/boletos/{charge_id}/pay", token=None)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "PAID"
    assert response.json()["amount"]["summary"]["paid"] == 700
    api.emulator.notifier.flush()
    notified = json.loads(recorder.calls[-1][1])
    assert notified["charges"][0]["status"] == "PAID"


def test_a_boleto_is_paid_once(api, today):
    charge = boleto_order(api, today)["charges"][0]
    boleto_id = charge["payment_method"]["boleto"]["id"]
    assert api.post(f"/_emulator/boletos/{boleto_id}/pay", token=None).status_code == 200

    assert refusal(api.post(f"/_emulator/boletos/{boleto_id}/pay", token=None)) == (
        "40002",
        "boleto",
    )


def test_the_boletos_page_pays_it_with_its_button(api, today):
    charge = boleto_order(api, today)["charges"][0]
    page_url = charge["links"][0]["href"].removesuffix("/pdf")

    page = api.get(page_url, token=None)
    assert "data-boleto-pay" in page.text
    paid = api.session.post(f"{page_url}/pay", allow_redirects=False, timeout=5)

    assert paid.status_code == 303 and paid.headers["Location"] == page_url
    after = api.get(page_url, token=None).text
    assert "data-boleto-pay" not in after and ">PAID<" in after


def test_it_waits_all_of_its_due_date_and_is_cancelled_after_it(api, today, recorder):
    order = boleto_order(api, today + timedelta(days=2))
    last_moment = datetime.fromisoformat("2026-11-26T23:59:58-03:00")

    move_to(api, last_moment)
    assert api.get(f"/orders/{order['id']}").json()["charges"][0]["status"] == "WAITING"
    move_to(api, last_moment + timedelta(seconds=3))

    assert api.get(f"/orders/{order['id']}").json()["charges"][0]["status"] == "CANCELED"
    api.emulator.notifier.flush()
    assert json.loads(recorder.calls[-1][1])["charges"][0]["status"] == "CANCELED"


def test_a_waiting_boleto_cannot_be_cancelled_but_a_paid_one_is_refunded(api, today):
    charge = boleto_order(api, today, 900)["charges"][0]
    waiting = api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 900}})
    api.post(f"/_emulator/boletos/{charge['id']}/pay", token=None)

    refunded = api.post(f"/charges/{charge['id']}/cancel", {"amount": {"value": 900}})

    assert waiting.status_code == 400
    assert waiting.json()["error_messages"][0]["code"] == "40007"
    assert refunded.status_code == 201 and refunded.json()["status"] == "CANCELED"


@pytest.mark.parametrize(("days", "accepted"), [(-1, False), (0, True), (365, True), (366, False)])
def test_the_due_date_is_from_today_up_to_a_year(api, today, days, accepted):
    body = samples.boleto_charge_request((today + timedelta(days=days)).isoformat())

    response = api.post("/orders", order_payload(charges=[body]))

    if accepted:
        assert response.status_code == 201, response.text
    else:
        assert refusal(response) == ("40002", "charges[0].payment_method.boleto.due_date")


def boleto_with(**changes):
    body = samples.boleto_charge_request("2026-11-30")
    boleto = body["payment_method"]["boleto"]
    for key, value in changes.items():
        if value is None:
            del boleto[key]
        else:
            boleto[key] = value
    return body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (boleto_with(due_date=None), ("40001", "charges[0].payment_method.boleto.due_date")),
        (
            boleto_with(due_date="30/11/2026"),
            ("40002", "charges[0].payment_method.boleto.due_date"),
        ),
        (boleto_with(holder=None), ("40001", "charges[0].payment_method.boleto.holder")),
        (
            boleto_with(instruction_lines={"line_1": "x" * 76}),
            ("40002", "charges[0].payment_method.boleto.instruction_lines.line_1"),
        ),
        (
            boleto_with(instruction_lines={"line_3": "x"}),
            ("40003", "charges[0].payment_method.boleto.instruction_lines.line_3"),
        ),
    ],
)
def test_malformed_boletos_are_refused_naming_the_field(api, today, body, expected):
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == expected


def test_the_longest_instruction_line_is_taken(api, today):
    body = boleto_with(instruction_lines={"line_1": "x" * 75})

    assert api.post("/orders", order_payload(charges=[body])).status_code == 201


def test_a_payer_without_an_address_is_refused(api, today):
    body = boleto_with()
    del body["payment_method"]["boleto"]["holder"]["address"]

    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40001",
        "charges[0].payment_method.boleto.holder.address",
    )


def test_card_fields_on_a_boleto_are_unknown(api, today):
    body = boleto_with()
    body["payment_method"]["installments"] = 2

    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40003",
        "charges[0].payment_method.installments",
    )


def docs_instructions(due: date) -> dict:
    """The docs' ``payment_instructions`` ("criar e pagar pedido com boleto"), its dates moved
    with the due date: fine and interest from the day after it, a discount until it. Each
    ``value`` is a percentage times 100 (200 is 2,00 %)."""
    after = (due + timedelta(days=1)).isoformat()
    return {
        "fine": {"date": after, "value": 200},
        "interest": {"date": after, "value": 200},
        "discounts": [{"due_date": due.isoformat(), "value": 500}],
    }


def test_the_docs_payment_instructions_with_discounts_are_taken_and_echoed(api, today):
    due = today + timedelta(days=3)
    instructions = docs_instructions(due)
    order = boleto_order(api, due, 34343, payment_instructions=instructions)

    assert order["charges"][0]["payment_instructions"] == instructions
    card = charge_payload(payment_instructions=instructions)
    assert refusal(api.post("/orders", order_payload(charges=[card]))) == (
        "40002",
        "charges[0].payment_instructions",
    )


def test_the_charge_objects_single_discount_object_is_taken_too(api, today):
    """The charge object's table writes ``discounts`` as one ``{date, value}`` object."""
    due = today + timedelta(days=3)
    instructions = {"discounts": {"date": due.isoformat(), "value": 500}}
    order = boleto_order(api, due, payment_instructions=instructions)
    assert order["charges"][0]["payment_instructions"] == instructions


def test_discount_in_the_singular_is_not_pagbanks_key(api, today):
    due = today + timedelta(days=3)
    instructions = {"discount": {"date": due.isoformat(), "value": 100}}
    body = samples.boleto_charge_request(due.isoformat(), payment_instructions=instructions)
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40003",
        "charges[0].payment_instructions.discount",
    )


@pytest.mark.parametrize(
    ("part", "entry", "field"),
    [
        ("fine", {"value": 10000}, "value"),  # 0,01 % to 99,99 %
        ("fine", {"value": 0}, "value"),
        ("interest", {"value": 6000}, "value"),  # 0,01 % to 59,99 %
        ("fine", {"days_after_due": 0}, "date"),  # from the day after the due date
        ("interest", {"days_after_due": 0}, "date"),
        ("discounts", {"value": 10000}, "value"),
        ("discounts", {"days_after_due": 1}, "due_date"),  # until the due date
    ],
)
def test_payment_instructions_limits_and_dates(api, today, part, entry, field):
    due = today + timedelta(days=3)
    instructions = docs_instructions(due)
    target = instructions[part][0] if part == "discounts" else instructions[part]
    if "value" in entry:
        target["value"] = entry["value"]
    else:
        key = "due_date" if part == "discounts" else "date"
        target[key] = (due + timedelta(days=entry["days_after_due"])).isoformat()
    body = samples.boleto_charge_request(due.isoformat(), payment_instructions=instructions)
    where = f"{part}[0]" if part == "discounts" else part
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40002",
        f"charges[0].payment_instructions.{where}.{field}",
    )


@pytest.mark.parametrize(("fine", "interest", "discount"), [(1, 1, 1), (9999, 5999, 9999)])
def test_payment_instructions_bounds_accepted(api, today, fine, interest, discount):
    due = today + timedelta(days=3)
    instructions = docs_instructions(due)
    instructions["fine"]["value"] = fine
    instructions["interest"]["value"] = interest
    instructions["discounts"][0]["value"] = discount
    order = boleto_order(api, due, payment_instructions=instructions)
    assert order["charges"][0]["status"] == "WAITING"


def test_a_proposta_boleto_takes_no_payment_instructions(api, today):
    """ "Proposta: não permite juros/multas/desconto"; COBRANCA does."""
    due = today + timedelta(days=3)
    instructions = docs_instructions(due)
    body = samples.boleto_charge_request(due.isoformat(), payment_instructions=instructions)
    body["payment_method"]["boleto"]["template"] = "PROPOSTA"
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40002",
        "charges[0].payment_method.boleto.template",
    )
    body["payment_method"]["boleto"]["template"] = "COBRANCA"
    assert api.post("/orders", order_payload(charges=[body])).status_code == 201
    body["payment_method"]["boleto"]["template"] = "cobranca"
    assert refusal(api.post("/orders", order_payload(charges=[body])))[0] == "40002"


def test_payment_instructions_inside_payment_method_as_the_charge_object_lists_them(api, today):
    due = today + timedelta(days=3)
    body = samples.boleto_charge_request(due.isoformat())
    body["payment_method"]["payment_instructions"] = docs_instructions(due)
    order = api.create_order(charges=[body])
    assert order["charges"][0]["payment_instructions"] == docs_instructions(due)


@pytest.mark.parametrize(("length", "accepted"), [(1, True), (30, True), (31, False)])
def test_the_payers_name_is_1_to_30_characters(api, today, length, accepted):
    """The charge object's table: ``boleto.holder.name`` 1-30 characters."""
    body = samples.boleto_charge_request((today + timedelta(days=3)).isoformat())
    body["payment_method"]["boleto"]["holder"]["name"] = ("Jose da Silva " * 3)[:length]
    response = api.post("/orders", order_payload(charges=[body]))
    if accepted:
        assert response.status_code == 201, response.text
    else:
        assert refusal(response) == ("40002", "charges[0].payment_method.boleto.holder.name")


def docs_boleto(due: date) -> dict:
    """The docs' boleto ("criar e pagar pedido com boleto"), its due date moved: the holder's
    ``address.region`` and ``country: "Brasil"``, ``template`` and ``days_until_expiration``."""
    from tests.pagbank_docs import docs_example

    charge = docs_example("10-1")["request"]["charges"][0]
    charge["payment_method"]["boleto"]["due_date"] = due.isoformat()
    charge["payment_instructions"] = docs_instructions(due)
    return charge


def test_the_docs_boleto_holder_template_and_days_until_expiration_are_taken(api, today):
    due = today + timedelta(days=3)
    response = api.post("/orders", order_payload(charges=[docs_boleto(due)]))
    assert response.status_code == 201, response.text
    boleto = response.json()["charges"][0]["payment_method"]["boleto"]
    assert boleto["holder"]["address"]["region"] == "SP"
    assert boleto["holder"]["address"]["country"] == "Brasil"
    assert boleto["days_until_expiration"] == 45  # sent "45", answered as a number


def test_a_boleto_with_days_until_expiration_is_payable_after_its_due_date(api, today):
    """The docs' boleto takes fines and interest dated after its due date, 45 days of them:
    it stays payable until then, and is cancelled only once they have passed."""
    due = today + timedelta(days=3)
    order = api.create_order(charges=[docs_boleto(due)])
    charge_id = order["charges"][0]["id"]

    move_to(api, TODAY_ANCHOR + timedelta(days=3 + 10))
    assert api.get(f"/charges/{charge_id}").json()["status"] == "WAITING"
    move_to(api, TODAY_ANCHOR + timedelta(days=3 + 45))
    assert api.get(f"/charges/{charge_id}").json()["status"] == "WAITING"  # its last day
    move_to(api, TODAY_ANCHOR + timedelta(days=3 + 46))
    assert api.get(f"/charges/{charge_id}").json()["status"] == "CANCELED"


def test_a_boleto_paid_after_its_due_date_within_its_days(api, today):
    due = today + timedelta(days=3)
    order = api.create_order(charges=[docs_boleto(due)])
    move_to(api, TODAY_ANCHOR + timedelta(days=20))
    paid = api.post(f"/_emulator/boletos/{order['charges'][0]['id']}/pay", token=None)
    assert paid.status_code == 200 and paid.json()["status"] == "PAID"


@pytest.mark.parametrize("days", ["-1", "x", 3651, True])
def test_days_until_expiration_is_a_whole_number_of_days(api, today, days):
    body = docs_boleto(today + timedelta(days=3))
    body["payment_method"]["boleto"]["days_until_expiration"] = days
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40002",
        "charges[0].payment_method.boleto.days_until_expiration",
    )


@pytest.mark.parametrize(("value", "accepted"), [(19, False), (20, True)])
def test_a_boleto_is_at_least_20_cents(api, today, value, accepted):
    """ "Esse método de pagamento impõe um valor mínimo de R$0,20"."""
    body = samples.boleto_charge_request((today + timedelta(days=3)).isoformat())
    body["amount"]["value"] = value
    response = api.post("/orders", order_payload(charges=[body]))
    if accepted:
        assert response.status_code == 201, response.text
    else:
        assert refusal(response) == ("40002", "charges[0].amount.value")


def test_a_boleto_declined_by_risk_analysis_as_the_docs_show(api, today):
    """ "Todos os boletos passam por análise de risco": the emulator's payer document
    ``BOLETO_DECLINED_TAX_ID`` is refused, with the docs' DECLINED answer (code 10000, the
    boleto's fields in ``payment_method``, no barcode)."""
    from django_orderpay.emulator import BOLETO_DECLINED_TAX_ID

    due = today + timedelta(days=3)
    body = docs_boleto(due)
    body["payment_method"]["boleto"]["holder"]["tax_id"] = BOLETO_DECLINED_TAX_ID
    response = api.post("/orders", order_payload(charges=[body]))
    assert response.status_code == 201, response.text
    charge = response.json()["charges"][0]
    assert charge["status"] == "DECLINED"
    assert charge["payment_response"] == {
        "code": "10000",
        "message": "NAO AUTORIZADO PELO PAGSEGURO",
    }
    method = charge["payment_method"]
    assert method["type"] == "BOLETO" and "boleto" not in method
    assert method["due_date"] == due.isoformat() and method["days_until_expiration"] == 45
    assert method["holder"]["tax_id"] == BOLETO_DECLINED_TAX_ID
    assert [link["rel"] for link in charge["links"]] == ["SELF"]
    paying = api.post(f"/_emulator/boletos/{charge['id']}/pay", token=None)
    assert paying.status_code == 400
    move_to(api, TODAY_ANCHOR + timedelta(days=60))
    assert api.get(f"/charges/{charge['id']}").json()["status"] == "DECLINED"


def test_a_boleto_payers_document_keeps_its_check_digits(api, today):
    """A bank registers a boleto with its payer's CPF/CNPJ: the check digits count here
    (a card holder's do not: PagBank's card examples send wrong ones and are paid)."""
    body = samples.boleto_charge_request((today + timedelta(days=3)).isoformat())
    body["payment_method"]["boleto"]["holder"]["tax_id"] = "65544332211"
    assert refusal(api.post("/orders", order_payload(charges=[body]))) == (
        "40002",
        "charges[0].payment_method.boleto.holder.tax_id",
    )
