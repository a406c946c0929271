"""``POST /checkouts``: the hosted checkout's body (``CheckoutRequest``) and its parts.

Field for field as PagBank's "Criar Checkout" page lists them. The enums
(``payment_methods[].type``, ``config_options[].option``, shipping ``type``)
are sent upper case, as the API answers them; it takes any case. Limits
and choices live in :mod:`django_orderpay.rules` (shared with the emulator).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, index, is_int, join
from .customer import EMAIL_PATTERN, Address
from .order import _collect_url
from .pix import _moment


def _enum(value: Any) -> Any:
    return rules.canonical_enum(value)


def _limit(path_key: str) -> tuple[int, int]:
    return rules.CHECKOUT_FIELD_LIMITS[path_key]


@dataclass(frozen=True)
class CheckoutItem(Builder):
    """``items[]``: ``quantity`` and ``unit_amount`` (cents) required; the rest optional."""

    quantity: int
    unit_amount: int
    name: str | None = None
    reference_id: str | None = None
    description: str | None = None
    image_url: str | None = None

    def collect(self, problems: Problems, path: str) -> None:
        problems.integer(join(path, "quantity"), self.quantity, 1, rules.MAX_QUANTITY)
        problems.integer(
            join(path, "unit_amount"), self.unit_amount, 1, rules.CHECKOUT_MAX_AMOUNT, money=True
        )
        for key in ("reference_id", "name", "description"):
            limit = _limit(f"items.{key}")
            problems.text(join(path, key), getattr(self, key), limit=limit, required=False)
        if self.image_url is not None:
            _collect_url(problems, join(path, "image_url"), self.image_url)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            reference_id=self.reference_id,
            name=self.name,
            description=self.description,
            quantity=self.quantity,
            unit_amount=self.unit_amount,
            image_url=self.image_url,
        )

    @property
    def subtotal(self) -> int:
        return self.quantity * self.unit_amount if is_int(self.quantity) else 0


@dataclass(frozen=True)
class CheckoutPhone(Builder):
    """``customer.phone`` (one, not a list): Brazil only, a 9-digit mobile starting with 9."""

    area: str
    number: str
    country: str = "+55"

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(
            join(path, "country"),
            self.country,
            pattern=r"\+?55",
            pattern_message="must be 55 or +55 (Brazil only)",
        )
        problems.digits(join(path, "area"), self.area, 2, 2)
        problems.text(
            join(path, "number"),
            self.number,
            pattern=r"9[0-9]{8}",
            pattern_message="must be 9 digits starting with 9",
        )

    def to_dict(self) -> dict[str, Any]:
        return {"country": self.country, "area": self.area, "number": self.number}


@dataclass(frozen=True)
class CheckoutCustomer(Builder):
    """``customer``: filled in on the page; all of it required with ``customer_modifiable``
    false (``CheckoutRequest`` checks that)."""

    name: str | None = None
    email: str | None = None
    tax_id: str | None = None
    phone: CheckoutPhone | None = None

    def collect(self, problems: Problems, path: str, *, whole: bool = False) -> None:
        problems.text(join(path, "name"), self.name, limit=_limit("customer.name"), required=whole)
        problems.text(
            join(path, "email"),
            self.email,
            limit=_limit("customer.email"),
            required=whole,
            pattern=EMAIL_PATTERN,
            pattern_message="must be an email address",
        )
        problems.tax_id(join(path, "tax_id"), self.tax_id, required=whole)
        where = join(path, "phone")
        if problems.instance(where, self.phone, CheckoutPhone, required=whole):
            self.phone.collect(problems, where)  # type: ignore[union-attr]

    def to_dict(self) -> dict[str, Any]:
        return compact(
            name=self.name,
            email=self.email.lower() if isinstance(self.email, str) else self.email,
            tax_id=self.tax_id.upper() if isinstance(self.tax_id, str) else self.tax_id,
            phone=self.phone.to_dict() if self.phone is not None else None,
        )


@dataclass(frozen=True)
class ShippingBox(Builder):
    """``shipping.box`` of a calculated shipping: ``weight`` and the box's sides in cm."""

    weight: int | str
    length: int
    width: int
    height: int

    def collect(self, problems: Problems, path: str) -> None:
        weight = self.weight
        if not (is_int(weight) and weight > 0) and not rules.is_digits(weight, range(1, 7)):
            problems.add(join(path, "weight"), "must be a positive whole number")
        for name, (low, high) in rules.BOX_DIMENSIONS.items():
            problems.integer(join(path, f"dimensions.{name}"), getattr(self, name), low, high)

    def to_dict(self) -> dict[str, Any]:
        dimensions = {"length": self.length, "width": self.width, "height": self.height}
        return {"dimensions": dimensions, "weight": self.weight}


@dataclass(frozen=True)
class CheckoutShipping(Builder):
    """``shipping``: ``FIXED`` (with ``amount``), ``FREE`` or ``CALCULATE`` (with a ``box``)."""

    type: str
    amount: int | None = None
    service_type: str | None = None
    address: Address | None = None
    address_modifiable: bool | None = None
    box: ShippingBox | None = None

    def collect(self, problems: Problems, path: str) -> None:
        kind = _enum(self.type)
        problems.text(join(path, "type"), kind, choices=rules.SHIPPING_TYPES)
        problems.text(
            join(path, "service_type"),
            _enum(self.service_type),
            choices=rules.SHIPPING_SERVICES,
            required=False,
        )
        problems.integer(
            join(path, "amount"), self.amount, 0, rules.MAX_INT32, required=kind == "FIXED"
        )
        problems.boolean(join(path, "address_modifiable"), self.address_modifiable)
        where = join(path, "address")
        required = self.address_modifiable is False
        if problems.instance(where, self.address, Address, required=required):
            self.address.collect(problems, where)  # type: ignore[union-attr]
        where = join(path, "box")
        if problems.instance(where, self.box, ShippingBox, required=kind == "CALCULATE"):
            self.box.collect(problems, where)  # type: ignore[union-attr]

    def to_dict(self) -> dict[str, Any]:
        return compact(
            type=_enum(self.type),
            service_type=_enum(self.service_type),
            address_modifiable=self.address_modifiable,
            amount=self.amount,
            address=self.address.to_dict() if self.address is not None else None,
            box=self.box.to_dict() if self.box is not None else None,
        )


@dataclass(frozen=True)
class CheckoutPaymentMethod(Builder):
    """``payment_methods[]``: a method the page offers; ``brands`` for the card ones."""

    type: str
    brands: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.brands, list):
            object.__setattr__(self, "brands", tuple(self.brands))

    def collect(self, problems: Problems, path: str) -> None:
        kind = _enum(self.type)
        problems.text(join(path, "type"), kind, choices=rules.CHECKOUT_PAYMENT_METHODS)
        where = join(path, "brands")
        if not problems.sequence(where, self.brands):
            return
        if self.brands and kind not in rules.CHECKOUT_CARD_METHODS:
            problems.add(where, "brands apply to CREDIT_CARD and DEBIT_CARD only")
        for position, brand in enumerate(self.brands):
            problems.text(index(where, position), _enum(brand), choices=rules.CHECKOUT_BRANDS)

    def to_dict(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"type": _enum(self.type)}
        if self.brands:
            answer["brands"] = [_enum(brand) for brand in self.brands]
        return answer


@dataclass(frozen=True)
class CardInstallments(Builder):
    """``payment_methods_configs[]`` of a card method: at most ``installments_limit``
    installments, the first ``interest_free_installments`` of them free of interest."""

    type: str
    installments_limit: int | None = None
    interest_free_installments: int | None = None

    def collect(self, problems: Problems, path: str) -> None:
        kind = _enum(self.type)
        problems.text(join(path, "type"), kind, choices=rules.CHECKOUT_CARD_METHODS)
        high = 1 if kind == "DEBIT_CARD" else rules.MAX_INSTALLMENTS_ENABLED
        where = join(path, "config_options")
        limit_ok = problems.integer(
            f"{where}.INSTALLMENTS_LIMIT", self.installments_limit, 1, high, required=False
        )
        free_ok = problems.integer(
            f"{where}.INTEREST_FREE_INSTALLMENTS",
            self.interest_free_installments,
            1,
            high,
            required=False,
        )
        if self.installments_limit is None and self.interest_free_installments is None:
            problems.add(where, "must set installments_limit or interest_free_installments")
        elif limit_ok and free_ok and self.installments_limit is not None:
            if (self.interest_free_installments or 1) > self.installments_limit:
                problems.add(where, "interest-free installments can't exceed the limit")

    def to_dict(self) -> dict[str, Any]:
        options = []
        if self.installments_limit is not None:
            options.append({"option": "INSTALLMENTS_LIMIT", "value": str(self.installments_limit)})
        if self.interest_free_installments is not None:
            options.append(
                {
                    "option": "INTEREST_FREE_INSTALLMENTS",
                    "value": str(self.interest_free_installments),
                }
            )
        return {"type": _enum(self.type), "config_options": options}


@dataclass(frozen=True)
class RecurrencePlan(Builder):
    """``recurrence_plan``: a subscription paid by credit card, one item, every
    ``interval_length`` ``interval_unit`` s, for ``billing_cycles`` (None: until cancelled)."""

    name: str
    billing_cycles: int | None = None
    interval_unit: str = "MONTH"
    interval_length: int = 1

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "name"), self.name, limit=_limit("recurrence_plan.name"))
        problems.integer(join(path, "billing_cycles"), self.billing_cycles, 1, 999, required=False)
        problems.text(
            join(path, "interval.unit"), _enum(self.interval_unit), choices=rules.RECURRENCE_UNITS
        )
        problems.integer(join(path, "interval.length"), self.interval_length, 1, 12)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            name=self.name,
            billing_cycles=self.billing_cycles,
            interval={"unit": _enum(self.interval_unit), "length": self.interval_length},
        )


def _tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    return () if value is None else value


@dataclass(frozen=True)
class CheckoutRequest(Builder):
    """The body of ``POST /checkouts``: PagBank's hosted page for a purchase (or a link).

    ``items`` is required. Without ``expiration_date`` the checkout expires two
    hours after it is created; without ``payment_methods`` the page offers
    every method. ``notification_urls`` hear the checkout's own changes
    (EXPIRED), ``payment_notification_urls`` the orders its page makes.
    Validation runs in :meth:`to_dict`, naming every invalid field.
    """

    items: tuple[CheckoutItem, ...]
    reference_id: str | None = None
    expiration_date: datetime | None = None
    customer: CheckoutCustomer | None = None
    customer_modifiable: bool | None = None
    additional_amount: int | None = None
    discount_amount: int | None = None
    shipping: CheckoutShipping | None = None
    payment_methods: tuple[CheckoutPaymentMethod, ...] = ()
    payment_methods_configs: tuple[CardInstallments, ...] = ()
    soft_descriptor: str | None = None
    redirect_url: str | None = None
    return_url: str | None = None
    notification_urls: tuple[str, ...] = ()
    payment_notification_urls: tuple[str, ...] = ()
    recurrence_plan: RecurrencePlan | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "expiration_date", _moment(self.expiration_date))
        for name in (
            "items",
            "payment_methods",
            "payment_methods_configs",
            "notification_urls",
            "payment_notification_urls",
        ):
            object.__setattr__(self, name, _tuple(getattr(self, name)))

    @property
    def amount(self) -> int:
        """What the page charges before card interest: items, additional amount and fixed
        shipping, less the discount (a calculated shipping is added on the page)."""
        items = sum(item.subtotal for item in self.items if isinstance(item, CheckoutItem))
        shipping = self.shipping.amount if self.shipping is not None else None
        extra = [self.additional_amount, shipping, -(self.discount_amount or 0)]
        return items + sum(value for value in extra if is_int(value))

    def collect(self, problems: Problems, path: str = "") -> None:
        problems.text(
            join(path, "reference_id"),
            self.reference_id,
            limit=_limit("reference_id"),
            required=False,
        )
        moment = self.expiration_date
        if moment is not None and (not isinstance(moment, datetime) or moment.utcoffset() is None):
            problems.add(
                join(path, "expiration_date"),
                "must be a date and time with its UTC offset (ISO 8601)",
            )
        problems.boolean(join(path, "customer_modifiable"), self.customer_modifiable)
        where = join(path, "customer")
        whole = self.customer_modifiable is False
        if problems.instance(where, self.customer, CheckoutCustomer, required=whole):
            self.customer.collect(problems, where, whole=whole)  # type: ignore[union-attr]
        self._collect_items(problems, join(path, "items"))
        for key in ("additional_amount", "discount_amount"):
            problems.integer(
                join(path, key), getattr(self, key), 0, rules.CHECKOUT_MAX_AMOUNT, required=False
            )
        where = join(path, "shipping")
        if problems.instance(where, self.shipping, CheckoutShipping, required=False):
            self.shipping.collect(problems, where)  # type: ignore[union-attr]
        self._collect_methods(problems, path)
        problems.text(
            join(path, "soft_descriptor"),
            self.soft_descriptor,
            limit=_limit("soft_descriptor"),
            required=False,
        )
        for key in ("redirect_url", "return_url"):
            value = getattr(self, key)
            if value is not None and problems.text(join(path, key), value, limit=_limit(key)):
                _collect_url(problems, join(path, key), value)
        for key in ("notification_urls", "payment_notification_urls"):
            where = join(path, key)
            if problems.sequence(where, getattr(self, key)):
                for position, url in enumerate(getattr(self, key)):
                    spot = index(where, position)
                    if problems.text(spot, url, limit=_limit(key)):
                        _collect_url(problems, spot, url)
        where = join(path, "recurrence_plan")
        if problems.instance(where, self.recurrence_plan, RecurrencePlan, required=False):
            self.recurrence_plan.collect(problems, where)  # type: ignore[union-attr]
            self._collect_recurrence(problems, path)
        if not problems.errors and self.discount_amount:
            items = sum(item.subtotal for item in self.items)
            if self.discount_amount > items + (self.additional_amount or 0):
                problems.add(
                    join(path, "discount_amount"),
                    "can't exceed the items plus the additional amount",
                )
        if not problems.errors and not 1 <= self.amount <= rules.MAX_AMOUNT:
            # The provider refuses it (invalid_cart_total_value, naming the items).
            problems.add(
                join(path, "items"),
                "the total (items, additional amount and fixed shipping, less the discount) "
                f"must be from 1 to {rules.MAX_AMOUNT} cents",
            )

    def _collect_items(self, problems: Problems, where: str) -> None:
        if not problems.sequence(where, self.items):
            return
        if not self.items:
            problems.add(where, "must list at least one item")
        for position, item in enumerate(self.items):
            spot = index(where, position)
            if problems.instance(spot, item, CheckoutItem):
                item.collect(problems, spot)

    def _collect_methods(self, problems: Problems, path: str) -> None:
        where = join(path, "payment_methods")
        offered = set()
        if problems.sequence(where, self.payment_methods):
            for position, method in enumerate(self.payment_methods):
                spot = index(where, position)
                if problems.instance(spot, method, CheckoutPaymentMethod):
                    method.collect(problems, spot)
                    offered.add(_enum(method.type))
        where = join(path, "payment_methods_configs")
        if not problems.sequence(where, self.payment_methods_configs):
            return
        configured = set()
        for position, config in enumerate(self.payment_methods_configs):
            spot = index(where, position)
            if not problems.instance(spot, config, CardInstallments):
                continue
            config.collect(problems, spot)
            kind = _enum(config.type)
            if kind in configured:
                problems.add(join(spot, "type"), "is configured twice")
            configured.add(kind)
            if offered and kind not in offered:
                problems.add(join(spot, "type"), "is not one of the payment_methods")

    def _collect_recurrence(self, problems: Problems, path: str) -> None:
        if len(self.items) > 1:
            problems.add(join(path, "items"), "a recurrent checkout has one item")
        if self.shipping is not None:
            problems.add(join(path, "shipping"), "a recurrent checkout has no shipping")
        kinds = {_enum(method.type) for method in self.payment_methods}
        if kinds - {"CREDIT_CARD"}:
            problems.add(join(path, "payment_methods"), "a recurrent checkout takes CREDIT_CARD")
        for config in self.payment_methods_configs:
            if (config.installments_limit or 1) > 1:
                problems.add(
                    join(path, "payment_methods_configs"),
                    "a recurrent checkout is paid in one installment",
                )

    def to_dict(self) -> dict[str, Any]:
        """The validated JSON body; raises ``PayloadError`` naming every invalid field."""
        self.validate()
        return self.body()

    def body(self) -> dict[str, Any]:
        """The JSON body, for a request already validated."""
        moment = self.expiration_date
        return compact(
            reference_id=self.reference_id,
            expiration_date=moment.isoformat(timespec="seconds") if moment else None,
            customer=self.customer.to_dict() if self.customer is not None else None,
            customer_modifiable=self.customer_modifiable,
            items=[item.to_dict() for item in self.items],
            additional_amount=self.additional_amount,
            discount_amount=self.discount_amount,
            shipping=self.shipping.to_dict() if self.shipping is not None else None,
            payment_methods=[method.to_dict() for method in self.payment_methods] or None,
            payment_methods_configs=(
                [config.to_dict() for config in self.payment_methods_configs] or None
            ),
            soft_descriptor=self.soft_descriptor,
            redirect_url=self.redirect_url,
            return_url=self.return_url,
            notification_urls=list(self.notification_urls) or None,
            payment_notification_urls=list(self.payment_notification_urls) or None,
            recurrence_plan=(
                self.recurrence_plan.to_dict() if self.recurrence_plan is not None else None
            ),
        )
