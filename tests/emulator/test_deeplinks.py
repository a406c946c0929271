"""Deeplink validation, expiry, response shape and the simulator's rules."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from django_orderpay.emulator.resources import deeplinks
from django_orderpay.emulator.state.clock import PROVIDER_TZ
from django_orderpay.emulator.state.errors import ProviderError, SimulationError

ORDER_ID = "ORDE_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"
BASE = "http://emulator.test"


def failure(deep_links) -> tuple[str, str | None]:
    with pytest.raises(ProviderError) as caught:
        deeplinks.validate_deep_links(deep_links)
    assert caught.value.status == 400
    return caught.value.code, caught.value.parameter_name


def make(created_at=None, amount=1500, redirect_url=None):
    entry = {"amount": {"value": amount}}
    if redirect_url is not None:
        entry["redirect_url"] = redirect_url
    created = created_at or datetime(2026, 11, 21, 14, 5, tzinfo=PROVIDER_TZ)
    return deeplinks.build_deeplink(entry, order_id=ORDER_ID, created_at=created, base_url=BASE)


@pytest.mark.parametrize(
    "redirect_url", ["myshop:/orders/1", "myshop//orders", "://orders", "my-shop://x", "", 7]
)
def test_bad_redirect_url_is_40002_naming_it(redirect_url):
    entry = {"amount": {"value": 1500}, "redirect_url": redirect_url}
    assert failure([entry]) == ("40002", "deep_links[0].redirect_url")


@pytest.mark.parametrize(
    ("deep_links", "expected"),
    [
        (None, ("40001", "deep_links")),
        ([], ("40002", "deep_links")),
        ({"amount": {"value": 1}}, ("40002", "deep_links")),
        ([{"amount": {"value": 1}}, {"amount": {"value": 2}}], ("40002", "deep_links")),
        (["x"], ("40002", "deep_links[0]")),
        ([{}], ("40001", "deep_links[0].amount")),
        ([{"amount": {"value": 0}}], ("40002", "deep_links[0].amount.value")),
        ([{"amount": {"value": 1_000_000_000}}], ("40002", "deep_links[0].amount.value")),
        ([{"amount": {"value": "1500"}}], ("40002", "deep_links[0].amount.value")),
        ([{"amount": {"value": 1}, "url": "x"}], ("40003", "deep_links[0].url")),
    ],
)
def test_deep_links_shape(deep_links, expected):
    assert failure(deep_links) == expected


def test_build_and_response():
    link = make(redirect_url="myshop://orders/ex-00002")
    # A plain lower-case UUID, as the real r= parameter.
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", link.id)
    assert link.url == f"{BASE}/pagpay/download?f=order&r={link.id}"
    assert link.order_id == ORDER_ID
    assert link.paid is False
    assert link.to_response() == {
        "url": link.url,
        "amount": {"value": 1500},
        "redirect_url": "myshop://orders/ex-00002",
    }
    plain = make()
    assert plain.to_response() == {"url": plain.url, "amount": {"value": 1500}}


def test_expires_at_end_of_the_next_day_in_the_providers_day():
    link = make(datetime(2026, 11, 21, 0, 0, 1, tzinfo=PROVIDER_TZ))
    assert link.expires_at == datetime(2026, 11, 22, 23, 59, 59, 999000, tzinfo=PROVIDER_TZ)
    # 01:00 UTC on the 22nd is still the 21st in -03:00.
    late = make(datetime(2026, 11, 22, 1, 0, tzinfo=UTC))
    assert late.expires_at == link.expires_at
    assert not link.is_expired(datetime(2026, 11, 22, 23, 59, 59, 999000, tzinfo=PROVIDER_TZ))
    assert link.is_expired(datetime(2026, 11, 23, 0, 0, tzinfo=PROVIDER_TZ))


def simulation_error(link, now, amount) -> tuple[int, str]:
    with pytest.raises(SimulationError) as caught:
        deeplinks.check_simulation(link, now, amount)
    return caught.value.status, caught.value.code


def test_check_simulation():
    link = make()
    now = link.created_at + timedelta(hours=1)
    deeplinks.check_simulation(link, now, 100)
    deeplinks.check_simulation(link, now, 150_000)
    assert simulation_error(link, now, 99) == (400, "40002")
    assert simulation_error(link, now, 150_001) == (400, "40002")
    assert simulation_error(link, link.expires_at + timedelta(milliseconds=1), 1500) == (
        410,
        "41001",
    )
    link.paid = True
    assert simulation_error(link, now, 1500) == (409, "40901")
    assert simulation_error(link, link.expires_at + timedelta(days=1), 1500) == (409, "40901")


def test_simulation_bodies():
    assert deeplinks.parse_balance_simulation({"status": "PAID"}) == "PAID"
    assert deeplinks.parse_balance_simulation({"status": "DECLINED"}) == "DECLINED"
    assert (
        deeplinks.parse_card_simulation({"card_number": "4111111111111111"}) == "4111111111111111"
    )
    for payload in ({"status": "paid"}, {"status": 1}, {}, ["PAID"], None):
        with pytest.raises(SimulationError) as caught:
            deeplinks.parse_balance_simulation(payload)
        assert caught.value.status == 400
    for payload in ({"card_number": "4111111111111112"}, {"card_number": 4111111111111111}, "x"):
        with pytest.raises(SimulationError) as caught:
            deeplinks.parse_card_simulation(payload)
        assert caught.value.status == 400
        assert "4111" not in caught.value.message
