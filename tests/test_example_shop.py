"""The example shop through Django's test client, paying through the emulator over HTTP.

The browser half (checkout.js encrypting in Chromium) is in tests/browser/test_checkout.py;
here the test encrypts the card as the SDK would (``cardcrypto.encrypt_card``).
"""

from __future__ import annotations

import gettext
import html
import json
import logging
import os
import re
import runpy
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import requests
from django.apps import apps
from django.contrib.auth import authenticate
from django.core import serializers
from django.core.management import call_command
from django.urls import reverse

from django_orderpay import services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.models import CardToken, Order
from example_project.shop.cart import SESSION_KEY
from example_project.shop.models import Product, Purchase

ROOT = Path(__file__).resolve().parent.parent
APPROVED = "4111111111111111"
DECLINED = "4929291898380766"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
CUSTOMER = {
    "customer_name": "Jose da Silva",
    "customer_email": "jose@example.com",
    "customer_tax_id": "123.456.789-09",
    "phone": "(11) 99999-9999",
    "postal_code": "01452-002",
    "street": "Avenida Brigadeiro Faria Lima",
    "number": "1384",
    "complement": "apto 12",
    "locality": "Pinheiros",
    "city": "Sao Paulo",
    "region_code": "SP",
}


@pytest.fixture
def products(db):
    return {
        "camiseta": Product.objects.create(name="Camiseta", slug="camiseta", price=5990),
        "caneca": Product.objects.create(name="Caneca", slug="caneca", price=3490),
    }


@pytest.fixture
def shop(orderpay_emulator, settings):
    """The emulator as the provider, notifying the shop's own endpoint."""
    settings.ORDERPAY = {
        **settings.ORDERPAY,
        "NOTIFICATION_URL": "https://shop.example.com/orderpay/notifications/",
    }
    return orderpay_emulator


def add(client, product, quantity=1):
    return client.post(reverse("shop:cart_add", args=[product.pk]), {"quantity": quantity})


def check_out(client, products, **changes) -> Purchase:
    add(client, products["camiseta"], 2)
    add(client, products["caneca"])
    response = client.post(reverse("shop:checkout"), {**CUSTOMER, **changes})
    assert response.status_code == 302, response.content.decode()
    return Purchase.objects.get()


def encrypted(number: str) -> str:
    return encrypt_card(
        services.get_public_key(),
        number=number,
        security_code="123",
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )


def pay_card(client, purchase, number=APPROVED, **data):
    return client.post(
        reverse("shop:pay_card", args=[purchase.reference]),
        {
            "holder_name": "Jose da Silva",
            "encrypted_card": encrypted(number),
            "installments": "1",
            **data,
        },
    )


def guest_purchase() -> Purchase:
    """A guest's purchase (its link is its key) of a Camiseta and a Caneca: R$ 94,80."""
    made = Purchase.objects.create(
        customer_name="Jose da Silva",
        customer_email="jose@example.com",
        customer_tax_id="12345678909",
        phone_area="11",
        phone_number="999999999",
        street="Avenida Brigadeiro Faria Lima",
        number="1384",
        locality="Pinheiros",
        city="Sao Paulo",
        region_code="SP",
        postal_code="01452002",
    )
    made.lines.create(name="Camiseta", unit_amount=5990, quantity=1)
    made.lines.create(name="Caneca", unit_amount=3490, quantity=1)
    return made


def status_json(client, purchase) -> dict:
    return client.get(reverse("shop:status_json", args=[purchase.reference])).json()


# --- products, cart, checkout ---------------------------------------------------------


def test_products_are_listed_with_their_prices(client, products):
    page = client.get(reverse("shop:products")).content.decode()
    assert "Camiseta" in page
    assert "R$ 59.90" in page


def test_cart_adds_updates_and_removes(client, products):
    add(client, products["camiseta"])
    add(client, products["camiseta"])
    add(client, products["caneca"], 3)
    assert client.session[SESSION_KEY] == {
        str(products["camiseta"].pk): 2,
        str(products["caneca"].pk): 3,
    }
    page = client.get(reverse("shop:cart")).content.decode()
    assert "R$ 224.50" in page  # 2 x 59.90 + 3 x 34.90

    client.post(reverse("shop:cart"), {"product": products["caneca"].pk, "quantity": 0})
    assert client.session[SESSION_KEY] == {str(products["camiseta"].pk): 2}


def test_cart_refuses_a_bad_quantity_naming_it(client, products):
    add(client, products["camiseta"])
    response = client.post(
        reverse("shop:cart"), {"product": products["camiseta"].pk, "quantity": -1}, follow=True
    )
    assert "Quantity:" in response.content.decode()
    assert client.session[SESSION_KEY] == {str(products["camiseta"].pk): 1}


def test_unknown_product_is_404(client, products):
    assert client.post(reverse("shop:cart_add", args=[999])).status_code == 404


def test_checkout_of_an_empty_cart_goes_back_to_the_cart(client, db):
    response = client.get(reverse("shop:checkout"))
    assert response.status_code == 302
    assert response["Location"] == reverse("shop:cart")


def test_checkout_freezes_the_cart_into_a_purchase(client, products):
    purchase = check_out(client, products)

    assert [(line.name, line.quantity, line.unit_amount) for line in purchase.lines.all()] == [
        ("Camiseta", 2, 5990),
        ("Caneca", 1, 3490),
    ]
    assert purchase.total == 15470
    assert (purchase.customer_tax_id, purchase.postal_code) == ("12345678909", "01452002")
    assert (purchase.phone_area, purchase.phone_number) == ("11", "999999999")
    assert SESSION_KEY not in client.session


def test_checkout_errors_name_each_field(client, products):
    add(client, products["camiseta"])
    response = client.post(
        reverse("shop:checkout"),
        {
            **CUSTOMER,
            "customer_tax_id": "111.111.111-11",
            "phone": "1234",
            "postal_code": "0145",
            "customer_email": "a@b.co",
            "region_code": "XX",
        },
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert sorted(errors) == [
        "customer_email",
        "customer_tax_id",
        "phone",
        "postal_code",
        "region_code",
    ]
    assert "CPF" in errors["customer_tax_id"][0]
    assert Purchase.objects.count() == 0


# --- paying by card ------------------------------------------------------------------


def test_pay_page_has_the_card_form_and_the_sdk(client, products, shop):
    purchase = check_out(client, products)
    response = client.get(
        reverse("shop:pay", args=[purchase.reference]), headers={"User-Agent": DESKTOP}
    )
    page = response.content.decode()

    assert f'src="{shop.base_url}/sdk/pagseguro.js"' in page
    assert 'src="/static/django_orderpay/checkout.js"' in page
    assert f'data-orderpay-public-key="{shop.emulator.public_key}"' in page
    assert 'data-orderpay-field="number"' in page
    assert "Pay in the PagBank app" not in page  # a desktop browser
    assert response.context["saved_form"] is None


def test_card_payment_ends_paid_on_the_status_page(client, products, shop):
    purchase = check_out(client, products)

    response = pay_card(client, purchase, installments="3")

    assert response.status_code == 302
    assert response["Location"] == purchase.get_absolute_url()
    order = Order.objects.get()
    assert (order.reference_id, order.shop_object, order.status) == (
        f"shop-{purchase.pk}",
        purchase,
        "PAID",
    )
    charge = order.charges.get()
    assert (charge.amount_value, charge.installments) == (15470, 3)
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert "Paid: R$ 154.70 with Visa •••• 1111 in 3 installments, no interest." in page
    assert status_json(client, purchase) == {
        "status": "PAID",
        "label": "Paid",
        "detail": "Paid: R$ 154.70 with Visa •••• 1111 in 3 installments, no interest.",
        "settled": True,
    }

    # The provider's notification arrives and changes nothing.
    deliveries = shop.deliver_notifications(client)
    assert [d.status for d in deliveries] == [200]
    assert status_json(client, purchase)["status"] == "PAID"


def test_declined_card_shows_the_decline_and_a_retry_pays_the_same_order(client, products, shop):
    purchase = check_out(client, products)

    pay_card(client, purchase, DECLINED)

    page = html.unescape(client.get(purchase.get_absolute_url()).content.decode())
    assert "Payment declined" in page
    # What the shopper can do, not the provider's words or code (those are for staff).
    # The emulator's declined Visa: 20003 with the issuer's reason 51 (no limit left).
    assert (
        "The payment was declined. The card does not have enough available limit for this "
        "payment. You may try another card or another way to pay."
    ) in page
    assert "20003" not in page and "NAO AUTORIZADA" not in page
    assert "Try another card" in page

    pay_card(client, purchase, APPROVED)

    order = Order.objects.get()
    assert sorted(order.charges.values_list("status", flat=True)) == ["DECLINED", "PAID"]
    assert status_json(client, purchase)["status"] == "PAID"
    assert shop.order_ids() == [order.provider_id]


def test_in_analysis_until_the_notification_says_paid(client, products, shop):
    purchase = check_out(client, products)
    pay_card(client, purchase, IN_ANALYSIS_CARD)
    assert status_json(client, purchase)["status"] == "IN_ANALYSIS"
    assert status_json(client, purchase)["settled"] is False
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert 'data-orderpay-settled="false"' in page
    assert "django_orderpay/payment.js" in page

    shop.resolve_charge(Order.objects.get().charges.get().provider_id, "PAID")
    assert status_json(client, purchase)["status"] == "IN_ANALYSIS"  # not told yet
    shop.deliver_notifications(client)

    assert status_json(client, purchase) | {"detail": ""} == {
        "status": "PAID",
        "label": "Paid",
        "detail": "",
        "settled": True,
    }


def test_no_encrypted_card_is_an_error_on_the_pay_page_and_nothing_is_sent(client, products, shop):
    purchase = check_out(client, products)
    response = client.post(
        reverse("shop:pay_card", args=[purchase.reference]),
        {"holder_name": "Jose da Silva", "installments": "1"},
        follow=True,
    )
    # Back to the payment page (a reload there posts nothing), the error as a message.
    assert response.redirect_chain == [(reverse("shop:pay", args=[purchase.reference]), 302)]
    assert [str(m) for m in response.context["messages"]][-1] == (
        "The card was not encrypted: type the card details again "
        "(this page needs JavaScript to protect them)."
    )
    assert shop.order_ids() == []


def test_raw_card_fields_posted_anyway_are_ignored(client, products, shop):
    purchase = check_out(client, products)
    response = client.post(
        reverse("shop:pay_card", args=[purchase.reference]),
        {
            "holder_name": "Jose da Silva",
            "installments": "1",
            "number": APPROVED,
            "security_code": "123",
        },
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]][-1] == (
        "The card was not encrypted: type the card details again "
        "(this page needs JavaScript to protect them)."
    )
    assert shop.order_ids() == []


def test_a_paid_purchase_cannot_be_paid_again(client, products, shop):
    purchase = check_out(client, products)
    pay_card(client, purchase)

    again = pay_card(client, purchase)

    assert again.status_code == 302
    assert again["Location"] == purchase.get_absolute_url()
    assert Order.objects.get().charges.count() == 1
    assert client.get(reverse("shop:pay", args=[purchase.reference])).status_code == 302
    page = client.get(purchase.get_absolute_url()).content.decode()
    # Said as news, not as a success of the post, nor as "cannot be paid now: paid".
    assert '<li class="message info">This purchase is paid already: there is nothing left' in page


def test_provider_down_is_a_message_on_the_pay_page(client, products, shop, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    purchase = check_out(client, products)
    shop.inject_fault("http_502", path_prefix="/orders")

    response = pay_card(client, purchase)

    assert response.status_code == 302
    assert response["Location"] == reverse("shop:pay", args=[purchase.reference])
    page = client.get(response["Location"]).content.decode()
    assert "did not answer" in page


def test_unknown_purchase_is_404(client, db):
    missing = "00000000-0000-0000-0000-000000000000"
    assert client.get(reverse("shop:status", args=[missing])).status_code == 404
    assert client.get(reverse("shop:status_json", args=[missing])).status_code == 404


# --- saved cards ---------------------------------------------------------------------


@pytest.fixture
def maria(django_user_model):
    return django_user_model.objects.create_user("maria", email="maria@example.com")


def test_saved_card_flow(client, products, shop, maria):
    client.force_login(maria)
    first = check_out(client, products)
    assert first.user == maria
    pay_card(client, first, save_card="on")
    token = CardToken.objects.get()
    assert token.user == maria

    add(client, products["caneca"])
    # The last checkout's details are offered again.
    form = client.get(reverse("shop:checkout")).context["form"]
    assert form.initial["customer_tax_id"] == "12345678909"
    client.post(reverse("shop:checkout"), CUSTOMER)
    second = Purchase.objects.exclude(pk=first.pk).get()
    pay_page = client.get(reverse("shop:pay", args=[second.reference]))
    assert "Visa •••• 1111 (12/2030)" in pay_page.content.decode()
    assert token.provider_id not in pay_page.content.decode()

    response = client.post(
        reverse("shop:pay_saved_card", args=[second.reference]),
        {"card_token": token.pk, "installments": "1"},
    )

    assert response["Location"] == second.get_absolute_url()
    charge = second.payment_orders().get().charges.get()
    assert (charge.status, charge.card_token, charge.amount_value) == ("PAID", token, 3490)


def test_saved_card_needs_a_login_and_the_owner(client, products, shop, maria, django_user_model):
    client.force_login(maria)
    pay_card(client, check_out(client, products), APPROVED, save_card="on")
    token = CardToken.objects.get()
    add(client, products["caneca"])
    client.post(reverse("shop:checkout"), CUSTOMER)
    purchase = Purchase.objects.latest("pk")  # a second purchase, still to pay
    client.logout()

    anonymous = client.post(
        reverse("shop:pay_saved_card", args=[purchase.reference]),
        {"card_token": token.pk, "installments": "1"},
    )
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("shop:login"))

    # Another shopper: maria's purchase is not there for joao (and her card is not his).
    client.force_login(django_user_model.objects.create_user("joao"))
    response = client.post(
        reverse("shop:pay_saved_card", args=[purchase.reference]),
        {"card_token": token.pk, "installments": "1"},
    )
    assert response.status_code == 404
    assert not purchase.payment_orders().filter(charges__isnull=False).exists()


def test_login_page_logs_in(client, django_user_model, db):
    django_user_model.objects.create_user("ana", password="orderpay-test-pw")
    response = client.post(
        reverse("shop:login"), {"username": "ana", "password": "orderpay-test-pw"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("shop:products")


# --- paying in the app (deeplink) ------------------------------------------------------


def test_the_app_is_offered_on_mobile_only(client, products, shop):
    purchase = check_out(client, products)
    pay_url = reverse("shop:pay", args=[purchase.reference])

    assert (
        "Pay in the PagBank app"
        in client.get(pay_url, headers={"User-Agent": IPHONE}).content.decode()
    )
    assert (
        "Pay in the PagBank app"
        not in client.get(pay_url, headers={"User-Agent": DESKTOP}).content.decode()
    )

    refused = client.post(
        reverse("shop:pay_in_app", args=[purchase.reference]), headers={"User-Agent": DESKTOP}
    )
    assert refused["Location"] == pay_url
    assert shop.order_ids() == []


def test_deeplink_paid_through_the_simulator_updates_on_the_notification(client, products, shop):
    purchase = check_out(client, products)

    response = client.post(
        reverse("shop:pay_in_app", args=[purchase.reference]), headers={"User-Agent": IPHONE}
    )

    assert response["Location"] == purchase.get_absolute_url()
    order = Order.objects.get()
    assert order.deeplink.amount_value == 15470
    assert order.deeplink.redirect_url == "http://testserver" + purchase.get_absolute_url()
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert "Waiting for payment in the PagBank app" in page
    assert f'href="{html.escape(order.deeplink.url)}"' in page
    assert status_json(client, purchase)["settled"] is False

    # The payer pays in the app: the provider's simulator, then its notification.
    answer = requests.post(
        f"{shop.base_url}/pagpay/balance/{order.deeplink.deeplink_id}",
        json={"status": "PAID"},
        timeout=5,
    )
    assert (answer.status_code, answer.json()) == (200, "PAID")
    assert status_json(client, purchase)["status"] == "WAITING_APP"
    shop.deliver_notifications(client)

    paid = status_json(client, purchase)
    assert (paid["status"], paid["detail"]) == ("PAID", "Paid: R$ 154.70 in the PagBank app.")


def test_shop_simulates_the_app_and_comes_back_to_the_redirect_url(client, products, shop):
    purchase = check_out(client, products)
    client.post(
        reverse("shop:pay_in_app", args=[purchase.reference]), headers={"User-Agent": IPHONE}
    )

    response = client.post(reverse("shop:simulate_app_payment", args=[purchase.reference]))

    assert response["Location"] == "http://testserver" + purchase.get_absolute_url()
    assert status_json(client, purchase)["status"] == "PAID"


def test_pay_in_app_twice_reuses_the_deeplink(client, products, shop):
    purchase = check_out(client, products)
    url = reverse("shop:pay_in_app", args=[purchase.reference])
    client.post(url, headers={"User-Agent": IPHONE})
    client.post(url, headers={"User-Agent": IPHONE})
    assert len(shop.order_ids()) == 1


def test_simulating_without_a_deeplink_is_refused(client, products, shop):
    purchase = check_out(client, products)
    response = client.post(
        reverse("shop:simulate_app_payment", args=[purchase.reference]), follow=True
    )
    assert "no payment in the app to simulate" in response.content.decode()


# --- admin, seed, settings ---------------------------------------------------------------


def test_admin_lists_purchases_with_their_payment(admin_client, client, products, shop):
    purchase = check_out(client, products)
    pay_card(client, purchase)

    listing = admin_client.get(reverse("admin:shop_purchase_changelist")).content.decode()
    change = admin_client.get(reverse("admin:shop_purchase_change", args=[purchase.pk]))

    assert "Paid" in listing
    assert "R$ 154.70" in listing
    assert change.status_code == 200
    assert admin_client.get(reverse("admin:shop_product_changelist")).status_code == 200


def test_seed_shop_creates_products_and_users_and_prints_the_logins(db):
    out = StringIO()
    call_command("seed_shop", stdout=out)
    call_command("seed_shop", stdout=StringIO())  # again: nothing doubles

    assert Product.objects.count() == 5
    printed = out.getvalue()
    assert "admin / orderpay-admin" in printed
    assert "shopper / orderpay-shopper" in printed
    admin = authenticate(username="admin", password="orderpay-admin")
    assert admin is not None and admin.is_staff
    shopper = authenticate(username="shopper", password="orderpay-shopper")
    assert shopper is not None and not shopper.is_staff


def _clean_environment() -> dict[str, str]:
    keep = {"PATH", "HOME", "LANG", "SYSTEMROOT", "TMPDIR"}
    return {k: v for k, v in os.environ.items() if k in keep}


def test_example_settings_default_to_the_in_process_emulator(monkeypatch):
    for name in list(os.environ):
        if name.startswith("ORDERPAY_") or name in ("DEBUG", "SITE_URL", "DATABASE_URL"):
            monkeypatch.delenv(name)
    values = runpy.run_path(str(ROOT / "example_project" / "settings.py"))

    assert values["DEBUG"] is True
    secret = values["ORDERPAY"].pop("EMULATOR_CONTROL_SECRET")
    assert len(secret) >= 40  # made anew at each start: the demo's control-plane calls
    assert values["ORDERPAY"] == {
        "ENVIRONMENT": "emulator",
        "TOKEN": "demo-token",
        "EMULATOR_URL": "http://127.0.0.1:8000/emulator",
        "NOTIFICATION_URL": "http://127.0.0.1:8000/orderpay/notifications/",
        "THREEDS": "always",  # the demo shows 3-D Secure
    }
    assert values["SECURE_SSL_REDIRECT"] is False  # the demo is plain http on 127.0.0.1
    assert (values["SHOP_FEE_PLANS"], values["SHOP_INSTALLMENTS_NO_INTEREST"]) == (True, 3)
    assert values["SHOP_DEBIT_CARDS"] is True
    assert values["SHOP_SERVE_EMULATOR"] is True
    assert values["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"


def test_example_settings_for_the_sandbox(monkeypatch):
    monkeypatch.setenv("ORDERPAY_ENVIRONMENT", "sandbox")
    monkeypatch.setenv("ORDERPAY_TOKEN", "sandbox-token")
    monkeypatch.setenv("SITE_URL", "https://shop.example.com")
    monkeypatch.setenv("DEBUG", "false")
    monkeypatch.setenv("SECRET_KEY", "s3cret")
    values = runpy.run_path(str(ROOT / "example_project" / "settings.py"))

    assert values["ORDERPAY"]["ENVIRONMENT"] == "sandbox"
    assert values["ORDERPAY"]["TOKEN"] == "sandbox-token"
    assert (
        values["ORDERPAY"]["NOTIFICATION_URL"] == "https://shop.example.com/orderpay/notifications/"
    )
    assert values["SHOP_SERVE_EMULATOR"] is False


def test_demo_commands_run_on_a_fresh_machine(tmp_path):
    """What ``make demo`` runs before serving: check, migrate, seed (runserver is the browser's)."""
    env = {
        **_clean_environment(),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "example_project.settings",
    }

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "no issues" in manage("check")
    manage("migrate", "--noinput")
    printed = manage("seed_shop")
    assert "admin / orderpay-admin" in printed


# --- Brazilian Portuguese ------------------------------------------------------------------

PT_BR = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
SHOP_CATALOG = ROOT / "example_project" / "shop" / "locale" / "pt_BR" / "LC_MESSAGES"
PACKAGE_CATALOG = ROOT / "django_orderpay" / "locale" / "pt_BR" / "LC_MESSAGES" / "django.mo"


def test_the_checkout_page_in_brazilian_portuguese(client, products, shop, maria):
    client.force_login(maria)
    purchase = check_out(client, products)

    response = client.get(reverse("shop:pay", args=[purchase.reference]), **PT_BR)

    page = response.content.decode()
    assert '<html lang="pt-br">' in page
    # The shop's own words, its money, and django-orderpay's card form.
    assert f"Pagamento da compra nº {purchase.pk}" in page
    assert "Pagar com cartão" in page and "Pagar R$ 154,70" in page
    assert "Seu cartão é criptografado neste navegador" in page
    for label in ("Nome impresso no cartão", "Número do cartão", "Mês de validade (MM)"):
        assert label in page
    assert "Código de segurança" in page and "Parcelas" in page
    assert "Salvar este cartão para as próximas compras" in page
    assert "3x: a primeira R$ 51,56 e 2x R$ 51,57 (sem juros)" in page  # adds up to 154,70
    # checkout.js's messages travel translated in a data attribute.
    fieldset = response.context["messages_json"]
    assert json.loads(fieldset)["INVALID_EXPIRATION_MONTH"] == (
        "Confira o mês de validade: de 01 a 12."
    )
    assert html.escape(json.dumps("Confira o mês de validade: de 01 a 12.")[1:-1]) in page
    assert "Check the" not in page and "Pay by card" not in page


def test_checkout_errors_and_status_in_brazilian_portuguese(client, products, shop):
    add(client, products["camiseta"])
    refused = client.post(
        reverse("shop:checkout"), {**CUSTOMER, "postal_code": "123", "phone": "1"}, **PT_BR
    )
    assert refused.context["form"].errors == {
        "postal_code": ["Informe o CEP: 8 dígitos."],
        "phone": ["Informe o DDD e o número: 10 ou 11 dígitos."],
    }
    assert "Finalizar compra" in refused.content.decode()
    purchase = check_out(client, products)

    pay_card(client, purchase, installments="2")

    page = client.get(purchase.get_absolute_url(), **PT_BR).content.decode()
    assert f"Compra nº {purchase.pk}" in page
    assert "Pago: R$ 214,60 com Visa •••• 1111 em 2 parcelas, sem juros." in page
    assert "R$ 214,60" in page  # 3 x 59.90 + 34.90: the refused checkout's shirt is still there
    assert (
        client.get(reverse("shop:status_json", args=[purchase.reference]), **PT_BR).json()["label"]
        == "Pago"
    )


def test_the_footer_switches_the_language(client, products):
    response = client.post(
        reverse("shop:set_language"), {"language": "pt-br", "next": reverse("shop:cart")}
    )
    assert response.status_code == 302 and response["Location"] == reverse("shop:cart")

    page = client.get(reverse("shop:products")).content.decode()

    assert "Adicionar ao carrinho" in page and "R$ 59,90" in page
    assert 'value="en"' in page and 'aria-current="true"' in page


def test_every_shop_string_has_a_brazilian_translation():
    po = (SHOP_CATALOG / "django.po").read_text(encoding="utf-8")
    entries = re.findall(r'^msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', po, flags=re.MULTILINE)
    untranslated = [msgid for msgid, msgstr in entries[1:] if msgstr.strip() == '""']
    compiled = gettext.GNUTranslations((SHOP_CATALOG / "django.mo").open("rb"))

    assert len(entries) > 100
    assert untranslated == []
    assert "#, fuzzy" not in po
    assert compiled.gettext("Pay in the PagBank app") == "Pagar no app do PagBank"
    # The compiled catalog is the .po's (compilemessages was run after the last edit).
    assert len(compiled._catalog) - 1 == len(entries) - 1  # type: ignore[attr-defined]
    # django-orderpay comes first in INSTALLED_APPS, so its translation of a msgid
    # both catalogs hold is the one shown: the shop's must not say otherwise.
    package = gettext.GNUTranslations(PACKAGE_CATALOG.open("rb"))
    differing = {
        msgid
        for msgid, text in compiled._catalog.items()  # type: ignore[attr-defined]
        if msgid and package.gettext(msgid) not in (msgid, text)
    }
    assert differing == set()


# --- garbage in, never a 500 ---------------------------------------------------------------


@pytest.fixture
def strict_client(client):
    client.raise_request_exception = True  # an exception in a view fails the test with its trace
    return client


@pytest.mark.parametrize("product", ["abc", "", "1e5", "99999999999999999999999", "-1"])
def test_a_garbage_product_in_the_cart_is_a_message(strict_client, products, product):
    add(strict_client, products["camiseta"])

    response = strict_client.post(
        reverse("shop:cart"), {"product": product, "quantity": "2"}, follow=True
    )

    assert response.status_code == 200
    assert "Product:" in response.content.decode()
    assert strict_client.session[SESSION_KEY] == {str(products["camiseta"].pk): 1}


def test_a_cart_from_a_damaged_session_keeps_only_good_lines(strict_client, products):
    session = strict_client.session
    good = str(products["caneca"].pk)
    session[SESSION_KEY] = {"abc": 1, "9" * 30: 2, "\u0661": 1, good: 2, "7": "many", "8": -3}
    session.save()

    page = strict_client.get(reverse("shop:cart")).content.decode()

    assert "R$ 69.80" in page  # 2 x 34.90, nothing else
    assert strict_client.get(reverse("shop:checkout")).status_code == 200


@pytest.mark.parametrize(
    "changes",
    [
        {"customer_tax_id": "١٢٣.٤٥٦.٧٨٩-٠٩"},
        {"postal_code": "٠١٤٥٢٠٠٢"},
        {"customer_name": "x" * 5000},
        {"phone": "\x00" * 30},
        {"region_code": "\x00"},
        {"customer_email": "not an e-mail"},
        {"number": ""},
        {"region_code": ""},  # no state is preselected: the shopper must choose
    ],
)
def test_garbage_checkout_data_is_an_error_on_its_field(strict_client, products, changes):
    add(strict_client, products["camiseta"])

    response = strict_client.post(reverse("shop:checkout"), {**CUSTOMER, **changes})

    assert response.status_code == 200
    assert set(response.context["form"].errors) == set(changes)
    assert Purchase.objects.count() == 0


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"encrypted_card": "x" * 100_000, "installments": "1"},
        {"encrypted_card": "\x00", "installments": "\x00"},
        {"encrypted_card": "QUJD" * 86, "installments": "9" * 30},
        {"encrypted_card": ["QUJD" * 86, "QUJD"], "installments": ["1", "2"]},
    ],
)
def test_garbage_card_posts_are_errors_on_the_pay_page(strict_client, products, shop, data):
    purchase = check_out(strict_client, products)

    response = strict_client.post(reverse("shop:pay_card", args=[purchase.reference]), data)

    assert response.status_code == 302
    assert response["Location"] == reverse("shop:pay", args=[purchase.reference])
    page = strict_client.get(response["Location"])
    assert page.status_code == 200 and list(page.context["messages"])
    assert shop.order_ids() == []


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"card_token": "abc", "installments": "1"},
        {"card_token": "9" * 30, "installments": "1"},
        {"card_token": "1", "installments": "abc"},
    ],
)
def test_garbage_saved_card_posts_are_errors(strict_client, products, shop, maria, data):
    strict_client.force_login(maria)
    purchase = check_out(strict_client, products)

    response = strict_client.post(reverse("shop:pay_saved_card", args=[purchase.reference]), data)

    assert response.status_code == 302
    assert response["Location"] == reverse("shop:pay", args=[purchase.reference])
    assert shop.order_ids() == []


def test_garbage_elsewhere_in_the_shop(strict_client, products, shop):
    purchase = check_out(strict_client, products)
    ref = purchase.reference
    answers = [
        strict_client.post(reverse("shop:cart_add", args=[products["caneca"].pk]), {"quantity": q})
        for q in ("abc", "9" * 30, "-5", "\x00")
    ]
    answers += [
        strict_client.post(reverse("shop:simulate_app_payment", args=[ref]), {"outcome": "\x00"}),
        strict_client.post(reverse("shop:set_language"), {"language": "xx", "next": "//evil"}),
        strict_client.post(reverse("shop:login"), {"username": "\x00", "password": "x"}),
        strict_client.post(reverse("shop:login"), {"username": "a" * 10_000, "password": "x"}),
        strict_client.get("/shop/orders/not-a-uuid/"),
    ]
    assert [r.status_code for r in answers] == [302] * 6 + [200, 200, 404]


# --- no card data kept ---------------------------------------------------------------------


def test_no_card_data_reaches_the_database_or_the_log(client, products, shop, maria, caplog):
    caplog.set_level(logging.DEBUG)
    client.force_login(maria)
    purchase = check_out(client, products)
    blob = encrypted(APPROVED)

    client.post(
        reverse("shop:pay_card", args=[purchase.reference]),
        {
            "holder_name": "Jose da Silva",
            "encrypted_card": blob,
            "installments": "2",
            "save_card": "on",
        },
    )
    shop.deliver_notifications(client)
    assert status_json(client, purchase)["status"] == "PAID"
    assert CardToken.objects.filter(user=maria).count() == 1

    # Every row of every table (sessions and the delivery log included), as JSON.
    stored = "".join(
        serializers.serialize("json", model._base_manager.all()) for model in apps.get_models()
    )
    assert CardToken.objects.get().provider_id in stored  # the dump holds the payment's rows
    for secret in (APPROVED, blob, blob[:40]):
        assert secret not in stored
        assert secret not in caplog.text
    assert '"security_code"' not in stored and "security_code" not in caplog.text
    # The log was looked at for real: the payment's provider calls are in it.
    assert any(record.name.startswith("django_orderpay") for record in caplog.records)


def test_a_company_with_an_alphanumeric_cnpj_checks_out(client, products):
    # CNPJs issued from July 2026 have letters in their first 12 places.
    purchase = check_out(client, products, customer_tax_id="12.abc.345/01de-35")

    assert purchase.customer_tax_id == "12ABC34501DE35"


def test_a_payment_without_an_answer_sends_the_shopper_to_the_status_page(
    client, products, shop, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0, "TIMEOUT": 0.3}
    purchase = check_out(client, products)
    client.get(reverse("shop:pay", args=[purchase.reference]))
    # The charge goes through at the provider; its answer is lost.
    shop.inject_fault("timeout", delay=1, path_prefix="/orders/")

    response = pay_card(client, purchase)

    assert response.status_code == 302
    assert response["Location"] == purchase.get_absolute_url()
    page = client.get(response["Location"]).content.decode()
    assert "may have gone through" in page
    assert "don&#x27;t pay again yet" in page or "don't pay again yet" in page
