"""The delivery log: every request is written down, and a failure is written after its rollback.

A delivery the view processes at once is inserted *in* its processing
transaction, as that transaction's first statement: as the **claim** on its
body (:func:`claim`). The row says ``processed``, the outcome it has if the
transaction commits; no other connection can see it before then. A unique
index allows one ``processed`` delivery per dedupe key, so a copy of the same
body arriving meanwhile waits on that index for the first to finish, then
finds it and is recorded as a ``duplicate`` (:func:`record_duplicate`). When
processing fails, the transaction rolls back (the claim with it) and the
failure is inserted afterwards, in a transaction of its own
(:func:`record_after_rollback`). (dj-stripe learned the hard way that a
webhook stored only inside a transaction that then failed vanishes with it.)

A delivery refused at the door, or queued for a background worker, is
inserted on its own and committed at once (:func:`record_delivery`); a
worker claims it with an update (:func:`claim_recorded`). The view runs with
``non_atomic_requests``, so ``ATOMIC_REQUESTS`` can't fold any of this into
the request's transaction.

Writes go through :mod:`django_orderpay.sync.locking`: on SQLite, whose
writers can't wait for each other's locks, they take turns with the syncs of
the same process.
"""

from __future__ import annotations

import hashlib
import ipaddress
import traceback as tb
from collections.abc import Iterable, Mapping

from django.db import IntegrityError, transaction
from django.db.models import F, TextField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from django_orderpay.models import DeliveryOutcome, NotificationDelivery, Order, redact_headers
from django_orderpay.models.base import ERROR_TEXT_KEPT
from django_orderpay.models.notifications import (
    CUT,
    HEADER_VALUE_KEPT,
    HEADERS_KEPT,
    HEADERS_LEFT_OUT,
    UNVERIFIED_BODY_KEPT,
)
from django_orderpay.redaction import redact_text
from django_orderpay.sync import single_write
from django_orderpay.sync.inserting import insert, insert_new
from django_orderpay.sync.orders import insert_then_lock_order

#: Longest error text kept (a traceback is kept whole, tracebacks are bounded).
MAX_ERROR_LENGTH = ERROR_TEXT_KEPT
#: What a duplicate's ``error`` says (followed by the first copy's id).
COPY_OF = "a copy of delivery "


def client_address(meta: Mapping[str, object]) -> str | None:
    """``REMOTE_ADDR`` when it is an IP address (a proxy's own header is kept in ``headers``)."""
    value = str(meta.get("REMOTE_ADDR") or "").strip()
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def capped_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` as stored: each value cut to ``HEADER_VALUE_KEPT`` characters, and no more
    than ``HEADERS_KEPT`` in all; how many were left out is said in ``HEADERS_LEFT_OUT``."""
    kept: dict[str, str] = {}
    size = left_out = 0
    for name, value in headers.items():
        name = str(name)[:HEADER_VALUE_KEPT]
        value = str(value)
        if len(value) > HEADER_VALUE_KEPT:
            value = value[: HEADER_VALUE_KEPT - len(CUT)] + CUT
        if size + len(name) + len(value) > HEADERS_KEPT:
            left_out += 1
            continue
        kept[name] = value
        size += len(name) + len(value)
    if left_out:
        kept[HEADERS_LEFT_OUT] = str(left_out)
    return kept


def new_delivery(
    *,
    body: bytes,
    whole: bool = True,
    headers: Mapping[str, str],
    remote_addr: str | None,
    content_type: str,
    valid: bool | None,
    outcome: str = DeliveryOutcome.RECEIVED,
    order_provider_id: str = "",
    dedupe_key: str = "",
    error: str = "",
    traceback: str = "",
    secrets: Iterable[str] = (),
) -> NotificationDelivery:
    """One delivery as received (or as rejected), not saved yet.

    ``headers`` lose the values of credential headers and are capped
    (:func:`capped_headers`); ``error`` loses any
    of ``secrets`` (the configured tokens) should it ever quote one. Unless
    ``whole`` (a delivery to process), only the body's first
    ``UNVERIFIED_BODY_KEPT`` bytes are kept, with its size and digest.
    """
    body = bytes(body)
    return NotificationDelivery(
        body=body if whole else body[:UNVERIFIED_BODY_KEPT],
        body_size=len(body),
        headers=capped_headers(redact_headers(headers)),
        remote_addr=remote_addr,
        content_type=content_type[:255],
        valid=valid,
        outcome=outcome,
        order_provider_id=order_provider_id[:64],
        dedupe_key=dedupe_key or hashlib.sha256(body).hexdigest(),
        error=redact_text(error, secrets)[:MAX_ERROR_LENGTH],
        traceback=redact_text(traceback, secrets),
    )


def record_delivery(**fields: object) -> NotificationDelivery:
    """Insert one delivery (:func:`new_delivery`'s arguments), committed on its own."""
    delivery = new_delivery(**fields)  # type: ignore[arg-type]
    with single_write():
        insert(delivery)
    return delivery


def claim(delivery: NotificationDelivery, order_id: str = "") -> tuple[bool, Order | None]:
    """Insert a new delivery as the one that applies its body; then lock the order it names.

    ``(claimed, the order locked)``: ``(False, None)`` if a processed copy
    already holds the claim; the order is None when ``order_id`` is ""
    or names no order mirrored here. Inside the processing transaction.
    The row is written ``processed`` (attempt 1): what it says once this
    transaction commits, and only then can anyone read it. Any other ending
    rewrites it (:func:`change_outcome`) or takes it away (a rollback). On
    PostgreSQL the insert and the lock are one statement
    (:func:`~django_orderpay.sync.orders.insert_then_lock_order`).
    """
    delivery.outcome = DeliveryOutcome.PROCESSED
    delivery.attempts = 1
    delivery.processed_at = timezone.now()
    if order_id:
        return insert_then_lock_order(delivery, order_id)
    return bool(insert_new([delivery])), None


def record_duplicate(delivery: NotificationDelivery) -> None:
    """Insert a new delivery as a duplicate of the processed copy that holds its claim.

    The copy's id is read by the insert itself (one statement, not two).
    """
    delivery.pk = None
    delivery.outcome = DeliveryOutcome.DUPLICATE
    delivery.attempts = 1
    delivery.processed_at = timezone.now()
    delivery.error = _copy_of(delivery.dedupe_key)
    insert(delivery)
    delivery.error = COPY_OF.strip()


#: The output field of :func:`_copy_of`, made once (as costly to build as the rest).
_TEXT = TextField()


def _copy_of(dedupe_key: str) -> RawSQL:
    """``COPY_OF`` and the id of the processed delivery of ``dedupe_key``, as SQL.

    What ``Concat(Value(COPY_OF), Cast(Subquery(...), CharField()))`` says,
    written out: Django took about 1.4 ms to resolve that expression on
    every copy, more than the insert's own round trip (measured on
    PostgreSQL). A copy whose first is gone meanwhile reads ``COPY_OF``
    alone, as ``Concat`` would (it coalesces a missing part to '').
    """
    table = NotificationDelivery._meta.db_table
    # Only the table's name is formatted in; values are parameters.
    sql = (
        f"(%s || COALESCE((SELECT CAST(id AS varchar(20)) FROM {table}"  # noqa: S608
        " WHERE dedupe_key = %s AND outcome = %s LIMIT 1), ''))"
    )
    return RawSQL(sql, [COPY_OF, dedupe_key, DeliveryOutcome.PROCESSED], _TEXT)  # noqa: S611


class Claim:
    """How claiming a recorded delivery went: ``claimed``, or why not."""

    CLAIMED = "claimed"
    #: Another delivery of the same body is processed (``copy_of`` names it).
    COPY = "copy"
    #: The delivery itself moved on since it was read (another worker, a replay).
    MOVED = "moved"


def claim_recorded(delivery: NotificationDelivery) -> tuple[str, int | None]:
    """Claim a delivery recorded earlier (a background one, a replay): ``(Claim.*, copy id)``.

    Inside the processing transaction, in a savepoint: the row is updated to
    ``processed`` only if its outcome is still the one read (else another
    process settled it meanwhile: ``MOVED``, the row re-read). A copy of the
    same body already processed makes the update fail on the unique index
    (after waiting for it, if it is still in progress): ``COPY`` and its id.
    """
    now = timezone.now()
    try:
        with transaction.atomic():
            updated = NotificationDelivery.objects.filter(
                pk=delivery.pk, outcome=delivery.outcome
            ).update(
                outcome=DeliveryOutcome.PROCESSED,
                error="",
                traceback="",
                attempts=F("attempts") + 1,
                processed_at=now,
            )
    except IntegrityError:
        copy = (
            NotificationDelivery.objects.filter(
                dedupe_key=delivery.dedupe_key, outcome=DeliveryOutcome.PROCESSED
            )
            .exclude(pk=delivery.pk)
            .values_list("pk", flat=True)
            .first()
        )
        return Claim.COPY, copy
    if not updated:
        delivery.refresh_from_db()
        return Claim.MOVED, None
    delivery.outcome, delivery.error, delivery.traceback = DeliveryOutcome.PROCESSED, "", ""
    delivery.attempts += 1
    delivery.processed_at = now
    return Claim.CLAIMED, None


#: What claiming and processing a recorded delivery changes on its instance.
ATTEMPT_FIELDS = ("outcome", "error", "traceback", "attempts", "processed_at", "order_provider_id")


def attempt_fields(delivery: NotificationDelivery) -> dict[str, object]:
    """The delivery's :data:`ATTEMPT_FIELDS` as they are now (before an attempt)."""
    return {name: getattr(delivery, name) for name in ATTEMPT_FIELDS}


def restore_attempt_fields(delivery: NotificationDelivery, fields: dict[str, object]) -> None:
    """Put back what an attempt that was rolled back changed on the instance."""
    for name, value in fields.items():
        setattr(delivery, name, value)


def _update(delivery: NotificationDelivery, **fields: object) -> None:
    """Update the row (``attempts`` counted in SQL) and the instance alike."""
    fields["processed_at"] = timezone.now()
    NotificationDelivery.objects.filter(pk=delivery.pk).update(attempts=F("attempts") + 1, **fields)
    for name, value in fields.items():
        setattr(delivery, name, value)
    delivery.attempts += 1


def mark_outcome(delivery: NotificationDelivery, outcome: str, error: str = "") -> None:
    """Set the outcome of one more processing attempt (``attempts`` counted)."""
    _update(delivery, outcome=outcome, error=error[:MAX_ERROR_LENGTH], traceback="")


def change_outcome(delivery: NotificationDelivery, outcome: str, error: str = "") -> None:
    """Change the outcome of the attempt under way (claimed: ``attempts`` already counts it).

    In the processing transaction, so the outcome commits together with the
    state it applied, or not at all.
    """
    error = error[:MAX_ERROR_LENGTH]
    NotificationDelivery.objects.filter(pk=delivery.pk).update(outcome=outcome, error=error)
    delivery.outcome, delivery.error = outcome, error


def name_order(delivery: NotificationDelivery, order_provider_id: str) -> None:
    """Note the order a delivery turned out to be about (its body named only charges).

    Written with the attempt's outcome, in the processing transaction.
    """
    NotificationDelivery.objects.filter(pk=delivery.pk).update(order_provider_id=order_provider_id)
    delivery.order_provider_id = order_provider_id


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> tuple[str, str]:
    """``(error, traceback)`` of ``exc`` as stored: class and message, then the whole trace.

    Our errors never quote a card number or a token; redaction is a second
    line of defence for whatever a library might put in a message.
    """
    secrets = tuple(secrets)
    error = redact_text(f"{type(exc).__name__}: {exc}", secrets)[:MAX_ERROR_LENGTH]
    trace = redact_text("".join(tb.format_exception(exc)), secrets)
    return error, trace


def record_failure(
    delivery: NotificationDelivery, exc: BaseException, secrets: Iterable[str] = ()
) -> None:
    """Write down a failed attempt of a recorded delivery, after its transaction rolled back.

    ``error`` is the exception's class and message, ``traceback`` the whole trace.
    """
    error, trace = describe(exc, secrets)
    with single_write():
        _update(delivery, outcome=DeliveryOutcome.FAILED, error=error, traceback=trace)


def record_rejection(delivery: NotificationDelivery, error: str) -> None:
    """A recorded delivery turned out not to be processable (a malformed body): not retried."""
    with single_write():
        _update(
            delivery,
            outcome=DeliveryOutcome.REJECTED,
            error=error[:MAX_ERROR_LENGTH],
            traceback="",
        )


def record_after_rollback(
    delivery: NotificationDelivery, outcome: str, error: str, traceback: str = ""
) -> None:
    """Insert a delivery whose claim a failed attempt rolled back, with how it ended.

    In a transaction of its own (the one that failed is over): the delivery
    is in the log even though its processing left nothing behind.
    """
    delivery.pk = None
    delivery._state.adding = True
    delivery.outcome = outcome
    delivery.error = error[:MAX_ERROR_LENGTH]
    delivery.traceback = traceback
    delivery.attempts = 1
    delivery.processed_at = timezone.now()
    with single_write():
        insert(delivery)
