"""3-D Secure: the checkout-SDK session a page needs, made on the server with the token."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django_orderpay.client import OrderPayClient
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import ProviderError
from django_orderpay.models import ConnectedAccount

from ._common import check_account, client_or_default


@dataclass(frozen=True)
class ThreeDSSession:
    """What ``PagSeguro.setUp({session, env})`` takes, and when the session stops working."""

    session: str
    expires_at: datetime | None
    env: str

    def __repr__(self) -> str:  # the session authenticates cards for the merchant: not logged
        return f"ThreeDSSession(env={self.env!r}, expires_at={self.expires_at!r})"


def create_3ds_session(
    *, client: OrderPayClient | None = None, account: ConnectedAccount | None = None
) -> ThreeDSSession:
    """A new session (``POST /checkout-sdk/sessions``), valid 30 minutes.

    Call it when rendering a checkout page that runs 3-D Secure (the
    ``{% orderpay_3ds %}`` tag does): the merchant's token stays on the
    server, only the session reaches the browser. ``account``: the connected
    account the payment is for (None: the settings' ``TOKEN``).
    """
    answer = client_or_default(client, check_account(account)).create_3ds_session()
    session = answer.get("session") if isinstance(answer, dict) else None
    if not isinstance(session, str) or not session:
        raise ProviderError(
            "the provider's 3-D Secure session answer has no session",
            method="POST",
            path="/checkout-sdk/sessions",
        )
    expires = answer.get("expires_at")
    expires_at = None
    if isinstance(expires, int | float) and not isinstance(expires, bool):
        expires_at = datetime.fromtimestamp(expires / 1000, tz=UTC)
    return ThreeDSSession(session, expires_at, get_settings().threeds_env)
