"""A charge request (``charges[i]`` of a create or pay call), checked and resolved.

Every charge of a call is parsed before any is executed, so an error in
``charges[1]`` leaves nothing half done.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ..state import errors
from ..state.store import State
from ..state.validation import (
    check_str,
    field_path,
    item_path,
    reject_unknown,
    require_bool,
    require_int,
    require_object,
    require_str,
    validate_amount,
    validate_holder,
    validate_metadata,
)
from .boleto import BoletoRequest, parse_boleto_charge
from .cards import Card, check_token_data, resolve_card
from .splits import check_liable, validate_splits
from .sub_merchant import validate_sub_merchant
from .threeds import ChargeAuthentication, check_authentication

CHARGE_KEYS = frozenset(
    {
        "reference_id",
        "description",
        "amount",
        "payment_method",
        "recurring",
        "splits",
        "metadata",
        "payment_instructions",
        "sub_merchant",
        "notification_urls",
    }
)

RECURRING_KEYS = frozenset({"type", "recurrence_id", "original_amount"})
PAYMENT_METHOD_TYPES = ("CREDIT_CARD", "DEBIT_CARD", "BOLETO")
#: PagBank's words when a debit card comes without 3-D Secure.
DEBIT_NEEDS_AUTHENTICATION = "Authentication is required for debit card transaction"
#: What the provider prints on the statement when the merchant sends none
#: (the merchant's registered name in production; the samples show this one).
DEFAULT_SOFT_DESCRIPTOR = "LOJAEXEMPLO"


@dataclass(frozen=True)
class ChargeRequest:
    """One checked charge request, its card resolved (never rendered as is)."""

    reference_id: str | None
    description: str | None
    amount: int
    currency: str
    installments: int
    capture: bool
    store: bool
    card: Card
    soft_descriptor: str
    recurring: dict[str, Any] | None
    splits: dict[str, Any] | None
    metadata: dict[str, Any] | None = None
    holder: dict[str, Any] | None = None
    payment_type: str = "CREDIT_CARD"
    authentication: ChargeAuthentication | None = None
    #: ``amount.fees`` as sent: the buyer's interest of an installment plan.
    amount_fees: dict[str, Any] | None = None
    #: ``sub_merchant`` as sent (a payment facilitator's), echoed.
    sub_merchant: dict[str, Any] | None = None
    #: The charge's own ``notification_urls`` (notified beside the order's).
    notification_urls: tuple[str, ...] = ()


def parse_recurring(value: Any, path: str) -> dict[str, Any]:
    """``{"type": INITIAL|SUBSEQUENT, "recurrence_id"?, "original_amount"?}``, echoed as sent.

    A SUBSEQUENT charge without ``recurrence_id``/``original_amount`` is not
    blocked: the spec says the provider lets it through to the network.
    """
    recurring = require_object(value, path)
    reject_unknown(recurring, RECURRING_KEYS, path)
    require_str(recurring, "type", path, choices=rules.RECURRING_TYPES)
    require_str(recurring, "recurrence_id", path, limit=(1, 64), optional=True)
    require_int(
        recurring, "original_amount", path, minimum=1, maximum=rules.MAX_AMOUNT, optional=True
    )
    return {key: recurring[key] for key in recurring if recurring[key] is not None}


def _installments(method: dict[str, Any], path: str, amount: int, state: State) -> int:
    """1 up to 12 (18 where the account has it), each installment at least R$ 5,00."""
    installments = require_int(
        method,
        "installments",
        path,
        minimum=1,
        maximum=state.options.max_installments,
        optional=True,
    )
    minimum = installments * rules.MIN_INSTALLMENT if installments else 0
    if installments is not None and installments > 1 and amount < minimum:
        raise errors.invalid(field_path(path, "installments"), "installment_value_below_minimum")
    return installments or 1


def parse_charge(
    value: Any, path: str, *, account: str, state: State
) -> ChargeRequest | BoletoRequest:
    """Check ``charges[i]`` and resolve its card; every failure names its field."""
    charge = require_object(value, path)
    reject_unknown(charge, CHARGE_KEYS, path)
    reference_id = require_str(charge, "reference_id", path, limit="reference_id", optional=True)
    description = require_str(charge, "description", path, limit="description", optional=True)
    amount_path = field_path(path, "amount")
    sent_amount = require_object(charge.get("amount"), amount_path)
    fees = sent_amount.get("fees")
    amount = validate_amount({k: v for k, v in sent_amount.items() if k != "fees"}, amount_path)
    currency = sent_amount.get("currency") or "BRL"
    metadata = validate_metadata(charge.get("metadata"), field_path(path, "metadata"))

    method_path = field_path(path, "payment_method")
    method = require_object(charge.get("payment_method"), method_path)
    kind = require_str(method, "type", method_path, choices=PAYMENT_METHOD_TYPES)
    if kind == "BOLETO":
        if fees is not None:
            raise errors.invalid(field_path(amount_path, "fees"), "only_for_card_installments")
        if charge.get("recurring") is not None:
            raise errors.invalid(field_path(path, "recurring"), "not_allowed_with_boleto")
        if charge.get("splits") is not None:  # the partner plugin splits boletos
            liable = validate_splits(
                charge["splits"],
                charge_amount=amount,
                merchant_account=account,
                recurring=False,
                path=field_path(path, "splits"),
            )
            if liable is not None:
                check_liable(
                    liable, payment_type="BOLETO", authentication_type=None, method_path=method_path
                )
        return parse_boleto_charge(
            charge,
            method,
            method_path,
            path,
            reference_id=reference_id,
            description=description,
            metadata=metadata,
            now=state.clock.now(),
        )
    if charge.get("payment_instructions") is not None:
        raise errors.invalid(field_path(path, "payment_instructions"), "only_for_boleto")
    reject_unknown(method, rules.PAYMENT_METHOD_KEYS, method_path)
    installments = _installments(method, method_path, amount, state)
    capture = require_bool(method, "capture", method_path, optional=True)
    store_here = require_bool(method, "store", method_path, optional=True)
    amount_fees = None
    if fees is not None:
        amount_fees = validate_fees(fees, field_path(amount_path, "fees"), amount, installments)
    soft_descriptor = require_str(
        method, "soft_descriptor", method_path, limit="soft_descriptor", optional=True
    )
    holder = None
    if method.get("holder") is not None:
        # The official plugin sends {tax_id} alone when it has no name.
        validate_holder(method["holder"], field_path(method_path, "holder"), name_required=False)
        holder = dict(method["holder"])
    card_path = field_path(method_path, "card")
    card, store_in_card = resolve_card(method.get("card"), card_path, account=account, state=state)
    if holder is not None and not card.holder_tax_id and holder.get("tax_id"):
        # The docs' encrypted-card answer shows payment_method.holder's tax_id in card.holder.
        card = dataclasses.replace(card, holder_tax_id=holder["tax_id"])
    if method.get("token_data") is not None:
        # The charge object lists token_data in payment_method; the examples inside card.
        token_data = check_token_data(method["token_data"], field_path(method_path, "token_data"))
        card = dataclasses.replace(card, token_data=card.token_data or token_data)
    sent_card = method.get("card")
    if isinstance(sent_card, dict) and sent_card.get("network_token") is not None:
        check_network_token(method, method_path, bool(store_here or store_in_card))
    if kind == "DEBIT_CARD":
        check_debit(method, method_path, installments, capture, bool(store_here or store_in_card))
    authentication = None
    if method.get("authentication_method") is not None:
        authentication = check_authentication(
            method["authentication_method"],
            field_path(method_path, "authentication_method"),
            number=card.number,
            amount=amount,
            payment_type=kind or "CREDIT_CARD",
            account=account,
            state=state,
        )

    recurring = None
    if charge.get("recurring") is not None:
        recurring = parse_recurring(charge["recurring"], field_path(path, "recurring"))
    splits = charge.get("splits")
    if splits is not None:
        liable = validate_splits(
            splits,
            charge_amount=amount,
            merchant_account=account,
            recurring=recurring is not None,
            path=field_path(path, "splits"),
        )
        if liable is not None:
            sent = method.get("authentication_method")
            check_liable(
                liable,
                payment_type=kind or "CREDIT_CARD",
                authentication_type=sent.get("type") if isinstance(sent, dict) else None,
                method_path=method_path,
            )
    sub_merchant = None
    if charge.get("sub_merchant") is not None:
        sub_merchant = validate_sub_merchant(
            charge["sub_merchant"], field_path(path, "sub_merchant"), payment_type=kind or ""
        )
    urls = validate_charge_notification_urls(
        charge.get("notification_urls"), field_path(path, "notification_urls")
    )
    return ChargeRequest(
        reference_id=reference_id,
        description=description,
        amount=amount,
        currency=currency,
        installments=installments,
        capture=True if capture is None else capture,
        store=bool(store_here) or store_in_card,
        card=card,
        # Up to 22 characters; spaces and specials are stripped, not refused.
        soft_descriptor=rules.strip_soft_descriptor(soft_descriptor or "")
        or DEFAULT_SOFT_DESCRIPTOR,
        recurring=recurring,
        splits=splits,
        metadata=metadata,
        holder=holder,
        payment_type=kind or "CREDIT_CARD",
        authentication=authentication,
        amount_fees=amount_fees,
        sub_merchant=sub_merchant,
        notification_urls=urls,
    )


def check_network_token(method: dict[str, Any], path: str, store: bool) -> None:
    """A network token (a brand's token for the card) is charged at once and never stored
    ("função indisponível para ... token de bandeira")."""
    if method.get("capture") is False:
        raise errors.invalid(field_path(path, "capture"), "network_token_is_captured_at_once")
    if store:
        raise errors.invalid(field_path(path, "card.store"), "network_token_cannot_be_stored")


def validate_charge_notification_urls(value: Any, path: str) -> tuple[str, ...]:
    """``charges[].notification_urls``: one HTTPS URL at most ("Necessário que seja em
    ambiente seguro com SSL (HTTPS)"; the order's takes one too)."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 1:
        raise errors.invalid(path, "this field accepts only one URL")
    urls = value
    for index, url in enumerate(urls):
        check_str(url, item_path(path, index), pattern=rules.HTTPS_URL_PATTERN)
    return tuple(urls)


def check_debit(
    method: dict[str, Any], path: str, installments: int, capture: bool | None, store: bool
) -> None:
    """A debit card: 3-D Secure, one installment, captured at once, never stored."""
    if method.get("authentication_method") is None:
        raise errors.invalid(field_path(path, "authentication_method"), DEBIT_NEEDS_AUTHENTICATION)
    if installments != 1:
        raise errors.invalid(field_path(path, "installments"), "debit_card_takes_1_installment")
    if capture is False:
        raise errors.invalid(field_path(path, "capture"), "debit_card_is_captured_at_once")
    if store:
        raise errors.invalid(field_path(path, "card.store"), "debit_card_cannot_be_stored")


def validate_fees(value: Any, path: str, amount: int, installments: int) -> dict[str, Any]:
    """``amount.fees.buyer.interest{total, installments}``: an installment plan's interest,
    inside the amount (the amount includes it). Its ``installments`` is how many of the
    charge's installments the buyer pays interest on (those past the ones the merchant
    absorbs: 4 for the docs' 8x with 4 interest-free), so 1 up to the charge's."""
    fees = require_object(value, path)
    reject_unknown(fees, {"buyer"}, path)
    buyer_path = field_path(path, "buyer")
    buyer = require_object(fees.get("buyer"), buyer_path)
    reject_unknown(buyer, {"interest"}, buyer_path)
    interest_path = field_path(buyer_path, "interest")
    interest = require_object(buyer.get("interest"), interest_path)
    reject_unknown(interest, {"total", "installments"}, interest_path)
    require_int(interest, "total", interest_path, minimum=0, maximum=amount - 1)
    count = require_int(interest, "installments", interest_path, minimum=1, maximum=18)
    if count is not None and count > installments:
        where = field_path(interest_path, "installments")
        raise errors.invalid(where, "must_not_exceed_the_charge_installments")
    return {"buyer": {"interest": dict(interest)}}


def parse_charges(
    value: Any, path: str = "charges", *, account: str, state: State
) -> list[ChargeRequest | BoletoRequest]:
    """A non-empty list of charge requests."""
    if value is None:
        raise errors.required(path)
    if not isinstance(value, list) or not value:
        raise errors.invalid(path)
    return [
        parse_charge(entry, item_path(path, index), account=account, state=state)
        for index, entry in enumerate(value)
    ]
