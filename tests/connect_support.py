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


@pytest.fixture
def seen(orderpay_emulator, orderpay_connect) -> Any:
    """``seen(path)``: the ``ACCO_`` id behind each bearer token the emulator was sent on
    ``path``, in order (the platform's own token, or a seller's access token)."""
    calls: list[tuple[str, str]] = []
    serve = orderpay_emulator.emulator.handle

    def recording(request):
        bearer = (request.header("Authorization") or "").partition(" ")[2]
        calls.append((request.path, bearer))
        return serve(request)

    orderpay_emulator.emulator.handle = recording

    def accounts_on(path: str) -> list[str]:
        owners = {g["access_token"]: g["account_id"] for g in orderpay_connect.grants()}
        owners[orderpay_emulator.token] = orderpay_emulator.account_id
        return [owners.get(token, "?") for called, token in calls if called == path]

    yield accounts_on
    orderpay_emulator.emulator.handle = serve
