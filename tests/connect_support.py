"""Fixtures the Connect tests share (no tests of its own): a platform's staff and sellers.

Every Connect test runs the authorisation through the Django test client and
the emulator's OAuth server (``orderpay_connect``), never a mock of our code.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission

SELLER_A = "seller-a@example.com"
SELLER_B = "seller-b@example.com"


@pytest.fixture
def staff(django_user_model) -> Any:
    """Staff who may connect accounts (``add_`` and ``change_connectedaccount``)."""
    user = django_user_model.objects.create_user("staff", "staff@example.com", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_connectedaccount", "change_connectedaccount"])
    )
    return user


@pytest.fixture
def accounts(orderpay_connect, staff, client) -> tuple[Any, Any]:
    """Sellers A and B, each connected through the authorisation by ``staff``."""
    seller_a = orderpay_connect.connect_seller(client, staff, SELLER_A)
    seller_b = orderpay_connect.connect_seller(client, staff, SELLER_B)
    return seller_a, seller_b


def grant_of(orderpay_connect: Any, account_id: str) -> dict[str, Any]:
    """The emulator's current grant over ``account_id`` (its tokens as PagBank holds them)."""
    grants = [g for g in orderpay_connect.grants() if g["account_id"] == account_id]
    active = [g for g in grants if not g["revoked"]]
    return active[-1] if active else {}
