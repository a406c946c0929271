"""``payment_method`` of a boleto: its due date, instruction lines and payer, and the
charge's ``payment_instructions`` (fine, interest, discounts)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, index, is_int, join
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
    """``boleto.holder``: who pays the boleto, with the address the bank prints on it.

    ``name`` is 1 to 30 characters (PagBank's table); a longer one is refused, naming
    the field: :func:`django_orderpay.rules.boleto_payer_name` shortens one at a word.
    """

    name: str
    tax_id: str
    email: str
    address: Address

    def collect(self, problems: Problems, path: str) -> None:
        # A bank registers the boleto with its payer's document: check digits right.
        collect_person(
            problems,
            path,
            self.name,
            self.email,
            self.tax_id,
            name_limit="boleto.holder.name",
            check_digits=True,
        )
        address_path = join(path, "address")
        if problems.instance(address_path, self.address, Address):
            self.address.collect(problems, address_path, country_as_written=True)

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
    #: ``COBRANCA`` (takes fines, interest and discounts) or ``PROPOSTA`` (PagBank's default);
    #: a charge with ``payment_instructions`` sends ``COBRANCA`` when it is not given.
    template: str | None = None
    #: Days after the due date the boleto may still be paid (with its fine and interest):
    #: the docs' example sends 45. Sent as a string, as the reference types it.
    days_until_expiration: int | None = None

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
        problems.text(
            join(path, "boleto.template"), self.template, choices=rules.BOLETO_TEMPLATES,
            required=False,
        )  # fmt: skip
        problems.integer(
            join(path, "boleto.days_until_expiration"),
            self.days_until_expiration,
            0,
            rules.BOLETO_LONGEST_EXPIRATION_DAYS,
            required=False,
        )
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
        days = self.days_until_expiration
        boleto = compact(
            template=self.template,
            due_date=due,
            days_until_expiration=str(days) if is_int(days) else days,
            instruction_lines=lines or None,
            holder=self.holder.to_dict() if isinstance(self.holder, BoletoHolder) else self.holder,
        )
        return {"type": self.type, "boleto": boleto}


def _percentage(problems: Problems, path: str, value: Any, limit: int) -> None:
    """A percentage in hundredths (PagBank's integer ``value``: 200 is 2,00 %), 1 to ``limit``."""
    if not problems.present(path, value, True):
        return
    if not is_int(value) or not 1 <= value <= limit:
        shown = f"{limit // 100},{limit % 100:02d} %"
        problems.add(path, f"must be 1 to {limit} hundredths of a percent (0,01 % to {shown})")


@dataclass(frozen=True)
class Penalty(Builder):
    """A boleto's fine or interest: from ``date`` (after the due date), ``percentage`` in
    hundredths of a percent, sent as PagBank's ``value`` (200 is 2,00 %).

    PagBank reads ``value`` as a percentage times 100, never cents: the old
    ``value=`` argument (cents) is refused, naming the field, rather than sent
    to become a percentage.
    """

    date: dt.date
    value: int | None = None
    percentage: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "date", _day(self.date))

    def collect(self, problems: Problems, path: str, *, limit: int = 9999) -> None:
        _check_day(problems, join(path, "date"), self.date, required=True)
        if self.value is not None:
            problems.add(
                join(path, "value"),
                "PagBank reads value as hundredths of a percent, not cents: "
                "give percentage= (200 is 2,00 %)",
            )
            return
        # Named as PagBank names the field it is sent in.
        _percentage(problems, join(path, "value"), self.percentage, limit)

    def to_dict(self) -> dict[str, Any]:
        day = self.date.isoformat() if isinstance(self.date, dt.date) else self.date
        return compact(date=day, value=self.percentage)


@dataclass(frozen=True)
class Discount(Builder):
    """``payment_instructions.discounts[]``: until ``due_date`` (at the latest the boleto's),
    ``percentage`` hundredths of a percent off, sent as PagBank's ``value``."""

    due_date: dt.date
    percentage: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "due_date", _day(self.due_date))

    def collect(self, problems: Problems, path: str) -> None:
        _check_day(problems, join(path, "due_date"), self.due_date, required=True)
        limit = rules.BOLETO_INSTRUCTION_LIMITS["discounts"]
        _percentage(problems, join(path, "value"), self.percentage, limit)

    def to_dict(self) -> dict[str, Any]:
        day = self.due_date
        return {"due_date": day.isoformat() if isinstance(day, dt.date) else day,
                "value": self.percentage}  # fmt: skip


@dataclass(frozen=True)
class PaymentInstructions(Builder):
    """``charges[].payment_instructions`` of a boleto: its fine and interest after the due
    date and its discounts until it, each a percentage (PagBank's "criar e pagar pedido com
    boleto": fine 0,01 % to 99,99 %, interest to 59,99 %, discounts to 99,99 %).

    The boleto is then sent with ``template: COBRANCA`` (a ``PROPOSTA`` boleto takes none).
    ``discount`` (a :class:`Penalty`) is not PagBank's key: it is refused, naming
    ``discounts``.
    """

    fine: Penalty | None = None
    interest: Penalty | None = None
    discount: Penalty | None = None
    discounts: tuple[Discount, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "discounts", tuple(self.discounts or ()))

    def collect(self, problems: Problems, path: str, *, due_date: Any = None) -> None:
        due = due_date if isinstance(due_date, dt.date) else None
        for name in ("fine", "interest"):
            where = join(path, name)
            part = getattr(self, name)
            if problems.instance(where, part, Penalty, required=False):
                part.collect(problems, where, limit=rules.BOLETO_INSTRUCTION_LIMITS[name])
                if due is not None and isinstance(part.date, dt.date) and part.date <= due:
                    problems.add(join(where, "date"), "must be after the boleto's due date")
        if self.discount is not None:
            problems.add(
                join(path, "discount"),
                "PagBank's key is discounts, a list: give discounts=[Discount(due_date, "
                "percentage)]",
            )
        for position, entry in enumerate(self.discounts):
            where = index(join(path, "discounts"), position)
            if problems.instance(where, entry, Discount):
                entry.collect(problems, where)
                day = entry.due_date
                if due is not None and isinstance(day, dt.date) and day > due:
                    problems.add(join(where, "due_date"), "must be the due date or before it")

    def __bool__(self) -> bool:
        return bool(self.fine or self.interest or self.discount or self.discounts)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            fine=self.fine.to_dict() if isinstance(self.fine, Penalty) else None,
            interest=self.interest.to_dict() if isinstance(self.interest, Penalty) else None,
            discounts=[d.to_dict() for d in self.discounts] or None,
        )
