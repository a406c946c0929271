"""What a shopper is told of a decline or a refusal: a sentence, a retry hint, never a code."""

from __future__ import annotations

import pytest
from django.utils import translation

from django_orderpay.exceptions import ErrorMessage, ProviderError, ProviderUnavailable
from django_orderpay.shopper_messages import (
    CONTACT_ISSUER,
    DECLINES,
    GENERIC_DECLINE,
    OTHER_CARD_HINT,
    RETRY_HINT,
    decline_message,
    refusal_message,
)


@pytest.mark.parametrize(
    ("code", "text", "may_retry"),
    [
        ("10000", "PagBank's security checks did not approve this payment.", True),
        ("10002", "The payment was not approved this time.", True),
        ("20001", str(CONTACT_ISSUER.text), True),
        ("20003", "Your card's issuer did not authorise this payment.", False),
        ("20159", "Your card's issuer asks for an extra check of this payment.", True),
        ("20017", "This card does not allow this payment.", False),
        ("29999", "Your card's issuer declined this payment.", False),  # not documented
        ("", "Your card's issuer declined this payment.", False),
        (None, "Your card's issuer declined this payment.", False),
    ],
)
def test_a_decline_says_what_happened_and_whether_to_try_again(code, text, may_retry):
    message = decline_message(code)

    assert (message.text, message.may_retry) == (text, may_retry)
    hint = RETRY_HINT if may_retry else OTHER_CARD_HINT
    assert str(message) == f"{text} {hint}"
    assert code is None or code == "" or code not in str(message)


#: PagBank's "motivos de compra negada": every code its partner plugin maps for shoppers.
DOCUMENTED = (
    "10000 10001 10002 10003 10004 20001 20003 20007 20008 20012 20016 20017 20018 20019 "
    "20039 20101 20102 20103 20104 20105 20110 20111 20112 20113 20114 20115 20116 20117 "
    "20118 20119 20158 20159 20169 20301 20999"
).split()


@pytest.mark.parametrize("language", ["en", "pt-br"])
def test_every_documented_decline_has_its_own_sentence_in_both_languages(language):
    with translation.override(language):
        generic = str(GENERIC_DECLINE.text)
        for code in DOCUMENTED:
            message = decline_message(code)
            assert message.text != generic, code
            assert code not in str(message)
            if language == "pt-br":
                with translation.override("en"):
                    english = decline_message(code).text
                assert message.text != english, f"{code} is not translated"
    assert set(DECLINES) == set(DOCUMENTED)


@pytest.mark.parametrize(
    ("reason", "text", "may_retry"),
    [
        ("54", "This card has expired: check its expiry date, or use another card.", False),
        ("51", "The card does not have enough available limit for this payment.", False),
        ("91", "Your card's issuer did not answer in time.", True),
        ("05", "Your card's issuer did not authorise this payment.", False),  # generic reason
    ],
)
def test_the_issuers_reason_refines_a_plain_refusal(reason, text, may_retry):
    message = decline_message("20003", reason)

    assert (message.text, message.may_retry) == (text, may_retry)
    # A code of PagBank's own says more than the issuer's reason: it stands.
    assert decline_message("20007", "54").text.startswith("Check the card's number")


def test_an_expired_cards_decline_says_expired_and_no_second_hint():
    message = decline_message("20003", "54")

    assert str(message) == "This card has expired: check its expiry date, or use another card."
    with translation.override("pt-br"):
        assert "vencido" in str(decline_message("20003", "54"))


def refused(*entries: tuple[str, str, str | None]) -> ProviderError:
    messages = [ErrorMessage(code, description, name) for code, description, name in entries]
    return ProviderError("refused", status=400, error_messages=messages)


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        (
            ("40002", "invalid_parameter", "charges[0].payment_method.installments"),
            "Choose fewer installments for this amount.",
        ),
        (
            ("40002", "invalid_parameter", "charges[0].payment_method.card.encrypted"),
            "This card can't be used here. Check its details, or try another card.",
        ),
        (
            ("40002", "card_brand_not_supported", None),
            "This card can't be used here. Check its details, or try another card.",
        ),
        (
            ("40002", "must be a valid CPF or CNPJ", "customer.tax_id"),
            "Check the CPF or CNPJ of the purchase.",
        ),
        (
            ("40002", "invalid_parameter", "customer.email"),
            "Check the name and e-mail of the purchase.",
        ),
        (
            ("40002", "invalid_parameter", "shipping.address.region_code"),
            "Check the delivery address.",
        ),
        (
            ("40003", "parameter_unknown", "metadata"),
            "The payment could not be processed. Try again, or pay another way.",
        ),
    ],
)
def test_a_refusal_names_what_the_shopper_can_fix_never_the_field_path(entry, text):
    message = refusal_message(refused(entry))

    assert message.text == text
    assert not message.may_retry
    assert entry[0] not in str(message)
    assert (entry[2] or "") not in str(message) or not entry[2]


def test_an_outage_or_rate_limit_says_try_again_soon():
    message = refusal_message(ProviderUnavailable("down", status=502, reason="a 502"))

    assert message.text == "The payment service is busy right now. Try again in a moment."
    assert message.may_retry


def test_anything_else_is_the_generic_refusal():
    assert refusal_message(ValueError("x")).text == (
        "The payment could not be processed. Try again, or pay another way."
    )


def test_the_messages_are_in_brazilian_portuguese():
    with translation.override("pt-br"):
        assert str(decline_message("20003")) == (
            "O emissor do seu cartão não autorizou este pagamento. "
            "Você pode tentar outro cartão ou outra forma de pagamento."
        )
        assert str(refusal_message(refused(("40002", "x", "installments")))).startswith(
            "Escolha menos parcelas para este valor."
        )
