"""Screenshots of the admin in headless Chromium: the charge list with its badges and amounts,
and the cancel confirmation page. Saved under ``test-artifacts/`` for a person to look at."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from django_orderpay.testing.factories import ChargeFactory, OrderFactory
from tests.admin_support import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

#: Badge colours of admin.css, as the browser computes them.
BADGE_COLOURS = {
    "paid": "rgb(21, 128, 61)",
    "authorized": "rgb(29, 78, 216)",
    "in-analysis": "rgb(180, 83, 9)",
    "waiting": "rgb(161, 98, 7)",
    "declined": "rgb(185, 28, 28)",
    "canceled": "rgb(75, 85, 99)",
}


@pytest.fixture
def charges_in_every_state():
    order = OrderFactory(customer_name="Maria Souza", reference_id="loja-1001")
    return {
        "paid": ChargeFactory(order=order, amount_value=123456),
        "authorized": ChargeFactory(authorized=True, amount_value=2500),
        "in-analysis": ChargeFactory(in_analysis=True, amount_value=9990),
        "waiting": ChargeFactory(status="WAITING", amount_value=4000),
        "declined": ChargeFactory(
            declined=True, amount_value=15000, card_brand="mastercard", card_last_digits="3264"
        ),
        "canceled": ChargeFactory(canceled=True, amount_value=780),
        "refunded in part": ChargeFactory(amount_value=5000, amount_refunded=1250),
    }


@pytest.fixture
def staff_browser(browser, live_server):
    """Opens pages logged in as a superuser, in a locale; closes them after the test.

    Closing the context drops Chromium's keep-alive connections while the live
    server still shares its database connection with its request threads.
    """
    make_user("staff", superuser=True, password=PASSWORD)
    contexts = []

    def open_page(locale: str):
        context = browser.new_context(locale=locale, viewport={"width": 1920, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "staff")
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_url(f"{live_server.url}/admin/")
        return page

    yield open_page
    for context in contexts:
        context.close()
    # Let the server's request threads see their sockets close and finish
    # while they may still use the shared in-memory database connection.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(
        thread.is_alive() and "process_request_thread" in thread.name
        for thread in threading.enumerate()
    ):
        time.sleep(0.05)


def assert_badges_coloured(page, states) -> None:
    for state in states:
        badge = page.locator(f".orderpay-badge-{state}").first
        assert badge.is_visible(), state
        colour = badge.evaluate("el => getComputedStyle(el).backgroundColor")
        assert colour == BADGE_COLOURS[state], (state, colour)


def test_charge_changelist_in_portuguese(staff_browser, live_server, charges_in_every_state):
    page = staff_browser("pt-BR")

    page.goto(f"{live_server.url}/admin/django_orderpay/charge/")

    assert_badges_coloured(page, BADGE_COLOURS)
    for label in ("Pago", "Autorizado", "Em análise", "Aguardando", "Recusado", "Cancelado"):
        assert page.locator(".orderpay-badge", has_text=label).first.is_visible(), label
    for amount in ("R$ 1.234,56", "R$ 25,00", "R$ 99,90", "R$ 150,00", "R$ 12,50"):
        assert page.get_by_text(amount, exact=True).first.is_visible(), amount
    assert page.get_by_text("20003 NAO AUTORIZADA").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "admin-charge-changelist-pt-br.png", full_page=True)


def test_charge_changelist_in_english(staff_browser, live_server, charges_in_every_state):
    page = staff_browser("en-US")

    page.goto(f"{live_server.url}/admin/django_orderpay/charge/")

    assert_badges_coloured(page, BADGE_COLOURS)
    assert page.locator(".orderpay-badge", has_text="In analysis").is_visible()
    assert page.get_by_text("R$ 1,234.56", exact=True).first.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "admin-charge-changelist-en.png", full_page=True)


def test_cancel_confirmation_page(staff_browser, live_server, charges_in_every_state):
    page = staff_browser("pt-BR")
    page.goto(f"{live_server.url}/admin/django_orderpay/charge/")

    for state in ("paid", "authorized", "declined", "refunded in part"):
        pk = charges_in_every_state[state].pk
        page.check(f"input.action-select[value='{pk}']")
    page.select_option("select[name=action]", "cancel_charges")
    page.click("button[name=index]")

    page.wait_for_selector(".orderpay-action")
    todo, skipped = page.locator(".orderpay-todo li"), page.locator(".orderpay-skipped li")
    assert todo.count() == 3 and skipped.count() == 1
    assert page.get_by_text(
        "estornar R$ 1.234,56, tudo o que ainda pode ser estornado"
    ).is_visible()
    assert page.get_by_text("estornar R$ 37,50, tudo o que ainda pode ser estornado").is_visible()
    assert page.get_by_text("anular a autorização de R$ 25,00").is_visible()
    assert skipped.get_by_text("foi recusada: nada foi pago").is_visible()
    assert page.locator(".orderpay-summary", has_text="R$ 1.272,06 serão estornados").is_visible()
    assert_badges_coloured(page, ["paid", "authorized", "declined"])
    assert page.locator("input[type=submit][value='Sim, cancelar']").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "admin-cancel-confirmation-pt-br.png", full_page=True)


def test_order_detail_page(staff_browser, live_server):
    order = OrderFactory(customer_name="Maria Souza", reference_id="loja-2002")
    ChargeFactory(order=order, declined=True, amount_value=15000)
    paid = ChargeFactory(order=order, amount_value=15000, amount_refunded=2500)
    page = staff_browser("pt-BR")

    page.goto(f"{live_server.url}/admin/django_orderpay/order/{order.pk}/change/")

    assert_badges_coloured(page, ["paid", "declined"])
    assert page.get_by_role("link", name=paid.provider_id).is_visible()
    assert page.locator(".field-total_paid", has_text="R$ 150,00").is_visible()
    assert page.locator(".field-total_refunded", has_text="R$ 25,00").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "admin-order-detail-pt-br.png", full_page=True)
