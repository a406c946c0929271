"""Fixtures of the emulator core's tests (defined in ``core_support``)."""

from __future__ import annotations

from tests.emulator.core_support import api, emulator, recorder

__all__ = ["api", "emulator", "recorder"]
