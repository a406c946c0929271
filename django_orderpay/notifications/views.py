"""The endpoint the provider POSTs notifications to (``notification_urls``).

Order of work, each step for a reason:

1. ``Content-Length`` over the limit: refuse (413) before reading a byte.
2. Read the raw body (``request.body``) before anything parses it: the
   authenticity token is a digest of these exact bytes. A gzip
   ``Content-Encoding`` is undone, bounded by the same limit.
3. Run the checks (:mod:`.verification`): size, content type, token. A post
   without a token (unverified) must also fit the budget of fetches strangers
   may cause (:mod:`.unverified`).
4. Record the delivery (:mod:`.recording`), whatever the verdict: a refused
   one in a transaction of its own; an accepted one as the first statement of
   its processing transaction (a failure is written after the rollback), or
   on its own before a worker is woken for it (``NOTIFICATION_BACKGROUND``).
   Only a verified body is kept whole: a refused or unverified one keeps its
   first 16 KiB (its size and digest whole), and headers are capped.
5. Process it (:mod:`.processing`), or leave it to a worker (:mod:`.tasks`).

Answers are JSON and never a traceback: 2xx when the provider should stop
(processed, duplicate, ignored, received for background processing), 4xx
for a request that is not a notification we accept, 500 when processing
failed and a retry may succeed.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from django_orderpay.conf import get_settings
from django_orderpay.connect import routing
from django_orderpay.connect.routing import Route
from django_orderpay.models import Checkout, DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.sync import single_write
from django_orderpay.sync.inserting import insert

from . import recording, unverified
from .processing import Result, receive_delivery
from .verification import (
    DEFAULT_CHECKS,
    DEFAULT_MAX_BODY_SIZE,
    Check,
    Incoming,
    Policy,
    Rejected,
    Verified,
    check_declared_size,
    decode_body,
    is_checkout,
    read_order,
    too_large,
    verify,
)

logger = logging.getLogger("django_orderpay.notifications")


class JSONOnly(BaseContentNegotiation):
    """Always answer JSON, whatever ``Accept`` says: the provider only reads the status."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(self, request: Request, renderers: Any, format_suffix: Any = None) -> Any:
        return (renderers[0], renderers[0].media_type)


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except (TypeError, ValueError):
        return None


#: Bytes read at a time from a chunked request's stream.
READ_SIZE = 64 * 1024


def _is_chunked(request: HttpRequest) -> bool:
    """A body sent with ``Transfer-Encoding: chunked`` and no ``Content-Length``."""
    encoding = request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
    return "chunked" in encoding and not request.META.get("CONTENT_LENGTH")


def _order_id_hint(body: bytes) -> str:
    """The order a refused body names, if it names one: a clue for whoever reads the log."""
    try:
        return read_order(body)[1]
    except Rejected:
        return ""


def _whose(order_id: str, route: Route | None = None) -> tuple[str, int]:
    """Why a refused token matters, for the log: the order it names is ours, or not.

    Another merchant's (or environment's) notification sent here is noise;
    one of this shop's own refused means real notifications are being lost
    to a setting. Only the log says which: the answer must not tell a
    stranger which orders exist. ``(text, logging level)``.
    """
    mirror = Checkout if is_checkout(order_id) else Order
    what = mirror._meta.model_name
    if mirror.objects.filter(provider_id=order_id).exists():
        advice = "is the API token that created it in NOTIFICATION_TOKENS?"
        if route is not None and route.account is not None:
            advice = (
                f"it is connected account {route.account.account_id}'s: which token does "
                "PagBank sign with (CONNECT_NOTIFICATION_SIGNER)?"
            )
        return f"{what} {order_id} is this shop's; {advice}", logging.WARNING
    return (
        f"{what} {order_id} is unknown here: another merchant's or environment's notification?",
        logging.INFO,
    )


class NotificationView(APIView):
    """Receive, verify, record and process one provider notification.

    Subclass to change ``checks`` (add your own, e.g. an IP allow-list) or
    ``max_body_size`` (bytes; None reads ``ORDERPAY['NOTIFICATION_MAX_BODY']``, 1 MiB by
    default), or pass them to ``as_view()``.
    """

    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = ()
    # No parsers: nothing but this view reads the body, and only as raw bytes.
    parser_classes = ()
    renderer_classes = (JSONRenderer,)
    content_negotiation_class = JSONOnly
    versioning_class = None
    # POST only: anything else is a 405 and not recorded (not a delivery); OPTIONS
    # would otherwise describe the view, docstring and all, to anyone.
    http_method_names = ["post"]

    checks: tuple[Check, ...] = DEFAULT_CHECKS
    max_body_size: int | None = None

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        # The delivery log must commit on its own even under ATOMIC_REQUESTS:
        # a request-wide transaction would take it down with a failed processing.
        return transaction.non_atomic_requests(super().as_view(**initkwargs))

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """A POST goes straight to :meth:`answer_post` when DRF's steps would do nothing.

        With no authentication, no throttles and no permission beyond
        ``AllowAny`` (this class's settings), ``APIView.dispatch`` only wraps
        the request and negotiates an answer this view never renders: about
        8 % of a background request, measured in process. A subclass that
        sets any of them (or another method) goes through DRF's dispatch.
        """
        if request.method == "POST" and self._drf_adds_nothing():
            # self.request is the Django request here (View.setup set it).
            return self.answer_post(request)
        return super().dispatch(request, *args, **kwargs)

    def _drf_adds_nothing(self) -> bool:
        return (
            not self.authentication_classes
            and not self.throttle_classes
            and all(permission is AllowAny for permission in self.permission_classes)
        )

    def post(self, request: Request) -> HttpResponse:
        return self.answer_post(request._request)

    def answer_post(self, request: HttpRequest) -> HttpResponse:
        """:meth:`receive`, and a 500 in words (the request logged as failed) if it crashes."""
        try:
            return self.receive(request)
        except Exception as exc:
            # Only a bug of ours, broken settings or the database gone get
            # here. The provider retries a 500; the log line has the traceback.
            logger.exception("notification view failed before it could answer")
            self.record_crash(request, exc)
            return JsonResponse(
                {
                    "outcome": DeliveryOutcome.FAILED,
                    "error": {"code": "internal_error", "message": "retry later"},
                },
                status=500,
            )

    def record_crash(self, request: HttpRequest, exc: Exception) -> None:
        """Last resort: log the request as failed, if the database still answers."""
        try:
            # The settings may be what crashed: the class default bounds what is kept.
            limit = self.max_body_size or DEFAULT_MAX_BODY_SIZE
            body = request.body if (_content_length(request) or 0) <= limit else b""
        except Exception:
            body = b""
        error, trace = recording.describe(exc)
        try:
            recording.record_delivery(
                body=body,
                headers=dict(request.headers),
                remote_addr=recording.client_address(request.META),
                content_type=request.META.get("CONTENT_TYPE", ""),
                valid=None,
                outcome=DeliveryOutcome.FAILED,
                order_provider_id=_order_id_hint(body),
                error=error,
                traceback=trace,
            )
        except Exception:
            logger.exception("notification could not be recorded either")

    def receive(self, request: HttpRequest) -> HttpResponse:
        """Steps 1 to 5 of the module's docstring."""
        limit = self.max_body_size or get_settings().notification_max_body
        policy = Policy.from_settings(max_body_size=limit)
        headers = dict(request.headers)
        content_type = request.META.get("CONTENT_TYPE", "")
        remote_addr = recording.client_address(request.META)
        common: dict[str, Any] = {
            "headers": headers,
            "remote_addr": remote_addr,
            "content_type": content_type,
            "secrets": policy.tokens,
        }
        body = b""
        route: Route | None = None
        try:
            check_declared_size(_content_length(request), policy)
            body = raw = self.read_body(request, policy)
            body = decode_body(raw, request.headers.get("Content-Encoding", ""), policy)
            incoming = Incoming(
                body,
                headers,
                content_type,
                received=raw,
                remote_addr=remote_addr,
                meta=request.META,
            )
            # Connect: the account it is for decides the tokens it is checked with.
            route = routing.route(request, body, policy)
            verified = verify(incoming, route.policy, self.checks)
            if verified.valid is not True:
                self.check_fetch_budget(verified)
        except Rejected as rejected:
            order_id = _order_id_hint(body)
            error = f"{rejected.field}: {rejected.message}" if rejected.field else str(rejected)
            level = logging.INFO
            if rejected.status == 401 and order_id:
                whose, level = _whose(order_id, route)
                error = f"{error} ({whose})"
            delivery = recording.record_delivery(
                body=body,
                whole=False,
                valid=rejected.valid,
                outcome=rejected.outcome,
                order_provider_id=order_id,
                error=error,
                **common,
            )
            logger.log(
                level,
                "notification %s refused: %s (%s) %s",
                delivery.pk,
                rejected.code,
                rejected.status,
                error,
            )
            return self.answer(delivery, rejected.outcome, rejected.status, rejected)
        if route.unknown_account:
            return self.not_connected(route, verified, body, common)
        delivery = recording.new_delivery(
            body=body,
            whole=verified.valid is True,
            valid=verified.valid,
            order_provider_id=verified.order_id,
            dedupe_key=incoming.dedupe_key,
            **common,
        )
        delivery.account = route.account
        delivery.signed_with = route.signed_with(incoming) if verified.valid else ""
        if get_settings().notification_background:
            with single_write():
                insert(delivery)
            return self.enqueue(delivery, policy)
        # Recorded and processed in one transaction. One bounded fetch: the
        # provider's request must not wait on our retries. A failure answers
        # 5xx, and the provider retries later.
        result = receive_delivery(
            delivery, verified.payload, verified.order_id, client=routing.client_of(route, 0)
        )
        return self.answer_result(delivery, result)

    def not_connected(
        self, route: Route, verified: Any, body: bytes, common: dict[str, Any]
    ) -> HttpResponse:
        """A verified notification for an account not connected here: 200 ``ignored``."""
        detail = f"account {route.unknown_account} is not connected here"
        delivery = recording.record_delivery(
            body=body,
            valid=verified.valid,
            outcome=DeliveryOutcome.IGNORED,
            order_provider_id=verified.order_id,
            error=detail,
            **common,
        )
        logger.info("notification %s ignored: %s", delivery.pk, detail)
        return self.answer(delivery, DeliveryOutcome.IGNORED, 200)

    def check_fetch_budget(self, verified: Verified) -> None:
        """An unverified post may cause a fetch only within :mod:`.unverified`'s budget
        (:class:`Rejected` otherwise: 429, or 200 ``ignored`` for an id known to be 404)."""
        subject = verified.order_id or next(iter(verified.charge_ids), "")
        refused = unverified.refusal(subject) if subject else None
        if refused is not None:
            raise refused

    def read_body(self, request: HttpRequest, policy: Policy) -> bytes:
        """The raw body, as sent; :class:`Rejected` if it is too big or can't be read.

        A chunked request has no ``Content-Length``, and Django then reads an
        empty body (its stream stops at the declared length, 0): read the
        server's decoded stream instead (gunicorn undoes the chunking), up to
        the limit.
        """
        if _is_chunked(request):
            return self.read_chunked(request, policy)
        try:
            return request.body
        except RequestDataTooBig:
            # Django's own DATA_UPLOAD_MAX_MEMORY_SIZE is lower than our limit.
            raise too_large(_content_length(request) or 0, policy) from None
        except UnreadablePostError:
            raise Rejected(
                400, "unreadable_body", "the body could not be read", field="body"
            ) from None

    def read_chunked(self, request: HttpRequest, policy: Policy) -> bytes:
        stream = request.META.get("wsgi.input")
        if stream is None:
            return b""
        parts: list[bytes] = []
        size = 0
        try:
            while size <= policy.max_body_size:
                part = stream.read(min(READ_SIZE, policy.max_body_size + 1 - size))
                if not part:
                    break
                parts.append(part)
                size += len(part)
        except OSError:
            raise Rejected(
                400, "unreadable_body", "the body could not be read", field="body"
            ) from None
        if size > policy.max_body_size:
            raise too_large(size, policy)
        return b"".join(parts)

    def enqueue(self, delivery: NotificationDelivery, policy: Policy) -> HttpResponse:
        """Background mode: the delivery is recorded; make sure a worker will process it."""
        from .tasks import ran, wake_workers

        try:
            task_result = wake_workers()
        except Exception as exc:
            logger.exception("notification %s could not be enqueued", delivery.pk)
            recording.record_failure(delivery, exc, policy.tokens)
            return self.answer(delivery, DeliveryOutcome.FAILED, 500)
        # A queue has not run it yet ("received"); the immediate backend (a
        # development setup) has, and then the answer tells how it went.
        if task_result is None or not ran(task_result):
            return self.answer(delivery, DeliveryOutcome.RECEIVED, 200)
        with single_write():
            delivery.refresh_from_db(fields=["outcome", "error"])
        return self.answer_result(delivery, Result.of(delivery.outcome, delivery.error))

    def answer_result(self, delivery: NotificationDelivery, result: Result) -> HttpResponse:
        error = None
        if 400 <= result.http_status < 500:
            error = Rejected(result.http_status, result.outcome, result.detail)
        return self.answer(delivery, result.outcome, result.http_status, error)

    def answer(
        self,
        delivery: NotificationDelivery,
        outcome: str,
        status: int,
        error: Rejected | None = None,
    ) -> HttpResponse:
        body: dict[str, Any] = {"outcome": str(outcome), "delivery": delivery.pk}
        if error is not None:
            body["error"] = error.as_dict()
        elif status >= 500:
            body["error"] = {
                "code": "processing_failed",
                "message": "the delivery is logged; retry later",
            }
        # A plain JsonResponse: the answer is always this small JSON, so DRF's
        # negotiation and rendering buy nothing (they were 4 % of a background
        # request's profile).
        return JsonResponse(body, status=status)
