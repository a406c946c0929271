"""``charges[].sub_merchant``: the sub-merchant a payment facilitator charges a card for.

The rules are PagBank's use case "criar pedido com cartão (facilitadores de
pagamento)": ``tax_id`` 11 or 14 digits whose check digits are validated,
``name`` 3 to 60 characters, ``reference_id`` up to 15, ``mcc`` digits (its
example sends "155"), the address, and phones (its example's 11-digit number).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._problems import Builder, Problems, index, join
from .customer import Address, Phone


@dataclass(frozen=True)
class SubMerchant(Builder):
    """``sub_merchant``: who a payment facilitator charges for (card charges only)."""

    reference_id: str
    name: str
    tax_id: str
    mcc: str
    address: Address
    phones: tuple[Phone, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "phones", tuple(self.phones or ()))

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "reference_id"), self.reference_id, limit=(1, 15))
        problems.text(join(path, "name"), self.name, limit=(3, 60))
        problems.tax_id(join(path, "tax_id"), self.tax_id, check_digits=True)
        problems.digits(join(path, "mcc"), self.mcc, 1, 4)
        address_path = join(path, "address")
        if problems.instance(address_path, self.address, Address):
            self.address.collect(problems, address_path, country_as_written=True)
        for position, phone in enumerate(self.phones):
            where = index(join(path, "phones"), position)
            if problems.instance(where, phone, Phone):
                phone.collect(problems, where, longest_number=11)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reference_id": self.reference_id,
            "name": self.name,
            "tax_id": self.tax_id,
            "mcc": self.mcc,
            "address": self.address.to_dict(),
        }
        if self.phones:
            data["phones"] = [phone.to_dict() for phone in self.phones]
        return data
