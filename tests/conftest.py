"""Shared fixtures for the test suite."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.utils import translation


@pytest.fixture
def orderpay(settings) -> Callable[..., None]:
    """``orderpay(KEY=value, ...)``: ``ORDERPAY`` of the test settings, with those keys changed."""

    def apply(**keys: object) -> None:
        settings.ORDERPAY = {**settings.ORDERPAY, **keys}

    return apply


@pytest.fixture
def trusting(orderpay) -> None:
    """Notifications' verified bodies applied as they are (``NOTIFICATION_TRUST_BODY``)."""
    orderpay(NOTIFICATION_TRUST_BODY=True)


@pytest.fixture(autouse=True)
def _no_counts_from_earlier_tests():
    """Each test starts with no rate-limit counted (cards declined by earlier tests, from
    the test client's one address, would otherwise add up to a card tester)."""
    from django_orderpay import throttling

    throttling.reset()


@pytest.fixture(autouse=True)
def _language_of_the_next_test_is_its_own():
    """A request in pt-BR leaves its language active in the thread (LocaleMiddleware
    never deactivates it): tests after it would speak Portuguese by accident."""
    yield
    translation.deactivate()


# A project of its own, copied and run by tests/test_docs.py: not this suite's tests.
collect_ignore = ["fresh_project"]
