"""Charges: capture an authorisation, cancel (void or refund, in full or in part).

Both run as recorded operations (:mod:`.operations`), scoped by the charge
and the amount: a capture or refund repeated while the first one's outcome
is unknown is sent with the first one's key, so it acts at most once.
"""

from __future__ import annotations

from typing import cast

from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.models import Charge, ChargeStatus, ConnectedAccount, Operation, OperationKind

from . import operations
from ._common import check_amount, check_mirror, order_account

#: The scope part of a cancel without an amount: "everything still refundable".
ALL = "all"


def capture_charge(
    charge: Charge,
    amount: int | None = None,
    *,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Charge:
    """Capture an ``AUTHORIZED`` charge (``amount`` cents; None = all that was authorised).

    Mirrors the answered charge (now ``PAID``) and answers it. The provider
    refuses a charge that is not authorised or whose ``capture_before`` has
    passed (``ProviderError`` with code ``40006``). It acts for the charge's
    order's account (``account``, if given, must be it).
    """
    check_mirror(charge, Charge, "charge")
    intent = capture_intent(charge, amount, order_account(charge.order, account))
    return cast(Charge, operations.run(intent, idempotency_key=idempotency_key, client=client))


def capture_intent(
    charge: Charge, amount: int | None = None, account: ConnectedAccount | None = None
) -> operations.Intent:
    """The operation :func:`capture_charge` records: its scope, body and basis."""
    value = charge.amount_value if amount is None else check_amount(amount)
    return operations.Intent(
        kind=OperationKind.CAPTURE,
        scope=operations.scope(OperationKind.CAPTURE, charge.provider_id, value, account=account),
        target=charge.provider_id,
        body={"amount": {"value": value}},
        amount=value,
        order=charge.order,
        charge=charge,
        basis={"status": charge.status, "paid": charge.amount_paid},
        account=account,
    )


def cancel_charge(
    charge: Charge,
    amount: int | None = None,
    *,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Charge:
    """Cancel a charge: void an authorisation, or refund a paid charge.

    ``amount`` None means everything refundable as mirrored locally (the
    authorised amount, or paid minus refunded); less than that is a partial
    refund, after which the charge stays ``PAID`` with ``amount_refunded``
    grown; a refund reaching the paid amount makes it ``CANCELED``. A repeat
    of a cancel whose outcome is unknown sends the same request again
    (the same amount, even if "everything" has shrunk since). It acts for the
    charge's order's account (``account``, if given, must be it).
    """
    check_mirror(charge, Charge, "charge")
    intent = cancel_intent(charge, amount, order_account(charge.order, account))
    return cast(Charge, operations.run(intent, idempotency_key=idempotency_key, client=client))


def cancel_intent(
    charge: Charge, amount: int | None = None, account: ConnectedAccount | None = None
) -> operations.Intent:
    """The operation :func:`cancel_charge` records: its scope, body and basis."""
    part = ALL if amount is None else check_amount(amount)
    name = operations.scope(OperationKind.CANCEL, charge.provider_id, part, account=account)
    if amount is None:
        amount = _everything(charge, operations.pending(name))
    value = check_amount(amount)
    return operations.Intent(
        kind=OperationKind.CANCEL,
        scope=name,
        target=charge.provider_id,
        body={"amount": {"value": value}},
        amount=value,
        order=charge.order,
        charge=charge,
        basis={"status": charge.status, "refunded": charge.amount_refunded},
        account=account,
    )


def _everything(charge: Charge, pending: Operation | None) -> int:
    """What "cancel everything" asks for: a pending one's amount, else what is left."""
    if pending is not None and pending.amount:
        return pending.amount
    if charge.status == ChargeStatus.AUTHORIZED:
        return charge.amount_value
    if charge.refundable_amount <= 0:
        message = f"charge {charge.provider_id} ({charge.status}) has nothing left to cancel"
        raise PayloadError([FieldError("amount", message)])
    return charge.refundable_amount
