"""The Connect application of the settings: its client for the token calls."""

from __future__ import annotations

from django_orderpay.client.connect import ConnectClient
from django_orderpay.conf import env_var, get_settings
from django_orderpay.exceptions import ConfigurationError


def application_client() -> ConnectClient:
    """A :class:`ConnectClient` for ``CONNECT_CLIENT_ID`` (close it after use: ``with``)."""
    conf = get_settings(strict=False)
    if not conf.connect_client_id or not conf.connect_client_secret:
        raise ConfigurationError(
            "PagBank Connect needs ORDERPAY['CONNECT_CLIENT_ID'] and "
            f"ORDERPAY['CONNECT_CLIENT_SECRET'] (or {env_var('CONNECT_CLIENT_ID')} and "
            f"{env_var('CONNECT_CLIENT_SECRET')})."
        )
    return ConnectClient(
        conf.base_url,
        conf.connect_client_id,
        conf.connect_client_secret,
        auth=conf.connect_auth,
        platform_token=conf.token,
        timeout=conf.timeout,
    )
