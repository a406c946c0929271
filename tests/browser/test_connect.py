"""PagBank Connect in headless Chromium: a seller of the example marketplace authorises the
platform on the emulator's consent page and comes back connected, with the tokens stored only
encrypted (a dump of the whole database shows neither token); a shopper then buys from the
seller and pays by card, split between the shop and the seller.

The shop runs in pytest-django's live server; the provider (and its OAuth server) is the
``orderpay_emulator`` fixture over HTTP.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from playwright.sync_api import Page, expect

from django_orderpay import services
from django_orderpay.emulator.state.oauth import seller_account
from django_orderpay.models import ConnectAuthorization, ConnectedAccount, Order
from example_project.shop.models import Product, Seller
from tests.browser.test_checkout import CUSTOMER, type_card

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
ANA = "ana@example.com"
APPROVED = "4539620659922097"


@pytest.fixture
def marketplace(live_server, orderpay_connect, orderpay_emulator, settings) -> Seller:
    """The example shop on the live server, its Connect application registered with the live
    server's callback, and its seller seeded."""
    orderpay_connect.redirect_uri = live_server.url + "/orderpay/connect/callback/"
    orderpay_connect.register()
    settings.ORDERPAY = {
        **settings.ORDERPAY,
        **orderpay_connect.settings_overrides(),
        "ACCOUNT_ID": orderpay_emulator.account_id,
        "NOTIFICATION_URL": live_server.url + "/orderpay/notifications/",
    }
    Product.objects.create(name="Camiseta", slug="camiseta", price=5990)
    call_command("seed_marketplace", stdout=io.StringIO())
    return Seller.objects.get()


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def database_dump() -> str:
    """Every row of every table, as text: what a backup or a read-only console would show."""
    rows: list[str] = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            rows.extend(f"{table}: {row!r}" for row in cursor.fetchall())
    dumped = io.StringIO()
    call_command("dumpdata", stdout=dumped)
    return "\n".join(rows) + dumped.getvalue()


def log_in(page: Page, base: str, username: str, password: str) -> None:
    page.goto(base + "/shop/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()


def test_a_seller_authorises_the_platform_in_the_browser(
    page: Page, live_server, marketplace, orderpay_connect
):
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "ana", "orderpay-seller")
    page.goto(live_server.url + "/shop/seller/")
    page.get_by_test_id("seller-connect").click()

    # PagBank's (the emulator's) consent page: who asks, for what, and the seller's answer.
    expect(page.locator("[data-connect-app]")).to_have_text("django-orderpay tests")
    expect(page.locator("[data-scope='payments.create']")).to_be_visible()
    expect(page.locator("[data-scope='payments.split.read']")).to_be_visible()
    assert page.url.startswith(orderpay_connect.emulator.base_url + "/oauth2/authorize?")
    screenshot(page, "connect-consent")
    page.fill("[data-connect-email]", ANA)
    page.locator("[data-connect-allow]").click()

    # Back at the shop through the callback, connected.
    expect(page.get_by_test_id("seller-connected")).to_be_visible()
    assert page.url == live_server.url + "/shop/seller/"
    screenshot(page, "connect-connected")
    account = ConnectedAccount.objects.get()
    assert (account.account_id, account.owner) == (seller_account(ANA), marketplace)
    assert not ConnectAuthorization.objects.exists()

    # The tokens PagBank issued are nowhere in the database, only their encryption.
    [grant] = orderpay_connect.grants()
    dump = database_dump()
    assert account.access_token_encrypted in dump
    for secret in (grant["access_token"], grant["refresh_token"]):
        assert secret not in dump
    assert account.access_token() == grant["access_token"]

    # A shopper buys from the seller: the card payment is split with the shop.
    page.get_by_role("button", name="Log out ana").click()
    page.goto(live_server.url + "/shop/")
    page.locator("[data-product=bolsa-croche] button").click()
    page.get_by_role("link", name="Checkout").click()
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role("button", name="Continue to payment").click()
    expect(page.get_by_test_id("marketplace-note")).to_be_visible()
    type_card(page, APPROVED)
    page.get_by_test_id("pay-card").click()  # the test settings run no 3-D Secure
    expect(page.get_by_test_id("status-label")).to_have_text("Paid")
    charge = Order.objects.get().charges.get()
    split = services.get_split(charge)
    parts = {r["account"]["id"]: int(r["amount"]["value"]) for r in split.receivers}
    assert parts == {orderpay_connect.emulator.account_id: 890, seller_account(ANA): 8010}
    # Still no token in the database after the payment.
    dump = database_dump()
    for secret in (grant["access_token"], grant["refresh_token"]):
        assert secret not in dump
