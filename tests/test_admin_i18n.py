"""The admin in Brazilian Portuguese: every string translated, money as R$ 1.234,56."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.utils import translation

import django_orderpay
from django_orderpay.admin.display import money
from django_orderpay.services import create_order
from django_orderpay.testing.factories import ChargeFactory, OrderFactory
from tests.admin_support import (
    card_charge,
    change,
    changelist,
    client_for,
    confirmation_fields,
    make_user,
    messages_of,
    order_body,
    post_action,
)

PACKAGE = Path(django_orderpay.__file__).parent
CATALOG = PACKAGE / "locale" / "pt_BR" / "LC_MESSAGES" / "django.mo"
GETTEXT_NAMES = {"_", "gettext", "gettext_lazy", "pgettext", "pgettext_lazy", "ngettext"}
#: Strings whose Portuguese is spelled as the English (names, codes).
SAME_IN_BOTH = {
    "status",
    "url",
    "deeplink",
    "deeplinks",
    "traceback",
    "%(label)s: %(detail)s",
    "Pix",
    "Boleto",
    "3-D Secure",
}


def admin_msgids() -> set[str]:
    """Every literal the admin's modules and templates pass through gettext."""
    found: set[str] = set()
    for module in (PACKAGE / "admin").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in GETTEXT_NAMES
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(node.args[0].value)
    for template in (PACKAGE / "templates" / "admin").rglob("*.html"):
        found.update(re.findall(r'{% translate "([^"]+)" %}', template.read_text()))
        found.update(re.findall(r"{% translate '([^']+)' %}", template.read_text()))
    return found


def test_every_admin_string_has_a_brazilian_translation():
    catalog = gettext.GNUTranslations(CATALOG.open("rb"))
    msgids = admin_msgids()
    assert len(msgids) > 100  # the scan found the admin's strings

    untranslated = sorted(m for m in msgids if catalog.gettext(m) == m and m not in SAME_IN_BOTH)

    assert untranslated == []


def test_the_compiled_catalog_matches_the_po_file():
    po = (CATALOG.parent / "django.po").read_text(encoding="utf-8")
    entries = re.findall(r'^(?:msgctxt "(.*)"\n)?msgid ((?:".*"\n)+)', po, flags=re.MULTILINE)
    # gettext keys an entry with a context as "context\x04msgid".
    msgids = {
        (context + "\x04" if context else "")
        + "".join(re.findall(r'"(.*)"', e)).replace('\\"', '"')
        for context, e in entries
    } - {""}
    compiled = gettext.GNUTranslations(CATALOG.open("rb"))._catalog  # type: ignore[attr-defined]
    compiled_ids = {k if isinstance(k, str) else k[0] for k in compiled} - {""}

    assert msgids == compiled_ids
    assert 'msgstr ""\n\n' not in po  # nothing left untranslated


def test_money_in_each_language():
    with translation.override("pt-br"):
        assert money(123456) == "R$ 1.234,56"
    with translation.override("en"):
        assert money(123456) == "R$ 1,234.56"


@pytest.mark.django_db
def test_charge_changelist_in_portuguese():
    ChargeFactory(amount_value=123456)
    ChargeFactory(declined=True)
    client = client_for(make_user("chefe", superuser=True), HTTP_ACCEPT_LANGUAGE="pt-br")

    html = client.get(changelist("charge")).content.decode()

    assert "R$ 1.234,56" in html
    assert ">Pago</span>" in html and ">Recusado</span>" in html
    assert "Cancelar as cobranças selecionadas (estorno total)" in html
    assert "Estornar parte das cobranças selecionadas" in html
    assert "Resposta do pagamento" in html
    assert "Cobranças" in html


@pytest.mark.django_db
def test_order_pages_in_portuguese():
    order = OrderFactory()
    ChargeFactory(order=order, amount_value=250000, amount_refunded=1050)
    client = client_for(make_user("chefe", superuser=True), HTTP_ACCEPT_LANGUAGE="pt-br")

    listing = client.get(changelist("order")).content.decode()
    detail = client.get(change("order", order.pk)).content.decode()

    assert "R$ 2.500,00" in listing and "R$ 10,50" in listing
    assert "Por status da cobrança" in listing
    assert "Atualizar os pedidos selecionados a partir do PagBank" in listing
    assert "Cliente" in detail and "Total dos itens" in detail and "JSON do PagBank" in detail


@pytest.mark.django_db
def test_refund_confirmation_and_its_error_in_portuguese():
    charge = ChargeFactory(amount_value=5000)
    client = client_for(make_user("chefe", superuser=True), HTTP_ACCEPT_LANGUAGE="pt-br")
    page = post_action(client, "charge", "refund_charges_partially", [charge])

    response = post_action(
        client,
        "charge",
        "refund_charges_partially",
        [charge],
        confirm={**confirmation_fields(page), "amount": "50,01"},
    )

    html = page.content.decode()
    assert "Será feito (1)" in html
    assert "ainda é possível estornar R$ 50,00" in html
    assert "Valor a estornar" in html and "Estornar este valor" in html
    assert response.context["form"].errors["amount"] == [
        "Informe no máximo R$ 50,00: o máximo que ainda pode ser estornado."
    ]


@pytest.mark.django_db
def test_action_messages_in_portuguese(orderpay_emulator):
    paid = create_order(order_body(card_charge(1234))).charges.get()
    client = client_for(make_user("chefe", superuser=True), HTTP_ACCEPT_LANGUAGE="pt-br")
    page = post_action(client, "charge", "cancel_charges", [paid])

    response = post_action(
        client, "charge", "cancel_charges", [paid], confirm=confirmation_fields(page)
    )

    assert "estornar R$ 12,34, tudo o que ainda pode ser estornado" in page.content.decode()
    assert messages_of(response) == [
        ("success", f"{paid}: estornada; R$ 12,34 estornados no total, status Cancelado")
    ]
