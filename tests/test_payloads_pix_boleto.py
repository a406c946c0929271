"""Payload builders for Pix (``qr_codes``) and boleto (``payment_method.boleto``).

Each body is the one the emulator's tests send (``testing.samples``), built
through the builders and compared key for key; each refusal names its field,
before any call; each bound is pinned on both sides.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta

import pytest

from django_orderpay import rules
from django_orderpay.exceptions import PayloadError
from django_orderpay.payloads import (
    Address,
    Amount,
    BoletoHolder,
    BoletoPayment,
    ChargeRequest,
    Discount,
    PaymentInstructions,
    Penalty,
    QrCode,
    Receiver,
    Recurring,
    Splits,
    order_from_dict,
    validate_order_dict,
    validate_pay_dict,
)
from django_orderpay.testing import samples
from tests.payloads_support import charge, order, raw_card

LONGEST = rules.BOLETO_LONGEST_TERM_DAYS
EXPIRY = datetime(2026, 11, 30, 23, 59, 59, tzinfo=rules.PROVIDER_TZ)


def paths_of(call) -> list[str]:
    with pytest.raises(PayloadError) as caught:
        call()
    return caught.value.paths


def boleto(due_date: date | str | None = None, **changes) -> BoletoPayment:
    payer = samples.order_request()["customer"]
    built = BoletoPayment(
        due_date=due_date or rules.provider_today() + timedelta(days=3),
        holder=BoletoHolder(
            payer["name"],
            payer["tax_id"],
            payer["email"],
            Address(**samples.shipping()["address"]),
        ),
        instruction_lines=("Pagamento processado para DESC Fatura", "Via PagBank"),
    )
    return dataclasses.replace(built, **changes)


def boleto_charge(method: BoletoPayment | None = None, **changes) -> ChargeRequest:
    built = ChargeRequest(
        reference_id="ch-00001",
        description="Pedido ex-00001",
        amount=Amount(500),
        payment_method=method or boleto(),
    )
    return dataclasses.replace(built, **changes)


# --- Pix ------------------------------------------------------------------------------


def test_a_pix_order_is_the_body_the_emulator_takes():
    built = order(charges=(), qr_codes=[QrCode(500)]).to_dict()

    assert built == samples.order_request(charges=samples.OMIT, qr_codes=samples.qr_codes(500))


def test_a_qr_code_sends_its_expiry_with_its_offset_and_its_arrangements():
    qr_code = QrCode(500, EXPIRY, ("PAGBANK",))

    assert qr_code.to_dict() == {
        "amount": {"value": 500},
        "expiration_date": "2026-11-30T23:59:59-03:00",
        "arrangements": ["PAGBANK"],
    }


def test_a_pix_dict_is_validated_as_its_builder():
    body = samples.order_request(
        charges=samples.OMIT,
        qr_codes=samples.qr_codes(500, expiration_date="2026-11-30T23:59:59-03:00"),
    )

    assert validate_order_dict(body) == body
    assert order_from_dict(body).qr_codes == (QrCode(500, EXPIRY),)


@pytest.mark.parametrize(
    ("qr_code", "path"),
    [
        (QrCode(0), "qr_codes[0].amount.value"),
        (QrCode(500, datetime(2026, 11, 30, 23, 59)), "qr_codes[0].expiration_date"),
        (QrCode(500, "tomorrow"), "qr_codes[0].expiration_date"),  # type: ignore[arg-type]
        (QrCode(500, arrangements=("BOLETO",)), "qr_codes[0].arrangements[0]"),
    ],
)
def test_a_malformed_qr_code_is_refused_naming_its_field(qr_code, path):
    assert paths_of(lambda: order(charges=(), qr_codes=[qr_code]).to_dict()) == [path]


def test_an_order_has_one_qr_code_at_most():
    assert paths_of(lambda: order(charges=(), qr_codes=[QrCode(500), QrCode(500)]).to_dict()) == [
        "qr_codes"
    ]


def test_an_order_has_charges_or_a_qr_code_not_both():
    assert paths_of(lambda: order(qr_codes=[QrCode(500)]).to_dict()) == ["qr_codes"]


def test_a_pix_dict_with_an_unknown_key_is_refused_naming_it():
    body = samples.order_request(charges=samples.OMIT, qr_codes=samples.qr_codes(500, pix=True))

    assert paths_of(lambda: validate_order_dict(body)) == ["qr_codes[0].pix"]


# --- boleto ---------------------------------------------------------------------------


def test_a_boleto_charge_is_the_body_the_emulator_takes():
    due = rules.provider_today() + timedelta(days=3)

    built = boleto_charge(boleto(due)).to_dict()

    assert built == samples.boleto_charge_request(due.isoformat())


def test_a_boleto_dict_is_validated_as_its_builder():
    due = (rules.provider_today() + timedelta(days=3)).isoformat()
    body = samples.order_request(charges=[samples.boleto_charge_request(due)])

    assert validate_order_dict(body) == body
    assert validate_pay_dict({"charges": body["charges"]}) == {"charges": body["charges"]}


def test_the_payers_email_is_sent_in_lower_case_and_a_cnpj_upper_case():
    holder = dataclasses.replace(boleto().holder, email="Jose@Example.COM", tax_id="12abc34501de35")

    sent = boleto(holder=holder).to_dict()["boleto"]["holder"]

    assert (sent["email"], sent["tax_id"]) == ("jose@example.com", "12ABC34501DE35")


@pytest.mark.parametrize(
    ("days", "accepted"),
    [(-1, False), (0, True), (LONGEST, True), (LONGEST + 1, False)],
)
def test_the_due_date_is_from_today_to_the_longest_term(days, accepted):
    method = boleto(rules.provider_today() + timedelta(days=days))

    if accepted:
        assert boleto_charge(method).errors() == []
    else:
        assert paths_of(boleto_charge(method).validate) == ["payment_method.boleto.due_date"]


@pytest.mark.parametrize(
    "due_date", ["30/11/2026", datetime(2026, 11, 30, tzinfo=rules.PROVIDER_TZ)]
)
def test_a_due_date_that_is_not_a_day_is_refused(due_date):
    method = boleto(due_date)

    assert paths_of(boleto_charge(method).validate) == ["payment_method.boleto.due_date"]


@pytest.mark.parametrize(("length", "accepted"), [(75, True), (76, False)])
def test_an_instruction_line_is_75_characters_at_most(length, accepted):
    method = boleto(instruction_lines=("x" * length,))

    if accepted:
        assert boleto_charge(method).errors() == []
        sent = boleto_charge(method).to_dict()["payment_method"]["boleto"]
        assert sent["instruction_lines"] == {"line_1": "x" * length}
    else:
        assert paths_of(boleto_charge(method).validate) == [
            "payment_method.boleto.instruction_lines.line_1"
        ]


def test_a_boleto_has_two_instruction_lines_at_most():
    method = boleto(instruction_lines=("a", "b", "c"))

    assert paths_of(boleto_charge(method).validate) == ["payment_method.boleto.instruction_lines"]


def test_a_payer_with_a_forbidden_character_in_the_name_is_refused_naming_it():
    holder = dataclasses.replace(boleto().holder, name="Jose <da> Silva")

    assert paths_of(boleto_charge(boleto(holder=holder)).validate) == [
        "payment_method.boleto.holder.name"
    ]


def test_a_boleto_charge_takes_no_recurrence():
    built = boleto_charge(recurring=Recurring("INITIAL"))

    assert paths_of(built.validate) == ["recurring"]


def docs_instructions(due: date) -> PaymentInstructions:
    """The docs' fine and interest of 2,00 % from the day after the due date, 5,00 % off
    until it ("criar e pagar pedido com boleto")."""
    after = due + timedelta(days=1)
    return PaymentInstructions(
        fine=Penalty(after, percentage=200),
        interest=Penalty(after, percentage=200),
        discounts=[Discount(due, percentage=500)],
    )


def test_payment_instructions_are_sent_as_pagbank_documents_them():
    due = rules.provider_today() + timedelta(days=4)
    built = boleto_charge(boleto(due), payment_instructions=docs_instructions(due))

    assert built.errors() == []
    sent = built.to_dict()
    after = (due + timedelta(days=1)).isoformat()
    assert sent["payment_instructions"] == {
        "fine": {"date": after, "value": 200},
        "interest": {"date": after, "value": 200},
        "discounts": [{"due_date": due.isoformat(), "value": 500}],
    }
    # Fines, interest and discounts need the COBRANCA model (PROPOSTA is the default).
    assert sent["payment_method"]["boleto"]["template"] == "COBRANCA"
    assert "template" not in boleto_charge(boleto(due)).to_dict()["payment_method"]["boleto"]


def test_payment_instructions_apply_to_boleto_charges_only():
    due = rules.provider_today() + timedelta(days=3)
    instructions = docs_instructions(due)

    assert paths_of(charge(raw_card(), payment_instructions=instructions).validate) == [
        "payment_instructions"
    ]


def test_a_proposta_boleto_takes_no_instructions():
    due = rules.provider_today() + timedelta(days=3)
    built = boleto_charge(
        boleto(due, template="PROPOSTA"), payment_instructions=docs_instructions(due)
    )
    assert paths_of(built.validate) == ["payment_method.boleto.template"]


DUE = rules.provider_today() + timedelta(days=3)
AFTER = DUE + timedelta(days=1)


@pytest.mark.parametrize(
    ("instructions", "path"),
    [
        (PaymentInstructions(fine=Penalty(AFTER)), "payment_instructions.fine.value"),
        # Cents were never what PagBank reads: refused rather than sent as a percentage.
        (PaymentInstructions(fine=Penalty(AFTER, value=200)), "payment_instructions.fine.value"),
        (PaymentInstructions(fine=Penalty(AFTER, percentage=0)), "payment_instructions.fine.value"),
        (PaymentInstructions(fine=Penalty(AFTER, percentage=10000)),
         "payment_instructions.fine.value"),
        (PaymentInstructions(interest=Penalty(AFTER, percentage=6000)),
         "payment_instructions.interest.value"),
        (PaymentInstructions(fine=Penalty(DUE, percentage=200)), "payment_instructions.fine.date"),
        (PaymentInstructions(interest=Penalty(DUE, percentage=200)),
         "payment_instructions.interest.date"),
        (PaymentInstructions(fine=Penalty("soon", percentage=1)),  # type: ignore[arg-type]
         "payment_instructions.fine.date"),
        (PaymentInstructions(discounts=[Discount(AFTER, 500)]),
         "payment_instructions.discounts[0].due_date"),
        (PaymentInstructions(discounts=[Discount(DUE, 10000)]),
         "payment_instructions.discounts[0].value"),
        (PaymentInstructions(discount=Penalty(DUE, percentage=500)),
         "payment_instructions.discount"),
    ],
)  # fmt: skip
def test_a_malformed_instruction_is_refused_naming_its_field(instructions, path):
    built = boleto_charge(boleto(DUE), payment_instructions=instructions)

    assert paths_of(built.validate) == [path]


@pytest.mark.parametrize(("fine", "interest", "discount"), [(1, 1, 1), (9999, 5999, 9999)])
def test_instruction_bounds_are_taken(fine, interest, discount):
    instructions = PaymentInstructions(
        fine=Penalty(AFTER, percentage=fine),
        interest=Penalty(AFTER, percentage=interest),
        discounts=[Discount(DUE, discount)],
    )
    assert boleto_charge(boleto(DUE), payment_instructions=instructions).errors() == []


def test_payment_instructions_in_a_dict_are_read_as_the_builders():
    due = (rules.provider_today() + timedelta(days=3)).isoformat()
    after = (rules.provider_today() + timedelta(days=4)).isoformat()
    instructions = {
        "fine": {"date": after, "value": 200},
        "discounts": [{"due_date": due, "value": 5}],
    }
    body = samples.order_request(
        charges=[samples.boleto_charge_request(due, payment_instructions=instructions)]
    )

    sent = validate_order_dict(body)["charges"][0]
    assert sent["payment_instructions"] == instructions
    assert sent["payment_method"]["boleto"]["template"] == "COBRANCA"
    single = {"discounts": {"date": due, "value": 5}}  # the charge object's form
    body["charges"][0]["payment_instructions"] = single
    assert validate_order_dict(body)["charges"][0]["payment_instructions"] == {
        "discounts": [{"due_date": due, "value": 5}]
    }
    body["charges"][0]["payment_instructions"] = {"discount": {"date": due, "value": 5}}
    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)
    assert caught.value.paths == ["charges[0].payment_instructions.discount"]


def test_a_payment_method_that_is_not_an_object_is_refused_naming_it():
    body = samples.order_request(charges=[samples.charge_request(payment_method="BOLETO")])

    assert paths_of(lambda: validate_order_dict(body)) == ["charges[0].payment_method"]


@pytest.mark.parametrize(("length", "accepted"), [(30, True), (31, False)])
def test_the_payers_name_is_at_most_30_characters(length, accepted):
    payer = dataclasses.replace(boleto().holder, name=("Jose da Silva " * 3)[:length].strip())
    built = boleto_charge(boleto(holder=payer))
    if accepted:
        assert built.errors() == []
    else:
        assert paths_of(built.validate) == ["payment_method.boleto.holder.name"]


@pytest.mark.parametrize(
    ("name", "shortened"),
    [
        ("Maria Aparecida dos Santos Oliveira Ferreira", "Maria Aparecida dos Santos"),
        ("Jose da Silva", "Jose da Silva"),
        ("A" * 40, "A" * 30),  # one word: cut where it must be
        ("Joao Pedro de Alcantara Francisco", "Joao Pedro de Alcantara"),
    ],
)
def test_boleto_payer_name_shortens_at_a_word(name, shortened):
    assert rules.boleto_payer_name(name) == shortened
    assert len(rules.boleto_payer_name(name)) <= 30


def test_the_docs_boleto_payer_and_days_until_expiration_are_built():
    """The docs' payer (``address.region``, ``country: "Brasil"``), ``template`` and
    ``days_until_expiration`` (the reference types it as a string)."""
    payer = BoletoHolder(
        "Joao Silva",
        "07578643096",
        "email@gmail.com",
        Address(
            street="RUA DOUTOR ANTONIO BENTO",
            number="123",
            locality="Santo Amaro",
            city="São Paulo",
            region_code="SP",
            postal_code="04750001",
            country="Brasil",
            region="SP",
        ),
    )
    method = boleto(holder=payer, template="COBRANCA", days_until_expiration=45)
    built = boleto_charge(method)
    assert built.errors() == []
    sent = built.to_dict()["payment_method"]["boleto"]
    assert sent["days_until_expiration"] == "45" and sent["template"] == "COBRANCA"
    assert sent["holder"]["address"]["region"] == "SP"
    assert sent["holder"]["address"]["country"] == "Brasil"
    assert paths_of(boleto_charge(boleto(days_until_expiration=-1)).validate) == [
        "payment_method.boleto.days_until_expiration"
    ]
    body = samples.order_request(charges=[dict(built.to_dict())])
    assert validate_order_dict(body)["charges"][0]["payment_method"]["boleto"] == sent


@pytest.mark.parametrize(("value", "accepted"), [(19, False), (20, True)])
def test_a_boleto_charge_is_at_least_20_cents(value, accepted):
    built = boleto_charge(amount=Amount(value))
    if accepted:
        assert built.errors() == []
    else:
        assert paths_of(built.validate) == ["amount.value"]


SELLER = "ACCO_11111111-2222-3333-4444-555555555555"
MARKETPLACE = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"


def test_a_pix_qr_code_and_a_boleto_take_splits():
    """The order object's ``qr_codes[].splits``; the partner plugin's boleto splits."""
    splits = Splits.fixed(Receiver.fixed(SELLER, 700), Receiver.fixed(MARKETPLACE, 300))
    qr_code = QrCode(1000, EXPIRY, splits=splits)
    built = order(charges=(), qr_codes=[qr_code])
    assert built.errors() == []
    assert built.to_dict()["qr_codes"][0]["splits"] == splits.to_dict()
    boleto_split = boleto_charge(amount=Amount(1000), splits=splits)
    assert boleto_split.errors() == []
    assert boleto_split.to_dict()["splits"] == splits.to_dict()
    body = order(charges=(), qr_codes=[qr_code]).to_dict()
    assert validate_order_dict(body) == body


def test_a_pix_or_boleto_split_follows_the_split_rules():
    short = Splits.fixed(Receiver.fixed(SELLER, 700), Receiver.fixed(MARKETPLACE, 200))
    assert paths_of(order(charges=(), qr_codes=[QrCode(1000, splits=short)]).validate) == [
        "qr_codes[0].splits.receivers.amount.value"
    ]
    liable = Splits.fixed(
        Receiver.fixed(SELLER, 700), Receiver.fixed(MARKETPLACE, 300, liable=True)
    )
    assert paths_of(order(charges=(), qr_codes=[QrCode(1000, splits=liable)]).validate) == [
        "qr_codes[0].splits.receivers[1].configurations.liable"
    ]
    assert paths_of(boleto_charge(amount=Amount(1000), splits=liable).validate) == [
        "splits.receivers[1].configurations.liable"
    ]
