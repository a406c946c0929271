"""Charges: capture an authorisation, cancel (void or refund, in full or in part)."""

from __future__ import annotations

from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, ValidationError
from django_orderpay.models import ChangeSource, Charge, ChargeStatus
from django_orderpay.sync import sync_charge

from . import idempotency
from ._common import check_amount, check_mirror, client_or_default


def capture_charge(
    charge: Charge,
    amount: int | None = None,
    *,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
) -> Charge:
    """Capture an ``AUTHORIZED`` charge (``amount`` cents; None = all that was authorised).

    Mirrors the answered charge (now ``PAID``) and answers it. The provider
    refuses a charge that is not authorised or whose ``capture_before`` has
    passed (``ProviderError`` with code ``40006``).
    """
    check_mirror(charge, Charge, "charge")
    value = charge.amount_value if amount is None else check_amount(amount)
    api = client_or_default(client)
    answer = idempotency.send(
        idempotency_key,
        lambda generation: idempotency.capture_key(
            charge.provider_id, value, charge.amount_paid, generation=generation
        ),
        lambda key: api.capture_charge(charge.provider_id, value, idempotency_key=key),
    )
    return sync_charge(answer, source=ChangeSource.API)


def cancel_charge(
    charge: Charge,
    amount: int | None = None,
    *,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
) -> Charge:
    """Cancel a charge: void an authorisation, or refund a paid charge.

    ``amount`` None means everything refundable as mirrored locally (the
    authorised amount, or paid minus refunded); less than that is a partial
    refund, after which the charge stays ``PAID`` with ``amount_refunded``
    grown; a refund reaching the paid amount makes it ``CANCELED``. Refresh
    the order first if the local copy may be behind the provider.
    """
    check_mirror(charge, Charge, "charge")
    if amount is None:
        if charge.status == ChargeStatus.AUTHORIZED:
            amount = charge.amount_value
        else:
            amount = charge.refundable_amount
        if amount <= 0:
            message = f"charge {charge.provider_id} ({charge.status}) has nothing left to cancel"
            raise ValidationError([FieldError("amount", message)])
    value = check_amount(amount)
    api = client_or_default(client)
    answer = idempotency.send(
        idempotency_key,
        lambda generation: idempotency.cancel_key(
            charge.provider_id, value, charge.amount_refunded, charge.status, generation=generation
        ),
        lambda key: api.cancel_charge(charge.provider_id, value, idempotency_key=key),
    )
    return sync_charge(answer, source=ChangeSource.API)
