"""The example shop in headless Chromium: the card is typed, encrypted in the browser, paid.

The shop runs in pytest-django's live server; the provider is the
``orderpay_emulator`` fixture over HTTP, whose notifications wait until the
test flushes them through the control plane (then they are POSTed for real to
the live server). Every request the browser sends is recorded
(``page.on("request")``), and so is every request body the live server
receives (read before Django sees it): neither may hold the card number or
the security code. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests
from django.core.signals import request_started
from playwright.sync_api import Browser, Page, Request, expect

from django_orderpay.cardcrypto import decrypt_card
from django_orderpay.emulator import IN_ANALYSIS_CARD
from django_orderpay.models import DeepLink, Order
from example_project.shop.models import Product

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
APPROVED = "4539620659922097"  # the sandbox's approved Visa
DECLINED = "4929291898380766"  # the sandbox's declined Visa
SECURITY_CODE = "123"
CARD_SECRETS = (APPROVED, DECLINED, IN_ANALYSIS_CARD)
#: How long a page that learns of a change by polling (every 2 s) may take to show it.
POLLED = 20_000
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
CUSTOMER = {
    "#id_customer_name": "Jose da Silva",
    "#id_customer_email": "jose@example.com",
    "#id_customer_tax_id": "123.456.789-09",
    "#id_phone": "(11) 99999-9999",
    "#id_postal_code": "01452-002",
    "#id_street": "Avenida Brigadeiro Faria Lima",
    "#id_number": "1384",
    "#id_locality": "Pinheiros",
    "#id_city": "Sao Paulo",
}


@dataclass
class Traffic:
    """What crossed the wire: the browser's requests, and the bodies the shop's server read."""

    browser: list[tuple[str, str, str | None]] = field(default_factory=list)
    server: list[tuple[str, str, bytes]] = field(default_factory=list)

    def record_browser(self, request: Request) -> None:
        self.browser.append((request.method, request.url, request.post_data))

    def posts(self, path_part: str) -> list[dict[str, list[str]]]:
        """The form fields of every browser POST whose URL contains ``path_part``."""
        return [
            parse_qs(body or "", keep_blank_values=True)
            for method, url, body in self.browser
            if method == "POST" and path_part in url
        ]

    def assert_no_card_data(self) -> None:
        """No body, from the browser or at the server, holds a card number or security code."""
        bodies = [body or "" for _, _, body in self.browser]
        bodies += [body.decode("utf-8", "replace") for _, _, body in self.server]
        assert bodies, "nothing was recorded"
        for body in bodies:
            for number in CARD_SECRETS:
                assert number not in body
            # The security code is three digits that may appear anywhere by chance
            # (a base64 blob, an id): what must not exist is a field carrying it.
            assert SECURITY_CODE not in [value for _, value in parse_qsl(body)]
            assert "security_code" not in body


@pytest.fixture
def traffic() -> Iterator[Traffic]:
    """Records the live server's request bodies: read first, then put back for Django."""
    recorded = Traffic()

    def record(sender: Any, environ: dict[str, Any], **kwargs: Any) -> None:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length:
            body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(body)
            recorded.server.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], body))

    request_started.connect(record, weak=False)
    yield recorded
    request_started.disconnect(record)


@dataclass
class Shop:
    url: str
    provider: Any  # the orderpay_emulator fixture

    def flush_notifications(self) -> list[dict[str, Any]]:
        """Deliver the provider's pending notifications, over HTTP, to the live server."""
        self.provider.control("POST", "notifications/flush")
        deliveries = self.provider.notifications()
        assert deliveries, "the provider had nothing to notify"
        return deliveries


@pytest.fixture
def shop(live_server, orderpay_emulator, settings, traffic) -> Shop:
    settings.ORDERPAY = {
        **settings.ORDERPAY,
        "NOTIFICATION_URL": live_server.url + "/orderpay/notifications/",
    }
    Product.objects.create(name="Camiseta", slug="camiseta", price=5990)
    Product.objects.create(name="Caneca", slug="caneca", price=3490)
    return Shop(live_server.url + "/shop", orderpay_emulator)


@pytest.fixture
def shopper(page: Page, traffic: Traffic) -> Page:
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    return page


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def fill_cart_and_check_out(page: Page, shop: Shop) -> None:
    page.goto(shop.url + "/")
    page.locator("[data-product=camiseta] button").click()
    page.goto(shop.url + "/")
    page.locator("[data-product=caneca] button").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("R$ 94.80")
    page.get_by_role("link", name="Checkout").click()
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role("button", name="Continue to payment").click()
    expect(page.get_by_role("heading", name="Pay by card")).to_be_visible()


def type_card(page: Page, number: str, month: str = "12", year: str = "2030") -> None:
    page.fill("[data-orderpay-field=holder]", "José da Silva")
    page.fill("[data-orderpay-field=number]", " ".join(number[i : i + 4] for i in range(0, 16, 4)))
    page.fill("[data-orderpay-field=exp_month]", month)
    page.fill("[data-orderpay-field=exp_year]", year)
    page.fill("[data-orderpay-field=security_code]", SECURITY_CODE)


def status_label(page: Page):
    return page.get_by_test_id("status-label")


# --- card -------------------------------------------------------------------------------


def test_card_encrypted_in_the_browser_is_paid_and_shown_paid(shopper, shop, traffic):
    fill_cart_and_check_out(shopper, shop)
    assert shopper.get_by_text("Pay in the PagBank app").count() == 0  # not a phone
    type_card(shopper, APPROVED)
    shopper.select_option("[name=installments]", "2")
    screenshot(shopper, "checkout")

    shopper.get_by_test_id("pay-card").click()

    expect(status_label(shopper)).to_have_text("Paid")
    expect(shopper.get_by_test_id("status-detail")).to_have_text(
        "Paid: R$ 94.80 with Visa •••• 2097 in 2 installments, no interest."
    )
    screenshot(shopper, "status-paid")

    # Only the encrypted card and the holder's name (no secret: PagBank asks for it)
    # were posted, and the card is the one the shopper typed.
    (posted,) = traffic.posts("/pay/card/")
    assert sorted(posted) == [
        "csrfmiddlewaretoken",
        "encrypted_card",
        "holder_name",
        "installments",
        "intent",  # the page's attempt: no secret
    ]
    assert posted["holder_name"] == ["José da Silva"]
    # Playing the provider's side: what the browser encrypted is what the shopper typed.
    card = decrypt_card(shop.provider.emulator.private_key, posted["encrypted_card"][0])
    assert (card.number, card.security_code, card.exp_month, card.exp_year) == (
        APPROVED,
        SECURITY_CODE,
        "12",
        "2030",
    )
    assert card.holder == "Jose da Silva"  # the SDK strips accents

    order = Order.objects.get()
    assert (order.status, order.charges.get().amount_value) == ("PAID", 9480)
    deliveries = shop.flush_notifications()
    assert [d["status"] for d in deliveries] == [200]
    traffic.assert_no_card_data()


def test_declined_card_shows_the_decline_then_another_card_pays(shopper, shop, traffic):
    fill_cart_and_check_out(shopper, shop)
    type_card(shopper, DECLINED)
    shopper.get_by_test_id("pay-card").click()

    expect(status_label(shopper)).to_have_text("Payment declined")
    expect(shopper.get_by_test_id("status-detail")).to_contain_text(
        "The card does not have enough available limit for this payment."
    )
    screenshot(shopper, "status-declined")

    shopper.get_by_test_id("pay-link").click()
    expect(shopper.locator(".notice.declined")).to_contain_text("declined")
    type_card(shopper, APPROVED)
    shopper.get_by_test_id("pay-card").click()

    expect(status_label(shopper)).to_have_text("Paid")
    order = Order.objects.get()  # the retry paid the same provider order
    assert sorted(order.charges.values_list("status", flat=True)) == ["DECLINED", "PAID"]
    traffic.assert_no_card_data()


def test_sdk_validation_error_shows_next_to_the_field_and_nothing_is_posted(shopper, shop, traffic):
    fill_cart_and_check_out(shopper, shop)
    pay_url = shopper.url
    type_card(shopper, APPROVED, month="13", year="30")

    shopper.get_by_test_id("pay-card").click()

    month_error = shopper.locator("[data-orderpay-error-for=exp_month]")
    year_error = shopper.locator("[data-orderpay-error-for=exp_year]")
    expect(month_error).to_have_text("Check the expiry month: 01 to 12.")
    expect(year_error).to_have_text("Check the expiry year: four digits, such as 2030.")
    expect(shopper.locator("[data-orderpay-field=exp_month]")).to_have_attribute(
        "aria-invalid", "true"
    )
    expect(shopper.locator("[data-orderpay-error-for=number]")).to_be_hidden()
    screenshot(shopper, "checkout-errors")
    assert shopper.url == pay_url
    assert traffic.posts("/pay/card/") == []
    assert not any("/pay/card/" in path for _, path, _ in traffic.server)
    assert shop.provider.order_ids() == []

    # Typing into the field clears its error; a good expiry then pays.
    shopper.fill("[data-orderpay-field=exp_month]", "11")
    expect(month_error).to_be_hidden()
    shopper.fill("[data-orderpay-field=exp_year]", "2031")
    shopper.get_by_test_id("pay-card").click()
    expect(status_label(shopper)).to_have_text("Paid")
    traffic.assert_no_card_data()


def test_status_page_updates_when_the_notification_arrives(shopper, shop, traffic):
    fill_cart_and_check_out(shopper, shop)
    type_card(shopper, IN_ANALYSIS_CARD)
    shopper.get_by_test_id("pay-card").click()
    expect(status_label(shopper)).to_have_text("Payment in analysis")
    screenshot(shopper, "status-in-analysis")

    charge = Order.objects.get().charges.get()
    shop.provider.resolve_charge(charge.provider_id, "PAID")
    # Held until now: the notification of the pay, then the one of the decision.
    assert [d["status"] for d in shop.flush_notifications()] == [200, 200]

    # No reload by the test: the page's polling sees the change.
    expect(status_label(shopper)).to_have_text("Paid", timeout=POLLED)
    traffic.assert_no_card_data()


# --- in Brazilian Portuguese -------------------------------------------------------------


@pytest.fixture
def brazilian(browser: Browser, traffic: Traffic) -> Iterator[Page]:
    """A shopper whose browser asks for Brazilian Portuguese (Accept-Language pt-BR)."""
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    yield page
    context.close()


def test_checkout_in_brazilian_portuguese(brazilian, shop, traffic):
    page = brazilian
    page.goto(shop.url + "/")
    page.locator("[data-product=camiseta] button", has_text="Adicionar ao carrinho").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("R$ 59,90")
    page.get_by_role("link", name="Finalizar compra").click()
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role("button", name="Continuar para o pagamento").click()
    expect(page.get_by_role("heading", name="Pagar com cartão")).to_be_visible()
    expect(page.get_by_label("Número do cartão")).to_be_visible()
    type_card(page, APPROVED, month="13", year="30")

    page.get_by_role("button", name="Pagar R$ 59,90", exact=True).click()

    # checkout.js shows the SDK's errors in the page's language, and posts nothing.
    expect(page.locator("[data-orderpay-error-for=exp_month]")).to_have_text(
        "Confira o mês de validade: de 01 a 12."
    )
    expect(page.locator("[data-orderpay-error-for=exp_year]")).to_have_text(
        "Confira o ano de validade: quatro dígitos, como 2030."
    )
    screenshot(page, "checkout-errors-pt-br")
    assert traffic.posts("/pay/card/") == []

    page.fill("[data-orderpay-field=exp_month]", "12")
    page.fill("[data-orderpay-field=exp_year]", "2030")
    page.select_option("[name=installments]", "2")
    screenshot(page, "checkout-pt-br")
    page.get_by_role("button", name="Pagar R$ 59,90", exact=True).click()

    expect(status_label(page)).to_have_text("Pago")
    expect(page.get_by_test_id("status-detail")).to_have_text(
        "Pago: R$ 59,90 com Visa •••• 2097 em 2 parcelas, sem juros."
    )
    screenshot(page, "status-paid-pt-br")
    traffic.assert_no_card_data()


# --- saved card --------------------------------------------------------------------------


def test_saved_card_flow(shopper, shop, traffic, django_user_model):
    django_user_model.objects.create_user("maria", password="maria-pass-123")
    shopper.goto(shop.url + "/accounts/login/")
    shopper.fill("#id_username", "maria")
    shopper.fill("#id_password", "maria-pass-123")
    shopper.get_by_role("button", name="Log in").click()
    expect(shopper.get_by_role("button", name="Log out maria")).to_be_visible()

    fill_cart_and_check_out(shopper, shop)
    type_card(shopper, APPROVED)
    shopper.get_by_label("Save this card for my next purchases").check()
    shopper.get_by_test_id("pay-card").click()
    expect(status_label(shopper)).to_have_text("Paid")

    fill_cart_and_check_out(shopper, shop)
    saved = shopper.get_by_label("Visa •••• 2097 (12/2030)")
    expect(saved).to_be_checked()
    screenshot(shopper, "pay-saved-card")
    shopper.get_by_test_id("pay-saved-card").click()

    expect(status_label(shopper)).to_have_text("Paid")
    expect(shopper.get_by_test_id("status-detail")).to_have_text(
        "Paid: R$ 94.80 with Visa •••• 2097."
    )
    (first, second) = Order.objects.order_by("created_at")
    token = first.charges.get().card_token
    assert token is not None and token.user.username == "maria"
    assert second.charges.get().card_token == token
    (posted,) = traffic.posts("/pay/saved-card/")
    assert sorted(posted) == ["card_token", "csrfmiddlewaretoken", "installments", "intent"]
    traffic.assert_no_card_data()


# --- paying in the app on a phone ----------------------------------------------------------


@pytest.fixture
def phone(browser: Browser, traffic: Traffic) -> Iterator[Page]:
    context = browser.new_context(
        user_agent=IPHONE,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    yield page
    context.close()


def pay_in_the_app(page: Page, shop: Shop) -> DeepLink:
    fill_cart_and_check_out(page, shop)
    page.get_by_test_id("pay-app").click()
    expect(status_label(page)).to_have_text("Waiting for payment in the PagBank app")
    return DeepLink.objects.get()


def test_deeplink_on_a_phone_paid_through_the_simulator(phone, shop, traffic):
    deeplink = pay_in_the_app(phone, shop)
    screenshot(phone, "status-app-waiting")

    link = phone.get_by_test_id("open-app").get_attribute("href")
    assert link == deeplink.url
    assert parse_qs(urlsplit(link).query)["r"] == [deeplink.deeplink_id]
    # The app sends the payer back to this very status page.
    assert deeplink.redirect_url == phone.url

    answer = requests.post(
        f"{shop.provider.base_url}/pagpay/balance/{deeplink.deeplink_id}",
        json={"status": "PAID"},
        timeout=10,
    )
    assert (answer.status_code, answer.json()) == (200, "PAID")
    assert [d["status"] for d in shop.flush_notifications()] == [200]

    expect(status_label(phone)).to_have_text("Paid", timeout=POLLED)
    expect(phone.get_by_test_id("status-detail")).to_have_text("Paid: R$ 94.80 in the PagBank app.")
    screenshot(phone, "status-app-paid")
    traffic.assert_no_card_data()


def test_deeplink_simulated_from_the_shop_comes_back_to_the_status_page(phone, shop, traffic):
    pay_in_the_app(phone, shop)
    status_url = phone.url

    phone.get_by_test_id("simulate-app-payment").click()

    expect(status_label(phone)).to_have_text("Paid")
    assert phone.url == status_url
    traffic.assert_no_card_data()


# --- the demo as `make demo` serves it --------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: The demo's control-plane secret, given to its runserver through the environment.
DEMO_CONTROL = {"X-Emulator-Secret": "demo-control-secret-for-the-browser-test"}


@pytest.fixture
def demo_server(tmp_path) -> Iterator[str]:
    """``manage.py migrate``, ``seed_shop`` and ``runserver`` as ``make demo`` runs them."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        SITE_URL=url,
        ORDERPAY_EMULATOR_CONTROL_SECRET=DEMO_CONTROL["X-Emulator-Secret"],
    )
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--noinput"], ["seed_shop"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, capture_output=True)
    log = (tmp_path / "runserver.log").open("wb")
    server = subprocess.Popen(
        [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(url + "/", timeout=1).ok:
                    break
            except requests.ConnectionError:
                pass
            assert server.poll() is None, (tmp_path / "runserver.log").read_text()
            assert time.monotonic() < deadline, "the demo server did not start"
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def test_the_demo_takes_a_card_and_its_status_page_follows_the_notification(
    browser: Browser, demo_server: str
):
    """The in-process emulator, notifying the same runserver in the background."""
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(demo_server + "/")
    page.locator("[data-product=camiseta] button").click()
    page.get_by_role("link", name="Checkout").click()
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role("button", name="Continue to payment").click()
    type_card(page, IN_ANALYSIS_CARD)
    page.get_by_test_id("pay-card").click()
    expect(status_label(page)).to_have_text("Payment in analysis")

    # The provider decides (its control plane, in the demo's own process)...
    emulator = demo_server + "/emulator"
    control = DEMO_CONTROL  # the mounted control plane wants the demo's secret
    (order_id,) = requests.get(emulator + "/_emulator/orders", headers=control, timeout=10).json()[
        "orders"
    ]
    order = requests.get(
        f"{emulator}/orders/{order_id}",
        headers={"Authorization": "Bearer demo-token"},
        timeout=10,
    ).json()
    charge_id = order["charges"][0]["id"]
    resolved = requests.post(
        f"{emulator}/_emulator/charges/{charge_id}/resolve",
        json={"status": "PAID"},
        headers=control,
        timeout=10,
    )
    assert resolved.ok

    # ...and notifies the shop, whose status page follows by itself.
    expect(status_label(page)).to_have_text("Paid", timeout=POLLED)
    flushed = requests.post(
        emulator + "/_emulator/notifications/flush", headers=control, timeout=10
    ).json()
    assert [d["status"] for d in flushed["deliveries"]] == [200, 200]  # after pay, after resolve
    page.close()
