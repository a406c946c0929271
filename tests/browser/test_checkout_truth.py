"""The checkout tells the truth, in Chromium, in English and in Brazilian Portuguese.

The shop passes its installment interest on past three installments
(``SHOP_FEE_PLANS``): for every choice, on a typed card and on a saved
one, the pay button names the plan's total, and that total is what is
charged and what the status page, its summary and the shopper's history
say afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import Browser, Page, expect

from django_orderpay.client import get_client
from django_orderpay.installments import offered_plans
from django_orderpay.models import Charge, Order, QrCode, format_cents
from django_orderpay.services.fees import InstallmentPlan
from django_orderpay.templatetags.orderpay import error_messages
from tests.browser.test_checkout import (  # noqa: F401  (fixtures)
    APPROVED,
    CUSTOMER,
    SECURITY_CODE,
    Shop,
    Traffic,
    screenshot,
    shop,
    traffic,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_INTEREST = 3
APPROVED_BIN = APPROVED[:6]
#: Camiseta + Caneca.
TOTAL = 5990 + 3490


@dataclass
class Shopper:
    page: Page
    language: str  # "en" or "pt-BR"

    def money(self, cents: int) -> str:
        with translation.override(self.language.lower()):
            return format_cents(cents)

    def words(self, english: str) -> str:
        with translation.override(self.language.lower()):
            return translation.gettext(english)


@pytest.fixture
def fee_shop(shop: Shop, settings) -> Shop:
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "never"}
    settings.SHOP_FEE_PLANS = True
    settings.SHOP_INSTALLMENTS_NO_INTEREST = NO_INTEREST
    return shop


@pytest.fixture(params=["en", "pt-BR"])
def shopper(request, browser: Browser, traffic: Traffic) -> Iterator[Shopper]:
    context = browser.new_context(locale=request.param, viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    yield Shopper(page, request.param)
    context.close()


def log_in(shopper: Shopper, shop: Shop, user) -> None:
    """Log ``user`` in through a session cookie (the login form is tested elsewhere)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
    shopper.page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": shop.url}])


def check_out(shopper: Shopper, shop: Shop) -> None:
    page = shopper.page
    for product in ("camiseta", "caneca"):
        page.goto(shop.url + "/")
        page.locator(f"[data-product={product}] button").click()
    page.goto(shop.url + "/checkout/")
    for selector, value in CUSTOMER.items():
        page.fill(selector, value)
    page.select_option("#id_region_code", "SP")
    page.locator("form.checkout button[type=submit]").click()
    expect(page.locator("#pay-card")).to_be_visible()


def type_card(page: Page, number: str = APPROVED) -> None:
    card = page.locator("#pay-card")
    card.locator("[data-orderpay-field=holder]").fill("Jose da Silva")
    card.locator("[data-orderpay-field=number]").fill(number)
    card.locator("[data-orderpay-field=exp_month]").fill("12")
    card.locator("[data-orderpay-field=exp_year]").fill("2030")
    card.locator("[data-orderpay-field=security_code]").fill(SECURITY_CODE)


def the_plans(amount: int = TOTAL) -> list[InstallmentPlan]:
    return offered_plans(
        amount,
        card_bin=APPROVED_BIN,
        fee_plans=True,
        max_installments_no_interest=NO_INTEREST,
    )


def every_choice_names_its_total(shopper: Shopper, form: str, button: str) -> None:
    """Choose each installment count of ``form``: ``button`` names that plan's total."""
    page = shopper.page
    select = page.locator(f"{form} select[name$=installments]")
    for plan in the_plans():
        select.select_option(str(plan.installments))
        expect(page.get_by_test_id(button)).to_contain_text(shopper.money(plan.total))
        if plan.interest:
            expect(select.locator("option:checked")).to_contain_text(shopper.money(plan.total))


def the_page_says_what_was_charged(shopper: Shopper, plan: InstallmentPlan) -> None:
    page, total, interest = shopper.page, shopper.money(plan.total), shopper.money(plan.interest)
    expect(page.get_by_test_id("status-label")).to_have_text(shopper.words("Paid"))
    detail = page.get_by_test_id("status-detail")
    expect(detail).to_contain_text(total)
    expect(detail).to_contain_text(interest)
    expect(page.get_by_test_id("total")).to_have_text(total)  # the summary: total charged
    expect(page.get_by_test_id("interest")).to_have_text(interest)


def test_a_typed_card_is_charged_what_the_button_says(shopper, fee_shop, traffic):
    page = shopper.page
    check_out(shopper, fee_shop)
    expect(page.get_by_test_id("pay-card")).to_contain_text(shopper.money(TOTAL))
    type_card(page)
    six = next(plan for plan in the_plans() if plan.installments == 6)
    # The plans of the typed BIN have arrived: the interest-bearing choices name their total.
    expect(page.locator("#pay-card option[value='6']")).to_contain_text(shopper.money(six.total))

    every_choice_names_its_total(shopper, "#pay-card", "pay-card")
    page.locator("#pay-card select[name$=installments]").select_option("6")
    page.locator("#pay-card").screenshot(path=str(_artifact(f"installments-{shopper.language}")))
    page.get_by_test_id("pay-card").click()

    the_page_says_what_was_charged(shopper, six)
    charge = Charge.objects.get()
    assert (charge.amount_value, charge.installments, charge.buyer_interest) == (
        six.total,
        6,
        six.interest,
    )
    screenshot(page, f"status-installments-{shopper.language}")
    traffic.assert_no_card_data()


def test_a_saved_card_is_offered_the_same_plans_and_charged_what_the_button_says(
    shopper, fee_shop, traffic, django_user_model
):
    page = shopper.page
    maria = django_user_model.objects.create_user("maria")
    log_in(shopper, fee_shop, maria)
    check_out(shopper, fee_shop)
    type_card(page)
    page.locator("#pay-card [name=save_card]").check()
    page.get_by_test_id("pay-card").click()
    expect(page.get_by_test_id("status-label")).to_have_text(shopper.words("Paid"))

    check_out(shopper, fee_shop)
    saved = page.locator("#pay-saved-card")
    expect(saved.locator("input[name=card_token]")).to_be_checked()
    six = next(plan for plan in the_plans() if plan.installments == 6)
    expect(saved.locator("option[value='6']")).to_contain_text(shopper.money(six.total))
    every_choice_names_its_total(shopper, "#pay-saved-card", "pay-saved-card")
    saved.locator("select[name$=installments]").select_option("6")
    screenshot(page, f"pay-saved-card-installments-{shopper.language}")
    page.get_by_test_id("pay-saved-card").click()

    the_page_says_what_was_charged(shopper, six)
    second = Order.objects.order_by("-created_at", "-pk").first().charges.get()
    assert (second.amount_value, second.installments, second.buyer_interest) == (
        six.total,
        6,
        six.interest,
    )
    page.goto(fee_shop.url + reverse("shop:purchases").removeprefix("/shop"))
    history = page.get_by_test_id("purchases")
    expect(history).to_contain_text(shopper.money(six.total))
    expect(history).to_contain_text(shopper.money(six.interest))
    traffic.assert_no_card_data()


def _artifact(name: str):
    from tests.browser.test_checkout import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / f"{name}.png"


# --- every payment and refund listed (a Pix paid after the card) ------------------------------


def test_a_second_payment_given_back_is_listed_with_why(shopper, fee_shop, traffic):
    page = shopper.page
    check_out(shopper, fee_shop)
    page.get_by_test_id("pay-pix").click()  # a QR code, left open
    expect(page.locator("[data-testid=status-label]")).to_be_visible()
    page.get_by_test_id("pay-link").click()
    type_card(page)
    page.get_by_test_id("pay-card").click()
    expect(page.get_by_test_id("status-label")).to_have_text(shopper.words("Paid"))

    # The shopper pays the open QR code too: the shop gives that payment back at once.
    fee_shop.provider.pay_pix(QrCode.objects.get().provider_id)
    fee_shop.flush_notifications()
    page.reload()

    payments = page.get_by_test_id("status-payments")
    with translation.override(shopper.language.lower()):
        refunded = translation.gettext(
            "Refunded in full (%(amount)s): the purchase had already been paid, "
            "so this second payment was given back."
        ) % {"amount": format_cents(TOTAL)}
    expect(payments.locator("li")).to_have_count(2)
    expect(payments.locator("li").nth(1)).to_contain_text(refunded)
    screenshot(page, f"status-paid-twice-{shopper.language}")
    assert Charge.objects.get(payment_method="PIX").amount_refunded == TOTAL


# --- what the page can tell before any call --------------------------------------------------


@pytest.mark.parametrize(
    ("number", "month", "year", "field", "message"),
    [
        (APPROVED[:-1] + "8", "12", "2030", "number", "NUMBER_CHECK_DIGIT"),
        (APPROVED, "01", "2020", "exp_year", "CARD_EXPIRED"),
    ],
    ids=["wrong-check-digit", "expired"],
)
def test_a_mistyped_or_expired_card_is_said_so_before_any_call(
    shopper, fee_shop, traffic, settings, number, month, year, field, message
):
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}  # as the demo runs
    page = shopper.page
    check_out(shopper, fee_shop)
    type_card(page, number)
    page.locator("#pay-card [data-orderpay-field=exp_month]").fill(month)
    page.locator("#pay-card [data-orderpay-field=exp_year]").fill(year)

    page.get_by_test_id("pay-card").click()

    with translation.override(shopper.language.lower()):
        expected = error_messages()[message]
    expect(page.locator(f"#pay-card [data-orderpay-error-for={field}]")).to_have_text(expected)
    assert traffic.posts("/pay/card/") == []
    assert not [url for _, url, _ in traffic.browser if "3ds" in url.lower()]
    assert fee_shop.provider.order_ids() == []


# --- the same post again after a lost answer ---------------------------------------------------


def test_a_payment_whose_answer_was_lost_is_sent_again_as_it_was(
    fee_shop, traffic, browser, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0, "TIMEOUT": 0.5}
    context = browser.new_context(locale="en", viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("request", traffic.record_browser)
    check_out(Shopper(page, "en"), fee_shop)
    type_card(page)
    fee_shop.provider.inject_fault("timeout", delay=1.5, path_prefix="/orders/")
    page.get_by_test_id("pay-card").click()
    expect(page.locator(".message.warning")).to_contain_text("may have gone through")

    page.get_by_test_id("pay-link").click()
    notice = page.locator("#pay-card [data-orderpay-resend-notice]")
    expect(notice).to_contain_text("sends it again exactly as it was")
    expect(page.locator("#pay-card [data-orderpay-field=number]")).to_be_hidden()
    screenshot(page, "checkout-resend")
    page.get_by_test_id("pay-card").click()  # nothing typed: the remembered post

    expect(page.get_by_test_id("status-label")).to_have_text("Paid")
    first, again = (
        {name: value for name, value in post.items() if name != "csrfmiddlewaretoken"}
        for post in traffic.posts("/pay/card/")
    )
    assert again == first  # the very same post: its key, its encrypted card
    [order_id] = fee_shop.provider.order_ids()
    assert len(get_client().get_order(order_id)["charges"]) == 1
    context.close()
    traffic.assert_no_card_data()


# --- the shop's language, everywhere the shopper looks ----------------------------------------

CHALLENGED = "4000000000002503"  # the emulator's bank asks for its code


def test_the_products_the_card_form_and_the_banks_challenge_speak_the_shops_language(
    shopper, fee_shop, traffic, settings
):
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}
    page = shopper.page
    page.goto(fee_shop.url + "/")
    # The seeded description is in the shop's catalogue: shown in the shopper's language.
    from example_project.shop.models import Product

    Product.objects.filter(slug="camiseta").update(
        description="Cotton t-shirt, printed in São Paulo."
    )
    page.reload()
    expect(page.locator("[data-product=camiseta]")).to_contain_text(
        shopper.words("Cotton t-shirt, printed in São Paulo.")
    )
    check_out(shopper, fee_shop)
    year = page.locator("#pay-card [data-orderpay-field=exp_year]")
    with translation.override(shopper.language.lower()):
        placeholder = translation.pgettext("expiry year, as printed on a card", "YYYY")
    expect(year).to_have_attribute("placeholder", placeholder)
    assert (placeholder == "AAAA") == (shopper.language == "pt-BR")

    type_card(page, CHALLENGED)
    page.get_by_test_id("pay-card").click()

    bank = page.frame_locator("[data-orderpay-3ds-challenge] iframe")
    expect(bank.get_by_text(shopper.money(TOTAL))).to_be_visible()
    code = bank.get_by_label(shopper.words("Code sent to your phone"))
    expect(code).to_be_visible()
    screenshot(page, f"3ds-challenge-{shopper.language}")
    from django_orderpay.emulator import CHALLENGE_CODE

    code.fill(CHALLENGE_CODE)
    bank.get_by_role("button", name=shopper.words("Confirm")).click()
    expect(page.get_by_test_id("status-label")).to_have_text(shopper.words("Paid"))


def test_the_boleto_bank_page_speaks_the_shops_language(shopper, fee_shop, traffic):
    page = shopper.page
    check_out(shopper, fee_shop)
    page.get_by_test_id("pay-boleto").click()
    with page.context.expect_page() as opened:
        page.get_by_test_id("emulator-bank").click()
    bank = opened.value

    expect(bank.get_by_role("heading")).to_have_text(shopper.words("Boleto (emulator)"))
    expect(bank.get_by_role("button")).to_have_text(shopper.words("Pay this boleto"))
    expect(bank.locator("body")).to_contain_text(shopper.money(TOTAL))
    bank.close()
    charge = Charge.objects.get()
    # The bank's document keeps its accents.
    lines = charge.data["payment_method"]["boleto"]["instruction_lines"]
    assert lines["line_2"] == "Não receber após o vencimento"


def test_the_card_tokens_admin_in_the_shops_language(shopper, fee_shop, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    log_in(shopper, fee_shop, boss)
    page = shopper.page
    page.goto(fee_shop.url.removesuffix("/shop") + "/admin/django_orderpay/cardtoken/")

    removed_at = shopper.words("removed at")
    expect(page.locator("#changelist-filter")).to_contain_text(removed_at)
    assert (removed_at == "removido em") == (shopper.language == "pt-BR")
