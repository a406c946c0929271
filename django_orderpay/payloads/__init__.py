"""Typed, immutable builders of the provider's request bodies, validated before any network call.

Pure: no Django models, no settings, no I/O. Each builder is a frozen
dataclass with ``to_dict()`` (the spec's JSON) and ``validate(path="")``.
The request builders are named for what they are (``OrderRequest``,
``ChargeRequest``, ``PayRequest``) so they never shadow the models
(``django_orderpay.models.Order``, ``Charge``) in a view that uses both.
``OrderRequest.to_dict()`` and ``PayRequest.to_dict()`` validate first, so a body
that leaves this module is valid; nested builders' ``to_dict()`` only shape.
Errors are :class:`~django_orderpay.exceptions.PayloadError` listing every
:class:`~django_orderpay.exceptions.FieldError` by the provider's path
(``charges[0].payment_method.card.exp_year``). Plain dicts shaped as the spec
shows go through :func:`order_from_dict` / :func:`validate_order_dict` (and
the pay equivalents) and meet the same rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django_orderpay._deprecation import deprecated_getattr
from django_orderpay.exceptions import FieldError, PayloadError

from .authentication import AuthenticationMethod, BuyerInterest
from .boleto import BoletoHolder, BoletoPayment, Discount, PaymentInstructions, Penalty
from .card import Card, PaymentMethod, TokenData, Wallet
from .charge import ACCOUNT_ID_PATTERN, Amount, ChargeRequest, Receiver, Recurring, Splits
from .checkout import (
    CardInstallments,
    CheckoutCustomer,
    CheckoutItem,
    CheckoutPaymentMethod,
    CheckoutPhone,
    CheckoutRequest,
    CheckoutShipping,
    RecurrencePlan,
    ShippingBox,
)
from .checkout_parse import checkout_from_dict, validate_checkout_dict
from .customer import Address, Customer, Holder, Item, Phone, Shipping
from .facilitator import SubMerchant
from .order import DeepLink, OrderRequest, PayRequest
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
    "CardInstallments",
    "ChargeRequest",
    "CheckoutCustomer",
    "CheckoutItem",
    "CheckoutPaymentMethod",
    "CheckoutPhone",
    "CheckoutRequest",
    "CheckoutShipping",
    "Customer",
    "DeepLink",
    "Discount",
    "FieldError",
    "Holder",
    "Item",
    "OrderRequest",
    "PayRequest",
    "PayloadError",
    "PaymentInstructions",
    "PaymentMethod",
    "Penalty",
    "Phone",
    "QrCode",
    "Receiver",
    "RecurrencePlan",
    "Recurring",
    "Shipping",
    "ShippingBox",
    "Splits",
    "SubMerchant",
    "TokenData",
    "Wallet",
    "checkout_from_dict",
    "order_from_dict",
    "pay_request_from_dict",
    "validate_checkout_dict",
    "validate_order_dict",
    "validate_pay_dict",
]

#: Old names, still answered with a DeprecationWarning (docs/names.md).
_DEPRECATED = {
    "Order": ("OrderRequest", "models.Order is the mirror; this builds the request"),
    "Charge": ("ChargeRequest", "models.Charge is the mirror; this builds the request"),
    "ValidationError": ("PayloadError", "Django and DRF have their own ValidationError"),
}
__getattr__ = deprecated_getattr(__name__, _DEPRECATED, globals())

if TYPE_CHECKING:  # the old names, for type checkers (they warn at run time)
    Order = OrderRequest
    Charge = ChargeRequest
    ValidationError = PayloadError
