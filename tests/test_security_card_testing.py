"""Card testing against the example shop, over HTTP: refused before the provider is asked.

The attack (issue 26): an anonymous visitor posted 40 declined cards and then
a good one to the same purchase in seconds, and new purchases without end:
40 DECLINED charges, 1 PAID. Here the same posts go through Django's test
client to the shop, which pays on the emulator over HTTP; the emulator
counts what reached the provider. With the package's defaults (no setting
changed) a few calls reach it, the rest are refused with a message for the
shopper, written down for the admin and signalled; a shopper who mistyped
once still pays.
"""

from __future__ import annotations

import re
import time

import pytest
from captcha.models import CaptchaStore
from django.contrib import messages
from django.test import Client
from django.urls import reverse

from django_orderpay import card_testing, throttling
from django_orderpay.card_testing import Shopper
from django_orderpay.exceptions import TooManyCardAttempts
from django_orderpay.models import CardAttemptRefusal, CardToken, Charge
from django_orderpay.models.card_testing import REFUSALS_KEPT
from django_orderpay.signals import card_attempts_refused
from tests.test_example_shop import (
    APPROVED,
    CUSTOMER,
    DECLINED,
    add,
    encrypted,
    products,
    shop,
)

__all__ = ["products", "shop"]

pytestmark = pytest.mark.django_db

ATTACKER = "203.0.113.66"
SHOPPER = "198.51.100.7"


@pytest.fixture
def provider_calls(shop, monkeypatch) -> list[tuple[str, str]]:
    """Every request that reached the provider (the emulator's side), as (method, path)."""
    calls: list[tuple[str, str]] = []
    serve = shop.emulator.handle

    def counting(request):
        calls.append((request.method, request.path))
        return serve(request)

    monkeypatch.setattr(shop.emulator, "handle", counting)
    return calls


def card_calls(calls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The calls that sent or could send a card: creating and paying orders, storing cards."""
    return [
        (method, path)
        for method, path in calls
        if method == "POST" and (path.startswith("/orders") or path == "/tokens/cards")
    ]


@pytest.fixture
def refusals() -> list[dict]:
    heard: list[dict] = []

    def receiver(sender, **kwargs):
        heard.append(kwargs)

    card_attempts_refused.connect(receiver, weak=False)
    yield heard
    card_attempts_refused.disconnect(receiver)


def new_purchase(client: Client, products) -> str:
    """A purchase made by ``client`` (its cart, its checkout): the purchase's reference."""
    add(client, products["caneca"])
    response = client.post(reverse("shop:checkout"), CUSTOMER)
    assert response.status_code == 302, response.content.decode()
    return response["Location"].rstrip("/").split("/")[-2]


def post_card(client: Client, reference: str, number: str):
    return client.post(
        reverse("shop:pay_card", args=[reference]),
        {"holder_name": "Jose da Silva", "encrypted_card": encrypted(number), "installments": "1"},
    )


def said(response) -> str:
    return " ".join(str(m) for m in messages.get_messages(response.wsgi_request))


def test_forty_declined_cards_on_one_purchase_reach_the_provider_three_times(
    products, shop, provider_calls, refusals
):
    attacker = Client(REMOTE_ADDR=ATTACKER)
    reference = new_purchase(attacker, products)
    answers = [post_card(attacker, reference, DECLINED) for _ in range(40)]
    final = post_card(attacker, reference, APPROVED)

    # One order made, three cards declined (CARD_DECLINES_PER_ORDER), the rest refused.
    assert card_calls(provider_calls) == [
        ("POST", "/orders"),
        *[("POST", f"/orders/{Charge.objects.first().order.provider_id}/pay")] * 3,
    ]
    assert Charge.objects.filter(status="DECLINED").count() == 3
    assert not Charge.objects.filter(status="PAID").exists()
    assert "paying by card is paused" in said(answers[3])
    assert "paying by card is paused" in said(final)
    # One row for the purchase's counter; every refusal counted on it, and signalled.
    row = CardAttemptRefusal.objects.get(scope="order")
    assert (row.kind, row.limit, row.refusals) == ("declines", 3, 38)
    assert row.address == ATTACKER and row.purchase.startswith("shop:")
    assert len(refusals) == 38
    assert refusals[0]["scope"] == "order" and refusals[0]["count"] == 3


def test_forty_new_purchases_without_cookies_are_bounded_by_the_address(
    products, shop, provider_calls
):
    """A bot dropping its cookies and making a new purchase for each card."""
    answers = []
    for _ in range(40):
        bot = Client(REMOTE_ADDR=ATTACKER)  # a fresh session each time
        answers.append(post_card(bot, new_purchase(bot, products), DECLINED))

    creates = [call for call in card_calls(provider_calls) if call[1] == "/orders"]
    pays = [call for call in card_calls(provider_calls) if call[1].endswith("/pay")]
    # CARD_DECLINES_PER_ADDRESS: ten declined, then refused before any order is made.
    assert (len(creates), len(pays)) == (10, 10)
    assert Charge.objects.count() == 10
    assert all("paying by card is paused" in said(answer) for answer in answers[10:])
    assert CardAttemptRefusal.objects.get().scope == "address"


def test_a_shopper_who_mistyped_once_still_pays(products, shop, provider_calls):
    # The attacker is refused meanwhile; the shopper is another address and session.
    attacker = Client(REMOTE_ADDR=ATTACKER)
    reference = new_purchase(attacker, products)
    for _ in range(12):
        post_card(attacker, reference, DECLINED)

    shopper = Client(REMOTE_ADDR=SHOPPER)
    mine = new_purchase(shopper, products)
    first = post_card(shopper, mine, DECLINED)
    assert "paused" not in said(first)
    post_card(shopper, mine, APPROVED)
    assert Charge.objects.filter(status="PAID").count() == 1
    assert Charge.objects.get(status="PAID").order.reference_id != ""


def test_the_add_card_page_is_limited_for_a_logged_in_tester(
    products, shop, provider_calls, django_user_model
):
    user = django_user_model.objects.create_user("tester", password="pw")
    tester = Client(REMOTE_ADDR=ATTACKER)
    tester.force_login(user)
    for _ in range(40):
        tester.post(
            reverse("shop:add_card"),
            {"holder_name": "Jose da Silva", "encrypted_card": encrypted(DECLINED)},
        )
    # CARD_DECLINES_PER_SHOPPER: five refused by the provider, then none sent.
    assert card_calls(provider_calls) == [("POST", "/tokens/cards")] * 5
    assert not CardToken.objects.exists()
    row = CardAttemptRefusal.objects.get()
    assert (row.scope, row.user, row.counted) == ("shopper", user, f"user:{user.pk}")


def test_turned_off_every_card_reaches_the_provider(products, shop, provider_calls, orderpay):
    orderpay(CARD_TESTING_LIMITS=False)
    attacker = Client(REMOTE_ADDR=ATTACKER)
    reference = new_purchase(attacker, products)
    for _ in range(8):
        post_card(attacker, reference, DECLINED)
    assert Charge.objects.filter(status="DECLINED").count() == 8
    assert not CardAttemptRefusal.objects.exists()


# --- the limits themselves, at their boundaries -------------------------------------


def run_attempts(count: int, shopper: Shopper, purchase: str, declined: bool) -> int:
    """Attempts accepted before the first refusal (``count`` if none)."""
    for done in range(count):
        try:
            attempt = card_testing.begin(shopper, purchase)
        except TooManyCardAttempts:
            return done
        if declined and attempt is not None:
            attempt.declined()
    return count


@pytest.mark.parametrize(
    ("setting", "shopper", "purchase", "declined"),
    [
        ("CARD_DECLINES_PER_ORDER", Shopper(), "order:A", True),
        ("CARD_ATTEMPTS_PER_ORDER", Shopper(), "order:A", False),
        ("CARD_DECLINES_PER_SHOPPER", "a user", "", True),
        ("CARD_ATTEMPTS_PER_SHOPPER", Shopper(session_key="abc"), "", False),
        ("CARD_DECLINES_PER_ADDRESS", Shopper(address="192.0.2.1"), "", True),
        ("CARD_ATTEMPTS_PER_ADDRESS", Shopper(address="192.0.2.1"), "", False),
    ],
)
def test_each_limit_accepts_its_maximum_and_refuses_the_next(
    orderpay, django_user_model, setting, shopper, purchase, declined
):
    if shopper == "a user":
        shopper = Shopper(user_id=django_user_model.objects.create_user("u").pk)
    orderpay(**{setting: 4})
    assert run_attempts(20, shopper, purchase, declined) == 4
    orderpay(**{setting: 0})  # 0: no such limit (another may stop it later)
    throttling.reset()
    assert run_attempts(20, shopper, purchase, declined) > 4


def test_the_defaults_reasoned_in_docs_security(settings):
    from django_orderpay.conf import get_settings

    limits = get_settings().card_limits
    assert limits == {
        "card_attempts_window": 3600,
        "card_attempts_per_order": 6,
        "card_declines_per_order": 3,
        "card_attempts_per_shopper": 10,
        "card_declines_per_shopper": 5,
        "card_attempts_per_address": 30,
        "card_declines_per_address": 10,
    }


def test_the_window_ends_and_the_counters_start_again(orderpay):
    orderpay(CARD_ATTEMPTS_WINDOW=1, CARD_DECLINES_PER_ORDER=1)
    assert run_attempts(3, Shopper(), "order:W", True) == 1
    time.sleep(1.2)
    assert run_attempts(1, Shopper(), "order:W", True) == 1


def test_a_session_is_counted_by_a_digest_never_its_key():
    shopper = Shopper(session_key="s3cr3t-session-key")
    assert shopper.identity.startswith("session:")
    assert "s3cr3t" not in shopper.identity
    assert Shopper(user_id=7, session_key="x").identity == "user:7"
    assert "s3cr3t" not in repr(shopper)


@pytest.mark.parametrize(
    ("meta", "proxies", "address"),
    [
        ({"REMOTE_ADDR": "192.0.2.9"}, 0, "192.0.2.9"),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "192.0.2.9"}, 0, "10.0.0.1"),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.0.2.9"}, 1, "192.0.2.9"),
        (
            {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.0.2.9, 10.0.0.2"},
            2,
            "192.0.2.9",
        ),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": ""}, 1, "10.0.0.1"),
        ({"REMOTE_ADDR": "2001:db8:1:2:aaaa::1"}, 0, "2001:db8:1:2::/64"),
        ({"REMOTE_ADDR": "::ffff:192.0.2.9"}, 0, "192.0.2.9"),
        ({"REMOTE_ADDR": "not an address"}, 0, None),
    ],
)
def test_the_client_address_trusts_only_the_configured_proxies(meta, proxies, address):
    assert throttling.client_address(meta, proxies) == address


def test_an_ipv6_attacker_rotating_addresses_in_its_block_is_one_client():
    first = throttling.client_address({"REMOTE_ADDR": "2001:db8:1:2::1"})
    other = throttling.client_address({"REMOTE_ADDR": "2001:db8:1:2:ffff:ffff:ffff:ffff"})
    assert first == other


def test_the_refusal_rows_are_bounded(monkeypatch, orderpay):
    monkeypatch.setattr("django_orderpay.card_testing.REFUSALS_KEPT", 3)
    orderpay(CARD_ATTEMPTS_PER_ADDRESS=1)
    for n in range(6):
        shopper = Shopper(address=f"192.0.2.{n}")
        card_testing.begin(shopper)
        with pytest.raises(TooManyCardAttempts):
            card_testing.begin(shopper)
    kept = CardAttemptRefusal.objects.order_by("pk")
    assert [row.address for row in kept] == ["192.0.2.3", "192.0.2.4", "192.0.2.5"]
    assert REFUSALS_KEPT == 10_000


def test_staff_see_the_refusals_in_the_admin_read_only(admin_client, products, shop):
    attacker = Client(REMOTE_ADDR=ATTACKER)
    reference = new_purchase(attacker, products)
    for _ in range(5):
        post_card(attacker, reference, DECLINED)
    row = CardAttemptRefusal.objects.get()
    listing = admin_client.get(reverse("admin:django_orderpay_cardattemptrefusal_changelist"))
    assert listing.status_code == 200
    assert ATTACKER in listing.content.decode()
    detail = admin_client.get(
        reverse("admin:django_orderpay_cardattemptrefusal_change", args=[row.pk])
    )
    assert detail.status_code == 200
    forged = admin_client.post(
        reverse("admin:django_orderpay_cardattemptrefusal_change", args=[row.pk]),
        {"refusals": 0},
    )
    assert forged.status_code == 403


def test_a_brazilian_shopper_is_told_in_portuguese(products, shop):
    attacker = Client(REMOTE_ADDR=ATTACKER, HTTP_ACCEPT_LANGUAGE="pt-br")
    reference = new_purchase(attacker, products)
    answers = [post_card(attacker, reference, DECLINED) for _ in range(4)]
    assert "o pagamento com cartão está suspenso" in said(answers[-1])


def test_after_the_first_declines_the_card_form_asks_for_a_captcha(
    products, shop, provider_calls, orderpay
):
    orderpay(CARD_CAPTCHA_AFTER_DECLINES=2)
    shopper = Client(REMOTE_ADDR=SHOPPER)
    reference = new_purchase(shopper, products)
    pay_page = reverse("shop:pay", args=[reference])
    assert 'name="captcha_1"' not in shopper.get(pay_page).content.decode()
    post_card(shopper, reference, DECLINED)
    post_card(shopper, reference, DECLINED)
    page = shopper.get(pay_page).content.decode()
    assert 'name="captcha_1"' in page
    # What the person reads in the image: the answer stored for the page's challenge.
    challenge = re.search(r'name="captcha_0" value="([0-9a-f]+)"', page)[1]
    answer = CaptchaStore.objects.get(hashkey=challenge).response
    pays = len(card_calls(provider_calls))

    # A bot that can't answer it sends nothing more to the provider...
    unanswered = post_card(shopper, reference, DECLINED)
    assert "answer the security check" in said(unanswered)
    assert len(card_calls(provider_calls)) == pays
    # ...a person answers it and pays.
    answered = shopper.post(
        reverse("shop:pay_card", args=[reference]),
        {
            "holder_name": "Jose da Silva",
            "encrypted_card": encrypted(APPROVED),
            "installments": "1",
            "captcha_0": challenge,
            "captcha_1": answer,
        },
    )
    assert answered.status_code == 302
    assert Charge.objects.filter(status="PAID").count() == 1


def test_the_captcha_field_is_the_shops_choice(orderpay):
    from django import forms

    orderpay(CARD_CAPTCHA_FIELD="django.forms.CharField")
    assert type(card_testing.captcha_field()) is forms.CharField
    assert card_testing.captcha_required(Shopper(address="192.0.2.7")) is False  # 0: never
