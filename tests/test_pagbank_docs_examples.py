"""Every request example of PagBank's use-case pages, sent as printed, to the emulator over
HTTP and through ``services.create_order``; each answer checked against the documented
response's shape (every key it shows, with the same JSON type) and charge status.

The examples live in ``tests/pagbank_docs`` with the page each came from. Only what must
change for a body to be sent today is adapted (:func:`adapted`): dates moved forward (card
expiry, QR code expiry, boleto due date and the instructions dated from it), the card
encrypted with the emulator's key, the 3-D Secure id from the emulator's flow and the stored
card's id from the emulator's answer. Two adaptations beyond those are listed in
:data:`BEYOND_THE_ALLOWED`, each with why.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest
import requests

from django_orderpay import rules, services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.client import get_client
from django_orderpay.exceptions import ProviderError
from tests.pagbank_docs import docs_example, docs_examples

pytestmark = pytest.mark.django_db

#: The card expiry every example's card is moved to (theirs are 2026, some already past).
EXP_YEAR = "2031"
#: Adaptations the rule ("dates, encryption, 3-D Secure ids") does not cover, and why.
BEYOND_THE_ALLOWED = {
    # The Google Pay and Apple Pay pages send customer.tax_id "123456789": 9 digits, neither a
    # CPF nor a CNPJ; the order object's table says 11 or 14. The emulator keeps the table
    # (docs/emulator.md, "Where the emulator chose a side").
    "11-1": "customer.tax_id 123456789 -> 12345678909",
    "12-1": "customer.tax_id 123456789 -> 12345678909",
}
#: Where a documented response contradicts its own request or the order object, the keys the
#: shape check leaves out (the emulator answers as the request and the object say).
UNSHAPED = {
    # The create page's answer: "qr_codes": [] and "links": [] beside an order made with no QR
    # code (the other pages' answers leave qr_codes out, and give links SELF and PAY).
    "01-1": {"qr_codes"},
    # The Pix page's answer: items' quantity and unit_amount as strings and a reference_id
    # (its request sends numbers and none), and an order-level amount{currency, additional,
    # discount} no object documents.
    "02-1": {"items.quantity", "items.unit_amount", "items.reference_id", "amount"},
    # The Apple Pay page's answer writes " security_level_indicator " with spaces.
    "12-1": {"charges.payment_response.raw_data. security_level_indicator "},
}
#: Examples that are not a create-order request, and what they are sent to.
NOT_AN_ORDER = {"04-1", "09-0"}


def encrypted_card(provider, number: str = "4111111111111111") -> str:
    return encrypt_card(
        provider.emulator.public_key,
        number=number,
        security_code="123",
        exp_month="12",
        exp_year=EXP_YEAR,
        holder="Jose da Silva",
    )


def authenticated(provider, number: str, amount: int, kind: str = "CREDIT_CARD") -> str:
    """A 3-D Secure id from the emulator's flow, as the SDK gets one."""
    session = services.create_3ds_session().session
    data = copy.deepcopy(docs_example("09-0")["request"]["data"])
    data["paymentMethod"].update(type=kind)
    data["paymentMethod"]["card"].update(number=number, expYear=EXP_YEAR)
    data["amount"]["value"] = amount
    answer = requests.post(
        provider.base_url + "/checkout-sdk/authentications",
        json={"session": session, "data": data},
        timeout=5,
    ).json()
    assert answer["status"] == "AUTH_FLOW_COMPLETED", answer
    return str(answer["id"])


def adapted(name: str, provider, *, store=None) -> dict[str, Any]:
    """The example's request, adapted only as the module's docstring says. ``store`` makes
    the stored card of 07-2 (the services store it for the user who pays with it)."""
    body = copy.deepcopy(docs_example(name)["request"])
    today = rules.provider_today()
    for qr_code in body.get("qr_codes") or []:
        later = today + timedelta(days=2)
        qr_code["expiration_date"] = f"{later.isoformat()}T20:15:59-03:00"
    for charge in body.get("charges") or []:
        method = charge["payment_method"]
        card = method.get("card") or {}
        if "exp_year" in card:
            card["exp_year"] = EXP_YEAR
        if "encrypted" in card:
            card["encrypted"] = encrypted_card(provider)
        if card.get("id", "").startswith("CARD_"):
            stored = (store or get_client().create_order)(adapted("07-1", provider))
            card["id"] = stored["charges"][0]["payment_method"]["card"]["id"]
        auth = method.get("authentication_method") or {}
        if auth.get("id"):
            auth["id"] = authenticated(provider, card["number"], charge["amount"]["value"])
        boleto = method.get("boleto")
        if boleto:
            due = today + timedelta(days=3)
            boleto["due_date"] = due.isoformat()
            instructions = charge.get("payment_instructions") or {}
            for part in ("fine", "interest"):
                if part in instructions:
                    instructions[part]["date"] = (due + timedelta(days=1)).isoformat()
            for discount in instructions.get("discounts") or []:
                discount["due_date"] = due.isoformat()
    if name in BEYOND_THE_ALLOWED:
        body["customer"]["tax_id"] = "12345678909"
    return body


def shape_problems(documented: Any, answered: Any, path: str, skipped: set[str]) -> list[str]:
    """Every key path of ``documented`` missing from ``answered`` or of another JSON type."""
    if path.lstrip(".") in skipped:
        return []
    if isinstance(documented, dict):
        if not isinstance(answered, dict):
            return [f"{path or '.'}: an object documented, {type(answered).__name__} answered"]
        found = []
        for key, value in documented.items():
            where = f"{path}.{key}" if path else key
            if where in skipped:
                continue
            if key not in answered:
                found.append(f"{where}: documented, not answered")
            else:
                found += shape_problems(value, answered[key], where, skipped)
        return found
    if isinstance(documented, list):
        if not isinstance(answered, list):
            return [f"{path}: a list documented, {type(answered).__name__} answered"]
        return [
            problem
            for doc, ans in zip(documented, answered, strict=False)
            for problem in shape_problems(doc, ans, path, skipped)
        ]
    kinds = (bool, int | float, str, type(None))
    expected = next(kind for kind in kinds if isinstance(documented, kind))
    if not isinstance(answered, expected) or isinstance(answered, bool) != isinstance(
        documented, bool
    ):
        return [f"{path}: {type(documented).__name__} documented, {type(answered).__name__}"]
    return []


ORDER_EXAMPLES = [name for name in docs_examples() if name not in NOT_AN_ORDER]


@pytest.mark.parametrize("name", ORDER_EXAMPLES)
def test_the_emulator_takes_the_example_and_answers_its_shape(name, orderpay_emulator):
    example = docs_example(name)
    answer = get_client().create_order(adapted(name, orderpay_emulator))

    documented = example["response"]
    if documented is None:
        return
    assert shape_problems(documented, answer, "", UNSHAPED.get(name, set())) == []
    statuses = [charge["status"] for charge in documented.get("charges") or []]
    assert [charge["status"] for charge in answer.get("charges") or []] == statuses


@pytest.mark.parametrize("name", ORDER_EXAMPLES)
def test_services_create_order_takes_the_example(name, orderpay_emulator, django_user_model):
    example = docs_example(name)
    shopper = django_user_model.objects.create_user("jose")  # a stored card is its owner's

    def store(body):
        return services.create_order(body, user=shopper).data

    order = services.create_order(adapted(name, orderpay_emulator, store=store), user=shopper)

    assert order.provider_id.startswith("ORDE_")
    documented = [charge["status"] for charge in (example["response"] or {}).get("charges") or []]
    if example["response"] is not None:
        assert [charge.status for charge in order.charges.order_by("pk")] == documented


def test_the_fee_query_answers_the_documented_plans(orderpay_emulator):
    example = docs_example("04-1")
    response = requests.get(
        orderpay_emulator.base_url + example["path"],
        headers={"Authorization": f"Bearer {orderpay_emulator.token}"},
        timeout=5,
    )
    assert response.json() == example["response"]
    plans = services.installment_plans(
        10000, card_bin="552100", max_installments=10, max_installments_no_interest=4
    )
    [brand] = example["response"]["payment_methods"]["credit_card"].values()
    assert [(p.installments, p.installment_value, p.total) for p in plans] == [
        (p["installments"], p["installment_value"], p["amount"]["value"])
        for p in brand["installment_plans"]
    ]


def test_the_sdks_documented_authentication_request_is_taken(orderpay_emulator):
    """The data the 3-D Secure page gives ``authenticate3DS`` (a debit card, three phones,
    a billing and a shipping address), with a card of the sandbox's table."""
    assert authenticated(orderpay_emulator, "4000000000002701", 500, "DEBIT_CARD").startswith(
        "3DS_"
    )


def test_the_declined_boleto_answers_the_documented_shape(orderpay_emulator):
    from django_orderpay.emulator import BOLETO_DECLINED_TAX_ID

    body = adapted("10-1", orderpay_emulator)
    body["charges"][0]["payment_method"]["boleto"]["holder"]["tax_id"] = BOLETO_DECLINED_TAX_ID
    answer = get_client().create_order(body)
    documented = docs_example("10-1")["declined_response"]
    assert shape_problems(documented, answer, "", set()) == []
    assert answer["charges"][0]["status"] == "DECLINED"


def test_the_documented_fields_are_mirrored(orderpay_emulator):
    """A facilitator's ``sub_merchant``, a network token's ``token_data`` and a wallet's type
    reach the mirror (the charge's ``data``); their secrets never do."""
    facilitator = services.create_order(adapted("03-1", orderpay_emulator)).charges.get()
    assert facilitator.data["sub_merchant"]["tax_id"] == "42167200803"
    token = services.create_order(adapted("06-1", orderpay_emulator)).charges.get()
    assert token.data["payment_method"]["card"]["token_data"]["wallet"] == "APPLE_PAY"
    assert "cryptogram" not in str(token.data) and "5454555555555555" not in str(token.data)
    wallet = services.create_order(adapted("11-1", orderpay_emulator)).charges.get()
    assert wallet.data["payment_method"]["card"]["wallet"] == {"type": "GOOGLE_PAY"}
    assert (wallet.card_brand, wallet.card_last_digits) == ("visa", "9948")


@pytest.mark.parametrize("name", sorted(BEYOND_THE_ALLOWED))
def test_the_wallet_examples_as_printed_with_the_option_for_short_tax_ids(name, orderpay_emulator):
    """The emulator keeps the order object's 11 or 14 characters; the option ``short_tax_ids``
    takes the wallet pages' "123456789" as printed."""
    body = adapted(name, orderpay_emulator)
    body["customer"]["tax_id"] = docs_example(name)["request"]["customer"]["tax_id"]
    with pytest.raises(ProviderError) as caught:
        get_client().create_order(body)
    assert caught.value.parameter_names == ["customer.tax_id"]
    orderpay_emulator.control("POST", "options", {"short_tax_ids": True})
    assert get_client().create_order(body)["customer"]["tax_id"] == "123456789"
