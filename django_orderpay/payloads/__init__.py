"""Typed, immutable builders of the provider's request bodies, validated before any network call.

Pure: no Django models, no settings, no I/O. Each builder is a frozen
dataclass with ``to_dict()`` (the spec's JSON) and ``validate(path="")``.
``Order.to_dict()`` and ``PayRequest.to_dict()`` validate first, so a body
that leaves this module is valid; nested builders' ``to_dict()`` only shape.
Errors are :class:`~django_orderpay.exceptions.ValidationError` listing every
:class:`~django_orderpay.exceptions.FieldError` by the provider's path
(``charges[0].payment_method.card.exp_year``). Plain dicts shaped as the spec
shows go through :func:`order_from_dict` / :func:`validate_order_dict` (and
the pay equivalents) and meet the same rules.
"""

from __future__ import annotations

from django_orderpay.exceptions import FieldError, ValidationError

from .authentication import AuthenticationMethod, BuyerInterest
from .boleto import BoletoHolder, BoletoPayment, PaymentInstructions, Penalty
from .card import Card, PaymentMethod
from .charge import ACCOUNT_ID_PATTERN, Amount, Charge, Receiver, Recurring, Splits
from .customer import Address, Customer, Holder, Item, Phone, Shipping
from .order import DeepLink, Order, PayRequest
from .parse import (
    order_from_dict,
    pay_request_from_dict,
    validate_order_dict,
    validate_pay_dict,
)
from .pix import QrCode

__all__ = [
    "ACCOUNT_ID_PATTERN",
    "Address",
    "Amount",
    "AuthenticationMethod",
    "BoletoHolder",
    "BoletoPayment",
    "BuyerInterest",
    "Card",
    "Charge",
    "Customer",
    "DeepLink",
    "FieldError",
    "Holder",
    "Item",
    "Order",
    "PayRequest",
    "PaymentInstructions",
    "PaymentMethod",
    "Penalty",
    "Phone",
    "QrCode",
    "Receiver",
    "Recurring",
    "Shipping",
    "Splits",
    "ValidationError",
    "order_from_dict",
    "pay_request_from_dict",
    "validate_order_dict",
    "validate_pay_dict",
]
