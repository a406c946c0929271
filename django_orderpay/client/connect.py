"""The Connect application's own calls: a seller's code for tokens, refresh, revoke.

PagBank Connect (OAuth 2) issues a platform an access token per seller.
These calls are made with the *application's* credentials, not a seller's
token: ``Authorization: Pub <client secret>`` as the official WooCommerce and
Magento plugins send it (``auth="pub"``, the default), or, as PagBank's
reference pages describe, ``Authorization: Bearer <platform token>`` with
``X_CLIENT_ID`` and ``X_CLIENT_SECRET`` (``auth="bearer"``).

None of them is retried after it may have reached PagBank: a code is used
once, and a refresh that was applied but whose answer was lost has already
replaced the refresh token. Their bodies are never logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import requests
from requests.auth import AuthBase

from django_orderpay.conf import DEFAULT_TIMEOUT
from django_orderpay.exceptions import (
    ConnectApplicationRefused,
    FieldError,
    PayloadError,
    ProviderError,
)

from .http import ProviderHttp

#: The Connect errors (code, and the name PagBank's table gives it) that refuse the
#: *seller's grant*: the code or refresh token sent is "inválido, expirou, já foi
#: utilizado" or revoked. Only these mean the seller must authorise again
#: (PagBank's Connect error table, "Códigos de Erro").
REFUSED_GRANT_ERRORS = frozenset(
    {
        "41004",
        "invalid_grant",  # code or refresh token invalid, expired, used, or not this user's
        "41012",
        "token_is_no_longer_active",  # access or refresh token used, or not this user's
    }
)
#: The Connect errors about the *application*, whichever seller the call was for: the
#: ``Authorization`` of a token call is the application's (``Pub <secret>``, or the
#: platform's ``Bearer`` with ``X_CLIENT_ID``/``X_CLIENT_SECRET``). A configuration
#: error: no seller's grant was judged.
APPLICATION_ERRORS = frozenset(
    {
        "41003",
        "invalid_client",  # "Falha na identificação do cliente"
        "41006",
        "unauthorized_client",  # "O cliente não está autorizado a executar essa ação"
        "41008",
        "invalid_token",  # "Bearer token inválido fornecido em Authorization"
    }
)


@dataclass(frozen=True)
class TokenAnswer:
    """``{token_type, access_token, expires_in, refresh_token, scope, account_id}``."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_in: int | None
    scope: str
    account_id: str
    token_type: str = "Bearer"

    @classmethod
    def parse(cls, answer: Any, path: str) -> TokenAnswer:
        """The answer read, or ``ProviderError`` naming what it lacks (never its values)."""
        if not isinstance(answer, Mapping):
            message = f"{path}: the answer is not a JSON object"
            raise ProviderError(message, method="POST", path=path)
        missing = [
            name
            for name in ("access_token", "refresh_token")
            if not isinstance(answer.get(name), str) or not answer.get(name)
        ]
        if missing:
            raise ProviderError(
                f"{path}: the answer has no {', '.join(missing)}", method="POST", path=path
            )
        expires = answer.get("expires_in")
        if isinstance(expires, str) and expires.isdigit():
            expires = int(expires)
        if isinstance(expires, bool) or not isinstance(expires, int):
            expires = None
        return cls(
            access_token=answer["access_token"],
            refresh_token=answer["refresh_token"],
            expires_in=expires,
            scope=str(answer.get("scope") or ""),
            account_id=str(answer.get("account_id") or ""),
            token_type=str(answer.get("token_type") or "Bearer"),
        )


class ApplicationAuth(AuthBase):
    """The application's credentials on a Connect call (never in a repr)."""

    def __init__(
        self, client_id: str, client_secret: str, mode: str, platform_token: str | None
    ) -> None:
        self._client_id = client_id
        self._client_secret = client_secret
        self._mode = mode
        self._platform_token = platform_token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self._mode == "bearer":
            request.headers["Authorization"] = f"Bearer {self._platform_token}"
            request.headers["X_CLIENT_ID"] = self._client_id
            request.headers["X_CLIENT_SECRET"] = self._client_secret
        else:
            request.headers["Authorization"] = f"Pub {self._client_secret}"
        return request

    def __repr__(self) -> str:
        return "ApplicationAuth([REDACTED])"


def _answered_refusal(error: ProviderError) -> bool:
    return error.status is not None and 400 <= error.status < 500 and error.status != 429


def is_refused_grant(error: ProviderError) -> bool:
    """Whether ``error`` says PagBank refused the seller's grant (``invalid_grant``,
    ``token_is_no_longer_active``): the seller must authorise again. Not an
    application's refusal, nor an answer that never came (try later)."""
    if not _answered_refusal(error) or isinstance(error, ConnectApplicationRefused):
        return False
    return any(error.has(name) for name in REFUSED_GRANT_ERRORS)


def is_application_refused(error: ProviderError) -> bool:
    """Whether ``error`` says PagBank refused the application's credentials (an
    ``APPLICATION_ERRORS`` entry, or a 401/403 naming no seller's grant)."""
    if isinstance(error, ConnectApplicationRefused):
        return True
    if not _answered_refusal(error) or any(error.has(name) for name in REFUSED_GRANT_ERRORS):
        return False
    return any(error.has(name) for name in APPLICATION_ERRORS) or error.status in (401, 403)


def application_refused(error: ProviderError, *, auth: str) -> ConnectApplicationRefused:
    """The configuration error for PagBank's refusal ``error`` of the application (its
    messages, already without secrets; never a setting's value)."""
    said = "; ".join(str(message) for message in error.error_messages) or "no details"
    settings = "ORDERPAY['CONNECT_CLIENT_ID'] and ORDERPAY['CONNECT_CLIENT_SECRET']"
    if auth == "bearer":
        settings += " (and ORDERPAY['TOKEN'], which CONNECT_AUTH 'bearer' sends)"
    return ConnectApplicationRefused(
        f"PagBank refused the Connect application's credentials on {error.method} "
        f"{error.path} (HTTP {error.status}: {said}): check {settings}. No seller's "
        "grant was judged: connected accounts are left as they are.",
        status=401,
        error_messages=error.error_messages,
        method=error.method,
        path=error.path,
    )


class ConnectClient:
    """``/oauth2/token``, ``/oauth2/refresh`` and ``/oauth2/revoke`` on the API host."""

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        auth: str = "pub",
        platform_token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        session: requests.Session | None = None,
    ) -> None:
        if not client_id or not client_secret:
            raise ValueError("a Connect client id and client secret are required")
        if auth == "bearer" and not platform_token:
            raise ValueError("CONNECT_AUTH 'bearer' sends the platform's own TOKEN: set it")
        secrets = [client_secret, *([platform_token] if platform_token else [])]
        self.http = ProviderHttp(
            base_url,
            client_secret,
            timeout=timeout,
            retries=0,
            session=session,
            auth=ApplicationAuth(client_id, client_secret, auth, platform_token),
        )
        self.http._fixed_secrets = tuple(secrets)
        self.base_url = self.http.base_url
        self.client_id = client_id
        self.auth = auth

    def __repr__(self) -> str:
        return f"ConnectClient({self.base_url!r}, {self.client_id!r})"

    def __enter__(self) -> ConnectClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        """POST ``body``; ``ConnectApplicationRefused`` when PagBank refuses the application."""
        try:
            return self.http.request("POST", self.base_url + path, body, log_body=False)
        except ProviderError as error:
            if is_application_refused(error):
                raise application_refused(error, auth=self.auth) from None
            raise

    def exchange_code(self, code: str, *, redirect_uri: str, code_verifier: str) -> TokenAnswer:
        """``POST /oauth2/token`` (``authorization_code``): the seller's tokens."""
        if not code or not isinstance(code, str):
            raise PayloadError([FieldError("code", "is required")])
        body = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        return TokenAnswer.parse(self._post("/oauth2/token", body), "/oauth2/token")

    def refresh(self, refresh_token: str) -> TokenAnswer:
        """``POST /oauth2/refresh``: a new access token *and* a new refresh token (the
        one sent stops working)."""
        body = {"grant_type": "refresh_token", "refresh_token": refresh_token}
        return TokenAnswer.parse(self._post("/oauth2/refresh", body), "/oauth2/refresh")

    def revoke(self, token: str, *, hint: str = "access_token") -> None:
        """``POST /oauth2/revoke``: ``token`` (an ``access_token`` or ``refresh_token``)
        stops working."""
        if hint not in ("access_token", "refresh_token"):
            raise PayloadError([FieldError("token_type_hint", "access_token or refresh_token")])
        self._post("/oauth2/revoke", {"token_type_hint": hint, "token": token})
