"""3-D Secure, debit, installment plans and "add a card" in the example shop, in Chromium.

The shop runs 3-D Secure always (``ORDERPAY['THREEDS']``) and prices installments
with the fee plans; the emulator's SDK authenticates by test card (docs/3ds.md)
and shows its bank's challenge in a frame over the page.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from django_orderpay.emulator import CHALLENGE_CODE, THREEDS_NOT_SUPPORTED_CARD
from django_orderpay.models import CardToken, Order
from tests.browser.test_checkout import (  # noqa: F401  (fixtures)
    SECURITY_CODE,
    Shop,
    brazilian,
    fill_cart_and_check_out,
    screenshot,
    shop,
    shopper,
    status_label,
    traffic,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRICTIONLESS = "4000000000002701"
CHALLENGED = "4000000000002503"
SECRETS = (FRICTIONLESS, CHALLENGED, THREEDS_NOT_SUPPORTED_CARD)


@pytest.fixture
def threeds_shop(shop: Shop, settings) -> Shop:
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}
    settings.SHOP_FEE_PLANS = True
    settings.SHOP_INSTALLMENTS_NO_INTEREST = 0
    settings.SHOP_DEBIT_CARDS = True
    return shop


def type_card(page: Page, number: str, where: str = "#pay-card") -> None:
    section = page.locator(where)
    section.locator("[data-orderpay-field=holder]").fill("Jose da Silva")
    section.locator("[data-orderpay-field=number]").fill(number)
    section.locator("[data-orderpay-field=exp_month]").fill("12")
    section.locator("[data-orderpay-field=exp_year]").fill("2030")
    section.locator("[data-orderpay-field=security_code]").fill(SECURITY_CODE)


def assert_no_card_data(traffic) -> None:
    bodies = [body or "" for method, url, body in traffic.browser if "/checkout-sdk/" not in url]
    bodies += [body.decode("utf-8", "replace") for _, _, body in traffic.server]
    for body in bodies:
        for number in SECRETS:
            assert number not in body


def test_challenge_passed_pays_the_plan_with_its_interest(shopper, threeds_shop, traffic):
    fill_cart_and_check_out(shopper, threeds_shop)  # R$ 94,80
    type_card(shopper, CHALLENGED)
    installments = shopper.locator("#pay-card select[name=installments]")
    # The plans of the typed BIN: 4x with the buyer's interest, the total shown.
    # 4 x 25.80 is 103.20: the first installment carries the cent more.
    expect(installments.locator("option[value='4']")).to_have_text(
        "4x: the first R$ 25.81 and 3x R$ 25.80 (total R$ 103.21)"
    )
    installments.select_option("4")
    screenshot(shopper, "checkout-plans")
    shopper.get_by_test_id("pay-card").click()

    bank = shopper.frame_locator("[data-orderpay-3ds-challenge] iframe")
    expect(bank.get_by_text("R$ 103.21")).to_be_visible()  # the bank speaks the shopper's English
    screenshot(shopper, "3ds-challenge")
    bank.get_by_label("Code sent to your phone").fill(CHALLENGE_CODE)
    bank.get_by_role("button", name="Confirm").click()

    expect(status_label(shopper)).to_have_text("Paid")
    charge = Order.objects.get().charges.get()
    assert (charge.amount_value, charge.installments) == (10321, 4)
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"
    assert charge.data["amount"]["fees"]["buyer"]["interest"] == {"total": 10321 - 9480,
                                                                  "installments": 4}  # fmt: skip
    (posted,) = traffic.posts("/pay/card/")
    assert posted["authentication_id"][0].startswith("3DS_")
    assert posted["card_bin"] == [CHALLENGED[:6]]
    assert_no_card_data(traffic)


def test_challenge_answered_again_when_the_bank_was_not_reached(shopper, threeds_shop, traffic):
    answers: list[str] = []

    def first_answer_lost(route, request):
        # The bank's page posts its answer to itself; the first one never arrives.
        if request.method == "POST" and "lost" not in answers:
            answers.append("lost")
            route.abort()
        else:
            answers.append(request.method)
            route.continue_()

    shopper.route("**/checkout-sdk/challenges/*", first_answer_lost)
    fill_cart_and_check_out(shopper, threeds_shop)
    type_card(shopper, CHALLENGED)
    shopper.get_by_test_id("pay-card").click()

    bank = shopper.frame_locator("[data-orderpay-3ds-challenge] iframe")
    bank.get_by_label("Code sent to your phone").fill(CHALLENGE_CODE)
    bank.get_by_role("button", name="Confirm").click()
    expect(bank.get_by_role("alert")).to_have_text("The bank could not be reached. Try again.")
    assert traffic.posts("/pay/card/") == []

    bank.get_by_role("button", name="Confirm").click()
    expect(status_label(shopper)).to_have_text("Paid")
    assert answers == ["GET", "lost", "POST"]
    charge = Order.objects.get().charges.get()
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"


def test_challenge_failed_asks_for_another_card_and_charges_nothing(shopper, threeds_shop, traffic):
    fill_cart_and_check_out(shopper, threeds_shop)
    type_card(shopper, CHALLENGED)
    shopper.get_by_test_id("pay-card").click()
    bank = shopper.frame_locator("[data-orderpay-3ds-challenge] iframe")
    bank.get_by_role("button", name="Cancel").click()

    expect(shopper.locator("#pay-card [data-orderpay-error-for=form]")).to_have_text(
        "Your bank did not authenticate this card. Choose another card or payment method."
    )
    assert traffic.posts("/pay/card/") == []
    assert not Order.objects.exists() or not Order.objects.get().charges.exists()

    # A card whose issuer takes no part in 3-D Secure is refused by default...
    type_card(shopper, THREEDS_NOT_SUPPORTED_CARD)
    shopper.get_by_test_id("pay-card").click()
    expect(shopper.locator("#pay-card [data-orderpay-error-for=form]")).to_have_text(
        "Your bank does not authenticate this card (3-D Secure): choose another card or "
        "another way to pay."
    )
    assert traffic.posts("/pay/card/") == []


def test_not_supported_pays_without_3ds_where_the_shop_allows_it(
    shopper, threeds_shop, traffic, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS_ALLOW_NOT_SUPPORTED": True}
    fill_cart_and_check_out(shopper, threeds_shop)
    type_card(shopper, THREEDS_NOT_SUPPORTED_CARD)
    shopper.get_by_test_id("pay-card").click()
    expect(status_label(shopper)).to_have_text("Paid")
    charge = Order.objects.get().charges.get()
    assert "authentication_method" not in charge.data["payment_method"]


def test_debit_stops_without_3ds_and_is_paid_with_it(shopper, threeds_shop, traffic):
    fill_cart_and_check_out(shopper, threeds_shop)
    type_card(shopper, THREEDS_NOT_SUPPORTED_CARD, "#pay-debit")
    shopper.get_by_test_id("pay-debit").click()
    expect(shopper.locator("#pay-debit [data-orderpay-error-for=form]")).to_have_text(
        "This card cannot be authenticated for debit: choose another card or method."
    )
    assert traffic.posts("/pay/debit/") == []

    type_card(shopper, FRICTIONLESS, "#pay-debit")
    shopper.get_by_test_id("pay-debit").click()
    expect(status_label(shopper)).to_have_text("Paid")
    charge = Order.objects.get().charges.get()
    assert (charge.payment_method, charge.installments) == ("DEBIT_CARD", 1)
    assert_no_card_data(traffic)


def test_frictionless_in_brazilian_portuguese(brazilian, threeds_shop, traffic):
    page = brazilian
    page.goto(threeds_shop.url + "/")
    page.locator("[data-product=camiseta] button").click()
    page.get_by_role("link", name="Finalizar compra").click()
    from tests.browser.test_checkout import CUSTOMER

    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.get_by_role("button", name="Continuar para o pagamento").click()
    type_card(page, FRICTIONLESS)
    expect(page.locator("#pay-card select[name=installments] option[value='2']")).to_have_text(
        "2x: a primeira R$ 31,52 e 1x R$ 31,53 (total R$ 63,05)"
    )
    page.get_by_role("button", name="Pagar R$ 59,90", exact=True).click()
    expect(status_label(page)).to_have_text("Pago")
    screenshot(page, "status-3ds-pt-br")
    charge = Order.objects.get().charges.get()
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"


def test_card_added_without_a_charge_then_pays(shopper, threeds_shop, traffic, django_user_model):
    django_user_model.objects.create_user("maria", password="maria-pass-123")
    shopper.goto(threeds_shop.url + "/accounts/login/")
    shopper.fill("#id_username", "maria")
    shopper.fill("#id_password", "maria-pass-123")
    shopper.get_by_role("button", name="Log in").click()

    shopper.goto(threeds_shop.url + "/accounts/cards/")
    shopper.get_by_test_id("add-card-link").click()
    type_card(shopper, "5240082975622454", "[data-testid=add-card-form]")
    shopper.get_by_test_id("add-card").click()
    expect(shopper.get_by_test_id("saved-cards")).to_contain_text("Mastercard")
    assert not Order.objects.exists()
    token = CardToken.objects.get()
    assert token.user.username == "maria"

    fill_cart_and_check_out(shopper, threeds_shop)
    expect(shopper.get_by_label("Mastercard •••• 2454 (12/2030)")).to_be_checked()
    shopper.get_by_test_id("pay-saved-card").click()
    expect(status_label(shopper)).to_have_text("Paid")
    assert Order.objects.get().charges.get().card_token == token


def test_a_checkout_left_open_past_30_minutes_still_authenticates(shopper, threeds_shop, traffic):
    """The page's session expires after 30 minutes (by the emulator's clock here): checkout.js
    asks the shop for a fresh one before authenticating, so the payment goes through."""
    fill_cart_and_check_out(shopper, threeds_shop)
    threeds_shop.provider.advance_clock(31 * 60)
    type_card(shopper, FRICTIONLESS)
    shopper.get_by_test_id("pay-card").click()

    expect(status_label(shopper)).to_have_text("Paid")
    (asked,) = traffic.posts("/orderpay/3ds-session/")
    assert asked["token"][0]
    charge = Order.objects.get().charges.get()
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"
