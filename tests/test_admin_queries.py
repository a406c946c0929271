"""The changelists run the same number of SQL queries for 10 rows as for 1,000."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext

from django_orderpay.models import Charge, NotificationDelivery, Order
from django_orderpay.testing.factories import (
    ChargeFactory,
    NotificationDeliveryFactory,
    OrderFactory,
    SplitFactory,
)
from tests.admin_support import changelist, client_for, make_user

pytestmark = pytest.mark.django_db

STATES = [{}, {"authorized": True}, {"declined": True}, {"canceled": True}, {"in_analysis": True}]


@pytest.fixture
def all_rows_on_one_page(monkeypatch):
    """Every row on the page, so the count covers rendering each of them."""
    for model in (Order, Charge, NotificationDelivery):
        monkeypatch.setattr(admin.site._registry[model], "list_per_page", 2000)


def add_orders(count: int, *, second_charge: bool = True) -> None:
    """``count`` orders with charges in every state (a second one refunded in part)."""
    for n in range(count):
        order = OrderFactory()
        ChargeFactory(order=order, amount_value=1000 + n, **STATES[n % len(STATES)])
        if second_charge:
            ChargeFactory(order=order, amount_value=500, amount_refunded=100)


def queries_for(client, url: str, expected_rows: int) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == expected_rows
    return len(captured.captured_queries)


def test_charge_changelist_runs_as_many_queries_for_1000_rows_as_for_10(all_rows_on_one_page):
    client = client_for(make_user("boss", superuser=True))
    add_orders(5)

    small = queries_for(client, changelist("charge"), 10)
    add_orders(495)

    assert queries_for(client, changelist("charge"), 1000) == small


def test_order_changelist_runs_as_many_queries_for_1000_rows_as_for_10(all_rows_on_one_page):
    client = client_for(make_user("boss", superuser=True))
    add_orders(5)
    add_orders(5, second_charge=False)

    small = queries_for(client, changelist("order"), 10)
    add_orders(490, second_charge=False)
    add_orders(500)

    assert queries_for(client, changelist("order"), 1000) == small


def test_charge_changelist_with_a_split_and_filters_stays_constant(all_rows_on_one_page):
    client = client_for(make_user("boss", superuser=True))
    add_orders(5)
    SplitFactory()
    url = changelist("charge") + "?status__exact=PAID&q=Jose"

    small = queries_for(client, url, Charge.objects.filter(status="PAID").count())
    add_orders(500)
    SplitFactory.create_batch(10)

    assert queries_for(client, url, Charge.objects.filter(status="PAID").count()) == small


def test_delivery_log_query_count_does_not_grow_with_rows(all_rows_on_one_page):
    client = client_for(make_user("boss", superuser=True))
    orders = OrderFactory.create_batch(10)
    for order in orders:
        NotificationDeliveryFactory(order=order.data)

    small = queries_for(client, changelist("notificationdelivery"), 10)
    for order in OrderFactory.create_batch(290):
        NotificationDeliveryFactory(order=order.data)

    assert queries_for(client, changelist("notificationdelivery"), 300) == small
