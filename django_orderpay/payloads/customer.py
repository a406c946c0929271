"""Who buys and where it goes: Customer, Phone, Holder, Item, Address, Shipping."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, index, join

#: What the provider accepts as an email here: something@host.tld.
EMAIL_PATTERN = r"[^@\s]+@[^@\s]+\.[^@\s]+"


@dataclass(frozen=True)
class Phone(Builder):
    """``customer.phones[]``: ``area`` 2 digits, ``number`` 8-9 digits, Brazil by default."""

    area: str
    number: str
    country: str = "55"
    type: str = "MOBILE"

    def collect(self, problems: Problems, path: str, *, longest_number: int = 9) -> None:
        problems.digits(join(path, "country"), self.country, 1, 3)
        problems.digits(join(path, "area"), self.area, 2, 2)
        # A sub-merchant's may have 11 digits: PagBank's example sends "98877887788".
        problems.digits(join(path, "number"), self.number, 8, longest_number)
        problems.text(join(path, "type"), self.type, choices=rules.PHONE_TYPES)

    def to_dict(self) -> dict[str, Any]:
        return {
            "country": self.country,
            "area": self.area,
            "number": self.number,
            "type": self.type,
        }


def collect_person(
    problems: Problems,
    path: str,
    name: Any,
    email: Any,
    tax_id: Any,
    *,
    name_limit: str = "customer.name",
    check_digits: bool = False,
) -> None:
    """A person's ``name``, ``email`` and ``tax_id`` (a customer, a boleto's payer)."""
    problems.name(join(path, "name"), name, limit=name_limit)
    problems.text(
        join(path, "email"),
        email,
        limit="email",
        pattern=EMAIL_PATTERN,
        pattern_message="must be an email address",
    )
    problems.tax_id(join(path, "tax_id"), tax_id, check_digits=check_digits)


def person_dict(name: str, email: str, tax_id: str) -> dict[str, Any]:
    """``name``, ``email`` and ``tax_id`` as PagBank takes them."""
    # PagBank refuses an e-mail with upper-case letters, as the partner plugin
    # found (4.28.0): sent in lower case. A CNPJ's letters upper.
    return {"name": name, "email": email.lower(), "tax_id": tax_id.upper()}


@dataclass(frozen=True)
class Customer(Builder):
    """``customer``: ``name`` 1-120, ``email`` 10-255, ``tax_id`` a CPF or CNPJ, digits only
    (its check digits are not PagBank's to refuse: a shop's form may check them)."""

    name: str
    email: str
    tax_id: str
    phones: tuple[Phone, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "phones", tuple(self.phones or ()))

    def collect(self, problems: Problems, path: str) -> None:
        collect_person(problems, path, self.name, self.email, self.tax_id)
        for position, phone in enumerate(self.phones):
            where = index(join(path, "phones"), position)
            if problems.instance(where, phone, Phone):
                phone.collect(problems, where)

    def to_dict(self) -> dict[str, Any]:
        data = person_dict(self.name, self.email, self.tax_id)
        if self.phones:
            data["phones"] = [phone.to_dict() for phone in self.phones]
        return data


@dataclass(frozen=True)
class Holder(Builder):
    """``card.holder``: ``name`` 1-30 characters without digits, ``tax_id`` optional."""

    name: str | None = None
    tax_id: str | None = None

    def collect(self, problems: Problems, path: str, *, name_required: bool = True) -> None:
        name_path = join(path, "name")
        if problems.name(name_path, self.name, limit="holder.name", required=name_required):
            if any(char.isdigit() for char in self.name or "") or not (self.name or "").strip():
                problems.add(name_path, "must be letters and spaces, without digits")
        problems.tax_id(join(path, "tax_id"), self.tax_id, required=False)

    def to_dict(self) -> dict[str, Any]:
        tax_id = self.tax_id.upper() if isinstance(self.tax_id, str) else self.tax_id
        return compact(name=self.name, tax_id=tax_id)


@dataclass(frozen=True)
class Item(Builder):
    """``items[]``: ``name`` 1-200, ``quantity`` 1-99999, ``unit_amount`` in cents."""

    name: str
    quantity: int
    unit_amount: int
    reference_id: str | None = None

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(
            join(path, "reference_id"), self.reference_id, limit="item.reference_id", required=False
        )
        problems.text(join(path, "name"), self.name, limit="item.name")
        problems.integer(join(path, "quantity"), self.quantity, 1, rules.MAX_QUANTITY)
        problems.cents(join(path, "unit_amount"), self.unit_amount)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            reference_id=self.reference_id,
            name=self.name,
            quantity=self.quantity,
            unit_amount=self.unit_amount,
        )


@dataclass(frozen=True)
class Address(Builder):
    """``shipping.address``: a Brazilian address (``country`` BRA, ``postal_code`` 8 digits);
    as a boleto payer's, ``country`` is as written (1-50 characters, the docs' "Brasil")."""

    street: str
    number: str
    locality: str
    city: str
    region_code: str
    postal_code: str
    complement: str | None = None
    country: str = "BRA"
    #: The state's name (1-50), beside its code: documented, and sent by the official plugin.
    region: str | None = None

    def collect(self, problems: Problems, path: str, *, country_as_written: bool = False) -> None:
        problems.text(join(path, "street"), self.street, limit="street")
        problems.text(join(path, "number"), self.number, limit="address.number")
        problems.text(join(path, "complement"), self.complement, limit="complement", required=False)
        problems.text(join(path, "locality"), self.locality, limit="locality")
        problems.text(join(path, "city"), self.city, limit="city")
        problems.text(
            join(path, "region_code"),
            self.region_code,
            choices=rules.BRAZILIAN_STATES,
            choices_message="must be a Brazilian state code, 2 upper-case letters",
        )
        problems.text(join(path, "region"), self.region, limit="region", required=False)
        if country_as_written:  # a boleto's payer: the docs' example writes "Brasil"
            problems.text(join(path, "country"), self.country, limit="country")
        else:
            problems.text(join(path, "country"), self.country, choices=("BRA",))
        problems.digits(join(path, "postal_code"), self.postal_code, 8, 8)

    def to_dict(self) -> dict[str, Any]:
        return compact(
            street=self.street,
            number=self.number,
            complement=self.complement,
            locality=self.locality,
            city=self.city,
            region=self.region,
            region_code=self.region_code,
            country=self.country,
            postal_code=self.postal_code,
        )


@dataclass(frozen=True)
class Shipping(Builder):
    """``shipping``: ``{"address": Address}``."""

    address: Address

    def collect(self, problems: Problems, path: str) -> None:
        where = join(path, "address")
        if problems.instance(where, self.address, Address):
            self.address.collect(problems, where)

    def to_dict(self) -> dict[str, Any]:
        return {"address": self.address.to_dict()}
