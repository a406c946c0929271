"""The checkout forms: what they accept, the errors they name, and payments through the emulator."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import AnonymousUser

from django_orderpay import payloads, services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.forms import CardPaymentForm, SavedCardForm, installment_choices
from django_orderpay.models import CardToken, Order

APPROVED = "4111111111111111"
DECLINED = "4929291898380766"


def encrypted(number: str = APPROVED, *, key: str | None = None, security_code: str = "123") -> str:
    return encrypt_card(
        key or services.get_public_key(),
        number=number,
        security_code=security_code,
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )


def foreign_key() -> str:
    """A public key the provider never issued: what it encrypts, the provider cannot read."""
    public = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


def unpaid_order(user=None) -> Order:
    return services.create_order(
        payloads.OrderRequest(
            reference_id="form-1",
            customer=payloads.Customer("Jose da Silva", "jose@example.com", "12345678909"),
            items=(payloads.Item("Camiseta", 2, 2500, reference_id="sku-1"),),
        ),
        user=user,
    )


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("maria")


# --- validation, no network ---------------------------------------------------------


HOLDER = "Jose da Silva"


def test_no_encrypted_card_names_the_field_and_says_what_to_do():
    form = CardPaymentForm({"holder_name": HOLDER, "installments": "1"}, request=None)
    assert not form.is_valid()
    assert list(form.errors) == ["encrypted_card"]
    assert "not encrypted" in form.errors["encrypted_card"][0]
    assert "JavaScript" in form.errors["encrypted_card"][0]


@pytest.mark.parametrize(
    "blob",
    ["4111111111111111", "not base64 at all!", "QUJD", "QUJD" * 200, "QUJ=" * 86],
)
def test_anything_but_an_rsa_ciphertext_is_refused_on_encrypted_card(blob):
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": blob, "installments": "1"}, request=None
    )
    assert not form.is_valid()
    assert list(form.errors) == ["encrypted_card"]
    # The error never repeats what was posted.
    assert blob not in str(form.errors)


@pytest.mark.parametrize("installments", ["0", "13", "abc", ""])
def test_installments_out_of_range_name_the_field(installments):
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": "QUJD" * 86, "installments": installments},
        request=None,
    )
    assert not form.is_valid()
    assert list(form.errors) == ["installments"]


def test_max_installments_limits_the_choices():
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": "QUJD" * 86, "installments": "4"},
        max_installments=3,
        request=None,
    )
    assert not form.is_valid()
    assert list(form.errors) == ["installments"]
    with pytest.raises(ValueError, match="max_installments"):
        CardPaymentForm(max_installments=13, request=None)


def test_installment_labels():
    assert installment_choices(2) == [(1, "1x"), (2, "2x")]
    assert installment_choices(3, 1500)[2] == (3, "3x R$ 5.00 (no interest)")
    # The shares add up to the amount: the first installment carries the odd cents.
    three = "3x: the first R$ 33.34 and 2x R$ 33.33 (no interest)"
    six = "6x: the first R$ 13.15 and 5x R$ 13.17 (no interest)"
    assert installment_choices(3, 10000)[2] == (3, three)
    assert installment_choices(6, 7900)[5] == (6, six)


@pytest.mark.parametrize(
    ("amount", "offered"), [(1500, 3), (1499, 2), (999, 1), (300, 1), (100_000, 12)]
)
def test_only_installments_of_at_least_five_reais_are_offered(amount, offered):
    # PagBank takes no installment under R$ 5,00.
    assert [count for count, _ in installment_choices(12, amount)] == list(range(1, offered + 1))


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Jose da Silva", "Jose da Silva"),
        ("  José   D'Ávila ", "José D'Ávila"),
        ("Ana-Maria J. Brandão", "Ana-Maria J. Brandão"),  # what the SDK drops harmlessly
    ],
)
def test_the_holders_name_is_posted_and_sent_in_card_holder(typed, kept):
    form = CardPaymentForm(
        {"holder_name": typed, "encrypted_card": "QUJD" * 86, "installments": "1"}, request=None
    )
    assert form.is_valid(), form.errors

    card = form.charge(500).to_dict()["payment_method"]["card"]

    assert card["holder"] == {"name": kept}


@pytest.mark.parametrize(
    "typed",
    # Not letters: the SDK would drop them from the name the issuer reads (an emoji
    # included), or PagBank refuses them.
    ["", "   ", "Jose 2", "Jose <Silva>", "J" * 31, "Jose 😀", "Jose ★", "Jos€", "Иван"],
)
def test_a_holders_name_pagbank_would_refuse_names_the_field(typed):
    form = CardPaymentForm(
        {"holder_name": typed, "encrypted_card": "QUJD" * 86, "installments": "1"}, request=None
    )
    assert not form.is_valid()
    assert list(form.errors) == ["holder_name"]


@pytest.mark.django_db
def test_save_card_exists_only_for_a_logged_in_user(user):
    assert "save_card" not in CardPaymentForm(user=AnonymousUser(), request=None).fields
    assert "save_card" not in CardPaymentForm(request=None).fields
    assert "save_card" in CardPaymentForm(user=user, request=None).fields


def test_charge_carries_the_encrypted_card_and_no_card_data():
    blob = "QUJD" * 86
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": blob, "installments": "3"}, request=None
    )
    assert form.is_valid(), form.errors

    charge = form.charge(5000, reference_id="ref-1", description="Pedido 1").to_dict()
    assert charge == {
        "reference_id": "ref-1",
        "description": "Pedido 1",
        "amount": {"value": 5000, "currency": "BRL"},
        "payment_method": {
            "type": "CREDIT_CARD",
            "installments": 3,
            "capture": True,
            "card": {"encrypted": blob, "holder": {"name": "Jose da Silva"}},
        },
    }


# --- paying through the emulator ----------------------------------------------------


@pytest.mark.django_db
def test_pay_with_an_encrypted_card(orderpay_emulator):
    order = unpaid_order()
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(), "installments": "2"}, request=None
    )
    assert form.is_valid(), form.errors

    paid = form.pay(order, 5000, description="Pedido 1")

    charge = paid.charges.get()
    assert (paid.status, charge.status, charge.amount_value) == ("PAID", "PAID", 5000)
    assert (charge.installments, charge.card_last_digits) == (2, "1111")
    assert CardToken.objects.count() == 0


@pytest.mark.django_db
def test_a_declined_card_is_an_order_not_a_form_error(orderpay_emulator):
    order = unpaid_order()
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(DECLINED), "installments": "1"},
        request=None,
    )
    assert form.is_valid()

    declined = form.pay(order, 5000)

    assert declined.status == "DECLINED"
    assert declined.charges.get().payment_response_message == "NAO AUTORIZADA"
    assert form.errors == {}


@pytest.mark.django_db
def test_save_card_stores_a_token_owned_by_the_user(orderpay_emulator, user):
    order = unpaid_order(user)
    form = CardPaymentForm(
        {
            "holder_name": HOLDER,
            "encrypted_card": encrypted(),
            "installments": "1",
            "save_card": "on",
        },
        user=user,
        request=None,
    )
    assert form.is_valid()

    form.pay(order, 5000)

    token = CardToken.objects.get()
    assert (token.user, token.last_digits, token.brand) == (user, "1111", "visa")


@pytest.mark.django_db
def test_a_card_the_provider_cannot_decrypt_is_an_error_on_encrypted_card(orderpay_emulator):
    order = unpaid_order()
    blob = encrypted(key=foreign_key())
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": blob, "installments": "1"}, request=None
    )
    assert form.is_valid()

    assert form.pay(order, 5000) is None

    assert list(form.errors) == ["encrypted_card"]
    # What the shopper can do, not the provider's code (that goes to the log).
    assert form.errors["encrypted_card"][0] == (
        "Card: This card can't be used here. Check its details, or try another card. "
        "You may try another card or another way to pay."
    )
    assert "40002" not in str(form.errors)
    assert blob not in str(form.errors)
    assert order.charges.count() == 0


@pytest.mark.django_db
def test_provider_unreachable_is_a_form_error_saying_to_try_again(orderpay_emulator, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    order = unpaid_order()
    orderpay_emulator.inject_fault("http_502", path_prefix="/orders")
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(), "installments": "1"}, request=None
    )
    assert form.is_valid()

    assert form.pay(order, 5000) is None

    assert list(form.errors) == ["__all__"]
    assert "did not answer" in form.non_field_errors()[0]


@pytest.mark.django_db
def test_a_wrong_token_says_the_shop_cannot_take_payments_and_logs_an_error(
    orderpay_emulator, settings, caplog
):
    order = unpaid_order()
    settings.ORDERPAY = {**settings.ORDERPAY, "TOKEN": "a-token-the-provider-never-issued"}
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(), "installments": "1"}, request=None
    )
    assert form.is_valid()

    with caplog.at_level("ERROR", logger="django_orderpay.shopper_messages"):
        assert form.pay(order, 5000) is None

    (shown,) = form.non_field_errors()
    assert shown == (
        "This shop can't take payments right now. Please try again later, or contact the shop."
    )
    assert "another card" not in shown and "401" not in shown
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert "AuthenticationError" in record.getMessage()
    assert "ORDERPAY['TOKEN']" in record.getMessage()
    assert "a-token-the-provider-never-issued" not in record.getMessage()


@pytest.mark.django_db
def test_a_missing_token_is_the_shops_too(orderpay_emulator, settings, caplog):
    order = unpaid_order()
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(), "installments": "1"}, request=None
    )
    assert form.is_valid()
    settings.ORDERPAY = {**settings.ORDERPAY, "TOKEN": ""}

    with caplog.at_level("ERROR", logger="django_orderpay.shopper_messages"):
        assert form.pay(order, 5000) is None

    assert form.non_field_errors()[0].startswith("This shop can't take payments right now.")
    assert [r for r in caplog.records if r.levelname == "ERROR"]


@pytest.mark.django_db
def test_an_amount_the_builders_refuse_is_a_form_error_naming_the_path(orderpay_emulator):
    order = unpaid_order()
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(), "installments": "1"}, request=None
    )
    assert form.is_valid()

    assert form.pay(order, 0) is None

    (message,) = form.non_field_errors()
    assert "charges[0].amount.value" in message


@pytest.mark.django_db
def test_in_analysis_card(orderpay_emulator):
    order = unpaid_order()
    form = CardPaymentForm(
        {"holder_name": HOLDER, "encrypted_card": encrypted(IN_ANALYSIS_CARD), "installments": "1"},
        request=None,
    )
    assert form.is_valid()
    assert form.pay(order, 5000).status == "IN_ANALYSIS"


# --- saved cards --------------------------------------------------------------------


@pytest.fixture
def saved_card(orderpay_emulator, user) -> CardToken:
    card_form = CardPaymentForm(
        {
            "holder_name": HOLDER,
            "encrypted_card": encrypted(),
            "installments": "1",
            "save_card": "on",
        },
        user=user,
        request=None,
    )
    assert card_form.is_valid()
    card_form.pay(unpaid_order(user), 5000)
    return CardToken.objects.get(user=user)


@pytest.mark.django_db
def test_saved_card_form_lists_only_the_users_cards(saved_card, user, django_user_model):
    other = django_user_model.objects.create_user("joao")

    assert list(SavedCardForm(user=user, request=None).fields["card_token"].queryset) == [
        saved_card
    ]
    assert SavedCardForm(user=user, request=None).has_cards
    assert not SavedCardForm(user=other, request=None).has_cards
    assert not SavedCardForm(user=AnonymousUser(), request=None).has_cards
    label = (
        SavedCardForm(user=user, request=None).fields["card_token"].label_from_instance(saved_card)
    )
    assert label == "Visa •••• 1111 (12/2030)"
    assert saved_card.provider_id not in str(SavedCardForm(user=user, request=None))


@pytest.mark.django_db
def test_someone_elses_card_is_an_error_naming_card_token(saved_card, django_user_model):
    other = django_user_model.objects.create_user("joao")
    form = SavedCardForm(
        {"card_token": str(saved_card.pk), "installments": "1"}, user=other, request=None
    )
    assert not form.is_valid()
    assert form.errors["card_token"] == ["Choose one of your saved cards."]


@pytest.mark.django_db
def test_pay_with_a_saved_card(saved_card, user, orderpay_emulator):
    order = unpaid_order(user)
    form = SavedCardForm(
        {"card_token": str(saved_card.pk), "installments": "3"}, user=user, request=None
    )
    assert form.is_valid(), form.errors

    paid = form.pay(order, 4200)

    charge = paid.charges.get()
    assert (paid.status, charge.amount_value, charge.installments) == ("PAID", 4200, 3)
    assert charge.card_token == saved_card


@pytest.mark.django_db
def test_a_card_removed_after_the_form_checked_it_is_an_error_naming_card_token(
    saved_card, user, orderpay_emulator
):
    """Removed in another tab between the form's check and its payment: the service refuses
    it before any call, and the form says so on the field, never with its CARD_ id."""
    order = unpaid_order(user)
    form = SavedCardForm(
        {"card_token": str(saved_card.pk), "installments": "1"}, user=user, request=None
    )
    assert form.is_valid()
    services.remove_card_token(saved_card, user=user)

    assert form.pay(order, 4200) is None

    assert form.errors == {"card_token": ["Choose one of your saved cards."]}
    assert saved_card.provider_id not in str(form.errors)
    assert not Order.objects.get(pk=order.pk).charges.exists()


@pytest.mark.django_db
def test_saved_card_unknown_to_the_provider_is_an_error_naming_card_token(
    saved_card, user, orderpay_emulator
):
    orderpay_emulator.reset()  # the provider forgets the stored card
    order = unpaid_order(user)
    form = SavedCardForm(
        {"card_token": str(saved_card.pk), "installments": "1"}, user=user, request=None
    )
    assert form.is_valid()

    assert form.pay(order, 4200) is None

    assert list(form.errors) == ["card_token"]
