"""One request to the provider: auth, idempotency key, retries, logging, errors.

Retries are a small explicit loop rather than ``urllib3.util.Retry`` on an
``HTTPAdapter``: urllib3 does not retry a POST read timeout by default, cannot
see the provider's ``40004`` rate limit inside a 400 body, and would hide
which failure happened on which attempt. Here every attempt of a POST reuses
the same ``x-idempotency-key``, so a retried create can never charge twice.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase

from django_orderpay import __version__
from django_orderpay.conf import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from django_orderpay.exceptions import ProviderUnavailable
from django_orderpay.redaction import redact

from .errors import (
    error_for,
    json_body,
    may_have_acted,
    redacted_messages,
    retry_after,
    retry_reason,
    unavailable,
)

logger = logging.getLogger("django_orderpay.client")

USER_AGENT = f"django-orderpay/{__version__} python-requests/{requests.__version__}"
DEFAULT_BACKOFF = 0.5
DEFAULT_BACKOFF_MAX = 8.0


class BearerAuth(AuthBase):
    """``Authorization: Bearer <token>`` as a requests auth object.

    An auth object, not a plain header: with a header, requests would let a
    ``~/.netrc`` entry for the host replace it (``trust_env``).
    """

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request

    def __repr__(self) -> str:
        return "BearerAuth([REDACTED])"


@runtime_checkable
class TokenSource(Protocol):
    """Where a client's bearer token comes from when it is not one fixed string.

    A PagBank Connect account's token expires and is refreshed
    (:mod:`django_orderpay.connect.tokens` implements this): ``token()`` is
    asked before every attempt (it may refresh a token about to expire),
    ``renewed(rejected)`` once when the provider answers 401 to ``rejected``
    (a new token to send the request again with, or None to let the 401
    stand; it may raise instead), ``secrets()`` the tokens no error text may
    quote.
    """

    def token(self) -> str: ...

    def renewed(self, rejected: str) -> str | None: ...

    def secrets(self) -> tuple[str, ...]: ...


class _Body:
    """The serialised request body; its repr is redacted so a traceback's locals stay clean."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | None) -> None:
        self.data = data

    def __repr__(self) -> str:
        return f"<request body: {len(self.data or b'')} bytes, redacted>"


class ProviderHttp:
    """Sends requests to one provider base URL with one token over one ``requests.Session``.

    ``token`` is the bearer token, or a :class:`TokenSource` (a Connect
    account's, refreshed as it expires); ``auth`` replaces the bearer scheme
    altogether (the Connect application's own calls).
    """

    def __init__(
        self,
        base_url: str,
        token: str | TokenSource,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        backoff_max: float = DEFAULT_BACKOFF_MAX,
        session: requests.Session | None = None,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
        auth: AuthBase | None = None,
    ) -> None:
        if not token:
            raise ValueError("an API token is required")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.backoff_max = backoff_max
        self._owns_session = session is None
        self.session = session if session is not None else requests.Session()
        # What the environment says for each origin (proxies, CA bundle), read
        # once: see _environment. Only for a session of our own; a caller's
        # session keeps whatever trust_env it has.
        self._environments: dict[str, dict[str, Any]] | None = (
            {} if self._owns_session and self.session.trust_env else None
        )
        self.user_agent = user_agent
        self.sleep = sleep
        self._source: TokenSource | None = None
        if isinstance(token, str):
            self._auth: AuthBase | None = auth or BearerAuth(token)
            self._fixed_secrets: tuple[str, ...] = (token,)
        else:
            self._auth, self._source, self._fixed_secrets = None, token, ()

    @property
    def _secrets(self) -> tuple[str, ...]:
        """The tokens no error text may quote (they are masked where one would)."""
        return self._source.secrets() if self._source is not None else self._fixed_secrets

    def _auth_and_token(self) -> tuple[AuthBase, str]:
        """The auth for the next attempt, and the token it sends ("" when fixed)."""
        if self._source is None:
            return self._auth, ""  # type: ignore[return-value]
        token = self._source.token()
        return BearerAuth(token), token

    def close(self) -> None:
        """Close the session if this client created it."""
        if self._owns_session:
            self.session.close()

    def _environment(self, url: str) -> dict[str, Any]:
        """The proxies, CA bundle and certificate the environment names for ``url``'s origin.

        requests reads them from ``os.environ`` on every request (with the
        proxy bypass rules, about 1.4 ms a request measured on a machine
        with a large environment, more than the rest of the client): here
        they are read once per origin, the first time, exactly as requests
        would (``merge_environment_settings``), and the session then stops
        reading them (``trust_env`` off; the token never came from netrc,
        see :class:`BearerAuth`). A process's environment is its start-up
        configuration: change it, and make a new client.
        """
        if self._environments is None:
            return {}
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._environments:
            self.session.trust_env = True
            found = self.session.merge_environment_settings(url, {}, None, None, None)
            self.session.trust_env = False
            self._environments[origin] = dict(found)
        return self._environments[origin]

    def delay(self, attempt: int, response: requests.Response | None) -> float:
        """Exponential backoff after ``attempt``, longer if the provider asked (``Retry-After``)."""
        wait = min(self.backoff * (2 ** (attempt - 1)), self.backoff_max)
        asked = retry_after(response)
        return max(wait, min(asked, self.backoff_max)) if asked is not None else wait

    def request(
        self,
        method: str,
        url: str,
        payload: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        log_body: bool = True,
    ) -> Any:
        """Send, retrying what deserves it; the parsed JSON of a 2xx (``{}`` when empty).

        ``log_body`` False keeps the body out of the debug log altogether (an
        OAuth call's body is all credentials).
        """
        method = method.upper()
        path = urlsplit(url).path or "/"
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        key = None
        if method == "POST":
            key = idempotency_key or str(uuid.uuid4())
            headers["x-idempotency-key"] = key
        body = _Body(None)
        if payload is not None:
            body = _Body(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
            headers["Content-Type"] = "application/json"
            if log_body and logger.isEnabledFor(logging.DEBUG):
                logger.debug("%s %s request body %s", method, path, json.dumps(redact(payload)))

        history: list[str] = []
        # Whether an earlier attempt may have reached the provider and acted
        # (a timeout, a reset, a 5xx): a refusal after it is not an answer
        # about the first one.
        uncertain = False
        renewed = False
        # Whether any attempt's request left this machine (a connection was made).
        sent = False
        attempt = 0
        while True:
            attempt += 1
            auth, sent_token = self._auth_and_token()
            started = time.monotonic()
            response: requests.Response | None = None
            reason: str | None
            acted = True
            try:
                response = self.session.request(
                    method,
                    url,
                    data=body.data,
                    headers=headers,
                    auth=auth,
                    timeout=self.timeout,
                    **self._environment(url),
                )
            except requests.ConnectTimeout:
                reason, acted = f"could not connect within {self.timeout:g} s", False
            except requests.Timeout:
                reason, sent = f"no answer within {self.timeout:g} s (timeout)", True
            except requests.ConnectionError as exc:
                reset = "reset" in str(exc).lower() or "aborted" in str(exc).lower()
                reason = "the connection was reset" if reset else "could not connect"
                acted = reset
                sent = sent or reset
            else:
                sent = True
                reason = retry_reason(response)
                acted = may_have_acted(response)
            elapsed_ms = (time.monotonic() - started) * 1000
            status = response.status_code if response is not None else None
            self._log(method, path, status, elapsed_ms, attempt, key, reason)
            if reason is None and response is not None:
                if response.status_code == 401 and self._source is not None and not renewed:
                    # The token expired or was replaced: once, with a renewed one (a
                    # 401 is refused before anything is done, so the key stays good).
                    renewed = True
                    if self._source.renewed(sent_token) is not None:
                        attempt -= 1  # not one of the retries: the same attempt, re-authorised
                        continue
                if uncertain and not 200 <= response.status_code < 300:
                    return self._after_uncertain(response, method, path, key, attempt, history)
                return self._finish(response, method, path, key, attempt)
            uncertain = uncertain or (method == "POST" and acted)
            history.append(reason or "")
            if attempt > self.retries:
                raise unavailable(
                    reason or "",
                    history,
                    attempts=attempt,
                    method=method,
                    path=path,
                    status=status,
                    # Not ``if response``: a Response is falsy whenever it is not a 2xx.
                    error_messages=redacted_messages(response, self._secrets),
                    idempotency_key=key,
                    sent=sent,
                )
            self.sleep(self.delay(attempt, response))

    def _after_uncertain(
        self,
        response: requests.Response,
        method: str,
        path: str,
        key: str | None,
        attempts: int,
        history: list[str],
    ) -> Any:
        """A refusal that came after an attempt which may have acted: not an answer.

        ``ProviderUnavailable`` (the outcome is unknown), except a 409: that
        one says the provider holds the key, which the caller must know.
        """
        error = error_for(
            response,
            method=method,
            path=path,
            idempotency_key=key,
            attempts=attempts,
            secrets=self._secrets,
        )
        if response.status_code == 409 or isinstance(error, ProviderUnavailable):
            raise error
        reason = f"HTTP {response.status_code} after an attempt that may have been processed"
        raise unavailable(
            reason,
            [*history, str(error)],
            attempts=attempts,
            method=method,
            path=path,
            status=response.status_code,
            error_messages=error.error_messages,
            idempotency_key=key,
        )

    def _finish(
        self, response: requests.Response, method: str, path: str, key: str | None, attempts: int
    ) -> Any:
        if 200 <= response.status_code < 300:
            if not response.content.strip():
                return {}
            data = json_body(response)
            if data is None:
                raise unavailable(
                    f"HTTP {response.status_code} with a body that is not JSON",
                    [],
                    attempts=attempts,
                    method=method,
                    path=path,
                    status=response.status_code,
                    idempotency_key=key,
                )
            return data
        raise error_for(
            response,
            method=method,
            path=path,
            idempotency_key=key,
            attempts=attempts,
            secrets=self._secrets,
        )

    @staticmethod
    def _log(
        method: str,
        path: str,
        status: int | None,
        elapsed_ms: float,
        attempt: int,
        key: str | None,
        failure: str | None,
    ) -> None:
        fields = {
            "method": method,
            "path": path,
            "status": status,
            "duration_ms": round(elapsed_ms, 1),
            "attempt": attempt,
            "idempotency_key": key,
        }
        # GETs carry no idempotency key: say so only where there is one.
        keyed = f", idempotency key {key}" if key else ""
        if failure is None:
            level = logging.INFO if status is not None and status < 400 else logging.WARNING
            logger.log(
                level,
                "%s %s -> %s in %.0f ms (attempt %d%s)",
                method, path, status, elapsed_ms, attempt, keyed,
                extra={"orderpay": fields},
            )  # fmt: skip
        else:
            logger.warning(
                "%s %s failed in %.0f ms (attempt %d%s): %s",
                method, path, elapsed_ms, attempt, keyed, failure,
                extra={"orderpay": fields},
            )  # fmt: skip
