"""The emulator behind a Django view: one process-wide emulator for a project's URLconf.

Only this module (and ``urls``) may touch Django; the core knows nothing of it.
Served from a shop's URLconf it is guarded (:func:`refusal`): it answers only
while ``ORDERPAY["ENVIRONMENT"]`` is ``emulator`` and ``DEBUG`` is on (or
``EMULATOR_SERVE_WITHOUT_DEBUG`` says a staging demo may), and its control
plane (``/_emulator/...``: reset, faults, accounts, every delivery) only to an
active staff user of the shop or a request carrying ``EMULATOR_CONTROL_SECRET``
in ``X-Emulator-Secret``. WSGI servers run no system checks, so the view itself
refuses. Its tokens: ``ORDERPAY["EMULATOR_TOKENS"]`` (a list of bearer tokens, or a
mapping token -> ``ACCO_`` id), else ``[ORDERPAY["TOKEN"]]``, else the
emulator's default token; how many orders it remembers:
``ORDERPAY["EMULATOR_RETAIN_ORDERS"]`` (read through ``django_orderpay.conf``);
where it keeps its state across restarts: ``ORDERPAY["EMULATOR_STATE_FILE"]``
(:func:`state_file`), so ``runserver`` reloading keeps the provider's orders
that the database still has. The Connect application of ``CONNECT_CLIENT_ID``,
``CONNECT_CLIENT_SECRET`` and ``CONNECT_REDIRECT_URI``, when all three are
set, is registered in it.
"""

from __future__ import annotations

import hashlib
import hmac
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from django_orderpay.conf import get_settings
from django_orderpay.exceptions import ConfigurationError

from ..core import Emulator
from .http import Request, Response
from .wsgi import DROP_CONNECTION, MAX_BODY_SIZE, ConnectionDropped, body_too_large

__all__ = [
    "CONTROL_SECRET_HEADER",
    "discard_emulator",
    "emulator_view",
    "get_emulator",
    "state_file",
]

#: The header a script sends ``ORDERPAY["EMULATOR_CONTROL_SECRET"]`` in.
CONTROL_SECRET_HEADER = "X-Emulator-Secret"
#: The control plane's paths, under the mount point.
CONTROL_PREFIX = "_emulator"

_lock = threading.Lock()
_emulator: Emulator | None = None


def _emulator_tokens() -> Iterable[str] | Mapping[str, str] | None:
    # conf applies the environment fallbacks and the [TOKEN] default.
    tokens = get_settings(strict=False).emulator_tokens
    return tokens or None


def _applications() -> list[dict[str, str]]:
    """The settings' Connect application, registered so the demo can connect sellers."""
    conf = get_settings(strict=False)
    if not (conf.connect_client_id and conf.connect_client_secret and conf.connect_redirect_uri):
        return []
    return [
        {
            "client_id": conf.connect_client_id,
            "client_secret": conf.connect_client_secret,
            "name": "django-orderpay",
            "redirect_uri": conf.connect_redirect_uri,
        }
    ]


def state_file(database: Mapping[str, Any] | None = None) -> Path | None:
    """Where the mounted emulator keeps its state, or None (kept in memory only).

    ``ORDERPAY["EMULATOR_STATE_FILE"]`` when set (``False``: none). Unset, with
    ``DEBUG`` on: beside the default database when it is a SQLite file
    (``db.sqlite3.orderpay-emulator``: the provider's state lives and goes
    with the shop's; none for an in-memory SQLite database), else a file in
    the temp folder named after the database, so each database has its own;
    with ``DEBUG`` off, none. ``database``: the
    settings of the database it goes with (``DATABASES["default"]`` when None).
    """
    configured = get_settings(strict=False).emulator_state_file
    if configured is not None:
        return Path(configured) if configured else None
    if not settings.DEBUG:
        return None
    if database is None:
        database = settings.DATABASES.get("default", {})
    name = str(database.get("NAME") or "")
    if "sqlite" in str(database.get("ENGINE", "")):
        if not name or name.startswith(":memory:") or "mode=memory" in name:
            return None  # a database that dies with the process: so does the provider's state
        return Path(name).with_name(Path(name).name + ".orderpay-emulator")
    where = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
    digest = hashlib.sha256(where.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"orderpay-emulator-{digest}.state"


def _new_emulator() -> Emulator:
    retain_orders = get_settings(strict=False).emulator_retain_orders
    try:
        return Emulator(
            _emulator_tokens(),
            retain_orders=retain_orders,
            state_file=state_file(),
            applications=_applications(),
        )
    except ValueError as exc:
        key = "CONNECT_REDIRECT_URI" if "Connect" in str(exc) else "EMULATOR_RETAIN_ORDERS"
        raise ConfigurationError(f"ORDERPAY[{key!r}]: {exc}") from None


def get_emulator() -> Emulator:
    """The project's emulator, created on first use from the ``ORDERPAY`` settings."""
    global _emulator
    with _lock:
        if _emulator is None:
            _emulator = _new_emulator()
        return _emulator


def discard_emulator() -> None:
    """Close and forget the project's emulator; the next request creates a fresh one."""
    global _emulator
    with _lock:
        emulator, _emulator = _emulator, None
    if emulator is not None:
        emulator.close()


@receiver(setting_changed)
def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    # override_settings(ORDERPAY=...) in a test must reach the emulator's tokens.
    if setting == "ORDERPAY":
        discard_emulator()


def _mount_point(request: HttpRequest, path: str) -> str:
    """The absolute URL the URLconf is mounted at, without a trailing slash."""
    prefix = request.path[: len(request.path) - len(path)] if path else request.path
    return request.build_absolute_uri(prefix).rstrip("/")


def _read_body(request: HttpRequest) -> bytes | Response:
    raw_length = request.META.get("CONTENT_LENGTH") or ""
    if raw_length.isdigit() and int(raw_length) > MAX_BODY_SIZE:
        return body_too_large()
    try:
        body = request.body
    except RequestDataTooBig:  # the project's DATA_UPLOAD_MAX_MEMORY_SIZE is lower than ours
        return body_too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or MAX_BODY_SIZE)
    return body_too_large() if len(body) > MAX_BODY_SIZE else body


def _to_django(answer: Response) -> HttpResponse:
    response = HttpResponse(answer.body, status=answer.status)
    if answer.header("Content-Type") is None:
        del response["Content-Type"]  # the core sent none; don't claim text/html
    for name, value in answer.headers:
        response[name] = value
    return response


def _has_secret(request: HttpRequest, secret: str | None) -> bool:
    given = request.headers.get(CONTROL_SECRET_HEADER, "")
    return bool(secret) and hmac.compare_digest(given.encode(), (secret or "").encode())


def _is_staff(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def _csrf_refusal(request: HttpRequest) -> HttpResponse | None:
    """Django's CSRF check, for a staff session's unsafe request (this view is exempt
    from the middleware: the API's callers have no CSRF token, but a browser does)."""
    if request.method not in ("GET", "HEAD", "OPTIONS", "TRACE"):
        _read_body(request)  # kept for the emulator: the check may read the form's token
    return CsrfViewMiddleware(lambda _: HttpResponse()).process_view(
        request, lambda _: HttpResponse(), (), {}
    )


def refusal(request: HttpRequest, path: str) -> HttpResponse | None:
    """Why the emulator must not answer this request from the shop's URLconf, or None.

    A 404 when it is not in use (``ENVIRONMENT`` is not ``emulator``: check
    ``orderpay.E006``) or ``DEBUG`` is off without ``EMULATOR_SERVE_WITHOUT_DEBUG``
    (check ``orderpay.E002``); a 403 for the control plane without a staff
    user or the secret.
    """
    conf = get_settings(strict=False)
    if conf.environment != "emulator":
        raise Http404("the emulator is not in use")
    if not settings.DEBUG and not conf.emulator_serve_without_debug:
        raise Http404("the emulator is not served while DEBUG is off")
    control = path.lstrip("/").startswith(CONTROL_PREFIX)
    if not control or _has_secret(request, conf.emulator_control_secret):
        return None
    if _is_staff(request):
        return _csrf_refusal(request)
    return JsonResponse(
        {
            "error": "forbidden",
            "detail": f"the control plane needs a staff user or the {CONTROL_SECRET_HEADER} "
            "header (ORDERPAY['EMULATOR_CONTROL_SECRET'])",
        },
        status=403,
    )


@csrf_exempt
def emulator_view(request: HttpRequest, path: str = "") -> HttpResponse:
    """Every request under the mount point, handed to :func:`get_emulator`, unless
    :func:`refusal` says no: a URLconf left mounted in a deployment must not
    serve the provider's twin, least of all its control plane, to anyone."""
    refused = refusal(request, path)
    if refused is not None:
        return refused
    body = _read_body(request)
    if isinstance(body, Response):
        return _to_django(body)
    answer = get_emulator().handle(
        Request(
            method=request.method or "GET",
            path="/" + path,
            body=body,
            headers=dict(request.headers),
            query=request.META.get("QUERY_STRING", ""),
            base_url=_mount_point(request, path),
        )
    )
    if answer.delay > 0:
        time.sleep(answer.delay)
    if answer.reset:
        # Django cannot drop a connection; a server that can (EmulatorServer) offers a hook.
        drop = request.META.get(DROP_CONNECTION)
        if drop is None:
            raise ConnectionDropped("emulator fault: connection reset")
        drop()
        return HttpResponse(status=502)
    return _to_django(answer)
