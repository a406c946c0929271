"""``qr_codes[]``: an order paid by Pix (or in the PagBank app), one QR code of its amount."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, join
from .charge import Splits


def _moment(value: Any) -> Any:
    """An ISO 8601 string as a datetime (a dict body's form); anything else left to validation."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


@dataclass(frozen=True)
class QrCode(Builder):
    """One Pix QR code: ``amount`` in cents, payable until ``expiration_date`` (an aware
    datetime; PagBank's default is 23:59 of the next day), by ``arrangements`` (``PIX``, or
    ``PAGBANK`` for the "Pagar com PagBank" QR the official plugins show on desktop)."""

    amount: int
    expiration_date: datetime | None = None
    arrangements: tuple[str, ...] = ()
    #: ``qr_codes[].splits`` (the order object's): the payment split among receivers, by the
    #: charge's rules over the QR code's amount; no liable receiver (credit cards only).
    splits: Splits | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "expiration_date", _moment(self.expiration_date))
        if isinstance(self.arrangements, list):
            object.__setattr__(self, "arrangements", tuple(self.arrangements))
        elif self.arrangements is None:
            object.__setattr__(self, "arrangements", ())

    def collect(self, problems: Problems, path: str) -> None:
        problems.cents(join(path, "amount.value"), self.amount)
        where = join(path, "expiration_date")
        moment = self.expiration_date
        if moment is not None and (not isinstance(moment, datetime) or moment.utcoffset() is None):
            problems.add(where, "must be a date and time with its UTC offset (ISO 8601)")
        splits_path = join(path, "splits")
        if problems.instance(splits_path, self.splits, Splits, required=False):
            self.splits.collect(problems, splits_path, charge_amount=self.amount)  # type: ignore[union-attr]
            liable = self.splits.liable_position  # type: ignore[union-attr]
            if liable is not None:
                where = join(splits_path, f"receivers[{liable}].configurations.liable")
                problems.add(where, "a liable receiver is for credit card payments only")
        arrangements_path = join(path, "arrangements")
        if problems.sequence(arrangements_path, self.arrangements):
            for position, name in enumerate(self.arrangements):
                problems.text(
                    f"{arrangements_path}[{position}]", name, choices=rules.PIX_ARRANGEMENTS
                )

    def to_dict(self) -> dict[str, Any]:
        moment = self.expiration_date
        return compact(
            amount={"value": self.amount},
            expiration_date=moment.isoformat(timespec="seconds") if moment else None,
            arrangements=list(self.arrangements) or None,
            splits=self.splits.to_dict() if isinstance(self.splits, Splits) else None,
        )
