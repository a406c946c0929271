from __future__ import annotations

import pytest

from django_orderpay import rules


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4539620659922097", "visa"),
        ("4929291898380766", "visa"),
        ("5240082975622454", "mastercard"),
        ("2221000000000009", "mastercard"),
        ("345817690311361", "amex"),
        ("372938001199778", "amex"),
        ("4514161122113757", "elo"),
        ("4389350446134811", "elo"),
        ("6504870000000000", "elo"),
        ("6062828598919021", "hipercard"),
        ("4111111111111111", "visa"),
        ("9999999999999995", None),
    ],
)
def test_card_brand_from_bin(number, brand):
    assert rules.card_brand(number) == brand


def test_sandbox_cards_pass_luhn_and_a_changed_digit_fails():
    assert rules.luhn_valid("4111111111111111")
    assert rules.luhn_valid("345817690311361")
    assert not rules.luhn_valid("4111111111111112")
    assert not rules.luhn_valid("4111-1111")


@pytest.mark.parametrize(
    ("tax_id", "valid"),
    [
        ("12345678909", True),
        ("12345678900", False),
        ("11111111111", False),
        ("11222333000181", True),
        ("11222333000180", False),
        ("123.456.789-09", False),
    ],
)
def test_tax_id_check_digits(tax_id, valid):
    assert rules.valid_tax_id(tax_id) is valid


def test_redirect_url_pattern():
    assert rules.REDIRECT_URL_PATTERN.match("myshop://orders/1")
    assert rules.REDIRECT_URL_PATTERN.match("https://shop.example.com/back")
    assert not rules.REDIRECT_URL_PATTERN.match("myshop:/orders/1")
    assert not rules.REDIRECT_URL_PATTERN.match("my-shop://x")
