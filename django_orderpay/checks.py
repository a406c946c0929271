"""System checks of the ``ORDERPAY`` settings (``manage.py check``).

The ids are stable; silence one with ``SILENCED_SYSTEM_CHECKS`` (for example
``orderpay.E002`` on a staging box that serves the emulator with DEBUG off).

- ``orderpay.E001`` (error): no ``TOKEN``.
- ``orderpay.E002`` (error): ``ENVIRONMENT`` is ``emulator`` while ``DEBUG`` is False (a
  mounted emulator then answers 404 unless ``EMULATOR_SERVE_WITHOUT_DEBUG``).
- ``orderpay.E003`` (error): the API base URL is not https while ``DEBUG`` is False.
- ``orderpay.E004`` (error): a setting has an invalid value (the message names it).
- ``orderpay.E005`` (error): ``NOTIFICATION_BACKGROUND`` is on but neither ``django.tasks``
  (Django 6) nor ``django_tasks`` (the django-tasks backport) can be imported.
- ``orderpay.E006`` (error): the emulator's URLconf is mounted while ``ENVIRONMENT`` is
  not ``emulator`` (it serves nothing then, but a deployment should not carry it).
- ``orderpay.W001`` (warning): notifications are not verified (``NOTIFICATION_VERIFY``
  False): each is re-fetched, never trusted, but anyone can trigger those fetches.
- ``orderpay.W002`` (warning): ``NOTIFICATION_URL`` is not https while ``DEBUG`` is False.
- ``orderpay.W003`` (warning): ``ORDERPAY`` has a key this package does not know; the
  hint names the closest known key ("Did you mean 'NOTIFICATION_URL'?").
- ``orderpay.W004`` (warning): ``NOTIFICATION_VERIFY`` is on but ``NOTIFICATION_TOKENS``
  is empty, so every notification would be refused.
- ``orderpay.I001`` (info): in the sandbox, notifications without
  ``x-authenticity-token`` (it often omits it) are accepted unverified and the
  order re-fetched with the API token; a wrong token is still refused.
- ``orderpay.W005`` (warning): a database has ``ATOMIC_REQUESTS``: a service called
  from a view records its operation inside the request's transaction, so the record
  is not committed before the provider is called.
- ``orderpay.E007`` (error): PagBank Connect is configured (``CONNECT_CLIENT_ID``) without
  ``CONNECT_CLIENT_SECRET``, or without usable ``CONNECT_KEYS`` to encrypt the tokens.
- ``orderpay.E008`` (error): ``CARD_CAPTCHA_AFTER_DECLINES`` is set but the
  ``CARD_CAPTCHA_FIELD`` class can't be imported (install the ``captcha`` extra).
- ``orderpay.E009`` (error): PagBank Connect is configured and ``NOTIFICATION_URL`` is too
  long for a connected account's: with ``?account=<pk>`` (the largest key) it would pass
  the 100 characters PagBank's Checkout API takes per notification URL.
- ``orderpay.W006`` (warning): the ``default`` cache is Django's ``DummyCache``, so the
  card-testing limits and the other rate limits count nothing.
- ``orderpay.I002`` (info, ``check --deploy`` only): the ``default`` cache is one
  process's memory (``LocMemCache``): with several processes or servers the limits
  count per process (docs/security.md, "The cache").
"""

from __future__ import annotations

import difflib
from importlib import import_module
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Info, Tags, Warning, register

from django_orderpay.conf import KNOWN_KEYS, env_var, get_settings, unknown_keys
from django_orderpay.exceptions import ConfigurationError

TAG = "orderpay"
#: The cache backends the rate limits can't share between processes, or can't count in.
LOCAL_CACHE = "django.core.cache.backends.locmem.LocMemCache"
DUMMY_CACHE = "django.core.cache.backends.dummy.DummyCache"
#: Django's tasks framework: in Django itself from 6.0, else the django-tasks backport.
TASKS_MODULES = ("django.tasks", "django_tasks")


def tasks_framework_importable() -> bool:
    """Whether ``django.tasks`` or ``django_tasks`` can be imported (tried now, not cached)."""
    for name in TASKS_MODULES:
        try:
            import_module(name)
        except ImportError:
            continue
        return True
    return False


EMULATOR_URLCONF = "django_orderpay.emulator.urls"


def emulator_mounts() -> list[str]:
    """Where the project's URLconf includes the emulator's (``"emulator/"``), if anywhere."""
    from django.urls import URLResolver, get_resolver

    found: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if not isinstance(pattern, URLResolver):
                continue
            module = pattern.urlconf_name
            name = module if isinstance(module, str) else getattr(module, "__name__", "")
            if name == EMULATOR_URLCONF:
                found.append(prefix + str(pattern.pattern))
            else:
                walk(pattern.url_patterns, prefix + str(pattern.pattern))

    try:
        walk(get_resolver().url_patterns, "")
    except Exception:  # a broken URLconf is Django's own check to report
        return []
    return found


@register(TAG)
def check_settings(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Every check of the settings; all run, each reports on its own."""
    try:
        conf = get_settings(strict=False)
    except ConfigurationError as exc:
        return [Error(str(exc), id="orderpay.E004")]

    messages: list[CheckMessage] = []
    if not conf.token:
        messages.append(
            Error(
                "No OrderPay API token is configured.",
                hint=f"Set ORDERPAY['TOKEN'] or the {env_var('TOKEN')} environment variable.",
                id="orderpay.E001",
            )
        )
    if not settings.DEBUG:
        if conf.environment == "emulator":
            messages.append(
                Error(
                    "ORDERPAY['ENVIRONMENT'] is 'emulator' with DEBUG off: "
                    "payments would go to the built-in emulator, not to the provider.",
                    hint="Use 'sandbox' or 'production' in a deployment. Where the emulator "
                    "is meant with DEBUG off (a staging demo, CI), silence orderpay.E002; a "
                    "mounted emulator also needs ORDERPAY['EMULATOR_SERVE_WITHOUT_DEBUG'].",
                    id="orderpay.E002",
                )
            )
        elif not conf.base_url.startswith("https://"):
            messages.append(
                Error(
                    f"The OrderPay API base URL {conf.base_url!r} is not https with DEBUG off: "
                    "the API token and card data would cross the network in clear.",
                    hint="Remove ORDERPAY['BASE_URL'] or make it an https URL.",
                    id="orderpay.E003",
                )
            )
        if conf.notification_url and not conf.notification_url.startswith("https://"):
            messages.append(
                Warning(
                    f"ORDERPAY['NOTIFICATION_URL'] {conf.notification_url!r} is not https.",
                    hint="The provider posts whole orders there; use an https URL.",
                    id="orderpay.W002",
                )
            )
    if not conf.notification_verify:
        # Processing never applies an unverified body (it re-fetches the order),
        # so state stays right; but anyone can then make the shop call the API
        # and fill the delivery log, and NOTIFICATION_TRUST_BODY has no effect.
        messages.append(
            Warning(
                "Notifications are not verified (NOTIFICATION_VERIFY is False): every one "
                "is re-fetched from the provider, so anyone who can reach the URL makes "
                "the shop call the API; NOTIFICATION_TRUST_BODY has no effect.",
                hint="Set NOTIFICATION_VERIFY to True once the provider sends "
                "x-authenticity-token (the sandbox often omits it).",
                id="orderpay.W001",
            )
        )
    if conf.notification_verify and conf.environment == "sandbox":
        messages.append(
            Info(
                "The sandbox often sends notifications without x-authenticity-token: those "
                "are recorded and their order re-fetched with your API token (never trusted, "
                "NOTIFICATION_TRUST_BODY or not); one with a wrong token is refused (401).",
                hint="Nothing to do: the re-fetch proves the order is yours. In production "
                "the header is checked whenever it is present.",
                id="orderpay.I001",
            )
        )
    if conf.notification_verify and conf.token and not conf.notification_tokens:
        messages.append(
            Warning(
                "NOTIFICATION_VERIFY is on but NOTIFICATION_TOKENS is empty: "
                "every notification would be refused (401).",
                hint="Remove ORDERPAY['NOTIFICATION_TOKENS'] (it defaults to [TOKEN]) "
                "or list the API token(s) the provider signs with.",
                id="orderpay.W004",
            )
        )
    if conf.notification_background and not tasks_framework_importable():
        messages.append(
            Error(
                "ORDERPAY['NOTIFICATION_BACKGROUND'] is on but Django's tasks framework is "
                "missing: neither django.tasks nor django_tasks can be imported, so "
                "notifications could not be queued.",
                hint="Use Django 6, or install django-tasks on Django 5.2 "
                "(pip install 'django-orderpay[tasks]'), or set NOTIFICATION_BACKGROUND "
                "to False.",
                id="orderpay.E005",
            )
        )
    atomic = sorted(alias for alias, db in settings.DATABASES.items() if db.get("ATOMIC_REQUESTS"))
    if atomic:
        # The operation record must be committed before the request leaves, so
        # a crash or a rollback after the provider acted still leaves a trace.
        messages.append(
            Warning(
                f"ATOMIC_REQUESTS is on for {', '.join(atomic)}: payment views run the "
                "services inside the request's transaction, so an operation is recorded "
                "only when the view's transaction commits (a view that fails after the "
                "provider charged rolls its record back; the provider's notification still "
                "adopts the order).",
                hint="Decorate the views that create, pay, capture or refund with "
                "django.db.transaction.non_atomic_requests.",
                id="orderpay.W005",
            )
        )
    if conf.environment != "emulator":
        for mount in emulator_mounts():
            messages.append(
                Error(
                    f"The emulator's URLconf is mounted at {mount!r} while ORDERPAY['ENVIRONMENT'] "
                    f"is {conf.environment!r}: its control plane (reset, faults, accounts) "
                    "must never be reachable in a deployment; it answers 404 here.",
                    hint='Remove path(..., include("django_orderpay.emulator.urls")) from '
                    "this URLconf, or mount it only when the emulator is in use.",
                    id="orderpay.E006",
                )
            )
    messages.extend(_connect_problems(conf))
    if conf.card_captcha_after_declines and not _importable(conf.card_captcha_field):
        messages.append(
            Error(
                f"CARD_CAPTCHA_AFTER_DECLINES is set but CARD_CAPTCHA_FIELD "
                f"{conf.card_captcha_field!r} can't be imported: the card forms could not "
                "ask for a CAPTCHA.",
                hint="pip install 'django-orderpay[captcha]' and add 'captcha' to "
                "INSTALLED_APPS (and its URLs), or name another package's form field.",
                id="orderpay.E008",
            )
        )
    for key in unknown_keys():
        closest = closest_key(key)
        messages.append(
            Warning(
                f"ORDERPAY[{key!r}] is not a setting of django-orderpay.",
                hint=f"Did you mean {closest!r}?"
                if closest
                else "Known keys: " + ", ".join(sorted(KNOWN_KEYS)),
                id="orderpay.W003",
            )
        )
    return messages


def _connect_problems(conf: Any) -> list[CheckMessage]:
    """PagBank Connect configured without what it needs (orderpay.E007), or with a
    ``NOTIFICATION_URL`` its accounts' checkouts can't be sent (orderpay.E009)."""
    if not conf.connect_client_id:
        return []
    problems = _notification_url_too_long(conf.notification_url or "")
    missing = []
    if not conf.connect_client_secret:
        missing.append("CONNECT_CLIENT_SECRET (the application's secret)")
    if not conf.connect_keys:
        missing.append("CONNECT_KEYS (Fernet keys the accounts' tokens are encrypted with)")
    else:
        from cryptography.fernet import Fernet

        try:
            for key in conf.connect_keys:
                Fernet(key)
        except (ValueError, TypeError):
            missing.append("CONNECT_KEYS that are Fernet keys (32 url-safe base64 bytes each)")
    problems += [
        Error(
            f"PagBank Connect (CONNECT_CLIENT_ID) needs {what}.",
            hint="See docs/connect.md; django_orderpay.connect.cipher.generate_key() makes a key.",
            id="orderpay.E007",
        )
        for what in missing
    ]
    return problems


def _notification_url_too_long(url: str) -> list[CheckMessage]:
    """orderpay.E009: a connected account's ``NOTIFICATION_URL`` past the Checkout API's limit."""
    from django_orderpay.connect.routing import longest_notification_url, notification_url_limit

    longest = longest_notification_url(url)
    if len(url) <= longest:
        return []
    error = Error(
        f"ORDERPAY['NOTIFICATION_URL'] is {len(url)} characters: a connected account's "
        "orders and checkouts are sent it with ?account=<the account's key>, and with the "
        f"longest key it would pass the {notification_url_limit()} characters PagBank's "
        "Checkout API takes per notification URL, so their hosted checkouts would be refused.",
        hint=f"Shorten NOTIFICATION_URL to at most {longest} characters. If no connected "
        "account ever gets a hosted checkout (the Orders API has no such limit), silence "
        "orderpay.E009.",
        id="orderpay.E009",
    )
    return [error]


def closest_key(key: str) -> str | None:
    """The known setting ``key`` was most likely meant to be (a typo, or the wrong case)."""
    found = difflib.get_close_matches(key.upper(), KNOWN_KEYS, n=1, cutoff=0.75)
    return found[0] if found else None


def _importable(dotted_path: str) -> bool:
    from django.utils.module_loading import import_string

    try:
        import_string(dotted_path)
    except ImportError:
        return False
    return True


def _default_cache_backend() -> str:
    return str((getattr(settings, "CACHES", None) or {}).get("default", {}).get("BACKEND", ""))


@register(TAG)
def check_cache(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """The rate limits count in the ``default`` cache: one that counts nothing is a hole."""
    try:
        limits = get_settings(strict=False).card_testing_limits
    except ConfigurationError:
        return []  # check_settings reports it
    if _default_cache_backend() == DUMMY_CACHE and limits:
        return [
            Warning(
                "CACHES['default'] is DummyCache: the card-testing limits, the installment "
                "plans' throttle and the budget of unverified notifications count nothing.",
                hint="Use a real cache (Redis or Memcached when several processes serve the "
                "shop), or set ORDERPAY['CARD_TESTING_LIMITS'] to False knowingly.",
                id="orderpay.W006",
            )
        ]
    return []


@register(TAG, Tags.security, deploy=True)
def check_cache_is_shared(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """``check --deploy``: a per-process cache makes every limit per process."""
    backend = _default_cache_backend() or LOCAL_CACHE  # Django's default when unset
    if backend != LOCAL_CACHE:
        return []
    return [
        Info(
            "CACHES['default'] is LocMemCache, one process's memory: with several processes "
            "or servers, each counts card attempts and throttles on its own, and the limits "
            "multiply by their number.",
            hint="Point CACHES['default'] at a cache every process shares (Redis, Memcached).",
            id="orderpay.I002",
        )
    ]
