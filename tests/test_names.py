"""The public API's names (docs/names.md): the new ones, and the old ones still working, warning.

- ``payloads.OrderRequest`` / ``ChargeRequest`` (were ``Order`` / ``Charge``, the models' names);
- ``exceptions.PayloadError`` (was ``ValidationError``, Django's and DRF's name);
- ``models.DeepLink``, ``DeepLinkFactory``, ``DeepLinkInline`` (were ``Deeplink...``);
- ``encrypt_card(key, number=..., exp_month=..., exp_year=..., security_code=..., holder=...)``
  (took five positional strings in another order than ``Card.raw``);
- ``Receiver.fixed(account, cents)`` / ``Receiver.percentage(account, percent)``
  (``Receiver(account, amount)`` did not say which).
"""

from __future__ import annotations

import base64
import importlib
import warnings

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from django_orderpay import cardcrypto, exceptions, models, payloads
from django_orderpay.services import create_order, get_split
from tests.test_services_support import OTHER_ACCOUNT, charge, order_payload

OLD_NAMES = [
    ("django_orderpay.payloads", "Order", "OrderRequest"),
    ("django_orderpay.payloads", "Charge", "ChargeRequest"),
    ("django_orderpay.payloads", "ValidationError", "PayloadError"),
    ("django_orderpay.exceptions", "ValidationError", "PayloadError"),
    ("django_orderpay.models", "Deeplink", "DeepLink"),
    ("django_orderpay.testing.factories", "DeeplinkFactory", "DeepLinkFactory"),
    ("django_orderpay.admin", "DeeplinkInline", "DeepLinkInline"),
]


@pytest.mark.parametrize(("module_name", "old", "new"), OLD_NAMES)
def test_an_old_name_still_works_and_warns_naming_the_new_one(module_name, old, new):
    module = importlib.import_module(module_name)

    with pytest.warns(
        DeprecationWarning, match=rf"{module_name}\.{old} is deprecated: use .*{new}"
    ):
        found = getattr(module, old)

    assert found is getattr(module, new)
    assert old not in vars(module) and new in vars(module)
    assert old not in getattr(module, "__all__", ()) and new in getattr(module, "__all__", [new])


def test_from_import_of_an_old_name_warns_too():
    with pytest.warns(DeprecationWarning, match="OrderRequest"):
        from django_orderpay.payloads import Order  # noqa: F401


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="Ordre"):
        payloads.Ordre


def test_the_old_validation_error_still_catches_what_the_builders_raise():
    with pytest.warns(DeprecationWarning):
        old = exceptions.ValidationError
    with pytest.raises(old) as caught:
        payloads.Amount(-1).validate("amount")
    assert isinstance(caught.value, exceptions.PayloadError)
    assert caught.value.paths == ["amount.value"]


def test_our_payload_error_is_not_djangos_or_drfs():
    from django.core.exceptions import ValidationError as DjangoValidationError
    from rest_framework.exceptions import ValidationError as DRFValidationError

    assert exceptions.PayloadError.__name__ == "PayloadError"
    assert not issubclass(exceptions.PayloadError, DjangoValidationError | DRFValidationError)


# --- encrypt_card takes the card fields by name ----------------------------------------


@pytest.fixture(scope="module")
def key_pair() -> tuple[rsa.RSAPrivateKey, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, base64.b64encode(der).decode()


CARD = {
    "number": "4111111111111111",
    "exp_month": "5",
    "exp_year": "2031",
    "security_code": "987",
    "holder": "Maria Souza",
}


def _fields(private, blob) -> tuple[str, str, str, str, str]:
    card = cardcrypto.decrypt_card(private, blob)
    return card.number, card.exp_month, card.exp_year, card.security_code, card.holder


def test_encrypt_card_takes_keywords_in_card_raws_order(key_pair):
    private, public = key_pair
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        blob = cardcrypto.encrypt_card(public, **CARD)

    assert _fields(private, blob) == ("4111111111111111", "05", "2031", "987", "Maria Souza")
    raw = payloads.Card.raw(*CARD.values())  # the same values, positionally, in the same order
    assert (raw.number, raw.exp_month, raw.exp_year, raw.security_code) == (
        "4111111111111111",
        "05",
        "2031",
        "987",
    )


def test_the_old_positional_order_still_encrypts_the_same_card_and_warns(key_pair):
    private, public = key_pair
    with pytest.warns(DeprecationWarning, match="pass the card fields as keywords"):
        blob = cardcrypto.encrypt_card(
            public, "4111111111111111", "987", "5", "2031", "Maria Souza"
        )

    assert _fields(private, blob) == ("4111111111111111", "05", "2031", "987", "Maria Souza")


@pytest.mark.parametrize(
    "call",
    [
        lambda key: cardcrypto.encrypt_card(key, "4111111111111111", "987", "5", "2031"),
        lambda key: cardcrypto.encrypt_card(key, "4111111111111111", **{**CARD, "number": None}),
        lambda key: cardcrypto.encrypt_card(key, **{**CARD, "holder": None}),
    ],
    ids=["four-positional", "positional-and-keywords", "a-field-missing"],
)
def test_a_half_given_card_is_a_type_error_not_a_guess(key_pair, call):
    with pytest.raises(TypeError, match="encrypt_card"):
        call(key_pair[1])


# --- Receiver says what its amount is --------------------------------------------------

MERCHANT = "ACCO_00000000-0000-4000-8000-00000000000A"


def charged(splits: payloads.Splits, amount: int) -> payloads.ChargeRequest:
    card = payloads.Card.raw("4111111111111111", 12, 2030, "123", "Jose da Silva")
    return payloads.ChargeRequest(amount, payloads.PaymentMethod(card), splits=splits)


def test_receivers_built_as_fixed_or_percentage_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed = payloads.Splits.fixed(
            payloads.Receiver.fixed(MERCHANT, 7000), payloads.Receiver.fixed(OTHER_ACCOUNT, 3000)
        )
        share = payloads.Splits.percentage(
            payloads.Receiver.percentage(MERCHANT, 70),
            payloads.Receiver.percentage(OTHER_ACCOUNT, 30, liable=True),
        )
    charged(fixed, 10000).validate("charges[0]")
    charged(share, 10000).validate("charges[0]")
    assert fixed.to_dict()["receivers"][0] == {
        "account": {"id": MERCHANT},
        "amount": {"value": "7000"},
    }
    assert "method" not in share.to_dict()["receivers"][1]


def test_a_receiver_without_its_kind_still_works_and_warns():
    with pytest.warns(DeprecationWarning, match=r"Receiver.fixed\(account_id, cents\)"):
        receiver = payloads.Receiver(MERCHANT, 7000)
    assert receiver.to_dict()["amount"] == {"value": "7000"}


def test_a_percentage_part_in_a_fixed_split_is_refused_naming_it():
    splits = payloads.Splits.fixed(
        payloads.Receiver.fixed(MERCHANT, 70), payloads.Receiver.percentage(OTHER_ACCOUNT, 30)
    )

    with pytest.raises(exceptions.PayloadError) as caught:
        charged(splits, 100).validate("charges[0]")

    assert caught.value.paths == ["charges[0].splits.receivers[1].amount.value"]
    assert "is a PERCENTAGE part, but the split's method is FIXED" in str(caught.value)


@pytest.mark.django_db
def test_the_packages_own_paths_use_no_old_name(orderpay_emulator):
    """Builders and dict bodies through the services, splits included: not one warning."""
    splits = {
        "method": "PERCENTAGE",
        "receivers": [
            {"account": {"id": orderpay_emulator.account_id}, "amount": {"value": "60"}},
            {"account": {"id": OTHER_ACCOUNT}, "amount": {"value": "40"}},
        ],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        order = create_order(order_payload("names-1", charges=[charge(1000, splits=splits)]))
        request = payloads.order_from_dict(
            order_payload("names-2", charges=[charge(1000, splits=splits)])
        )
        second = create_order(request)
        split = get_split(second.charges.get())

    assert order.charges.get().status == second.charges.get().status == "PAID"
    assert isinstance(request, payloads.OrderRequest)
    assert {int(r["amount"]["value"]) for r in split.receivers} == {60, 40}
    assert models.DeepLink._meta.db_table == "django_orderpay_deeplink"  # the table is unchanged
