"""The emulator's pages speak their reader's language: the shop's cookie, else the browser's.

A person reads three of its pages: the bank's 3-D Secure challenge, a
boleto's bank page and the PagBank app's stand-in. Each is in Brazilian
Portuguese or English as the shop is (the ``django_language`` cookie of
Django's ``set_language``, sent when the emulator is served on the shop's
host), else as the browser asks (``Accept-Language``); English otherwise.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from django_orderpay.emulator.serving.http import Request
from django_orderpay.emulator.serving.language import language, money
from tests.emulator.test_core_boleto import boleto_order
from tests.emulator.test_core_threeds import CHALLENGED, authenticate
from tests.emulator.test_pagpay_page import HTML

PT = {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def request(**headers: str) -> Request:
    return Request("GET", "/", headers=headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, "en"),
        ({"Accept-Language": "pt-BR"}, "pt-br"),
        ({"Accept-Language": "pt"}, "pt-br"),
        ({"Accept-Language": "en-US,pt-BR;q=0.5"}, "en"),
        ({"Accept-Language": "fr-FR,pt-BR;q=0.5,en;q=0.4"}, "pt-br"),
        ({"Accept-Language": "fr-FR"}, "en"),
        ({"Accept-Language": "pt-BR;q=0"}, "en"),
        ({"Accept-Language": "pt-BR", "Cookie": "django_language=en"}, "en"),
        ({"Accept-Language": "en", "Cookie": "csrftoken=x; django_language=pt-br"}, "pt-br"),
        ({"Accept-Language": "en", "Cookie": "django_language=de"}, "en"),
        ({"Accept-Language": "pt-BR", "Cookie": "not a cookie;;=="}, "pt-br"),
    ],
)
def test_the_language_is_the_shops_cookie_else_the_browsers(headers, expected):
    assert language(request(**headers)) == expected


def test_money_is_written_as_each_language_writes_it():
    assert money(123456, "pt-br") == "R$ 1.234,56"
    assert money(123456, "en") == "R$ 1,234.56"
    assert money(5, "pt-br") == "R$ 0,05"


def page(api, url: str, headers: dict[str, str]) -> str:
    answer = api.session.get(api.url(url), headers={**HTML, **headers})
    assert answer.status_code == 200
    return answer.text


def test_the_3ds_challenge_in_each_language(api):
    url = authenticate(api, CHALLENGED, 12345)["challenge"]["url"]

    portuguese, english = page(api, url, PT), page(api, url, EN)

    assert '<html lang="pt-br">' in portuguese
    assert "Código enviado ao seu celular" in portuguese and "R$ 123,45" in portuguese
    assert "Confirmar" in portuguese and "Code sent" not in portuguese
    assert '<html lang="en">' in english
    assert "Code sent to your phone" in english and "R$ 123.45" in english


def test_the_boleto_bank_page_in_each_language(api):
    order = boleto_order(api, date(2026, 11, 27) + timedelta(days=3), 12345)
    boleto = order["charges"][0]["payment_method"]["boleto"]
    url = f"/boletos/{boleto['id']}"

    portuguese, english = page(api, url, PT), page(api, url, EN)

    assert "Linha digitável:" in portuguese and "Pagar este boleto" in portuguese
    assert f"Vencimento: {boleto['due_date'][8:]}/" in portuguese and "R$ 123,45" in portuguese
    assert "Typeable line:" in english and "Pay this boleto" in english
    assert f"Due date: {boleto['due_date']}" in english and "R$ 123.45" in english


def test_the_app_stand_in_in_each_language(api):
    from django_orderpay.testing import samples

    body = samples.order_request(
        charges=samples.OMIT,
        deep_links=[{"amount": {"value": 1500}, "redirect_url": "https://shop.example.com/1/"}],
    )
    url = api.post("/orders", body).json()["deep_links"][0]["url"]

    portuguese, english = page(api, url, PT), page(api, url, EN)

    assert "Pagamento de R$ 15,00" in portuguese and "aguardando pagamento" in portuguese
    assert "Pagar com saldo" in portuguese
    assert "Payment of R$ 15.00" in english and "Pay with balance" in english
