"""The admin speaks one time zone (the project's) and translates every status it shows."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone, translation

from django_orderpay.models import NotificationDelivery
from django_orderpay.testing.factories import (
    ChargeFactory,
    ChargeStatusChangeFactory,
    NotificationDeliveryFactory,
    SplitFactory,
)
from tests.admin_support import change, changelist, client_for, make_user, post_action

pytestmark = pytest.mark.django_db

#: 23:47 UTC on 21 November is 20:47 in São Paulo (the tests' TIME_ZONE), the day before
#: 02:30 UTC on the 22nd: a page in UTC shows another hour, and here another day.
LATE_EVENING_UTC = dt.datetime(2026, 11, 22, 2, 30, tzinfo=dt.UTC)


@pytest.fixture
def staff():
    return client_for(make_user("boss", superuser=True))


def test_the_delivery_log_title_is_in_the_project_time_zone(staff, settings):
    assert settings.TIME_ZONE == "America/Sao_Paulo"
    delivery = NotificationDeliveryFactory(received_at=LATE_EVENING_UTC)

    page = staff.get(change("notificationdelivery", delivery.pk)).content.decode()
    listing = staff.get(changelist("notificationdelivery")).content.decode()

    local = "11/21/2026 11:30 p.m."  # 02:30 UTC is 23:30 the evening before, at -03:00
    assert f"{delivery.order_provider_id} Received {local}" in page  # the title
    assert local in listing  # the list column says the same moment
    assert "2026-11-22" not in page and "02:30" not in page


def test_the_delivery_title_names_its_outcome_in_the_active_language():
    delivery = NotificationDelivery(order_provider_id="ORDE_X", received_at=LATE_EVENING_UTC)
    with translation.override("pt-br"):
        assert str(delivery) == "ORDE_X Recebida 21/11/2026 23:30"


def test_the_capture_confirmation_shows_the_deadline_in_the_project_time_zone(staff):
    soon = timezone.now() + dt.timedelta(days=10)
    deadline = soon.replace(hour=2, minute=30, second=0, microsecond=0)  # 23:30 the day before
    charge = ChargeFactory(authorized=True, capture_before=deadline)

    response = post_action(staff, "charge", "capture_charges", [charge])

    html = response.content.decode()
    day_before = deadline - dt.timedelta(days=1)
    assert f"(authorised until {day_before:%m/%d/%Y} 11:30 p.m.)" in html
    assert "2:30 a.m." not in html


def test_an_expired_authorisation_says_when_in_the_project_time_zone(staff):
    charge = ChargeFactory(
        authorized=True,
        created_at=LATE_EVENING_UTC - dt.timedelta(days=40),
        capture_before=LATE_EVENING_UTC - dt.timedelta(days=35),
    )

    html = post_action(staff, "charge", "capture_charges", [charge]).content.decode()

    assert "its authorisation expired on 10/17/2026 11:30 p.m." in html


def test_the_status_history_shows_each_status_in_words(staff):
    charge = ChargeFactory(amount_value=1000)
    ChargeStatusChangeFactory(charge=charge, old_status="", new_status="IN_ANALYSIS")
    ChargeStatusChangeFactory(charge=charge, old_status="IN_ANALYSIS", new_status="PAID")

    response = staff.get(change("charge", charge.pk), HTTP_ACCEPT_LANGUAGE="pt-br")

    history = response.content.decode().split('id="status_changes-group"')[1]
    assert ">Em análise</span>" in history and ">Pago</span>" in history
    assert ">IN_ANALYSIS<" not in history and ">PAID<" not in history


def test_split_statuses_are_in_words_and_unknown_ones_as_sent(staff):
    SplitFactory(status="PROCESSING")
    SplitFactory(status="SOMETHING_NEW")

    html = staff.get(changelist("split"), HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()

    assert 'title="PROCESSING">Em processamento</span>' in html
    assert 'title="SOMETHING_NEW">SOMETHING_NEW</span>' in html
    assert ">Em processamento</a>" in html  # the status filter too
