"""The emulator's pages speak their reader's language: the shop's cookie, else the browser's.

A person reads four of its pages: the bank's 3-D Secure challenge, a
boleto's bank page (and its PDF keeps its accents), the PagBank app's
stand-in and Connect's authorisation page (and its errors). Each is in Brazilian
Portuguese or English as the shop is (the ``django_language`` cookie of
Django's ``set_language``, sent when the emulator is served on the shop's
host), else as the browser asks (``Accept-Language``); English otherwise.
"""

from __future__ import annotations

import html
import re
import zlib
from datetime import date, timedelta
from urllib.parse import parse_qs, urlencode

import pytest

from django_orderpay.emulator.serving.http import Request
from django_orderpay.emulator.serving.language import language, money
from django_orderpay.testing import samples
from tests.emulator.test_core_boleto import boleto_order
from tests.emulator.test_core_connect import app, authorize_query
from tests.emulator.test_core_threeds import CHALLENGED, authenticate
from tests.emulator.test_pagpay_page import HTML

__all__ = ["app"]  # the fixture: a Connect application registered with the emulator

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


def pdf_text(pdf: bytes) -> list[str]:
    """The strings a PDF's pages show (``(...) Tj``), each content stream inflated.

    The built-in fonts the boleto is drawn with declare ``WinAnsiEncoding``
    (cp1252), so a byte is read as that encoding says.
    """
    assert b"/Encoding /WinAnsiEncoding" in pdf
    shown = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            content = zlib.decompress(stream)
        except zlib.error:
            continue  # an image's stream, not a page's
        for literal in re.findall(rb"\(((?:\\.|[^\\)])*)\)\s*Tj", content):
            unescaped = re.sub(rb"\\([()\\])", rb"\1", literal)
            shown.append(unescaped.decode("cp1252"))
    return shown


def test_the_boleto_pdf_keeps_its_accents(api):
    due = date(2026, 11, 27) + timedelta(days=3)
    body = samples.boleto_charge_request(due.isoformat(), amount={"value": 12345})
    lines = body["payment_method"]["boleto"]["instruction_lines"]
    lines["line_2"] = "Não receber após o vencimento"
    body["payment_method"]["boleto"]["holder"]["name"] = "José Conceição"
    charge = api.create_order(charges=[body])["charges"][0]

    pdf = api.get(charge["links"][0]["href"], token=None)

    assert pdf.headers["Content-Type"] == "application/pdf"
    shown = pdf_text(pdf.content)
    assert "Não receber após o vencimento" in shown
    assert "Pagador: José Conceição" in shown
    assert not any("Nao receber" in text or "?" in text for text in shown)


# --- Connect's authorisation page (the seller's) ----------------------------------------


def test_connects_authorisation_page_in_each_language(api, app):
    url = "/oauth2/authorize?" + authorize_query()

    portuguese, english = page(api, url, PT), page(api, url, EN)

    assert '<html lang="pt-br">' in portuguese
    assert "<strong data-connect-app>Marketplace</strong> gostaria de sua permissão para:" in (
        portuguese
    )
    assert 'data-scope="payments.refund">fazer reembolsos' in portuguese
    assert 'data-scope="payments.create">criar e visualizar pedidos e cobranças' in portuguese
    assert "E-mail da sua conta PagBank" in portuguese
    assert ">Autorizar</button>" in portuguese and ">Negar</button>" in portuguese
    assert "nenhuma senha é pedida" in portuguese and "permission" not in portuguese
    assert '<html lang="en">' in english
    assert "<strong data-connect-app>Marketplace</strong> would like your permission to:" in english
    assert 'data-scope="payments.refund">make refunds' in english
    assert ">Authorise</button>" in english and ">Deny</button>" in english
    assert "no password is asked" in english and "Autorizar" not in english


def test_connects_page_follows_the_shops_cookie_over_the_browser(api, app):
    url = "/oauth2/authorize?" + authorize_query()
    chosen = page(api, url, {**EN, "Cookie": "django_language=pt-br"})
    assert "gostaria de sua permissão" in chosen


@pytest.mark.parametrize(
    ("overrides", "portuguese", "english"),
    [
        (
            {"client_id": "nobody"},
            "Aplicação desconhecida (client_id).",
            "Unknown application (client_id).",
        ),
        (
            {"redirect_uri": "https://attacker.example/steal"},
            "A redirect_uri não é a cadastrada para esta aplicação.",
            "The redirect_uri is not the one registered for this application.",
        ),
    ],
)
def test_connects_error_page_in_each_language(api, app, overrides, portuguese, english):
    url = api.url("/oauth2/authorize?" + authorize_query(**overrides))
    answers = {
        name: api.session.get(url, headers={**HTML, **headers}, allow_redirects=False)
        for name, headers in (("pt", PT), ("en", EN))
    }

    assert {answer.status_code for answer in answers.values()} == {400}
    assert '<html lang="pt-br">' in answers["pt"].text
    assert f">{html.escape(portuguese)}</p>" in answers["pt"].text
    assert "PagBank (emulador): erro" in answers["pt"].text
    assert '<html lang="en">' in answers["en"].text
    assert f">{html.escape(english)}</p>" in answers["en"].text


def test_connects_page_asks_for_the_email_in_each_language(api, app):
    fields = {k: v[0] for k, v in parse_qs(authorize_query()).items()}
    fields.update(email="", decision="allow")
    said = {}
    for name, headers in (("pt", PT), ("en", EN)):
        answer = api.session.post(
            api.url("/oauth2/authorize"),
            data=urlencode(fields),
            headers={**headers, "Content-Type": "application/x-www-form-urlencoded"},
            allow_redirects=False,
        )
        assert answer.status_code == 400
        said[name] = answer.text

    assert '<p role="alert">Informe o e-mail da conta.</p>' in said["pt"]
    assert '<p role="alert">Type the account&#x27;s e-mail.</p>' in said["en"]
