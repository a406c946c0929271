"""What is charged: Amount, Recurring, Splits and their Receivers, ChargeRequest."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, index, is_int, join
from .authentication import AuthenticationMethod, BuyerInterest
from .boleto import BoletoPayment, PaymentInstructions
from .card import PaymentMethod
from .facilitator import SubMerchant

#: A receiver's account id (its home is :mod:`django_orderpay.rules`, shared with the emulator).
ACCOUNT_ID_PATTERN = rules.ACCOUNT_ID_PATTERN


@dataclass(frozen=True)
class Amount(Builder):
    """``amount``: integer cents, 1 to 999999999, BRL.

    ``fees`` is the buyer's interest of an installment plan
    (``services.installment_plans``): ``value`` is then the plan's total, interest included.
    """

    value: int
    currency: str | None = "BRL"
    fees: BuyerInterest | None = None

    def collect(self, problems: Problems, path: str) -> None:
        problems.cents(join(path, "value"), self.value)
        problems.text(
            join(path, "currency"), self.currency, choices=rules.CURRENCIES, required=False
        )
        fees_path = join(path, "fees.buyer.interest")
        if problems.instance(fees_path, self.fees, BuyerInterest, required=False):
            self.fees.collect(problems, fees_path)  # type: ignore[union-attr]
            if is_int(self.value) and is_int(self.fees.total) and self.fees.total >= self.value:  # type: ignore[union-attr]
                problems.add(join(fees_path, "total"), "must be less than the amount it is part of")

    def to_dict(self) -> dict[str, Any]:
        fees = self.fees.to_dict() if isinstance(self.fees, BuyerInterest) else None
        return compact(value=self.value, currency=self.currency, fees=fees)


@dataclass(frozen=True)
class Recurring(Builder):
    """``charges[].recurring``: ``INITIAL``, or ``SUBSEQUENT`` with the initial NRID and amount.

    The provider does not block a SUBSEQUENT charge without ``recurrence_id``
    and ``original_amount`` (the card network may decline it), so neither do we.
    """

    type: str
    recurrence_id: str | None = None
    original_amount: int | None = None

    @classmethod
    def initial(cls) -> Recurring:
        """The first payment of a recurrence (keep its ``brand_reference_id``)."""
        return cls("INITIAL")

    @classmethod
    def subsequent(cls, recurrence_id: str, original_amount: int) -> Recurring:
        """A later payment: the initial ``brand_reference_id`` and amount."""
        return cls("SUBSEQUENT", recurrence_id, original_amount)

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "type"), self.type, choices=rules.RECURRING_TYPES)
        problems.text(
            join(path, "recurrence_id"), self.recurrence_id, limit=(1, 64), required=False
        )
        problems.cents(join(path, "original_amount"), self.original_amount, required=False)
        if self.type == "INITIAL":
            for name in ("recurrence_id", "original_amount"):
                if getattr(self, name) is not None:
                    problems.add(join(path, name), "is sent only with type SUBSEQUENT")

    def to_dict(self) -> dict[str, Any]:
        return compact(
            type=self.type, recurrence_id=self.recurrence_id, original_amount=self.original_amount
        )


def is_money_like(value: Any) -> bool:
    """A float or Decimal: a number that is refused as money rather than rounded."""
    return isinstance(value, float | Decimal)


def _split_value(value: Any) -> int | None:
    """A receiver's amount as an integer: an int or a string of digits (as the sample sends)."""
    if is_int(value):
        return value
    if isinstance(value, str) and rules.is_digits(value):
        return int(value)
    return None


@dataclass(frozen=True)
class Receiver(Builder):
    """``splits.receivers[]``: an ``ACCO_`` account and its part, in cents or a percentage.

    Build it with :meth:`fixed` (``amount`` in cents, for :meth:`Splits.fixed`)
    or :meth:`percentage` (a percentage, for :meth:`Splits.percentage`): the
    number alone does not say which, so ``Receiver(account_id, amount)`` is
    deprecated. ``amount`` is sent as a string of digits, as the provider's
    sample does.
    """

    account_id: str
    amount: int | str
    reason: str | None = None
    liable: bool | None = None
    #: ``configurations.chargeback``, passed through as given.
    chargeback: dict[str, Any] | None = None
    #: ``PRIMARY`` (the merchant's own account) or ``SECONDARY``; optional, as the
    #: provider works it out from the account when it is not sent.
    type: str | None = None
    #: What ``amount`` is: ``FIXED`` (cents) or ``PERCENTAGE``; it must be the split's
    #: method. Set by :meth:`fixed` and :meth:`percentage`; never sent.
    method: str | None = None

    def __post_init__(self) -> None:
        if self.method is None:
            warnings.warn(
                "Receiver(account_id, amount) does not say whether amount is cents or a "
                "percentage: use Receiver.fixed(account_id, cents) or "
                "Receiver.percentage(account_id, percent)",
                DeprecationWarning,
                stacklevel=3,
            )

    @classmethod
    def fixed(cls, account_id: str, cents: int | str, **options: Any) -> Receiver:
        """A receiver of ``cents`` of the charge (a FIXED split's part)."""
        return cls(account_id, cents, method="FIXED", **options)

    @classmethod
    def percentage(cls, account_id: str, percent: int | str, **options: Any) -> Receiver:
        """A receiver of ``percent`` % of the charge (a PERCENTAGE split's part)."""
        return cls(account_id, percent, method="PERCENTAGE", **options)

    def collect(self, problems: Problems, path: str, *, maximum: int = rules.MAX_AMOUNT) -> None:
        problems.text(
            join(path, "account.id"),
            self.account_id,
            pattern=ACCOUNT_ID_PATTERN,
            pattern_message="must be an ACCO_ account id",
        )
        value_path = join(path, "amount.value")
        value = _split_value(self.amount)
        if not problems.present(value_path, self.amount, True):
            pass
        elif value is None:
            kind = f", not a {type(self.amount).__name__}" if is_money_like(self.amount) else ""
            problems.add(value_path, f"must be a whole number (or a string of digits){kind}")
        elif not 1 <= value <= maximum:
            problems.add(value_path, f"must be between 1 and {maximum}")
        problems.text(join(path, "reason"), self.reason, limit=(1, 255), required=False)
        problems.text(join(path, "type"), self.type, choices=rules.RECEIVER_TYPES, required=False)
        problems.boolean(join(path, "configurations.liable"), self.liable)
        if self.chargeback is not None and not isinstance(self.chargeback, dict):
            problems.add(join(path, "configurations.chargeback"), "must be an object")

    @property
    def value(self) -> int | None:
        """The amount as an integer (None when it is not a whole number)."""
        return _split_value(self.amount)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "account": {"id": self.account_id},
            "amount": {"value": str(self.amount) if is_int(self.amount) else self.amount},
        }
        if self.reason is not None:
            data["reason"] = self.reason
        if self.type is not None:
            data["type"] = self.type
        configurations = compact(liable=self.liable, chargeback=self.chargeback)
        if configurations:
            data["configurations"] = configurations
        return data


@dataclass(frozen=True)
class Splits(Builder):
    """``charges[].splits``: FIXED parts sum to the charge amount, PERCENTAGE parts to 100.

    2 to 15 receivers, each account once, at most one ``liable`` and none when
    the charge is recurring. (That the merchant's own account is listed is
    checked by the provider: a builder does not know the account.)
    """

    method: str
    receivers: tuple[Receiver, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "receivers", tuple(self.receivers or ()))

    @classmethod
    def fixed(cls, *receivers: Receiver) -> Splits:
        return cls("FIXED", receivers)

    @classmethod
    def percentage(cls, *receivers: Receiver) -> Splits:
        return cls("PERCENTAGE", receivers)

    def collect(
        self,
        problems: Problems,
        path: str,
        *,
        charge_amount: int | None = None,
        recurring: bool = False,
    ) -> None:
        method_ok = problems.text(join(path, "method"), self.method, choices=rules.SPLIT_METHODS)
        receivers_path = join(path, "receivers")
        low, high = rules.SPLIT_RECEIVERS
        if not low <= len(self.receivers) <= high:
            problems.add(receivers_path, f"must list {low} to {high} receivers")
        if self.method == "PERCENTAGE":
            maximum = 100
        else:
            maximum = (
                charge_amount if is_int(charge_amount) and charge_amount > 0 else rules.MAX_AMOUNT
            )
        seen: set[str] = set()
        liable = 0
        values: list[int | None] = []
        for position, receiver in enumerate(self.receivers):
            where = index(receivers_path, position)
            if not problems.instance(where, receiver, Receiver):
                values.append(None)
                continue
            receiver.collect(problems, where, maximum=maximum)
            if (
                method_ok
                and receiver.method in rules.SPLIT_METHODS
                and (receiver.method != self.method)
            ):
                problems.add(
                    join(where, "amount.value"),
                    f"is a {receiver.method} part, but the split's method is {self.method}",
                )
            values.append(receiver.value)
            # A non-string id was reported by collect(); it can't be compared here.
            if isinstance(receiver.account_id, str):
                if receiver.account_id in seen:
                    problems.add(join(where, "account.id"), "lists an account a second time")
                seen.add(receiver.account_id)
            if receiver.liable:
                liable += 1
                liable_path = join(where, "configurations.liable")
                if recurring:
                    problems.add(liable_path, "is not allowed on a recurring charge")
                elif liable > 1:
                    problems.add(liable_path, "only one receiver may be liable")
        if method_ok and values and all(value is not None for value in values):
            total = sum(values)  # type: ignore[arg-type]
            sum_path = join(receivers_path, "amount.value")
            if self.method == "PERCENTAGE" and total != 100:
                problems.add(sum_path, "percentages must sum to 100")
            if self.method == "FIXED" and is_int(charge_amount) and total != charge_amount:
                problems.add(sum_path, "fixed amounts must sum to the charge amount")

    @property
    def liable_position(self) -> int | None:
        """The position of the receiver marked liable (None when none is)."""
        return next(
            (n for n, r in enumerate(self.receivers) if isinstance(r, Receiver) and r.liable),
            None,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "receivers": [r.to_dict() for r in self.receivers]}


@dataclass(frozen=True)
class ChargeRequest(Builder):
    """``charges[]``: an amount paid with a payment method, optionally recurring or split.

    ``amount`` may be given as integer cents (BRL) or an :class:`Amount`.
    """

    amount: Amount
    payment_method: PaymentMethod | BoletoPayment
    reference_id: str | None = None
    description: str | None = None
    recurring: Recurring | None = None
    splits: Splits | None = None
    #: A boleto's fine, interest and discount (boleto charges only).
    payment_instructions: PaymentInstructions | None = None
    #: A payment facilitator's sub-merchant (card charges only).
    sub_merchant: SubMerchant | None = None
    #: The charge's own notification URL (one, HTTPS), notified beside the order's.
    notification_urls: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Any bare value becomes an Amount, so a float or Decimal is reported at
        # ``amount.value`` as money (refused, never rounded), like an int is accepted there.
        if self.amount is not None and not isinstance(self.amount, Amount):
            object.__setattr__(self, "amount", Amount(self.amount))
        object.__setattr__(self, "notification_urls", tuple(self.notification_urls or ()))

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(
            join(path, "reference_id"), self.reference_id, limit="reference_id", required=False
        )
        problems.text(
            join(path, "description"), self.description, limit="description", required=False
        )
        amount_path = join(path, "amount")
        charge_amount = None
        if problems.instance(amount_path, self.amount, Amount):
            self.amount.collect(problems, amount_path)
            charge_amount = self.amount.value
        method_path = join(path, "payment_method")
        method = self.payment_method
        if isinstance(method, BoletoPayment):
            method.collect(problems, method_path)
            if is_int(charge_amount) and 0 < charge_amount < rules.BOLETO_MIN_AMOUNT:
                problems.add(
                    join(amount_path, "value"),
                    f"a boleto is at least {rules.BOLETO_MIN_AMOUNT} cents (R$ 0,20)",
                )
            if self.recurring is not None:
                problems.add(join(path, "recurring"), "a boleto charge takes no recurring")
        elif problems.instance(method_path, method, PaymentMethod):
            method.collect(problems, method_path)
            installments = method.installments
            fees = self.amount.fees if isinstance(self.amount, Amount) else None
            if (
                isinstance(fees, BuyerInterest)
                and is_int(fees.installments)
                and is_int(installments)
                and fees.installments > installments
            ):
                problems.add(
                    join(amount_path, "fees.buyer.interest.installments"),
                    "counts the installments that bear interest: at most the charge's "
                    f"{installments}",
                )
            if is_int(charge_amount) and is_int(installments) and installments > 1:
                if charge_amount < installments * rules.MIN_INSTALLMENT:
                    problems.add(
                        join(method_path, "installments"),
                        f"each installment must be at least {rules.MIN_INSTALLMENT} cents "
                        f"(R$ 5,00): {installments} installments need {installments} x "
                        f"{rules.MIN_INSTALLMENT} cents or more",
                    )
        recurring_path = join(path, "recurring")
        if problems.instance(recurring_path, self.recurring, Recurring, required=False):
            self.recurring.collect(problems, recurring_path)  # type: ignore[union-attr]
        splits_path = join(path, "splits")
        if problems.instance(splits_path, self.splits, Splits, required=False):
            self.splits.collect(  # type: ignore[union-attr]
                problems,
                splits_path,
                charge_amount=charge_amount,
                recurring=self.recurring is not None,
            )
        if isinstance(self.splits, Splits):
            self._collect_liable(problems, path, self.splits, method)
        sub_merchant_path = join(path, "sub_merchant")
        if problems.instance(sub_merchant_path, self.sub_merchant, SubMerchant, required=False):
            if not isinstance(method, PaymentMethod):
                problems.add(sub_merchant_path, "applies to card charges only")
            self.sub_merchant.collect(problems, sub_merchant_path)  # type: ignore[union-attr]
        urls_path = join(path, "notification_urls")
        if len(self.notification_urls) > 1:
            problems.add(urls_path, "takes one URL")
        for position, url in enumerate(self.notification_urls):
            problems.text(
                index(urls_path, position),
                url,
                pattern=rules.HTTPS_URL_PATTERN,
                pattern_message="must be an HTTPS URL (PagBank asks for SSL here)",
            )
        instructions_path = join(path, "payment_instructions")
        instructions = self.payment_instructions
        if problems.instance(instructions_path, instructions, PaymentInstructions, required=False):
            due = None
            if not isinstance(method, BoletoPayment):
                problems.add(instructions_path, "applies to boleto charges only")
            else:
                due = method.due_date
                if method.template == "PROPOSTA" and instructions:
                    problems.add(
                        join(method_path, "boleto.template"),
                        "a PROPOSTA boleto takes no fine, interest or discount: use COBRANCA",
                    )
            instructions.collect(problems, instructions_path, due_date=due)  # type: ignore[union-attr]

    @staticmethod
    def _collect_liable(problems: Problems, path: str, splits: Splits, method: Any) -> None:
        """A liable receiver only on a credit card without 3-D Secure (PagBank's error table:
        "The liable configuration can only be applied for credit card payments"; "3DS
        authentication is not valid method for split transactions with liable configuration")."""
        liable = splits.liable_position
        if liable is None:
            return
        if not isinstance(method, PaymentMethod) or method.type != "CREDIT_CARD":
            where = join(path, f"splits.receivers[{liable}].configurations.liable")
            problems.add(where, "a liable receiver is for credit card payments only")
            return
        auth = method.authentication_method
        if isinstance(auth, AuthenticationMethod) and auth.type == "THREEDS":
            problems.add(
                join(path, "payment_method.authentication_method.type"),
                "3-D Secure is not taken on a split with a liable receiver: drop one of them",
            )

    def to_dict(self) -> dict[str, Any]:
        instructions = self.payment_instructions
        method = self.payment_method.to_dict()
        if instructions and isinstance(self.payment_method, BoletoPayment):
            # Fines, interest and discounts need the COBRANCA model (PROPOSTA is the default).
            method["boleto"].setdefault("template", "COBRANCA")
        return compact(
            reference_id=self.reference_id,
            description=self.description,
            amount=self.amount.to_dict(),
            payment_method=method,
            recurring=self.recurring.to_dict() if self.recurring is not None else None,
            splits=self.splits.to_dict() if self.splits is not None else None,
            payment_instructions=instructions.to_dict() if instructions is not None else None,
            sub_merchant=self.sub_merchant.to_dict() if self.sub_merchant is not None else None,
            notification_urls=list(self.notification_urls) or None,
        )
