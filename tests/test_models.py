"""Models: states, helpers, money display, append-only history, delivery log."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.utils import translation

from django_orderpay.models import (
    CHARGE_TRANSITIONS,
    ChargeStatus,
    NotificationDelivery,
    Order,
    OrderStatus,
    charge_transition_allowed,
    deeplink_expiry,
    derive_order_status,
    effective_charge_status,
    format_cents,
    redact_headers,
)
from django_orderpay.models.orders import PROVIDER_TIMEZONE
from django_orderpay.testing.factories import ChargeFactory, OrderFactory

S = ChargeStatus


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([], OrderStatus.CREATED),
        ([S.DECLINED], OrderStatus.DECLINED),
        ([S.DECLINED, S.PAID], OrderStatus.PAID),
        ([S.PAID, S.CANCELED], OrderStatus.PAID),
        ([S.DECLINED, S.CANCELED], OrderStatus.CANCELED),
        ([S.AUTHORIZED, S.DECLINED], OrderStatus.AUTHORIZED),
        ([S.IN_ANALYSIS], OrderStatus.IN_ANALYSIS),
        ([S.WAITING, S.DECLINED], OrderStatus.WAITING),
        ([S.IN_ANALYSIS, S.AUTHORIZED], OrderStatus.AUTHORIZED),
    ],
)
def test_order_status_is_derived_from_charges(statuses, expected):
    assert derive_order_status(statuses) == expected


@pytest.mark.parametrize(
    ("old", "new", "allowed"),
    [
        ("", S.PAID, True),
        # A status this version does not know: a start, or after any status but a final one.
        ("", "LOST", True),
        (S.PAID, "CHARGEBACK", True),
        ("CHARGEBACK", S.CANCELED, True),
        ("CHARGEBACK", "CHARGEBACK", False),
        (S.CANCELED, "CHARGEBACK", False),
        (S.DECLINED, "CHARGEBACK", False),
        (S.IN_ANALYSIS, S.PAID, True),
        (S.AUTHORIZED, S.PAID, True),
        (S.PAID, S.CANCELED, True),
        (S.PAID, S.IN_ANALYSIS, False),
        (S.PAID, S.AUTHORIZED, False),
        (S.CANCELED, S.PAID, False),
        (S.DECLINED, S.PAID, False),
        (S.AUTHORIZED, S.IN_ANALYSIS, False),
    ],
)
def test_charge_transitions(old, new, allowed):
    assert charge_transition_allowed(old, new) is allowed


def test_every_status_has_a_transition_entry():
    assert set(CHARGE_TRANSITIONS) == set(S.values)
    assert not CHARGE_TRANSITIONS[S.CANCELED] and not CHARGE_TRANSITIONS[S.DECLINED]


@pytest.mark.parametrize(
    ("status", "paid", "refunded", "effective"),
    [
        # CANCELED with part of the money kept is a partial refund: still PAID.
        (S.CANCELED, 500, 1, S.PAID),
        (S.CANCELED, 500, 499, S.PAID),
        (S.CANCELED, 500, 500, S.CANCELED),
        (S.CANCELED, 500, 0, S.CANCELED),
        (S.CANCELED, 0, 0, S.CANCELED),  # a voided authorisation
        (S.PAID, 500, 1, S.PAID),
    ],
)
def test_the_effective_status_of_a_partial_refund(status, paid, refunded, effective):
    assert effective_charge_status(status, paid, refunded) == effective


@pytest.mark.django_db
def test_charge_helpers_by_status():
    paid = ChargeFactory(amount_value=1000, amount_refunded=300)
    assert paid.refundable_amount == 700 and paid.can_cancel() and not paid.can_capture()

    refunded = ChargeFactory(canceled=True)
    assert refunded.refundable_amount == 0 and not refunded.can_cancel()

    authorized = ChargeFactory(authorized=True)
    assert authorized.refundable_amount == 0
    assert authorized.can_cancel() and authorized.can_capture()
    assert not authorized.can_capture(now=authorized.capture_before + dt.timedelta(seconds=1))

    assert not ChargeFactory(declined=True).can_cancel()
    assert ChargeFactory(in_analysis=True).is_final is False


@pytest.mark.django_db
def test_order_totals_and_not_final():
    order = OrderFactory()
    ChargeFactory(order=order, amount_value=1000, amount_refunded=250)
    ChargeFactory(order=order, declined=True)
    waiting = ChargeFactory(in_analysis=True).order
    empty = OrderFactory()
    done = ChargeFactory(declined=True).order

    assert (order.total_paid, order.total_refunded) == (1000, 250)
    assert set(Order.objects.not_final()) == {waiting, empty}
    assert done not in Order.objects.not_final()


@pytest.mark.django_db
def test_permissions_exist():
    codenames = set(
        Permission.objects.filter(content_type__app_label="django_orderpay").values_list(
            "codename", flat=True
        )
    )
    assert {"refresh_order", "cancel_charge", "capture_charge"} <= codenames


@pytest.mark.parametrize(
    ("language", "cents", "expected"),
    [
        ("pt-br", 123456, "R$ 1.234,56"),
        ("pt-br", 5, "R$ 0,05"),
        ("pt-br", 99999999900, "R$ 999.999.999,00"),
        ("en", 123456, "R$ 1,234.56"),
        ("en", -1500, "-R$ 15.00"),
    ],
)
def test_format_cents_follows_the_active_locale(language, cents, expected):
    with translation.override(language):
        assert format_cents(cents) == expected


def test_format_cents_refuses_non_integers():
    assert format_cents(None) == ""
    with pytest.raises(TypeError, match="integer"):
        format_cents(12.5)


def test_deeplink_expiry_is_the_end_of_the_next_provider_day():
    created = dt.datetime(2026, 2, 28, 23, 59, tzinfo=PROVIDER_TIMEZONE)
    assert deeplink_expiry(created) == dt.datetime(
        2026, 3, 1, 23, 59, 59, 999999, tzinfo=PROVIDER_TIMEZONE
    )


def test_redact_headers_keeps_names_not_secrets():
    headers = {
        "Content-Type": "application/json",
        "X-Authenticity-Token": "ab" * 32,
        "Authorization": "Bearer secret",
        "Cookie": "sessionid=x",
    }
    clean = redact_headers(headers)
    assert clean["Content-Type"] == "application/json"
    assert clean["X-Authenticity-Token"] == clean["Authorization"] == "[removed]"
    assert "secret" not in str(clean) and "ab" * 32 not in str(clean)


@pytest.mark.django_db
def test_delivery_log_keeps_the_raw_body_bytes():
    raw = '{"id": "ORDE_X", "customer": {"name": "João"}}'.encode() + b"\xff"
    delivery = NotificationDelivery.objects.create(body=raw, order_provider_id="ORDE_X")
    delivery.refresh_from_db()
    assert bytes(delivery.body) == raw
    assert delivery.body_text.startswith('{"id": "ORDE_X"')
    assert delivery.valid is None and delivery.outcome == "received"
