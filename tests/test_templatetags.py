"""``{% load orderpay %}``: the SDK script per environment, the public key, the card form."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.test import override_settings

from django_orderpay.conf import HOSTS
from django_orderpay.forms import CardPaymentForm
from django_orderpay.services import clear_public_key_cache

SDK_SCRIPT = "https://assets.pagseguro.com.br/checkout-sdk-js/rc/dist/browser/pagseguro.min.js"
CARD_FIELDS = ["holder", "number", "exp_month", "exp_year", "security_code"]
SDK_ERROR_CODES = [
    "INVALID_NUMBER",
    "INVALID_SECURITY_CODE",
    "INVALID_EXPIRATION_MONTH",
    "INVALID_EXPIRATION_YEAR",
    "INVALID_PUBLIC_KEY",
    "INVALID_HOLDER",
]


def render(source: str, **context: object) -> str:
    return engines["django"].from_string("{% load orderpay %}" + source).render(context)


class Elements(HTMLParser):
    """Every start tag of a document, as (tag, attributes)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))

    def named(self) -> list[dict[str, str | None]]:
        """The form controls a browser would post (those with a ``name``)."""
        return [
            a for tag, a in self.found if "name" in a and tag in ("input", "select", "textarea")
        ]

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            found
            for name, found in self.found
            if name == tag and all(found.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def scripts(html: str) -> list[str | None]:
    return [attrs.get("src") for attrs in Elements(html).all("script")]


# --- {% orderpay_sdk %} ---------------------------------------------------------------


@override_settings(
    ORDERPAY={"ENVIRONMENT": "emulator", "TOKEN": "t", "EMULATOR_URL": "http://shop.test/emulator"}
)
def test_sdk_in_emulator_mode_is_the_emulators_script_then_checkout_js():
    assert scripts(render("{% orderpay_sdk %}")) == [
        "http://shop.test/emulator/sdk/pagseguro.js",
        "/static/django_orderpay/checkout.js",
    ]


@pytest.mark.parametrize("environment", ["production", "sandbox"])
def test_sdk_of_the_provider_in_production_and_sandbox(environment):
    with override_settings(ORDERPAY={"ENVIRONMENT": environment, "TOKEN": "t"}):
        found = scripts(render("{% orderpay_sdk %}"))
    assert found == [SDK_SCRIPT, "/static/django_orderpay/checkout.js"]
    assert HOSTS[environment].sdk_url == SDK_SCRIPT


@override_settings(
    ORDERPAY={"ENVIRONMENT": "sandbox", "TOKEN": "t", "SDK_URL": "https://cdn.test/sdk.js"}
)
def test_sdk_url_setting_wins_and_checkout_false_renders_the_sdk_alone():
    assert scripts(render("{% orderpay_sdk checkout=False %}")) == ["https://cdn.test/sdk.js"]


@override_settings(ORDERPAY={"ENVIRONMENT": "production"})
def test_sdk_renders_before_a_token_is_configured(monkeypatch):
    monkeypatch.delenv("ORDERPAY_TOKEN", raising=False)
    assert scripts(render("{% orderpay_sdk checkout=False %}")) == [SDK_SCRIPT]


@override_settings(
    ORDERPAY={"ENVIRONMENT": "sandbox", "TOKEN": "t", "SDK_URL": 'https://x.test/"a<b'}
)
def test_sdk_url_is_escaped():
    html = render("{% orderpay_sdk checkout=False %}")
    assert '"a<b' not in html
    assert scripts(html) == ['https://x.test/"a<b']


# --- {% orderpay_public_key %} --------------------------------------------------------


@override_settings(ORDERPAY={"ENVIRONMENT": "sandbox", "TOKEN": "t", "PUBLIC_KEY": "MIIBIjAN+/=="})
def test_public_key_configured_is_rendered_as_is():
    clear_public_key_cache()
    assert render("{% orderpay_public_key %}") == "MIIBIjAN+/=="


@pytest.fixture
def unconfigured_key(orderpay_emulator, settings):
    """The emulator, with no PUBLIC_KEY configured: the services must fetch it."""
    settings.ORDERPAY = {
        **{k: v for k, v in settings.ORDERPAY.items() if k != "PUBLIC_KEY"},
        "RETRIES": 0,
    }
    clear_public_key_cache()
    yield orderpay_emulator
    clear_public_key_cache()


def test_public_key_fetched_from_the_provider_then_cached(unconfigured_key):
    assert render("{% orderpay_public_key %}") == unconfigured_key.emulator.public_key

    # The provider now fails every call: the cached key is still rendered.
    unconfigured_key.inject_fault("http_500", count=10)
    assert render("{% orderpay_public_key %}") == unconfigured_key.emulator.public_key


def test_public_key_unreachable_renders_empty_instead_of_failing_the_page(unconfigured_key, caplog):
    unconfigured_key.inject_fault("http_500", count=10)

    assert render("{% orderpay_public_key %}") == ""
    html = render("{% orderpay_card_form form %}", form=CardPaymentForm(request=None))
    (card,) = Elements(html).all("fieldset")
    assert card["data-orderpay-public-key"] == ""
    assert "no card public key" in caplog.text


# --- {% orderpay_card_form %} ---------------------------------------------------------


@pytest.fixture
def key_configured(settings):
    settings.ORDERPAY = {"ENVIRONMENT": "emulator", "TOKEN": "t", "PUBLIC_KEY": "MIIBIjAN"}
    clear_public_key_cache()


def test_card_inputs_have_no_name_so_the_raw_card_cannot_be_posted(key_configured):
    html = render("{% orderpay_card_form form %}", form=CardPaymentForm(request=None))
    inputs = Elements(html).all("input")

    card_inputs = [attrs for attrs in inputs if "data-orderpay-field" in attrs]
    assert [attrs["data-orderpay-field"] for attrs in card_inputs] == CARD_FIELDS
    # The holder's name is posted (no secret: PagBank asks for it beside the
    # encrypted card); the number, expiry and security code never are.
    secret = [attrs for attrs in card_inputs if attrs["data-orderpay-field"] != "holder"]
    assert all("name" not in attrs for attrs in secret)
    [holder] = [attrs for attrs in card_inputs if attrs["data-orderpay-field"] == "holder"]
    assert holder["name"] == "holder_name"
    # What has a name is only what the server may receive.
    named = sorted(attrs["name"] for attrs in Elements(html).named())
    assert named == ["encrypted_card", "holder_name", "installments", "intent"]


def test_a_refused_holder_name_is_shown_by_its_input_with_what_was_typed(key_configured):
    form = CardPaymentForm({"holder_name": "Jose 2", "encrypted_card": "QUJD" * 86}, request=None)
    form.is_valid()

    html = render("{% orderpay_card_form form %}", form=form)

    assert 'value="Jose 2"' in html
    assert "Type the name as printed on the card, letters only." in html


def test_card_inputs_are_labelled_and_autofillable(key_configured):
    html = render("{% orderpay_card_form form %}", form=CardPaymentForm(request=None))
    elements = Elements(html)
    labels = {attrs["for"] for attrs in elements.all("label")}
    autocomplete = {
        attrs["data-orderpay-field"]: attrs["autocomplete"]
        for attrs in elements.all("input")
        if "data-orderpay-field" in attrs
    }
    assert autocomplete == {
        "holder": "cc-name",
        "number": "cc-number",
        "exp_month": "cc-exp-month",
        "exp_year": "cc-exp-year",
        "security_code": "cc-csc",
    }
    for attrs in elements.all("input"):
        if "data-orderpay-field" in attrs:
            assert attrs["id"] in labels
            # Each input points at the slot where checkout.js writes its error.
            (slot,) = elements.all("p", id=attrs["aria-describedby"])
            assert slot["data-orderpay-error-for"] == attrs["data-orderpay-field"]


def test_card_form_carries_the_public_key_and_a_message_for_every_sdk_error(key_configured):
    html = render("{% orderpay_card_form form %}", form=CardPaymentForm(request=None))
    (card,) = Elements(html).all("fieldset")
    assert card["data-orderpay-public-key"] == "MIIBIjAN"
    assert "data-orderpay-card" in card
    messages = json.loads(card["data-orderpay-messages"])
    assert set(SDK_ERROR_CODES) <= set(messages)
    assert all(isinstance(text, str) and text for text in messages.values())


def test_save_card_is_offered_to_a_logged_in_user_only(key_configured, django_user_model, db):
    user = django_user_model.objects.create_user("maria")
    anonymous = render(
        "{% orderpay_card_form form %}", form=CardPaymentForm(user=AnonymousUser(), request=None)
    )
    logged_in = render(
        "{% orderpay_card_form form %}", form=CardPaymentForm(user=user, request=None)
    )

    assert Elements(anonymous).all("input", name="save_card") == []
    (checkbox,) = Elements(logged_in).all("input", name="save_card")
    assert checkbox["type"] == "checkbox"


def test_a_rejected_post_never_renders_the_encrypted_card_back(key_configured):
    blob = "QUJD" * 86  # an RSA-2048-sized base64 blob; the installments are what is wrong
    form = CardPaymentForm({"encrypted_card": blob, "installments": "13"}, request=None)
    assert not form.is_valid()

    html = render("{% orderpay_card_form form %}", form=form)
    assert blob not in html
    (hidden,) = Elements(html).all("input", name="encrypted_card")
    assert hidden.get("value") is None


def test_an_encryption_error_is_shown_in_the_cards_error_slot(key_configured):
    form = CardPaymentForm({"encrypted_card": "QUJD", "installments": "1"}, request=None)
    assert not form.is_valid()

    html = render("{% orderpay_card_form form %}", form=form)
    (slot,) = Elements(html).all("p", data_orderpay_error_for="form")
    assert "hidden" not in slot
    assert "not encrypted correctly" in html


def test_installment_choices_show_each_share(key_configured):
    html = render(
        "{% orderpay_card_form form %}",
        form=CardPaymentForm(amount=10000, max_installments=3, request=None),
    )
    assert "1x R$ 100.00" in html
    # Shares that add up to what is charged: the first carries the odd cent.
    assert "3x: the first R$ 33.34 and 2x R$ 33.33 (no interest)" in html
    assert "4x" not in html
