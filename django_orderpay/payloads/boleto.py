"""``payment_method`` of a boleto: its due date, instruction lines and payer, and the
charge's ``payment_instructions`` (fine, interest, discount)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, is_int, join
from .customer import Address, collect_person, person_dict


def _day(value: Any) -> Any:
    """``YYYY-MM-DD`` (a dict body's form) as a date; anything else left to validation."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, dt.datetime):
        return value  # refused by validation: a due date is a day, not a moment
    return value


def _check_day(problems: Problems, path: str, value: Any, *, required: bool) -> bool:
    if not problems.present(path, value, required):
        return False
    if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
        problems.add(path, "must be a date, YYYY-MM-DD")
        return False
    return True


@dataclass(frozen=True)
class BoletoHolder(Builder):
    """``boleto.holder``: who pays the boleto, with the address the bank prints on it."""

    name: str
    tax_id: str
    email: str
    address: Address

    def collect(self, problems: Problems, path: str) -> None:
        collect_person(problems, path, self.name, self.email, self.tax_id)
        address_path = join(path, "address")
        if problems.instance(address_path, self.address, Address):
            self.address.collect(problems, address_path)

    def to_dict(self) -> dict[str, Any]:
        person = person_dict(self.name, self.email, self.tax_id)
        return {**person, "address": self.address.to_dict()}


@dataclass(frozen=True)
class BoletoPayment(Builder):
    """``charges[].payment_method`` of a boleto: WAITING until the payer pays it.

    ``due_date`` is today or later (at most a year ahead); after it passes
    unpaid, the provider cancels the charge. ``instruction_lines`` are the two
    lines the bank prints (1-75 characters each).
    """

    due_date: dt.date
    holder: BoletoHolder
    instruction_lines: tuple[str, ...] = ()
    type: str = "BOLETO"

    def __post_init__(self) -> None:
        object.__setattr__(self, "due_date", _day(self.due_date))
        lines = self.instruction_lines
        object.__setattr__(self, "instruction_lines", tuple(lines) if lines else ())

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "type"), self.type, choices=("BOLETO",))
        where = join(path, "boleto.due_date")
        if _check_day(problems, where, self.due_date, required=True):
            today = rules.provider_today()
            if self.due_date < today:
                problems.add(where, "must be today or later (São Paulo time)")
            elif (self.due_date - today).days > rules.BOLETO_LONGEST_TERM_DAYS:
                problems.add(where, f"must be at most {rules.BOLETO_LONGEST_TERM_DAYS} days ahead")
        lines_path = join(path, "boleto.instruction_lines")
        if len(self.instruction_lines) > 2:
            problems.add(lines_path, "a boleto has two instruction lines at most")
        for position, line in enumerate(self.instruction_lines[:2], start=1):
            problems.text(join(lines_path, f"line_{position}"), line, limit="instruction_line")
        holder_path = join(path, "boleto.holder")
        if problems.instance(holder_path, self.holder, BoletoHolder):
            self.holder.collect(problems, holder_path)

    def to_dict(self) -> dict[str, Any]:
        lines = {f"line_{n}": line for n, line in enumerate(self.instruction_lines, start=1)}
        due = self.due_date.isoformat() if isinstance(self.due_date, dt.date) else self.due_date
        boleto = compact(
            due_date=due,
            instruction_lines=lines or None,
            holder=self.holder.to_dict() if isinstance(self.holder, BoletoHolder) else self.holder,
        )
        return {"type": self.type, "boleto": boleto}


@dataclass(frozen=True)
class Penalty(Builder):
    """A fine, an interest or a discount: from ``date``, a ``value`` in cents or a
    ``percentage`` in hundredths of a percent (PagBank's integer: 200 is 2,00 %)."""

    date: dt.date
    value: int | None = None
    percentage: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "date", _day(self.date))

    def collect(self, problems: Problems, path: str) -> None:
        _check_day(problems, join(path, "date"), self.date, required=True)
        if (self.value is None) == (self.percentage is None):
            problems.add(path, "give value (cents) or percentage, one of them")
        if self.value is not None:
            problems.cents(join(path, "value"), self.value)
        if self.percentage is not None and not (
            is_int(self.percentage) and 1 <= self.percentage <= 10000
        ):
            problems.add(join(path, "percentage"), "must be 1 to 10000 (hundredths of a percent)")

    def to_dict(self) -> dict[str, Any]:
        day = self.date.isoformat() if isinstance(self.date, dt.date) else self.date
        return compact(date=day, value=self.value, percentage=self.percentage)


@dataclass(frozen=True)
class PaymentInstructions(Builder):
    """``charges[].payment_instructions`` of a boleto: what the bank charges or discounts.

    PagBank's sandbox is reported to drop them; production applies them.
    """

    fine: Penalty | None = None
    interest: Penalty | None = None
    discount: Penalty | None = None

    def collect(self, problems: Problems, path: str) -> None:
        for name in ("fine", "interest", "discount"):
            where = join(path, name)
            part = getattr(self, name)
            if problems.instance(where, part, Penalty, required=False):
                part.collect(problems, where)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            **{
                name: part.to_dict()
                for name in ("fine", "interest", "discount")
                if (part := getattr(self, name)) is not None
            }
        )
