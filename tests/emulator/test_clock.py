from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from django_orderpay.emulator.state.clock import PROVIDER_TZ, Clock, timestamp


def test_now_is_real_time_in_the_provider_offset():
    clock = Clock()
    before = datetime.now(UTC)
    now = clock.now()
    after = datetime.now(UTC)
    assert now.utcoffset() == timedelta(hours=-3)
    assert before <= now <= after


def test_advance_moves_the_clock_and_reset_brings_it_back():
    clock = Clock()
    clock.advance(2 * 86400)
    assert clock.now() - datetime.now(UTC) > timedelta(days=1, hours=23)
    clock.advance(-86400)
    assert timedelta(hours=23) < clock.now() - datetime.now(UTC) < timedelta(days=1, hours=1)
    clock.reset()
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(minutes=1)


def test_set_jumps_to_a_moment_and_time_flows_on_from_it():
    clock = Clock()
    moment = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    clock.set(moment)
    now = clock.now()
    assert moment <= now < moment + timedelta(minutes=1)
    assert now.tzinfo == PROVIDER_TZ


def test_set_refuses_a_naive_datetime():
    with pytest.raises(ValueError, match="aware"):
        Clock().set(datetime(2030, 1, 1))


@pytest.mark.parametrize(
    "move",
    [
        lambda clock: clock.advance(1e300),
        lambda clock: clock.advance(10**30),
        lambda clock: clock.advance(float("inf")),
        lambda clock: clock.advance(float("nan")),
        lambda clock: clock.advance(-40 * 365 * 86400),
        lambda clock: clock.set(datetime(9999, 12, 31, 23, 0, tzinfo=UTC)),
        lambda clock: clock.set(datetime(1999, 12, 31, 23, 59, tzinfo=UTC)),
    ],
    ids=["1e300", "10**30", "inf", "nan", "back 40 years", "year 9999", "1999"],
)
def test_the_clock_stays_between_2000_and_2999_and_is_unchanged_by_a_refused_move(move):
    clock = Clock()
    clock.set(datetime(2030, 1, 1, tzinfo=UTC))

    with pytest.raises(ValueError):
        move(clock)

    assert datetime(2030, 1, 1, tzinfo=UTC) <= clock.now() < datetime(2030, 1, 2, tzinfo=UTC)


def test_the_clock_reaches_its_bounds():
    clock = Clock()
    clock.set(datetime(2999, 12, 31, 23, 0, tzinfo=UTC))
    clock.set(datetime(2000, 1, 1, 0, 0, tzinfo=UTC))
    clock.advance(3600)
    assert clock.now().astimezone(UTC).year == 2000


def test_timestamp_has_offset_and_milliseconds():
    moment = datetime(2026, 11, 21, 17, 5, 31, 482123, tzinfo=UTC)
    assert timestamp(moment) == "2026-11-21T14:05:31.482-03:00"
    other_zone = moment.astimezone(timezone(timedelta(hours=5)))
    assert timestamp(other_zone) == "2026-11-21T14:05:31.482-03:00"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-03:00", timestamp(Clock().now()))


def test_timestamp_refuses_a_naive_datetime():
    with pytest.raises(ValueError):
        timestamp(datetime(2030, 1, 1))
