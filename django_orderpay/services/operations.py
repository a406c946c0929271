"""Money moves once: each create, pay, capture and cancel runs as a recorded operation.

:func:`run` is the one way a service sends a money-moving request:

1. **Record, committed, before the request leaves** (:func:`_begin`). A
   payment (create, pay) for a shop object is refused with
   :class:`PaymentInProgress` while another money-moving operation of that
   object is in flight (:mod:`.in_flight`): at most one at a time, whatever
   reference each attempt has; a repeat of a call being sent right now waits
   for its answer. The
   operation's scope (what it acts on, with what amount) is looked up: an
   *open* operation of the scope (sending, or outcome unknown) is reused
   with its key, however the repeat came (a client retry, the caller
   calling again, another process, a worker re-running a task), except
   that a caller naming a key of its own never joins another key's request
   still on its way (two confirmation pages are two intents); a
   *succeeded* one that a caller has not heard of (nobody heard it, or a
   caller told the outcome was unknown has not called again, for
   ``OWED_FOR``) answers this call instead of acting again, as does one the
   caller's own key names; otherwise a new operation is recorded with the
   next sequence number and its derived key.
2. **Send** with that key (the client retries transient failures with it).
3. **Decide** from the answer: a 2xx is mirrored through ``sync`` and the
   operation succeeds; a refusal the provider made with nothing done closes
   it as refused (the next call is a new operation, with a new key); anything
   else (a timeout, a reset, a 5xx, any 409, a refusal after an attempt that
   may have acted) leaves it open and raises :class:`OutcomeUnknown`, unless
   the operation was settled as succeeded meanwhile (another call heard it,
   or a notification proved it: then that is the answer).

Open operations are settled from the provider's state: by ``sync``
(:mod:`django_orderpay.sync.operations`: an order adopted by its
``reference_id``, a pay's new charge, a capture or a refund seen), so by any
notification or ``refresh_order``; and by ``orderpay_sync``, which refreshes
their orders and re-sends, with the same key, those it can send as they were
(:func:`retry`).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from django_orderpay.client import OrderPayClient
from django_orderpay.client.errors import RATE_LIMIT_CODE
from django_orderpay.exceptions import (
    AccountNeedsAuthorization,
    IdempotencyConflict,
    OutcomeUnknown,
    ProviderError,
    ProviderUnavailable,
)
from django_orderpay.models import (
    OPEN_OPERATION_STATES,
    ChangeSource,
    Charge,
    ChargeStatus,
    ConnectedAccount,
    Operation,
    OperationKind,
    OperationState,
    Order,
)
from django_orderpay.models.base import ERROR_TEXT_KEPT
from django_orderpay.redaction import redact_text
from django_orderpay.sync import (
    once_more_on_conflict,
    single_write,
    sync_charge,
    sync_order,
    sync_transaction,
)
from django_orderpay.sync.inserting import insert_new
from django_orderpay.sync.locking import lock_name
from django_orderpay.sync.operations import Answered, success_fields

from . import idempotency
from ._common import client_or_default
from .in_flight import (
    SENDING_FOR,
    await_outcome,
    busy_name,
    in_flight_elsewhere,
    refuse_if_in_flight,
    shop_object_of,
)

logger = logging.getLogger("django_orderpay.services")

#: How long ``orderpay_sync`` waits before it treats a call still marked
#: ``sending`` as lost (its process may still be waiting for the answer).
GRACE = SENDING_FOR
#: How long after its first call ``orderpay_sync`` may re-send an operation.
#: The provider's key lifetime is undocumented; past this a re-sent request
#: could act again, so older open operations are left for staff to check.
REPLAY_WINDOW = dt.timedelta(hours=24)
#: How long a caller told ``OutcomeUnknown`` is owed the outcome: its repeat
#: within this is answered from the succeeded operation even if another caller
#: heard it. A retry comes back within minutes; a caller that never does (the
#: lost half of a double click) must not swallow a real refund of the same
#: amount asked later, which is a new operation once this has passed.
OWED_FOR = dt.timedelta(minutes=15)
#: Longest error text kept on an operation.
MAX_ERROR_LENGTH = ERROR_TEXT_KEPT

Mirrored = Order | Charge


@dataclass(frozen=True)
class Intent:
    """What a service is about to ask of the provider, before it is recorded."""

    kind: str
    #: What the operation acts on, and with what amount (see :func:`scope`).
    scope: str
    #: ``reference_id`` (create), ``ORDE_`` (pay) or ``CHAR_`` (capture, cancel).
    target: str
    body: dict[str, Any]
    amount: int | None = None
    order: Order | None = None
    charge: Charge | None = None
    #: The mirror's state when the call starts, for settling (see the model).
    basis: dict[str, Any] = field(default_factory=dict)
    user: Any = None
    shop_object: models.Model | None = None
    #: The connected account it acts for (None: the settings' ``TOKEN``).
    account: ConnectedAccount | None = None

    @classmethod
    def of(cls, operation: Operation) -> Intent:
        """The intent a recorded operation was made from (to send it again)."""
        return cls(
            kind=operation.kind,
            scope=operation.scope,
            target=operation.target,
            body=operation.body,
            amount=operation.amount,
            order=operation.order,
            charge=operation.charge,
            basis=operation.basis,
            user=operation.user,
            shop_object=operation.shop_object,
            account=operation.account,
        )


def scope(kind: str, *parts: Any, account: ConnectedAccount | None = None) -> str:
    """``kind:part:part``: the name of one logical operation.

    A connected account's is ``kind@ACCO_...:part:part``: two sellers' creates of
    the same reference are two operations (and two keys).
    """
    head = kind if account is None else f"{kind}@{account.account_id}"
    return ":".join([head, *(str(part) for part in parts)])


# --- the request each kind sends, and how its answer is mirrored ---------------------


def _send_request(api: OrderPayClient, intent: Intent, body: dict[str, Any], key: str) -> Any:
    if intent.kind == OperationKind.CREATE:
        return api.create_order(body, idempotency_key=key)
    if intent.kind == OperationKind.PAY:
        return api.pay_order(intent.target, body, idempotency_key=key)
    amount = body["amount"]["value"]
    if intent.kind == OperationKind.CAPTURE:
        return api.capture_charge(intent.target, amount, idempotency_key=key)
    return api.cancel_charge(intent.target, amount, idempotency_key=key)


def _mirror(intent: Intent, answer: Any, source: str, answered: Answered) -> Mirrored:
    if intent.kind == OperationKind.CREATE:
        return sync_order(
            answer,
            source=source,
            user=intent.user,
            shop_object=intent.shop_object,
            expect_new=True,
            answered=answered,
            account=intent.account,
        )
    if intent.kind == OperationKind.PAY:
        return sync_order(answer, source=source, answered=answered, account=intent.account)
    return sync_charge(answer, source=source, answered=answered, account=intent.account)


def _result(operation: Operation) -> Mirrored | None:
    """What a succeeded operation answers its caller (its order or charge, as mirrored now)."""
    if operation.kind in (OperationKind.CREATE, OperationKind.PAY):
        return Order.objects.filter(pk=operation.order_id or 0).first()
    return Charge.objects.filter(pk=operation.charge_id or 0).first()


# --- recording ----------------------------------------------------------------------


def _update(operation: Operation, **fields: Any) -> None:
    fields["updated_at"] = timezone.now()
    Operation.objects.filter(pk=operation.pk).update(**fields)
    for name, value in fields.items():
        if not hasattr(value, "resolve_expression"):
            setattr(operation, name, value)


def _new(intent: Intent, sequence: int, explicit_key: str | None) -> Operation:
    safe_body = idempotency.without_card_secrets(intent.body)
    body_digest = idempotency.digest(safe_body)  # the same as the body's: no secrets to take
    content_type_id, object_id = shop_object_of(intent)
    return Operation(
        kind=intent.kind,
        scope=intent.scope,
        sequence=sequence,
        target=intent.target,
        amount=intent.amount,
        idempotency_key=explicit_key
        or idempotency.operation_key(
            intent.kind, intent.scope, sequence, intent.body, body_digest=body_digest
        ),
        body_digest=body_digest,
        body=safe_body,
        replayable=safe_body == intent.body,
        basis=intent.basis,
        order=intent.order,
        charge=intent.charge,
        user=intent.user,
        content_type_id=content_type_id,
        object_id=object_id,
        account=intent.account,
        calls=1,
    )


def _begin(intent: Intent, explicit_key: str | None) -> tuple[Operation, bool]:
    """The operation this call sends (committed), and whether it is already answered.

    ``(operation, True)`` is a succeeded operation whose outcome no caller
    had heard yet: it answers this call. Outside a transaction of the
    caller's, the row is committed before this returns, so it survives a
    crash during the request.
    """
    # The usual call is the scope's first: its operation goes in with one
    # statement, committed at once (no lock, no transaction). Any conflict (the
    # scope's first sequence or the caller's key is taken) means there is
    # history to read: the locked look below decides, as it would have. A
    # payment for a shop object always looks first: another may be in flight.
    busy = busy_name(intent)
    if busy is None:
        with single_write():
            first = insert_new([_new(intent, 0, explicit_key)])
        if first:
            return first[0], False
    for _ in range(5):
        try:
            return once_more_on_conflict(lambda: _look(intent, explicit_key, busy))
        except _Taken:
            continue  # another process recorded this sequence (or key) first: look again
    raise RuntimeError(f"could not record operation {intent.scope} (five concurrent inserts)")


class _Taken(Exception):
    """The operation :func:`_look` meant to record was recorded by another process first."""


def _look(intent: Intent, explicit_key: str | None, busy: str | None) -> tuple[Operation, bool]:
    """:func:`_begin`'s locked look at the scope's history, in a transaction of its own.

    ``busy`` names the shop object's lock, held while a payment checks that
    no other money-moving operation of it is in flight and records itself.
    """
    with sync_transaction():
        if busy is not None:
            lock_name(busy)
        rows = Operation.objects.select_for_update()
        if explicit_key is not None:
            # The caller's key names its operation, in whatever state: a
            # succeeded one answers without a call (the provider may have
            # forgotten the key, and would act again).
            mine = rows.filter(idempotency_key=explicit_key).first()
            if mine is not None and _answers(mine, intent):
                return _answering(mine), True
            if mine is not None:
                return _join(mine), False
        latest = rows.filter(scope=intent.scope).order_by("-sequence").first()
        if latest is not None and latest.is_open and not _under_way(latest, explicit_key):
            return _join(latest), False
        if latest is not None and _unheard_success(latest):
            return _answering(latest), True
        operation = _new(intent, latest.sequence + 1 if latest else 0, explicit_key)
        if busy is not None:
            refuse_if_in_flight(operation)
        # ON CONFLICT DO NOTHING, not a savepoint around a plain insert: one
        # round trip. Skipped: another process recorded this sequence (or
        # key) first (on PostgreSQL, after its transaction ended): look again.
        if not insert_new([operation]):
            raise _Taken
        return operation, False


def _under_way(operation: Operation, explicit_key: str | None) -> bool:
    """Whether ``operation`` is another request's, still on its way: not to be joined.

    A caller naming its own key (an admin confirmation page, a checkout form)
    is another intent than a call under way with another key: two staff
    refunding the same amount from two pages at once make two refunds. An
    operation whose outcome is unknown (or ``sending`` for longer than
    ``GRACE``: its process may be gone) is continued instead, with its key:
    whoever asks again cannot tell whether it acted.
    """
    if explicit_key is None or operation.idempotency_key == explicit_key:
        return False
    recent = operation.updated_at > timezone.now() - GRACE
    return operation.state == OperationState.SENDING and recent


def continued_by(scope_name: str, explicit_key: str) -> Operation | None:
    """The open operation a call of ``scope_name`` with its own ``explicit_key`` would
    continue (its outcome unknown) rather than make anew; None when it makes its own."""
    latest = Operation.objects.filter(scope=scope_name).order_by("-sequence").first()
    if latest is None or latest.idempotency_key == explicit_key:
        return None
    if latest.is_open and not _under_way(latest, explicit_key):
        return latest
    return latest if _unheard_success(latest) else None


#: One fewer call owed the outcome (never below zero).
_ONE_LESS = Greatest(F("unheard_calls") - 1, Value(0))


def _join(operation: Operation) -> Operation:
    """This call joins ``operation`` (locked): it will hear the outcome itself.

    A call joining an open operation is taken for the repeat of one told its
    outcome was unknown (the usual repeat): that call is owed nothing more.
    """
    _update(operation, calls=F("calls") + 1, unheard_calls=_ONE_LESS)
    operation.calls += 1
    return operation


def _answers(operation: Operation, intent: Intent) -> bool:
    """Whether ``operation`` succeeded for this very request (a key reused for another
    request is sent, for the provider to refuse)."""
    if operation.state != OperationState.SUCCEEDED or operation.scope != intent.scope:
        return False
    return operation.body_digest == idempotency.digest(intent.body)  # digest drops card secrets


def _answering(operation: Operation) -> Operation:
    """``operation`` (succeeded, locked) answers this call: heard, and one fewer owed."""
    _update(operation, reported=True, unheard_calls=_ONE_LESS)
    return operation


def pending(scope_name: str) -> Operation | None:
    """The operation of ``scope_name`` a call would continue: open, or succeeded unheard."""
    latest = Operation.objects.filter(scope=scope_name).order_by("-sequence").first()
    if latest is not None and (latest.is_open or _unheard_success(latest)):
        return latest
    return None


def _unheard_success(operation: Operation) -> bool:
    """Succeeded, and some caller has not heard it: the next repeat is answered from it."""
    if operation.state != OperationState.SUCCEEDED:
        return False
    if operation.reported and not _owed(operation):
        return False
    if operation.kind in (OperationKind.CREATE, OperationKind.PAY):
        return operation.order_id is not None
    return operation.charge_id is not None


def _owed(operation: Operation) -> bool:
    """Whether a caller told the outcome was unknown is still owed it (see ``OWED_FOR``)."""
    until = operation.unheard_until
    if not operation.unheard_calls or until is None or until <= timezone.now():
        return False
    if operation.kind == OperationKind.PAY:
        # A declined payment moved no money: the next pay is the shopper's new try
        # (another card), not a repeat to be answered with the old decline.
        declined = Charge.objects.filter(pk=operation.charge_id or 0, status=ChargeStatus.DECLINED)
        return not declined.exists()
    return True


def _is_refusal(error: ProviderError, operation: Operation) -> bool:
    """Whether ``error`` says the provider did nothing for this operation.

    The first call's 4xx is a refusal (but not a 409: the key is in use,
    nor a rate limit), and so is a first call that never left this machine
    (every connection refused: nothing reached the provider). Once a call of
    the operation may have acted, only the API's own 400 about the request
    still answers for the key (the provider looks the key up before it
    validates); a 401, 403 or 404 on a repeat may come from a gateway and
    says nothing about the first call.
    """
    if isinstance(error, ProviderUnavailable):
        return not error.sent and operation.calls <= 1
    if isinstance(error, IdempotencyConflict):
        return False
    status = error.status
    if status is None or not 400 <= status < 500 or status in (409, 429):
        return False
    if RATE_LIMIT_CODE in error.codes:
        return False
    if operation.calls <= 1:
        return True
    return status == 400 and bool(error.codes)


def _describe(error: BaseException) -> str:
    return redact_text(f"{type(error).__name__}: {error}")[:MAX_ERROR_LENGTH]


def _close(
    operation: Operation,
    state: str,
    error: BaseException | None = None,
    *,
    calls: int | None = None,
) -> bool:
    """Move an open operation to ``state`` (a final one never moves back); whether it moved.

    With ``calls``, only while no other call has joined the operation since
    (its ``calls`` still that number).
    """
    now = timezone.now()
    fields: dict[str, Any] = {"state": state, "updated_at": now}
    if state != OperationState.UNKNOWN:
        fields["resolved_at"] = now
        fields["reported"] = True
    if error is not None:
        fields["error"] = _describe(error)
    rows = Operation.objects.filter(pk=operation.pk, state__in=OPEN_OPERATION_STATES)
    if calls is not None:
        rows = rows.filter(calls=calls)
    moved = rows.update(**fields) > 0
    # The order and charge too: another call may have settled it, and linked them.
    operation.refresh_from_db(
        fields=["state", "reported", "error", "resolved_at", "calls", "order", "charge"]
    )
    return moved


def _unknown(operation: Operation, error: BaseException) -> OutcomeUnknown:
    _close(operation, OperationState.UNKNOWN, error)
    kind = operation.get_kind_display().lower()
    message = (
        f"{kind} {operation.target}: the outcome is unknown, the provider may have acted "
        f"({error}). Operation {operation.pk} keeps idempotency key "
        f"{operation.idempotency_key}: calling this again sends it with that key, so it acts "
        f"at most once; the provider's notification, refresh_order or orderpay_sync settle it."
    )
    context: dict[str, Any] = {"idempotency_key": operation.idempotency_key}
    if isinstance(error, ProviderError):
        context.update(
            status=error.status,
            error_messages=error.error_messages,
            method=error.method,
            path=error.path,
        )
    attempts = getattr(error, "attempts", 1)
    reason = getattr(error, "reason", "") or str(error)
    return OutcomeUnknown(message, operation=operation, reason=reason, attempts=attempts, **context)


# --- running ------------------------------------------------------------------------


def run(
    intent: Intent, *, idempotency_key: str | None = None, client: OrderPayClient | None = None
) -> Mirrored:
    """Record ``intent``, send it (or answer from a settled repeat), mirror the answer.

    Answers the mirrored order (create, pay) or charge (capture, cancel).
    Raises the provider's refusal as the client raised it, and
    :class:`OutcomeUnknown` when the provider may have acted without saying.
    """
    if idempotency_key is not None:
        idempotency.check_explicit_key(idempotency_key)
    api = client_or_default(client, intent.account)
    operation, answered = _begin(intent, idempotency_key)
    if answered:
        result = _result(operation)
        if result is not None:
            return result
    if in_flight_elsewhere(operation):
        # Another call is sending it right now (a double click, a second worker): its
        # answer is this one's too. Sent now, the key would be refused as in use.
        heard = await_outcome(operation)
        if heard is not None:
            _update(operation, reported=True)
            result = _result(operation)
            if result is not None:
                return result
    return _call(operation, intent, api)


def _call(operation: Operation, intent: Intent, api: OrderPayClient) -> Mirrored:
    """A caller's send: an unknown outcome is owed to it, unless another call heard it."""
    try:
        return _send(operation, intent, api, source=ChangeSource.API)
    except OutcomeUnknown:
        # This call's request failed after the operation was settled as succeeded
        # (another call of it heard the answer, or a notification proved it):
        # that success is this call's answer too.
        if operation.state == OperationState.SUCCEEDED:
            result = _result(operation)
            if result is not None:
                _update(operation, reported=True)
                return result
        # Told "unknown", this caller is owed the outcome: its repeat hears it even
        # once another caller has (else the repeat would be a new operation).
        _update(
            operation,
            unheard_calls=F("unheard_calls") + 1,
            unheard_until=timezone.now() + OWED_FOR,
        )
        raise


def _send(operation: Operation, intent: Intent, api: OrderPayClient, *, source: str) -> Mirrored:
    body = intent.body
    if operation.replayable and operation.scope == intent.scope:
        # A repeat sends what the key was first sent with (a "cancel all"
        # repeated after a partial refund must not ask for less).
        body = operation.body
    try:
        answer = _send_request(api, intent, body, operation.idempotency_key)
    except ProviderError as error:
        if not operation.is_open:
            raise  # a caller's key sent again once settled: the provider's answer stands
        # A first call's refusal stands only if no other process sent the same key
        # meanwhile (it joined the operation, and its request may have acted first).
        first_call = operation.calls if operation.calls <= 1 else None
        if _is_refusal(error, operation) and _close(
            operation, OperationState.REFUSED, error, calls=first_call
        ):
            raise
        raise _unknown(operation, error) from error
    answered = Answered(operation, reported=source == ChangeSource.API)

    def mirror() -> Mirrored:
        answered.settled = False  # a second run (after a deadlock) settles afresh
        return _mirror(intent, answer, source, answered)

    try:
        mirrored = once_more_on_conflict(mirror)
    except Exception as exc:
        # The provider acted; only our copy failed. It stays open, to be
        # settled when the order is next mirrored (a notification, a sync).
        logger.exception("operation %s: the answer could not be mirrored", operation.pk)
        raise _unknown(operation, exc) from exc
    if not answered.settled:
        # The sync did not prove it (or it was settled already): say so now.
        _succeeded(operation, mirrored, reported=answered.reported)
    return mirrored


def _succeeded(operation: Operation, mirrored: Mirrored, *, reported: bool) -> None:
    order = mirrored if isinstance(mirrored, Order) else mirrored.order
    fields = success_fields(order, reported=reported)
    if isinstance(mirrored, Charge):
        fields["charge"] = mirrored
    if operation.resolved_at is None:
        fields["resolved_at"] = timezone.now()
    _update(operation, **fields)


# --- settling what is still open ------------------------------------------------------


@dataclass(frozen=True)
class Retried:
    """What :func:`retry` made of one open operation."""

    operation: Operation
    state: str
    detail: str = ""


def retryable(now: dt.datetime | None = None) -> models.QuerySet[Operation]:
    """Open operations ``orderpay_sync`` may send again: old enough, young enough, whole."""
    now = now or timezone.now()
    return (
        Operation.objects.open()
        .filter(replayable=True, created_at__gte=now - REPLAY_WINDOW, updated_at__lte=now - GRACE)
        .order_by("pk")
    )


def retry(operation: Operation, *, client: OrderPayClient | None = None) -> Retried:
    """Send an open operation again with its key and its recorded body; never raises for it.

    The provider answers the first call's outcome (or acts now, if the first
    never reached it); the operation is settled from that answer, and stays
    unreported so the caller's next repeat hears it.
    """
    try:
        api = client_or_default(client, operation.account)
    except AccountNeedsAuthorization as error:
        return Retried(operation, operation.state, str(error))
    with sync_transaction():
        locked = Operation.objects.select_for_update().filter(pk=operation.pk).first()
        if locked is None or not locked.is_open or not locked.replayable:
            return Retried(operation, operation.state, "settled meanwhile")
        _update(locked, calls=F("calls") + 1)
        locked.calls += 1
    try:
        _send(locked, Intent.of(locked), api, source=ChangeSource.SYNC)
    except OutcomeUnknown as error:
        return Retried(locked, OperationState.UNKNOWN, str(error.__cause__ or error))
    except ProviderError as error:
        return Retried(locked, locked.state, str(error))
    return Retried(locked, locked.state)
