"""Split payments: the facts' rules on ``charges[].splits`` and the record behind the SPLIT link."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django_orderpay import rules

from ..state import errors
from ..state.clock import timestamp
from ..state.validation import (
    check_int,
    field_path,
    item_path,
    reject_unknown,
    require_bool,
    require_int,
    require_list,
    require_object,
    require_object_field,
    require_str,
)

SPLITS_KEYS = frozenset({"method", "receivers"})
RECEIVER_KEYS = frozenset({"account", "amount", "reason", "configurations"})
CONFIGURATION_KEYS = frozenset({"liable", "chargeback"})
ACCOUNT_ID_PATTERN = r"ACCO_[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"

#: The split record's status. The provider's list is not documented; a split
#: made with an approved charge is settled at once in the emulator.
COMPLETED = "COMPLETED"


def validate_splits(
    splits: Any, *, charge_amount: int, merchant_account: str, recurring: bool, path: str
) -> None:
    """Check ``splits`` against the facts; a failure is a 40002 naming the field.

    Rules: method FIXED or PERCENTAGE; 2-15 receivers, each ``account.id`` an
    ``ACCO_`` id listed once; every ``amount.value`` a positive integer (or a
    string of digits, as the sample sends); FIXED values sum to the charge
    amount, PERCENTAGE values to 100; the merchant's own account is listed; at
    most one receiver ``configurations.liable`` and none when the charge is
    recurring. ``configurations.chargeback.charge_transfer.percentage`` (the
    provider's split docs): 0 or 100, given for every receiver or none, and
    exactly one receiver at 100.
    """
    splits = require_object(splits, path)
    reject_unknown(splits, SPLITS_KEYS, path)
    method = require_str(splits, "method", path, choices=rules.SPLIT_METHODS)
    low, high = rules.SPLIT_RECEIVERS
    receivers_path = field_path(path, "receivers")
    receivers = require_list(splits, "receivers", path, min_items=low, max_items=high) or []

    seen: set[str] = set()
    total = 0
    liable_path: str | None = None
    transfers: list[tuple[str, int | None]] = []  # (receiver path, chargeback percentage)
    for index, receiver in enumerate(receivers):
        where = item_path(receivers_path, index)
        receiver = require_object(receiver, where)
        reject_unknown(receiver, RECEIVER_KEYS, where)
        account = require_object_field(receiver, "account", where)
        account_path = field_path(where, "account")
        reject_unknown(account, {"id"}, account_path)
        account_id = require_str(account, "id", account_path, pattern=ACCOUNT_ID_PATTERN)
        if account_id in seen:
            raise errors.invalid(field_path(account_path, "id"), "receiver_account_duplicated")
        seen.add(account_id)
        amount = require_object_field(receiver, "amount", where)
        amount_path = field_path(where, "amount")
        reject_unknown(amount, {"value"}, amount_path)
        value_path = field_path(amount_path, "value")
        if amount.get("value") is None:
            raise errors.required(value_path)
        maximum = charge_amount if method == "FIXED" else 100
        total += check_int(
            amount["value"], value_path, minimum=1, maximum=maximum, digit_string=True
        )
        require_str(receiver, "reason", where, limit=(1, 255), optional=True)
        configurations = require_object_field(receiver, "configurations", where, optional=True)
        transfer = None
        if configurations is not None:
            config_path = field_path(where, "configurations")
            reject_unknown(configurations, CONFIGURATION_KEYS, config_path)
            transfer = _chargeback_transfer(configurations, config_path)
            if require_bool(configurations, "liable", config_path, optional=True):
                this_path = field_path(config_path, "liable")
                if recurring:
                    raise errors.invalid(this_path, "liable_not_allowed_with_recurring")
                if liable_path is not None:
                    raise errors.invalid(this_path, "more_than_one_liable_receiver")
                liable_path = this_path
        transfers.append((where, transfer))

    _check_chargeback_transfers(transfers)
    expected = charge_amount if method == "FIXED" else 100
    if total != expected:
        description = (
            "receivers_amount_must_sum_to_charge_amount"
            if method == "FIXED"
            else "receivers_percentage_must_sum_to_100"
        )
        raise errors.invalid(field_path(receivers_path, "amount.value"), description)
    if merchant_account not in seen:
        raise errors.invalid(receivers_path, "primary_receiver_missing")


def _chargeback_transfer(configurations: dict[str, Any], path: str) -> int | None:
    """``chargeback.charge_transfer.percentage`` (0 or 100) of one receiver, if given."""
    chargeback = require_object_field(configurations, "chargeback", path, optional=True)
    if chargeback is None:
        return None
    chargeback_path = field_path(path, "chargeback")
    reject_unknown(chargeback, {"charge_transfer"}, chargeback_path)
    transfer = require_object_field(chargeback, "charge_transfer", chargeback_path)
    transfer_path = field_path(chargeback_path, "charge_transfer")
    reject_unknown(transfer or {}, {"percentage"}, transfer_path)
    percentage = require_int(transfer or {}, "percentage", transfer_path, minimum=0, maximum=100)
    if percentage not in (0, 100):
        raise errors.invalid(field_path(transfer_path, "percentage"))
    return percentage


def _check_chargeback_transfers(transfers: list[tuple[str, int | None]]) -> None:
    """The provider's rule: if one receiver names a chargeback transfer, all do, one with 100."""
    given = [percentage for _, percentage in transfers if percentage is not None]
    if not given:
        return
    for where, percentage in transfers:
        if percentage is None:
            raise errors.required(f"{where}.configurations.chargeback")
    hundreds = [where for where, percentage in transfers if percentage == 100]
    if len(hundreds) != 1:
        where = hundreds[1] if hundreds else transfers[0][0]
        raise errors.invalid(
            f"{where}.configurations.chargeback.charge_transfer.percentage",
            "exactly_one_receiver_takes_the_chargeback",
        )


def build_split_record(
    splits: dict[str, Any],
    *,
    split_id: str,
    created_at: datetime | str,
    merchant_account: str,
    base_url: str,
    status: str = COMPLETED,
) -> dict[str, Any]:
    """The Split as ``GET /splits/{id}`` answers it, from a validated ``splits`` request.

    The merchant's account is the PRIMARY receiver, the others SECONDARY;
    amounts become integers. ``status`` is ours to choose (see ``COMPLETED``);
    the core may pass ``"CANCELED"`` after the charge is refunded.
    """
    receivers = []
    for receiver in splits["receivers"]:
        account_id = receiver["account"]["id"]
        entry: dict[str, Any] = {
            "type": "PRIMARY" if account_id == merchant_account else "SECONDARY",
            "account": {"id": account_id},
            "amount": {"value": int(receiver["amount"]["value"])},
        }
        if receiver.get("reason") is not None:
            entry["reason"] = receiver["reason"]
        if receiver.get("configurations") is not None:
            entry["configurations"] = receiver["configurations"]
        receivers.append(entry)
    return {
        "id": split_id,
        "method": splits["method"],
        "status": status,
        "created_at": created_at if isinstance(created_at, str) else timestamp(created_at),
        "receivers": receivers,
        "links": [
            {
                "rel": "SELF",
                "href": f"{base_url}/splits/{split_id}",
                "media": "application/json",
                "type": "GET",
            }
        ],
    }
