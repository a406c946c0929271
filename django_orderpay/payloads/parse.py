"""Plain dicts shaped as the spec shows -> builders, validated the same way.

Services accept either builders or such dicts. A dict is checked for shape
first (objects where objects go, no field the provider does not know: it
would answer ``40003 parameter_unknown``), then by the builders' own rules;
every problem is reported at once, by path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from django_orderpay import rules

from ._problems import Problems, index, join
from .authentication import AuthenticationMethod, BuyerInterest
from .boleto import BoletoHolder, BoletoPayment, Discount, PaymentInstructions, Penalty
from .card import Card, PaymentMethod, TokenData, Wallet
from .charge import Amount, ChargeRequest, Receiver, Recurring, Splits
from .customer import Address, Customer, Holder, Item, Phone, Shipping
from .facilitator import SubMerchant
from .order import DeepLink, OrderRequest, PayRequest
from .pix import QrCode

ORDER_KEYS = frozenset(
    {
        "reference_id",
        "customer",
        "items",
        "shipping",
        "notification_urls",
        "charges",
        "deep_links",
        "qr_codes",
        # Read and dropped: the docs' "repasse de taxa" example sends qr_code{amount} beside
        # its charges, and its answer shows nothing of it (no object documents it).
        "qr_code",
    }
)
CUSTOMER_KEYS = frozenset({"name", "email", "tax_id", "phones"})
PHONE_KEYS = frozenset({"country", "area", "number", "type"})
ITEM_KEYS = frozenset({"reference_id", "name", "quantity", "unit_amount"})
CHARGE_KEYS = frozenset(
    {
        "reference_id",
        "description",
        "amount",
        "payment_method",
        "recurring",
        "splits",
        "payment_instructions",
        "sub_merchant",
        "notification_urls",
    }
)
AMOUNT_KEYS = frozenset({"value", "currency", "fees"})
AUTHENTICATION_KEYS = frozenset(
    {"type", "id", "cavv", "eci", "xid", "version", "dstrans_id", "status"}
)
WALLET_KEYS = frozenset({"type", "key"})
SUB_MERCHANT_KEYS = frozenset({"reference_id", "name", "tax_id", "mcc", "address", "phones"})
HOLDER_KEYS = frozenset({"name", "tax_id"})
RECURRING_KEYS = frozenset({"type", "recurrence_id", "original_amount"})
SPLITS_KEYS = rules.SPLITS_KEYS
ADDRESS_KEYS = rules.ADDRESS_KEYS
PAYMENT_METHOD_KEYS = rules.PAYMENT_METHOD_KEYS
CARD_KEYS = rules.CARD_KEYS
TOKEN_DATA_KEYS = rules.TOKEN_DATA_KEYS
RECEIVER_KEYS = rules.RECEIVER_KEYS
DEEP_LINK_KEYS = frozenset({"amount", "redirect_url"})
QR_CODE_KEYS = frozenset({"amount", "expiration_date", "arrangements", "splits"})
BOLETO_METHOD_KEYS = frozenset({"type", "boleto", "payment_instructions"})
BOLETO_KEYS = frozenset(
    {"due_date", "instruction_lines", "holder", "template", "days_until_expiration"}
)
BOLETO_HOLDER_KEYS = frozenset({"name", "tax_id", "email", "address"})
INSTRUCTION_LINE_KEYS = frozenset({"line_1", "line_2"})
PAYMENT_INSTRUCTIONS_KEYS = frozenset({"fine", "interest", "discounts"})
PENALTY_KEYS = frozenset({"date", "value"})
DISCOUNT_KEYS = frozenset({"due_date", "value"})


class _Reader:
    """Shape checks; records each path it found broken so builder errors there are not doubled."""

    def __init__(self) -> None:
        self.problems = Problems()
        self.broken: set[str] = set()

    def _fail(self, path: str, message: str) -> None:
        self.problems.add(path, message)
        self.broken.add(path)

    def obj(self, value: Any, path: str, keys: frozenset[str]) -> Mapping[str, Any] | None:
        """``value`` as an object with only ``keys``; None (reported) when it is not one."""
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self._fail(path, "must be an object")
            return None
        for key in value:
            if key not in keys:
                self._fail(join(path, str(key)), "is not a field of this object")
        return value

    def field(self, data: Mapping[str, Any], key: str, path: str, keys: frozenset[str]) -> Any:
        return self.obj(data.get(key), join(path, key), keys)

    def array(self, data: Mapping[str, Any], key: str, path: str) -> list[Any]:
        value = data.get(key)
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            self._fail(join(path, key), "must be a list")
            return []
        return list(value)

    def entries(
        self,
        data: Mapping[str, Any],
        key: str,
        path: str,
        keys: frozenset[str],
        build: Callable[[Mapping[str, Any], str], Any],
    ) -> tuple[Any, ...]:
        """Each object of the list ``data[key]`` as ``build(entry, where)`` makes it.

        An entry that is not an object (reported) is kept as it is.
        """
        built = []
        for position, entry in enumerate(self.array(data, key, path)):
            where = index(join(path, key), position)
            value = self.obj(entry, where, keys)
            built.append(build(value, where) if value is not None else entry)
        return tuple(built)

    def checked(self, built: Any) -> Any:
        """``built``, unless the shape or the builders found problems (``PayloadError``)."""
        extra = Problems()
        built.collect(extra, "")
        self.problems.errors += [e for e in extra.errors if e.path not in self.broken]
        self.problems.raise_if_any()
        return built


def _plain(builder: type, keys: frozenset[str], data: Mapping[str, Any]) -> Any:
    """``builder`` of an object whose ``keys`` are the builder's fields (nothing nested)."""
    return builder(**{key: data.get(key) for key in keys})


def _holder(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Holder | None:
    holder = r.field(data, "holder", path, HOLDER_KEYS) if data else None
    return Holder(holder.get("name"), holder.get("tax_id")) if holder is not None else None


def _card(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Card | None:
    if data is None:
        return None
    security_code = data.get("security_code")
    if data.get("cvv") is not None:
        # The official plugin's name for it: sent as the documented security_code.
        if security_code is not None:
            r._fail(join(path, "cvv"), "is the security code: give it once")
        security_code = data["cvv"]
    token_data = r.field(data, "token_data", path, TOKEN_DATA_KEYS)
    wallet = r.field(data, "wallet", path, WALLET_KEYS)
    return Card(
        number=data.get("number"),
        exp_month=data.get("exp_month"),
        exp_year=data.get("exp_year"),
        security_code=security_code,
        holder=_holder(r, data, path),
        store=data.get("store"),
        encrypted=data.get("encrypted"),
        id=data.get("id"),
        network_token=data.get("network_token"),
        token_data=_plain(TokenData, TOKEN_DATA_KEYS, token_data) if token_data else None,
        wallet=_plain(Wallet, WALLET_KEYS, wallet) if wallet is not None else None,
    )


def _payment_method(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Any:
    if data is None:
        return None
    if data.get("type") == "BOLETO":
        return _boleto(r, data, path)
    r.obj(data, path, PAYMENT_METHOD_KEYS)
    card = _card(r, r.field(data, "card", path, CARD_KEYS), join(path, "card"))
    store = data.get("store")
    if store is not None and isinstance(card, Card):
        # PagBank documents store only inside card: a dict's payment_method.store moves there.
        if card.store is not None and card.store != store:
            r.problems.add(join(path, "store"), "contradicts card.store (give it in one place)")
        else:
            card = dataclasses.replace(card, store=store)
    token_data = r.field(data, "token_data", path, TOKEN_DATA_KEYS)
    if token_data is not None and isinstance(card, Card):
        # The charge object lists it in payment_method; the examples send it inside card.
        if card.token_data is not None:
            r._fail(join(path, "token_data"), "is given inside card already")
        else:
            card = dataclasses.replace(
                card, token_data=_plain(TokenData, TOKEN_DATA_KEYS, token_data)
            )
    auth = r.field(data, "authentication_method", path, AUTHENTICATION_KEYS)
    return PaymentMethod(
        holder=_holder(r, data, path),
        authentication_method=(
            _plain(AuthenticationMethod, AUTHENTICATION_KEYS, auth) if auth is not None else None
        ),
        card=card,  # type: ignore[arg-type]
        installments=data.get("installments"),
        capture=data.get("capture"),
        soft_descriptor=data.get("soft_descriptor"),
        type=data.get("type"),  # type: ignore[arg-type]
    )


def _boleto(r: _Reader, data: Mapping[str, Any], path: str) -> BoletoPayment:
    r.obj(data, path, BOLETO_METHOD_KEYS)
    boleto = r.field(data, "boleto", path, BOLETO_KEYS) or {}
    where = join(path, "boleto")
    lines = r.field(boleto, "instruction_lines", where, INSTRUCTION_LINE_KEYS) or {}
    holder = r.field(boleto, "holder", where, BOLETO_HOLDER_KEYS)
    address = None
    if holder is not None:
        found = r.field(holder, "address", join(where, "holder"), ADDRESS_KEYS)
        address = _plain(Address, ADDRESS_KEYS, found) if found is not None else None
    return BoletoPayment(
        due_date=boleto.get("due_date"),  # type: ignore[arg-type]
        holder=(
            BoletoHolder(holder.get("name"), holder.get("tax_id"), holder.get("email"), address)  # type: ignore[arg-type]
            if holder is not None
            else None
        ),
        instruction_lines=tuple(
            line for key in ("line_1", "line_2") if (line := lines.get(key)) is not None
        ),
        type=data.get("type"),  # type: ignore[arg-type]
        template=boleto.get("template"),
        days_until_expiration=_whole(boleto.get("days_until_expiration")),
    )


def _whole(value: Any) -> Any:
    """A number the reference types as a string ("45") as the builders' integer; anything
    else is left to the builders' check."""
    return int(value) if isinstance(value, str) and rules.is_digits(value, range(1, 6)) else value


def _payment_instructions(
    r: _Reader, data: Mapping[str, Any] | None, path: str
) -> PaymentInstructions | None:
    """Each ``value`` is PagBank's percentage times 100: a builder's ``percentage``.

    ``discounts`` is the use case's list of ``{due_date, value}`` or the charge
    object's one ``{date, value}``: both are read.
    """
    if data is None:
        return None
    parts: dict[str, Any] = {}
    for name in ("fine", "interest"):
        part = r.field(data, name, path, PENALTY_KEYS)
        if part is not None:
            parts[name] = Penalty(part.get("date"), percentage=part.get("value"))
    where = join(path, "discounts")
    found = data.get("discounts")
    if isinstance(found, Mapping):
        single = r.obj(found, where, PENALTY_KEYS) or {}
        parts["discounts"] = (Discount(single.get("date"), single.get("value")),)  # type: ignore[arg-type]
    elif found is not None:
        parts["discounts"] = r.entries(
            data,
            "discounts",
            path,
            DISCOUNT_KEYS,
            lambda entry, _: Discount(entry.get("due_date"), entry.get("value")),  # type: ignore[arg-type]
        )
    return PaymentInstructions(**parts)


def _qr_code(r: _Reader, data: Mapping[str, Any], where: str) -> QrCode:
    amount = r.field(data, "amount", where, frozenset({"value"})) or {}
    arrangements = r.array(data, "arrangements", where)
    splits = _splits(r, r.field(data, "splits", where, SPLITS_KEYS), join(where, "splits"))
    return QrCode(amount.get("value"), data.get("expiration_date"), tuple(arrangements), splits)  # type: ignore[arg-type]


def _splits(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Splits | None:
    if data is None:
        return None
    method = data.get("method")
    read = partial(_receiver, r, method if isinstance(method, str) else "")
    receivers = r.entries(data, "receivers", path, RECEIVER_KEYS, read)
    return Splits(method, receivers)  # type: ignore[arg-type]


def _receiver(r: _Reader, method: str, receiver: Mapping[str, Any], where: str) -> Receiver:
    # A dict body says what its amounts are: the split's own method.
    account = r.field(receiver, "account", where, frozenset({"id"})) or {}
    amount = r.field(receiver, "amount", where, frozenset({"value"})) or {}
    config = r.field(receiver, "configurations", where, frozenset({"liable", "chargeback"}))
    config = config or {}
    return Receiver(
        account_id=account.get("id"),  # type: ignore[arg-type]
        amount=amount.get("value"),  # type: ignore[arg-type]
        reason=receiver.get("reason"),
        liable=config.get("liable"),
        chargeback=config.get("chargeback"),
        type=receiver.get("type"),
        method=method,
    )


def _amount(r: _Reader, amount: Mapping[str, Any], path: str) -> Amount:
    """``amount``, with an installment plan's ``fees.buyer.interest`` when given."""
    fees = r.field(amount, "fees", path, frozenset({"buyer"}))
    interest = None
    if fees is not None:
        buyer = r.field(fees, "buyer", join(path, "fees"), frozenset({"interest"})) or {}
        where = join(path, "fees.buyer")
        found = r.field(buyer, "interest", where, frozenset({"total", "installments"})) or {}
        interest = BuyerInterest(found.get("total"), found.get("installments"))  # type: ignore[arg-type]
    return Amount(amount.get("value"), amount.get("currency"), interest)  # type: ignore[arg-type]


def _charge(r: _Reader, data: Mapping[str, Any], path: str) -> ChargeRequest:
    amount = r.field(data, "amount", path, AMOUNT_KEYS)
    recurring = r.field(data, "recurring", path, RECURRING_KEYS)
    return ChargeRequest(
        amount=_amount(r, amount, join(path, "amount")) if amount is not None else None,  # type: ignore[arg-type]
        payment_method=_payment_method(
            r, _object(r, data, "payment_method", path), join(path, "payment_method")
        ),
        reference_id=data.get("reference_id"),
        description=data.get("description"),
        recurring=(
            Recurring(
                recurring.get("type"),
                recurring.get("recurrence_id"),
                recurring.get("original_amount"),
            )
            if recurring is not None
            else None
        ),
        splits=_splits(r, r.field(data, "splits", path, SPLITS_KEYS), join(path, "splits")),
        payment_instructions=_payment_instructions(r, *_instructions_of(r, data, path)),
        sub_merchant=_sub_merchant(r, data, path),
        notification_urls=tuple(r.array(data, "notification_urls", path)),
    )


def _sub_merchant(r: _Reader, charge: Mapping[str, Any], path: str) -> SubMerchant | None:
    """``sub_merchant``, with its phones as the use case's list or the table's one object."""
    found = r.field(charge, "sub_merchant", path, SUB_MERCHANT_KEYS | {"phone"})
    if found is None:
        return None
    where = join(path, "sub_merchant")
    address = r.field(found, "address", where, ADDRESS_KEYS)
    phones = list(
        r.entries(found, "phones", where, PHONE_KEYS, lambda p, _: _plain(Phone, PHONE_KEYS, p))
    )
    single = r.field(found, "phone", where, PHONE_KEYS)
    if single is not None:
        phones.append(_plain(Phone, PHONE_KEYS, single))
    return SubMerchant(
        reference_id=found.get("reference_id"),
        name=found.get("name"),
        tax_id=found.get("tax_id"),
        mcc=found.get("mcc"),
        address=_plain(Address, ADDRESS_KEYS, address) if address is not None else None,  # type: ignore[arg-type]
        phones=tuple(phones),
    )


def _instructions_of(
    r: _Reader, charge: Mapping[str, Any], path: str
) -> tuple[Mapping[str, Any] | None, str]:
    """A boleto's ``payment_instructions``: on the charge (the use case's place) or inside its
    ``payment_method`` (the charge object's table); read from either, sent on the charge."""
    method = charge.get("payment_method")
    inside = method.get("payment_instructions") if isinstance(method, Mapping) else None
    if inside is not None:
        where = join(path, "payment_method")
        if charge.get("payment_instructions") is not None:
            r._fail(join(where, "payment_instructions"), "is given on the charge already")
        found = r.field(method, "payment_instructions", where, PAYMENT_INSTRUCTIONS_KEYS)  # type: ignore[arg-type]
        return found, join(where, "payment_instructions")
    found = r.field(charge, "payment_instructions", path, PAYMENT_INSTRUCTIONS_KEYS)
    return found, join(path, "payment_instructions")


def _object(r: _Reader, data: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    """``data[key]`` if it is an object (what reads it checks its keys, which depend on it)."""
    value = data.get(key)
    if value is None or isinstance(value, Mapping):
        return value
    r.obj(value, join(path, key), frozenset())  # reports "must be an object"
    return None


def _charges(r: _Reader, data: Mapping[str, Any], path: str) -> tuple[Any, ...]:
    return r.entries(data, "charges", path, CHARGE_KEYS, partial(_charge, r))


def _customer(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Customer | None:
    if data is None:
        return None
    phones = r.entries(
        data, "phones", path, PHONE_KEYS, lambda phone, _: _plain(Phone, PHONE_KEYS, phone)
    )
    return Customer(data.get("name"), data.get("email"), data.get("tax_id"), phones)  # type: ignore[arg-type]


def _shipping(r: _Reader, data: Mapping[str, Any] | None) -> Shipping | None:
    if data is None:
        return None
    address = r.field(data, "address", "shipping", ADDRESS_KEYS)
    if address is None:
        return Shipping(None)  # type: ignore[arg-type]
    return Shipping(_plain(Address, ADDRESS_KEYS, address))


def _deep_link(r: _Reader, link: Mapping[str, Any], where: str) -> DeepLink:
    amount = r.field(link, "amount", where, AMOUNT_KEYS) or {}
    return DeepLink(amount.get("value"), link.get("redirect_url"), amount.get("currency"))  # type: ignore[arg-type]


def _top(r: _Reader, data: Any, keys: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        r._fail("", "the request body must be a JSON object")
        r.problems.raise_if_any()  # nothing else can be said of it
    return r.obj(data, "", keys) or {}


def order_from_dict(data: Any) -> OrderRequest:
    """An :class:`OrderRequest` from a dict shaped as the create body; raises ``PayloadError``."""
    r = _Reader()
    body = _top(r, data, ORDER_KEYS)
    urls = body.get("notification_urls")
    order = OrderRequest(
        customer=_customer(r, r.field(body, "customer", "", CUSTOMER_KEYS), "customer"),  # type: ignore[arg-type]
        items=r.entries(
            body, "items", "", ITEM_KEYS, lambda item, _: _plain(Item, ITEM_KEYS, item)
        ),
        reference_id=body.get("reference_id"),
        shipping=_shipping(r, r.field(body, "shipping", "", frozenset({"address"}))),
        notification_urls=urls if urls is not None else (),
        charges=_charges(r, body, ""),
        deep_links=r.entries(body, "deep_links", "", DEEP_LINK_KEYS, partial(_deep_link, r)),
        qr_codes=r.entries(body, "qr_codes", "", QR_CODE_KEYS, partial(_qr_code, r)),
    )
    return r.checked(order)


def validate_order_dict(data: Any) -> dict[str, Any]:
    """Validate a create-order dict as the builders would; answer the body to send."""
    # order_from_dict has run every builder check already (_Reader.checked).
    return order_from_dict(data).body()


def pay_request_from_dict(data: Any) -> PayRequest:
    """A :class:`PayRequest` from a dict ``{"charges": [...]}``; raises ``PayloadError``."""
    reader = _Reader()
    body = _top(reader, data, frozenset({"charges"}))
    return reader.checked(PayRequest(_charges(reader, body, "")))


def validate_pay_dict(data: Any) -> dict[str, Any]:
    """Validate a pay-order dict as the builders would; answer the body to send."""
    return pay_request_from_dict(data).to_dict()
