"""What every service shares: which client to use, which key to send."""

from __future__ import annotations

from django_orderpay.client import OrderPayClient, get_client


def client_or_default(client: OrderPayClient | None) -> OrderPayClient:
    """``client``, else this thread's client for the current ``ORDERPAY`` settings."""
    return client if client is not None else get_client()
