"""The emulator's clock: real time plus whatever offset a test applied.

Deeplink expiry, ``capture_before`` and every timestamp the emulator writes
read this clock, so a test moves time forward (``advance``) instead of
sleeping. Time keeps flowing from the moved point, as the provider's would.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from django_orderpay.rules import PROVIDER_TZ

#: How far the clock may be moved (our bounds): far enough for any test, and
#: far from datetime's year 9999, where adding a capture window would overflow.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)


def _check_range(moment: datetime) -> None:
    if not EARLIEST <= moment <= LATEST:
        raise ValueError("the emulator's clock stays between 2000-01-01 and 2999-12-31 (UTC)")


class Clock:
    """Real time shifted by an offset; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._offset = timedelta(0)

    def now(self) -> datetime:
        """The emulated present, aware, in the provider's -03:00 offset."""
        with self._lock:
            offset = self._offset
        return datetime.now(PROVIDER_TZ) + offset

    def advance(self, seconds: float) -> None:
        """Move the clock forward (a negative value moves it back); ValueError out of range."""
        try:
            step = timedelta(seconds=seconds)
            with self._lock:
                _check_range(datetime.now(PROVIDER_TZ) + self._offset + step)
                self._offset += step
        except OverflowError:
            raise ValueError("cannot move the emulator's clock that far") from None

    def set(self, moment: datetime) -> None:
        """Make ``now()`` answer ``moment`` at once; time flows on from there."""
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ValueError("Clock.set needs an aware datetime (with a UTC offset)")
        _check_range(moment)
        with self._lock:
            self._offset = moment - datetime.now(PROVIDER_TZ)

    def reset(self) -> None:
        """Back to real time."""
        with self._lock:
            self._offset = timedelta(0)


def timestamp(moment: datetime) -> str:
    """ISO 8601 in the provider's offset with milliseconds: ``2026-11-21T14:05:31.482-03:00``."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("timestamp needs an aware datetime (with a UTC offset)")
    return moment.astimezone(PROVIDER_TZ).isoformat(timespec="milliseconds")
