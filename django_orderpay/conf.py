"""Settings: one ``ORDERPAY`` dict, each key also readable from the environment.

Every key ``KEY`` of ``settings.ORDERPAY`` may instead come from the
environment variable ``ORDERPAY_KEY`` (read through django-environ). **The
dict wins**: a key present in ``ORDERPAY`` (with a value other than ``None``)
hides its environment variable. Settings are parsed and validated once and
kept; Django's ``setting_changed`` signal (``override_settings``, pytest-django's
``settings`` fixture) and a change of an ``ORDERPAY_*`` environment variable
make the next read parse them again, so both take effect at once.

Keys (environment variable in brackets):

``ENVIRONMENT`` [``ORDERPAY_ENVIRONMENT``]
    ``production``, ``sandbox`` or ``emulator`` (default ``sandbox``). Picks the
    API base URL and SDK script URL from the provider's host table, or the
    emulator's (mounted under ``EMULATOR_URL``).
``BASE_URL``, ``SDK_URL``, ``SIMULATION_URL``
    Overrides of the URLs the environment picks (``SIMULATION_URL`` is the
    host of the sandbox's deeplink payment simulator).
``EMULATOR_URL``
    Where the Django-mounted emulator lives (default
    ``http://127.0.0.1:8000/emulator``).
``TOKEN`` (required)
    The merchant's API bearer token.
``PUBLIC_KEY``
    The card-encryption public key (base64 DER); when absent it is fetched from
    ``/public-keys`` and cached by the services.
``NOTIFICATION_URL``
    The absolute URL sent as the orders' ``notification_urls``.
``TIMEOUT`` (seconds, default 15), ``RETRIES`` (default 3)
    Of the HTTP client.
``NOTIFICATION_TOKENS``
    Tokens accepted for a notification's ``x-authenticity-token`` (a list, so a
    token can be rotated); default ``[TOKEN]``. In the environment: comma-separated.
``NOTIFICATION_VERIFY`` (default True)
    Reject notifications whose ``x-authenticity-token`` does not match.
``NOTIFICATION_TRUST_BODY`` (default False)
    Use a notification's body as is instead of re-fetching the order.
``NOTIFICATION_BACKGROUND`` (default False)
    Process notifications in a background task instead of in the request.
``NOTIFICATION_MAX_BODY`` (bytes, default 1 MiB)
    The largest notification body the notification view accepts (larger: 413).
``EMULATOR_TOKENS``
    Tokens the mounted emulator accepts: a list, or a dict token -> ``ACCO_``
    account id; default ``[TOKEN]``.
``EMULATOR_RETAIN_ORDERS`` (default 5000)
    Orders the mounted emulator remembers; older ones are forgotten.
``EMULATOR_SERVE_WITHOUT_DEBUG`` (default False)
    Let the emulator mounted in the shop's URLconf answer while ``DEBUG`` is
    False (a staging demo); otherwise it answers 404 there.
``EMULATOR_CONTROL_SECRET``
    A secret whose ``X-Emulator-Secret`` header opens the mounted emulator's
    control plane (``/_emulator/...``) to a script; an active staff user
    logged in to the shop may use it without. Unset, only staff may.
``EMULATOR_STATE_FILE``
    Where the mounted emulator keeps its state across restarts: a path, or
    ``False`` for none. Unset: with ``DEBUG`` on, beside the SQLite database
    file (else in the temp folder, one per database); with ``DEBUG`` off, none.
``SYNC_CONCURRENCY`` (default 8)
    Orders ``manage.py orderpay_sync`` fetches at the same time.
``THREEDS`` (default ``always``)
    When the card checkout runs 3-D Secure: ``always``, ``never``, or
    ``after_decline`` (only to retry a card the issuer declined with a code
    asking for authentication, 20159). Debit cards always run it.
``THREEDS_ALLOW_NOT_SUPPORTED`` (default False)
    Charge a credit card without 3-D Secure when the page says its issuer
    takes no part (``AUTH_NOT_SUPPORTED``, the browser's word). Off, such a
    card is refused and the shopper asked for another.
``THREEDS_URL``
    Override of the host of the checkout-SDK sessions (``sdk.pagseguro.com``).
``ACCOUNT_ID``
    The ``ACCO_`` id of the account ``TOKEN`` belongs to: a platform's own
    account, the primary receiver of its split payments.
``CONNECT_CLIENT_ID``, ``CONNECT_CLIENT_SECRET``
    The PagBank Connect application (OAuth 2) a platform acts for its sellers
    with; unset, Connect is off. See ``docs/connect.md`` for these and the
    other ``CONNECT_*`` keys: ``CONNECT_KEYS`` (the keys the accounts' tokens
    are encrypted with), ``CONNECT_SCOPES``, ``CONNECT_REDIRECT_URI``,
    ``CONNECT_URL``, ``CONNECT_AUTH``, ``CONNECT_REFRESH_MARGIN`` and
    ``CONNECT_NOTIFICATION_SIGNER``.
``CARD_TESTING_LIMITS`` (default True)
    Refuse card attempts past the limits below before any call to the
    provider (``django_orderpay.card_testing``; docs/security.md).
``CARD_ATTEMPTS_WINDOW`` (seconds, default 3600)
    How long the card attempts and declines are counted.
``CARD_ATTEMPTS_PER_ORDER``, ``CARD_DECLINES_PER_ORDER`` (default 6, 3)
``CARD_ATTEMPTS_PER_SHOPPER``, ``CARD_DECLINES_PER_SHOPPER`` (default 10, 5)
``CARD_ATTEMPTS_PER_ADDRESS``, ``CARD_DECLINES_PER_ADDRESS`` (default 30, 10)
    The limits within a window: cards sent, and cards declined, for one
    purchase, one shopper (a user, else a session) and one client address
    (0: no such limit).
``CARD_CAPTCHA_AFTER_DECLINES`` (default 0: never)
    Once a shopper (or their address) has had this many cards declined in
    the window, the card forms ask for a CAPTCHA too.
``CARD_CAPTCHA_FIELD`` (default ``captcha.fields.CaptchaField``)
    The form field class that asks it: django-simple-captcha's (the
    ``captcha`` extra), or any CAPTCHA package's field (Turnstile, hCaptcha).
``TRUSTED_PROXIES`` (default 0)
    How many proxies in front of the shop append to ``X-Forwarded-For``:
    the client's address for the limits is then the one the nearest saw.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, overload

import environ
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.signals import setting_changed
from django.core.validators import URLValidator

from django_orderpay import rules
from django_orderpay.exceptions import ConfigurationError

ENV_PREFIX: Final = "ORDERPAY_"
ENVIRONMENTS: Final = ("production", "sandbox", "emulator")
DEFAULT_ENVIRONMENT: Final = "sandbox"
DEFAULT_EMULATOR_URL: Final = "http://127.0.0.1:8000/emulator"
#: The HTTP client's defaults too (``client.OrderPayClient`` without settings).
DEFAULT_TIMEOUT: Final = 15.0
DEFAULT_RETRIES: Final = 3
#: A whole Order JSON is a few KiB; 1 MiB leaves room and bounds what a stranger can post.
DEFAULT_NOTIFICATION_MAX_BODY: Final = rules.MAX_BODY_SIZE
#: ``orderpay_sync``'s fetches at once: the provider's latency overlaps, the API is not flooded.
DEFAULT_SYNC_CONCURRENCY: Final = 8
MAX_SYNC_CONCURRENCY: Final = 64
#: The CAPTCHA field the card forms add after the first declines (the ``captcha`` extra).
DEFAULT_CAPTCHA_FIELD: Final = "captcha.fields.CaptchaField"
#: More proxies than this in front of a shop is a misreading of the setting.
MAX_TRUSTED_PROXIES: Final = 10
#: Orders the mounted emulator remembers (its own default, repeated: conf imports no emulator).
DEFAULT_EMULATOR_RETAIN_ORDERS: Final = 5000
#: The emulator serves the SDK script at this path under its root.
EMULATOR_SDK_PATH: Final = "/sdk/pagseguro.js"
#: When the checkout authenticates a credit card with 3-D Secure (debit: always).
THREEDS_MODES: Final = ("never", "always", "after_decline")
#: The scopes a Connect authorisation asks for by default: the official WooCommerce
#: plugin's (payments, split reading, hosted checkout).
DEFAULT_CONNECT_SCOPES: Final = (
    "payments.read",
    "payments.create",
    "payments.refund",
    "payments.split.read",
    "checkout.create",
    "checkout.view",
    "checkout.update",
)
#: Every scope PagBank documents for Connect Authorization.
CONNECT_SCOPES: Final = frozenset({*DEFAULT_CONNECT_SCOPES, "accounts.read"})
#: How the application authenticates its token calls: ``pub`` as the official plugins
#: (``Authorization: Pub <secret>``), ``bearer`` as PagBank's reference pages
#: (``Authorization: Bearer <TOKEN>`` with ``X_CLIENT_ID`` and ``X_CLIENT_SECRET``).
CONNECT_AUTH_MODES: Final = ("pub", "bearer")
#: Which token signs a connected account's notifications (undocumented: see docs/connect.md).
CONNECT_SIGNERS: Final = ("either", "account", "application")
#: Refresh an account's token this long before it expires (the official WooCommerce
#: plugin's 30 days), or a quarter of its lifetime when that is shorter.
DEFAULT_CONNECT_REFRESH_MARGIN: Final = 30 * 24 * 3600
#: Safe by default: every credit card is authenticated unless the shop says otherwise.
DEFAULT_THREEDS: Final = "always"
#: The card-testing limits' defaults: (setting, default). Why these numbers: docs/security.md.
CARD_LIMIT_DEFAULTS: Final = {
    "CARD_ATTEMPTS_WINDOW": 3600,
    "CARD_ATTEMPTS_PER_ORDER": 6,
    "CARD_DECLINES_PER_ORDER": 3,
    "CARD_ATTEMPTS_PER_SHOPPER": 10,
    "CARD_DECLINES_PER_SHOPPER": 5,
    "CARD_ATTEMPTS_PER_ADDRESS": 30,
    "CARD_DECLINES_PER_ADDRESS": 10,
}


@dataclass(frozen=True)
class Hosts:
    """Where an environment's API, SDK script and deeplink simulator live."""

    base_url: str
    sdk_url: str
    simulation_url: str | None
    #: Where checkout-SDK sessions (3-D Secure) are made: the SDK's own API host.
    threeds_url: str = ""
    #: Where a seller authorises a Connect application (``/oauth2/authorize`` under it).
    connect_url: str = ""


_SDK_SCRIPT = "https://assets.pagseguro.com.br/checkout-sdk-js/rc/dist/browser/pagseguro.min.js"
#: The provider's host table (provider-facts.md, "Hosts").
HOSTS: Final[dict[str, Hosts]] = {
    "production": Hosts(
        "https://api.pagseguro.com",
        _SDK_SCRIPT,
        None,
        "https://sdk.pagseguro.com",
        "https://connect.pagseguro.uol.com.br",
    ),
    "sandbox": Hosts(
        "https://sandbox.api.pagseguro.com",
        _SDK_SCRIPT,
        "https://sandbox.sdk.pagseguro.com",
        "https://sandbox.sdk.pagseguro.com",
        "https://connect.sandbox.pagseguro.uol.com.br",
    ),
}

KNOWN_KEYS: Final = frozenset(
    {
        "ENVIRONMENT",
        "BASE_URL",
        "SDK_URL",
        "SIMULATION_URL",
        "EMULATOR_URL",
        "TOKEN",
        "PUBLIC_KEY",
        "NOTIFICATION_URL",
        "TIMEOUT",
        "RETRIES",
        "NOTIFICATION_TOKENS",
        "NOTIFICATION_VERIFY",
        "NOTIFICATION_TRUST_BODY",
        "NOTIFICATION_BACKGROUND",
        "NOTIFICATION_MAX_BODY",
        "EMULATOR_TOKENS",
        "EMULATOR_RETAIN_ORDERS",
        "EMULATOR_SERVE_WITHOUT_DEBUG",
        "EMULATOR_CONTROL_SECRET",
        "EMULATOR_STATE_FILE",
        "SYNC_CONCURRENCY",
        "THREEDS",
        "THREEDS_URL",
        "ACCOUNT_ID",
        "CONNECT_CLIENT_ID",
        "CONNECT_CLIENT_SECRET",
        "CONNECT_KEYS",
        "CONNECT_SCOPES",
        "CONNECT_REDIRECT_URI",
        "CONNECT_URL",
        "CONNECT_AUTH",
        "CONNECT_REFRESH_MARGIN",
        "CONNECT_NOTIFICATION_SIGNER",
        "THREEDS_ALLOW_NOT_SUPPORTED",
        "CARD_TESTING_LIMITS",
        "CARD_ATTEMPTS_WINDOW",
        "CARD_ATTEMPTS_PER_ORDER",
        "CARD_DECLINES_PER_ORDER",
        "CARD_ATTEMPTS_PER_SHOPPER",
        "CARD_DECLINES_PER_SHOPPER",
        "CARD_ATTEMPTS_PER_ADDRESS",
        "CARD_DECLINES_PER_ADDRESS",
        "TRUSTED_PROXIES",
        "CARD_CAPTCHA_AFTER_DECLINES",
        "CARD_CAPTCHA_FIELD",
    }
)
_SORTED_KEYS: Final = tuple(sorted(KNOWN_KEYS))


@dataclass(frozen=True)
class OrderPaySettings:
    """The resolved settings: every default applied, every URL without a trailing slash."""

    environment: str
    base_url: str
    sdk_url: str
    simulation_url: str | None
    emulator_url: str
    token: str | None
    public_key: str | None
    notification_url: str | None
    timeout: float
    retries: int
    notification_tokens: tuple[str, ...]
    notification_verify: bool
    notification_trust_body: bool
    notification_background: bool
    notification_max_body: int
    emulator_tokens: tuple[str, ...] | Mapping[str, str]
    emulator_retain_orders: int = DEFAULT_EMULATOR_RETAIN_ORDERS
    emulator_serve_without_debug: bool = False
    emulator_control_secret: str | None = field(default=None, repr=False)
    #: None: the default (see django_orderpay.emulator.serving.django_view); "": none.
    emulator_state_file: str | None = None
    sync_concurrency: int = DEFAULT_SYNC_CONCURRENCY
    threeds: str = DEFAULT_THREEDS
    threeds_url: str = ""
    account_id: str | None = None
    connect_client_id: str | None = None
    connect_client_secret: str | None = None
    connect_keys: tuple[str, ...] = ()
    connect_scopes: tuple[str, ...] = DEFAULT_CONNECT_SCOPES
    connect_redirect_uri: str | None = None
    connect_url: str = ""
    connect_auth: str = "pub"
    connect_refresh_margin: int = DEFAULT_CONNECT_REFRESH_MARGIN
    connect_notification_signer: str = "either"

    @property
    def connect_enabled(self) -> bool:
        """Whether a Connect application is configured (its client id)."""
        return bool(self.connect_client_id)

    threeds_allow_not_supported: bool = False
    card_testing_limits: bool = True
    #: ``CARD_LIMIT_DEFAULTS``' keys in lower case -> their values.
    card_limits: Mapping[str, int] = field(default_factory=lambda: _card_limit_defaults())
    trusted_proxies: int = 0
    card_captcha_after_declines: int = 0
    card_captcha_field: str = DEFAULT_CAPTCHA_FIELD

    @property
    def threeds_env(self) -> str:
        """``env`` of ``PagSeguro.setUp``: ``PROD`` in production, else ``SANDBOX``."""
        return "PROD" if self.environment == "production" else "SANDBOX"

    def __repr__(self) -> str:  # the token must never reach a log line or a traceback
        return (
            f"OrderPaySettings(environment={self.environment!r}, base_url={self.base_url!r}, "
            f"token={'set' if self.token else None!r}, "
            f"connect_client_id={self.connect_client_id!r})"
        )


def env_var(key: str) -> str:
    """The environment variable that can supply ``ORDERPAY[key]``."""
    return ENV_PREFIX + key


def _where(key: str) -> str:
    return f"ORDERPAY[{key!r}] (or the {env_var(key)} environment variable)"


class _Reader:
    """Reads one key: the dict first, then the environment, then the default."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = values
        self.env = environ.Env()

    def get(
        self,
        key: str,
        check: Callable[[Any], bool],
        expected: str,
        env_cast: Callable[..., Any],
        default: Any = None,
    ) -> Any:
        value = self.values.get(key)
        if value is None:
            try:
                value = env_cast(env_var(key), default=None)
            except (ValueError, TypeError) as exc:
                raise ConfigurationError(f"{_where(key)} must be {expected}.") from exc
        if value is None or value == "":
            return default
        if not check(value):
            raise ConfigurationError(f"{_where(key)} must be {expected}.")
        return value

    def string(self, key: str, default: str | None = None) -> str | None:
        return self.get(key, lambda v: isinstance(v, str), "a string", self.env.str, default)

    @overload
    def url(self, key: str, default: str) -> str: ...
    @overload
    def url(self, key: str, default: None = None) -> str | None: ...

    def url(self, key: str, default: str | None = None) -> str | None:
        value = self.get(key, _is_url, "an absolute http(s) URL", self.env.str, default)
        return value.rstrip("/") if value else value

    def boolean(self, key: str, default: bool) -> bool:
        return self.get(key, lambda v: isinstance(v, bool), "True or False", self.env.bool, default)

    def strings(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self.get(key, _is_string_list, "a list of strings", self.env.list, default)
        return tuple(v for v in value if v)


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


_url_validator = URLValidator(schemes=["http", "https"])


def _is_valid_url(value: Any) -> bool:
    """An absolute http(s) URL that Django's ``URLValidator`` accepts.

    That is a host with a TLD, ``localhost`` or an IP address.
    """
    if not _is_url(value):
        return False
    try:
        _url_validator(value)
    except DjangoValidationError:
        return False
    return True


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _number(reader: _Reader, key: str, default: float, *, integer: bool, minimum: int = 0) -> Any:
    cast = reader.env.int if integer else reader.env.float
    kinds = (int,) if integer else (int, float)
    expected = f"a whole number >= {minimum}" if integer else "a number of seconds > 0"

    def check(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, kinds):
            return False
        return value >= minimum if integer else value > 0

    return reader.get(key, check, expected, cast, default)


def _bounded(reader: _Reader, key: str, default: int, maximum: int) -> int:
    value = _number(reader, key, default, integer=True, minimum=1)
    if value > maximum:
        raise ConfigurationError(f"{_where(key)} must be a whole number from 1 to {maximum}.")
    return int(value)


def _emulator_tokens(reader: _Reader, token: str | None) -> tuple[str, ...] | Mapping[str, str]:
    value = reader.values.get("EMULATOR_TOKENS")
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ConfigurationError(f"{_where('EMULATOR_TOKENS')} must map tokens to ACCO_ ids.")
        return dict(value)
    return reader.strings("EMULATOR_TOKENS", (token,) if token else ())


#: The parsed settings and the ``ORDERPAY_*`` environment they were parsed with.
_parsed: tuple[tuple[Any, ...], OrderPaySettings] | None = None


def _raw_environment() -> tuple[Callable[[Any], Any], tuple[Any, ...]]:
    """A lookup of ``os.environ``'s own store, and the ``ORDERPAY_*`` names as it keys them.

    ``os.environ.get`` raises and catches a ``KeyError`` for every variable
    that is not set (most of ours): twenty of them cost about 50 µs, on every
    settings read of every request. The store behind ``os.environ`` (kept in
    step with it by every change made through it) answers the same in 2 µs.
    Where it is not there to read, ``os.environ.get`` it is.
    """
    store = getattr(os.environ, "_data", None)
    encode = getattr(os.environ, "encodekey", None)
    names = tuple(env_var(key) for key in _SORTED_KEYS)
    if isinstance(store, dict) and callable(encode):
        return store.get, tuple(encode(name) for name in names)
    return os.environ.get, names


_LOOKUP, _ENV_NAMES = _raw_environment()


def _environment() -> tuple[Any, ...]:
    """The ``ORDERPAY_*`` variables as they are now (compared, never parsed, on every read)."""
    return tuple(map(_LOOKUP, _ENV_NAMES))


def get_settings(*, strict: bool = True) -> OrderPaySettings:
    """The current settings, from ``settings.ORDERPAY`` and the environment.

    Parsed and validated once, then kept until ``ORDERPAY`` changes (Django's
    ``setting_changed``) or an ``ORDERPAY_*`` environment variable does.
    Raises :class:`~django_orderpay.exceptions.ConfigurationError` (an
    ``ImproperlyConfigured``) naming the key and its environment variable when
    a value is invalid (every call, until it is fixed), or, when ``strict``,
    when ``TOKEN`` is missing. The system checks call it with ``strict=False``
    to report a missing token themselves.
    """
    global _parsed
    environment = _environment()
    parsed = _parsed
    if parsed is None or parsed[0] != environment:
        parsed = _parsed = (environment, _parse())
    conf = parsed[1]
    if strict and not conf.token:
        raise ConfigurationError(f"{_where('TOKEN')} is required: the merchant's API token.")
    return conf


def reset_settings(**kwargs: Any) -> None:
    """Forget the parsed settings: the next read parses them again.

    Connected to ``setting_changed`` (for ``ORDERPAY``); call it after changing
    ``settings.ORDERPAY`` in place, which sends no signal.
    """
    global _parsed
    if kwargs.get("setting", "ORDERPAY") == "ORDERPAY":
        _parsed = None


setting_changed.connect(reset_settings, dispatch_uid="django_orderpay.conf.reset_settings")


def _parse() -> OrderPaySettings:
    """``settings.ORDERPAY`` and the environment, parsed and validated (TOKEN may be None)."""
    values = getattr(django_settings, "ORDERPAY", None) or {}
    if not isinstance(values, Mapping):
        raise ConfigurationError("settings.ORDERPAY must be a dict.")
    reader = _Reader(values)

    environment = reader.string("ENVIRONMENT", DEFAULT_ENVIRONMENT)
    if environment not in ENVIRONMENTS:
        raise ConfigurationError(
            f"{_where('ENVIRONMENT')} must be one of {', '.join(ENVIRONMENTS)}."
        )
    emulator_url = reader.url("EMULATOR_URL", DEFAULT_EMULATOR_URL)
    if environment == "emulator":
        hosts = Hosts(
            emulator_url, emulator_url + EMULATOR_SDK_PATH, emulator_url, emulator_url, emulator_url
        )
    else:
        hosts = HOSTS[environment]

    token = reader.string("TOKEN")
    return OrderPaySettings(
        environment=environment,
        base_url=reader.url("BASE_URL", hosts.base_url),
        sdk_url=reader.url("SDK_URL", hosts.sdk_url),
        simulation_url=reader.url("SIMULATION_URL", hosts.simulation_url),
        emulator_url=emulator_url,
        token=token,
        public_key=reader.string("PUBLIC_KEY"),
        # An endpoint, not a base: kept verbatim (Django routes "/notifications/" with its slash).
        # Checked as the payload builders check notification_urls, so a bad value is named
        # here rather than as "notification_urls[0]" of every order.
        notification_url=reader.get(
            "NOTIFICATION_URL", _is_valid_url, "an absolute http(s) URL", reader.env.str
        ),
        timeout=float(_number(reader, "TIMEOUT", DEFAULT_TIMEOUT, integer=False)),
        retries=_number(reader, "RETRIES", DEFAULT_RETRIES, integer=True),
        notification_tokens=reader.strings("NOTIFICATION_TOKENS", (token,) if token else ()),
        notification_verify=reader.boolean("NOTIFICATION_VERIFY", True),
        notification_trust_body=reader.boolean("NOTIFICATION_TRUST_BODY", False),
        notification_background=reader.boolean("NOTIFICATION_BACKGROUND", False),
        notification_max_body=_number(
            reader, "NOTIFICATION_MAX_BODY", DEFAULT_NOTIFICATION_MAX_BODY, integer=True, minimum=1
        ),
        emulator_tokens=_emulator_tokens(reader, token),
        emulator_retain_orders=_number(
            reader,
            "EMULATOR_RETAIN_ORDERS",
            DEFAULT_EMULATOR_RETAIN_ORDERS,
            integer=True,
            minimum=1,
        ),
        emulator_serve_without_debug=reader.boolean("EMULATOR_SERVE_WITHOUT_DEBUG", False),
        emulator_control_secret=reader.string("EMULATOR_CONTROL_SECRET"),
        emulator_state_file=_state_file(reader),
        sync_concurrency=_bounded(
            reader, "SYNC_CONCURRENCY", DEFAULT_SYNC_CONCURRENCY, MAX_SYNC_CONCURRENCY
        ),
        threeds=_threeds_mode(reader),
        threeds_url=reader.url("THREEDS_URL", hosts.threeds_url),
        account_id=_account_id(reader),
        connect_client_id=reader.string("CONNECT_CLIENT_ID"),
        connect_client_secret=reader.string("CONNECT_CLIENT_SECRET"),
        connect_keys=reader.strings("CONNECT_KEYS", ()),
        connect_scopes=_connect_scopes(reader),
        # Kept verbatim (PagBank compares it with the application's, character for character).
        connect_redirect_uri=reader.get(
            "CONNECT_REDIRECT_URI", _is_url, "an absolute http(s) URL", reader.env.str
        ),
        connect_url=reader.url("CONNECT_URL", hosts.connect_url),
        connect_auth=_choice(reader, "CONNECT_AUTH", CONNECT_AUTH_MODES),
        connect_refresh_margin=_number(
            reader,
            "CONNECT_REFRESH_MARGIN",
            DEFAULT_CONNECT_REFRESH_MARGIN,
            integer=True,
            minimum=0,
        ),
        connect_notification_signer=_choice(reader, "CONNECT_NOTIFICATION_SIGNER", CONNECT_SIGNERS),
        threeds_allow_not_supported=reader.boolean("THREEDS_ALLOW_NOT_SUPPORTED", False),
        card_testing_limits=reader.boolean("CARD_TESTING_LIMITS", True),
        card_limits={
            # A window of 0 seconds would count nothing; a limit of 0 is "no such limit".
            key.lower(): int(
                _number(reader, key, default, integer=True, minimum=int(key.endswith("WINDOW")))
            )
            for key, default in CARD_LIMIT_DEFAULTS.items()
        },
        trusted_proxies=_bounded_from_zero(reader, "TRUSTED_PROXIES", 0, MAX_TRUSTED_PROXIES),
        card_captcha_after_declines=_number(
            reader, "CARD_CAPTCHA_AFTER_DECLINES", 0, integer=True, minimum=0
        ),
        card_captcha_field=reader.string("CARD_CAPTCHA_FIELD", DEFAULT_CAPTCHA_FIELD)
        or DEFAULT_CAPTCHA_FIELD,
    )


def _choice(reader: _Reader, key: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (the first is the default)."""
    value = reader.string(key, choices[0])
    if value not in choices:
        raise ConfigurationError(f"{_where(key)} must be one of {', '.join(choices)}.")
    return str(value)


def _account_id(reader: _Reader) -> str | None:
    value = reader.string("ACCOUNT_ID")
    if value is not None and not re.fullmatch(rules.ACCOUNT_ID_PATTERN, value):
        raise ConfigurationError(f"{_where('ACCOUNT_ID')} must be an ACCO_ account id.")
    return value


def _connect_scopes(reader: _Reader) -> tuple[str, ...]:
    scopes = reader.strings("CONNECT_SCOPES", DEFAULT_CONNECT_SCOPES)
    unknown = sorted(set(scopes) - CONNECT_SCOPES)
    if unknown or not scopes:
        raise ConfigurationError(
            f"{_where('CONNECT_SCOPES')} must list scopes among "
            f"{', '.join(sorted(CONNECT_SCOPES))}"
            + (f" (not {', '.join(unknown)})." if unknown else ".")
        )
    return scopes


def _state_file(reader: _Reader) -> str | None:
    """``EMULATOR_STATE_FILE``: a path, ``False`` (none: ``""``), or unset (None)."""
    value = reader.get(
        "EMULATOR_STATE_FILE",
        lambda v: v is False or (isinstance(v, str | os.PathLike) and bool(str(v))),
        "a file path, or False",
        reader.env.str,
    )
    if value is False or (isinstance(value, str) and value.lower() in ("false", "0", "off")):
        return ""
    return os.fspath(value) if value is not None else None


def _card_limit_defaults() -> dict[str, int]:
    return {key.lower(): value for key, value in CARD_LIMIT_DEFAULTS.items()}


def _bounded_from_zero(reader: _Reader, key: str, default: int, maximum: int) -> int:
    value = int(_number(reader, key, default, integer=True, minimum=0))
    if value > maximum:
        raise ConfigurationError(f"{_where(key)} must be a whole number from 0 to {maximum}.")
    return value


def _threeds_mode(reader: _Reader) -> str:
    mode = reader.string("THREEDS", DEFAULT_THREEDS)
    if mode not in THREEDS_MODES:
        raise ConfigurationError(f"{_where('THREEDS')} must be one of {', '.join(THREEDS_MODES)}.")
    return mode


def misconfigured(message: str, *, logger: logging.Logger) -> None:
    """The package used so that payments would fail or lose a protection: in DEBUG,
    ImproperlyConfigured at once, for the developer; in production it goes on, and an
    error is logged (to ``logger``) for staff every time."""
    if django_settings.DEBUG:
        raise ImproperlyConfigured(message)
    logger.error(message)


def unknown_keys() -> list[str]:
    """Keys of ``settings.ORDERPAY`` this package does not know (most likely typos)."""
    values = getattr(django_settings, "ORDERPAY", None) or {}
    return (
        sorted(str(k) for k in values if k not in KNOWN_KEYS) if isinstance(values, Mapping) else []
    )


class _LazySettings:
    """``orderpay_settings.timeout`` (or ``.TIMEOUT``): each read sees the current settings."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(get_settings(), name.lower())

    def __dir__(self) -> list[str]:
        return list(OrderPaySettings.__dataclass_fields__)

    def __repr__(self) -> str:
        return "<orderpay_settings (lazy)>"


orderpay_settings: Final = _LazySettings()

__all__ = [
    "DEFAULT_NOTIFICATION_MAX_BODY",
    "ENVIRONMENTS",
    "HOSTS",
    "KNOWN_KEYS",
    "Hosts",
    "OrderPaySettings",
    "env_var",
    "get_settings",
    "misconfigured",
    "orderpay_settings",
    "reset_settings",
    "unknown_keys",
]
