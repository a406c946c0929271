"""Split payments: the facts' rules on ``charges[].splits`` and the record behind the SPLIT link."""

from __future__ import annotations

import copy
from datetime import datetime
from decimal import Decimal
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

SPLITS_KEYS = rules.SPLITS_KEYS
RECEIVER_KEYS = rules.RECEIVER_KEYS
CONFIGURATION_KEYS = frozenset({"liable", "chargeback", "custody", "statement"})
CUSTODY_KEYS = frozenset({"apply", "release"})
RECEIVER_TYPES = rules.RECEIVER_TYPES
#: A PERCENTAGE receiver may take a share with cents (33.33): at most two decimals.
PERCENT_STEP = Decimal("0.01")
ACCOUNT_ID_PATTERN = rules.ACCOUNT_ID_PATTERN

#: The split record's status. The provider's list is not documented; a split
#: made with an approved charge is settled at once in the emulator.
COMPLETED = "COMPLETED"


#: PagBank's words (its error table) for a liable receiver where it cannot be one.
LIABLE_ONLY_FOR_CREDIT = "The liable configuration can only be applied for credit card payments."
LIABLE_NOT_WITH_3DS = (
    "3DS authentication is not valid method for split transactions with liable configuration."
)


def check_liable(
    liable_path: str, *, payment_type: str, authentication_type: str | None, method_path: str
) -> None:
    """A liable receiver only on a credit card charge without 3-D Secure (the error table)."""
    if payment_type != "CREDIT_CARD":
        raise errors.invalid(liable_path, LIABLE_ONLY_FOR_CREDIT)
    if authentication_type == "THREEDS":
        raise errors.invalid(f"{method_path}.authentication_method.type", LIABLE_NOT_WITH_3DS)


def validate_splits(
    splits: Any, *, charge_amount: int, merchant_account: str, recurring: bool, path: str
) -> str | None:
    """Check ``splits`` against the facts; a failure is a 40002 naming the field.

    Rules: method FIXED or PERCENTAGE; 2-15 receivers, each ``account.id`` an
    ``ACCO_`` id listed once; every ``amount.value`` a positive integer (or a
    string of digits, as the sample sends); FIXED values sum to the charge
    amount, PERCENTAGE values to 100; the merchant's own account is listed; at
    most one receiver ``configurations.liable`` and none when the charge is
    recurring. ``configurations.chargeback.charge_transfer.percentage`` (the
    provider's split docs): 0 or 100, given for every receiver or none, and
    exactly one receiver at 100. Answers the liable receiver's ``configurations.liable`` path
    (None without one), for :func:`check_liable`.
    """
    splits = require_object(splits, path)
    reject_unknown(splits, SPLITS_KEYS, path)
    method = require_str(splits, "method", path, choices=rules.SPLIT_METHODS)
    low, high = rules.SPLIT_RECEIVERS
    receivers_path = field_path(path, "receivers")
    receivers = require_list(splits, "receivers", path, min_items=low, max_items=high) or []

    seen: set[str] = set()
    total = Decimal(0)
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
        if method == "FIXED":
            total += check_int(
                amount["value"], value_path, minimum=1, maximum=charge_amount, digit_string=True
            )
        else:
            total += _percentage(amount["value"], value_path)
        require_str(receiver, "reason", where, limit=(1, 255), optional=True)
        require_str(receiver, "type", where, choices=RECEIVER_TYPES, optional=True)
        configurations = require_object_field(receiver, "configurations", where, optional=True)
        transfer = None
        if configurations is not None:
            config_path = field_path(where, "configurations")
            reject_unknown(configurations, CONFIGURATION_KEYS, config_path)
            transfer = _chargeback_transfer(configurations, config_path)
            _check_custody(configurations, config_path)
            require_object_field(configurations, "statement", config_path, optional=True)
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
    return liable_path


REFUND_RECEIVER_KEYS = frozenset({"account", "amount", "configurations"})
REFUND_CONFIGURATION_KEYS = frozenset({"refund", "fee_liable"})


def validate_refund_splits(splits: Any, charged: dict[str, Any], refund: int) -> None:
    """A cancel's ``splits``: how the refund is taken from the split's receivers.

    Method FIXED (cents, summing to the refund) or PERCENTAGE (summing to 100);
    each receiver one of the charge's split; ``configurations.refund.
    rounding_liable.apply`` and ``configurations.fee_liable.percentage`` (100:
    only one receiver pays the refundable fees).
    """
    path = "splits"
    splits = require_object(splits, path)
    reject_unknown(splits, SPLITS_KEYS, path)
    method = require_str(splits, "method", path, choices=rules.SPLIT_METHODS)
    receivers_path = field_path(path, "receivers")
    entries = require_list(splits, "receivers", path, min_items=1) or []
    members = {r["account"]["id"] for r in charged["receivers"]}
    total = Decimal(0)
    fee_payers = 0
    for index, entry in enumerate(entries):
        where = item_path(receivers_path, index)
        entry = require_object(entry, where)
        reject_unknown(entry, REFUND_RECEIVER_KEYS, where)
        account = require_object_field(entry, "account", where) or {}
        account_id = require_str(account, "id", field_path(where, "account"))
        if account_id not in members:
            raise errors.invalid(field_path(where, "account.id"), "receiver_not_in_the_split")
        amount = require_object_field(entry, "amount", where) or {}
        value_path = field_path(field_path(where, "amount"), "value")
        if amount.get("value") is None:
            raise errors.required(value_path)
        if method == "FIXED":
            total += check_int(amount["value"], value_path, minimum=1, maximum=refund)
        else:
            total += _percentage(amount["value"], value_path)
        configurations = require_object_field(entry, "configurations", where, optional=True)
        if configurations is not None:
            fee_payers += _refund_configurations(
                configurations, field_path(where, "configurations")
            )
    if fee_payers > 1:
        raise errors.invalid(receivers_path, "only_one_receiver_pays_the_fees")
    if total != (refund if method == "FIXED" else 100):
        raise errors.invalid(field_path(receivers_path, "amount.value"), "receivers_must_sum_up")


def _refund_configurations(configurations: dict[str, Any], path: str) -> int:
    """Check a refund receiver's configurations; 1 if it pays the refundable fees."""
    reject_unknown(configurations, REFUND_CONFIGURATION_KEYS, path)
    refund = require_object_field(configurations, "refund", path, optional=True)
    if refund is not None:
        refund_path = field_path(path, "refund")
        reject_unknown(refund, {"rounding_liable"}, refund_path)
        rounding = require_object_field(refund, "rounding_liable", refund_path) or {}
        rounding_path = field_path(refund_path, "rounding_liable")
        reject_unknown(rounding, {"apply"}, rounding_path)
        require_bool(rounding, "apply", rounding_path)
    fee = require_object_field(configurations, "fee_liable", path, optional=True)
    if fee is None:
        return 0
    fee_path = field_path(path, "fee_liable")
    reject_unknown(fee, {"percentage"}, fee_path)
    require_int(fee, "percentage", fee_path, minimum=100, maximum=100)
    return 1


def _percentage(value: Any, path: str) -> Decimal:
    """A receiver's share: a positive number up to 100 with at most two decimals.

    Integers, digit strings (the sample's) and decimals (the partner plugin
    sends 33.33) are taken; summed as decimals, so 33.33 + 33.33 + 33.34 is 100.
    """
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        share = Decimal(str(value))
    elif isinstance(value, str) and value.replace(".", "", 1).isdigit() and len(value) <= 7:
        share = Decimal(value)
    else:
        return Decimal(check_int(value, path, minimum=1, maximum=100, digit_string=True))
    if not 0 < share <= 100 or share != share.quantize(PERCENT_STEP):
        raise errors.invalid(path)
    return share


def _check_custody(configurations: dict[str, Any], path: str) -> None:
    """``custody{apply, release{scheduled}}``: the receiver's share held until released."""
    custody = require_object_field(configurations, "custody", path, optional=True)
    if custody is None:
        return
    custody_path = field_path(path, "custody")
    reject_unknown(custody, CUSTODY_KEYS, custody_path)
    require_bool(custody, "apply", custody_path)
    release = require_object_field(custody, "release", custody_path, optional=True)
    if release is not None:
        release_path = field_path(custody_path, "release")
        reject_unknown(release, {"scheduled"}, release_path)
        require_str(release, "scheduled", release_path, pattern=r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def in_custody(receiver: dict[str, Any]) -> bool:
    """Whether a receiver's share is held in custody (until released)."""
    custody = (receiver.get("configurations") or {}).get("custody") or {}
    return custody.get("apply") is True


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


def _as_number(value: Any) -> int | float:
    """An amount as the split record shows it: an integer, or a decimal percentage."""
    if isinstance(value, float):
        return value
    if isinstance(value, str) and "." in value:
        return float(value)
    return int(value)


def build_split_record(
    splits: dict[str, Any],
    *,
    split_id: str,
    created_at: datetime | str,
    merchant_account: str,
    base_url: str,
    status: str = COMPLETED,
    released: dict[str, datetime] | None = None,
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
            "amount": {"value": _as_number(receiver["amount"]["value"])},
        }
        if receiver.get("reason") is not None:
            entry["reason"] = receiver["reason"]
        if receiver.get("configurations") is not None:
            entry["configurations"] = copy.deepcopy(receiver["configurations"])
        if account_id in (released or {}) and in_custody(receiver):
            custody = entry["configurations"]["custody"]
            custody["released_at"] = timestamp((released or {})[account_id])
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
