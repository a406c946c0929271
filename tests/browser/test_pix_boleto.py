"""The example shop's Pix and boleto in headless Chromium, on the emulator over HTTP.

The shopper picks Pix or boleto; the status page shows the QR code (its image
loaded from the provider's link) or the boleto's typeable line, the copy
buttons put the code on the clipboard, and once the payer pays (the
emulator's control plane, or its bank page) and the notification arrives,
the page moves on by itself. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from django_orderpay.models import Charge, QrCode
from tests.browser.test_checkout import (  # noqa: F401 (shop and traffic are fixtures)
    CUSTOMER,
    POLLED,
    Traffic,
    screenshot,
    shop,
    status_label,
    traffic,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _context_page(browser: Browser, traffic: Traffic, locale: str) -> Iterator[Page]:
    context = browser.new_context(
        locale=locale,
        viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    yield page
    context.close()


@pytest.fixture
def payer(browser: Browser, traffic: Traffic) -> Iterator[Page]:
    yield from _context_page(browser, traffic, "en-US")


@pytest.fixture
def brazilian_payer(browser: Browser, traffic: Traffic) -> Iterator[Page]:
    yield from _context_page(browser, traffic, "pt-BR")


def check_out(page: Page, shop, button: str) -> None:
    page.goto(shop.url + "/")
    page.locator("[data-product=camiseta] button").click()
    page.get_by_role("link", name=re.compile("Checkout|Finalizar compra")).click()
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role(
        "button", name=re.compile("Continue to payment|Continuar para o pagamento")
    ).click()
    page.get_by_test_id(button).click()


def clipboard(page: Page) -> str:
    # Chromium reads the clipboard only for the focused page, and page.evaluate
    # has no timeout: unfocused, the read never settled and the run hung.
    page.bring_to_front()
    return page.evaluate(
        """Promise.race([
            navigator.clipboard.readText(),
            new Promise((_, fail) => setTimeout(
                () => fail(new Error("clipboard read: no answer in 10 s")), 10000
            )),
        ])"""
    )


def test_pix_shows_the_qr_copies_its_code_and_moves_on_when_paid(payer, shop):
    check_out(payer, shop, "pay-pix")

    expect(status_label(payer)).to_have_text("Waiting for the Pix payment")
    qr_image = payer.get_by_test_id("pix-qr-code")
    expect(qr_image).to_be_visible()
    # Visible is not loaded (its width and height are in the markup): wait for the
    # PNG itself, which a busy machine serves after the page (CI saw it half a beat late).
    payer.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0", arg=qr_image.element_handle()
    )
    expect(payer.get_by_test_id("pix-countdown")).to_have_text(
        re.compile(r"Expires in (29|30):\d\d")
    )
    payer.get_by_test_id("pix-text-copy").click()
    expect(payer.get_by_text("Copied")).to_be_visible()
    qr_code = QrCode.objects.get()
    assert clipboard(payer) == qr_code.text
    screenshot(payer, "pix-waiting")

    shop.provider.pay_pix(qr_code.provider_id)  # the payer's bank app
    assert [d["status"] for d in shop.flush_notifications()] == [200]

    expect(status_label(payer)).to_have_text("Paid", timeout=POLLED)
    expect(payer.get_by_test_id("status-detail")).to_have_text("Paid: R$ 59.90 by Pix.")
    expect(payer.get_by_test_id("pix-qr-code")).to_have_count(0)


def test_boleto_in_portuguese_copies_its_line_and_moves_on_when_paid_at_the_bank(
    brazilian_payer, shop
):
    page = brazilian_payer
    check_out(page, shop, "pay-boleto")

    expect(status_label(page)).to_have_text("Aguardando o pagamento do boleto")
    charge = Charge.objects.get()
    line = charge.boleto["formatted_barcode"]
    expect(page.get_by_test_id("boleto-line")).to_have_value(line)
    page.get_by_test_id("boleto-line-copy").click()
    expect(page.get_by_text("Copiado")).to_be_visible()
    assert clipboard(page) == line
    pdf = page.get_by_test_id("boleto-pdf")
    expect(pdf).to_have_text("Baixar o boleto (PDF)")
    answer = requests.get(pdf.get_attribute("href"), timeout=10)
    assert answer.headers["Content-Type"] == "application/pdf"
    assert answer.content.startswith(b"%PDF")
    screenshot(page, "boleto-waiting-pt-br")

    # The emulator's bank: a page of its own, with a button that pays the boleto.
    with page.context.expect_page() as opened:
        page.get_by_test_id("emulator-bank").click()
    bank = opened.value
    bank.get_by_role("button").click()
    # The button posts and is answered with the page again, now paid: wait for it before
    # closing (a page closed while its form's navigation is under way was seen never to
    # close, hanging the run at bank.close()).
    expect(bank.locator("[data-boleto-status]")).to_have_text("PAID")
    bank.close()
    # The boleto's creation (WAITING), then its payment.
    assert [d["status"] for d in shop.flush_notifications()] == [200, 200]

    expect(status_label(page)).to_have_text("Pago", timeout=POLLED)
    expect(page.get_by_test_id("status-detail")).to_have_text("Pago: R$ 59,90 com boleto.")
