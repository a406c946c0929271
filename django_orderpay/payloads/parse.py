"""Plain dicts shaped as the spec shows -> builders, validated the same way.

Services accept either builders or such dicts. A dict is checked for shape
first (objects where objects go, no field the provider does not know: it
would answer ``40003 parameter_unknown``), then by the builders' own rules;
every problem is reported at once, by path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._problems import Problems, index, join
from .card import Card, PaymentMethod
from .charge import Amount, Charge, Receiver, Recurring, Splits
from .customer import Address, Customer, Holder, Item, Phone, Shipping
from .order import DeepLink, Order, PayRequest

ORDER_KEYS = frozenset(
    {"reference_id", "customer", "items", "shipping", "notification_urls", "charges", "deep_links"}
)
CUSTOMER_KEYS = frozenset({"name", "email", "tax_id", "phones"})
PHONE_KEYS = frozenset({"country", "area", "number", "type"})
ITEM_KEYS = frozenset({"reference_id", "name", "quantity", "unit_amount"})
ADDRESS_KEYS = frozenset(
    {"street", "number", "complement", "locality", "city", "region_code", "country", "postal_code"}
)
CHARGE_KEYS = frozenset(
    {"reference_id", "description", "amount", "payment_method", "recurring", "splits"}
)
AMOUNT_KEYS = frozenset({"value", "currency"})
PAYMENT_METHOD_KEYS = frozenset(
    {"type", "installments", "capture", "store", "card", "soft_descriptor"}
)
CARD_KEYS = frozenset(
    {"number", "exp_month", "exp_year", "security_code", "holder", "store", "encrypted", "id"}
)
HOLDER_KEYS = frozenset({"name", "tax_id"})
RECURRING_KEYS = frozenset({"type", "recurrence_id", "original_amount"})
SPLITS_KEYS = frozenset({"method", "receivers"})
RECEIVER_KEYS = frozenset({"account", "amount", "reason", "configurations"})
DEEP_LINK_KEYS = frozenset({"amount", "redirect_url"})


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

    def errors(self, built: Any) -> list[Any]:
        extra = Problems()
        built.collect(extra, "")
        return self.problems.errors + [e for e in extra.errors if e.path not in self.broken]


def _holder(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Holder | None:
    holder = r.field(data, "holder", path, HOLDER_KEYS) if data else None
    return Holder(holder.get("name"), holder.get("tax_id")) if holder is not None else None


def _card(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Card | None:
    if data is None:
        return None
    return Card(
        number=data.get("number"),
        exp_month=data.get("exp_month"),
        exp_year=data.get("exp_year"),
        security_code=data.get("security_code"),
        holder=_holder(r, data, path),
        store=data.get("store"),
        encrypted=data.get("encrypted"),
        id=data.get("id"),
    )


def _payment_method(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Any:
    if data is None:
        return None
    return PaymentMethod(
        card=_card(r, r.field(data, "card", path, CARD_KEYS), join(path, "card")),  # type: ignore[arg-type]
        installments=data.get("installments"),  # type: ignore[arg-type]
        capture=data.get("capture"),
        store=data.get("store"),
        soft_descriptor=data.get("soft_descriptor"),
        type=data.get("type"),  # type: ignore[arg-type]
    )


def _splits(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Splits | None:
    if data is None:
        return None
    receivers = []
    receivers_path = join(path, "receivers")
    for position, entry in enumerate(r.array(data, "receivers", path)):
        where = index(receivers_path, position)
        receiver = r.obj(entry, where, RECEIVER_KEYS)
        if receiver is None:
            receivers.append(entry)
            continue
        account = r.field(receiver, "account", where, frozenset({"id"})) or {}
        amount = r.field(receiver, "amount", where, frozenset({"value"})) or {}
        config = r.field(receiver, "configurations", where, frozenset({"liable", "chargeback"}))
        config = config or {}
        receivers.append(
            Receiver(
                account_id=account.get("id"),  # type: ignore[arg-type]
                amount=amount.get("value"),  # type: ignore[arg-type]
                reason=receiver.get("reason"),
                liable=config.get("liable"),
                chargeback=config.get("chargeback"),
            )
        )
    return Splits(data.get("method"), tuple(receivers))  # type: ignore[arg-type]


def _charge(r: _Reader, data: Mapping[str, Any], path: str) -> Charge:
    amount = r.field(data, "amount", path, AMOUNT_KEYS)
    recurring = r.field(data, "recurring", path, RECURRING_KEYS)
    return Charge(
        amount=Amount(amount.get("value"), amount.get("currency")) if amount is not None else None,  # type: ignore[arg-type]
        payment_method=_payment_method(
            r,
            r.field(data, "payment_method", path, PAYMENT_METHOD_KEYS),
            join(path, "payment_method"),
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
    )


def _charges(r: _Reader, data: Mapping[str, Any], path: str) -> tuple[Any, ...]:
    charges = []
    for position, entry in enumerate(r.array(data, "charges", path)):
        where = index(join(path, "charges"), position)
        charge = r.obj(entry, where, CHARGE_KEYS)
        charges.append(_charge(r, charge, where) if charge is not None else entry)
    return tuple(charges)


def _customer(r: _Reader, data: Mapping[str, Any] | None, path: str) -> Customer | None:
    if data is None:
        return None
    phones = []
    for position, entry in enumerate(r.array(data, "phones", path)):
        phone = r.obj(entry, index(join(path, "phones"), position), PHONE_KEYS)
        phones.append(
            Phone(
                area=phone.get("area"),
                number=phone.get("number"),
                country=phone.get("country"),
                type=phone.get("type"),
            )
            if phone is not None
            else entry
        )
    return Customer(data.get("name"), data.get("email"), data.get("tax_id"), tuple(phones))  # type: ignore[arg-type]


def _items(r: _Reader, data: Mapping[str, Any]) -> Any:
    if data.get("items") is None:
        return ()
    items = []
    for position, entry in enumerate(r.array(data, "items", "")):
        item = r.obj(entry, index("items", position), ITEM_KEYS)
        items.append(
            Item(
                name=item.get("name"),
                quantity=item.get("quantity"),
                unit_amount=item.get("unit_amount"),
                reference_id=item.get("reference_id"),
            )
            if item is not None
            else entry
        )
    return tuple(items)


def _shipping(r: _Reader, data: Mapping[str, Any] | None) -> Shipping | None:
    if data is None:
        return None
    address = r.field(data, "address", "shipping", ADDRESS_KEYS)
    if address is None:
        return Shipping(None)  # type: ignore[arg-type]
    return Shipping(Address(**{key: address.get(key) for key in ADDRESS_KEYS}))


def _deep_links(r: _Reader, data: Mapping[str, Any]) -> tuple[Any, ...]:
    links = []
    for position, entry in enumerate(r.array(data, "deep_links", "")):
        where = index("deep_links", position)
        link = r.obj(entry, where, DEEP_LINK_KEYS)
        if link is None:
            links.append(entry)
            continue
        amount = r.field(link, "amount", where, AMOUNT_KEYS) or {}
        links.append(
            DeepLink(amount.get("value"), link.get("redirect_url"), amount.get("currency"))
        )  # type: ignore[arg-type]
    return tuple(links)


def _top(r: _Reader, data: Any, keys: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        r._fail("", "the request body must be a JSON object")
        r.problems.raise_if_any()  # nothing else can be said of it
    return r.obj(data, "", keys) or {}


def _order(data: Any) -> tuple[Order, _Reader]:
    r = _Reader()
    body = _top(r, data, ORDER_KEYS)
    urls = body.get("notification_urls")
    order = Order(
        customer=_customer(r, r.field(body, "customer", "", CUSTOMER_KEYS), "customer"),  # type: ignore[arg-type]
        items=_items(r, body),
        reference_id=body.get("reference_id"),
        shipping=_shipping(r, r.field(body, "shipping", "", frozenset({"address"}))),
        notification_urls=urls if urls is not None else (),
        charges=_charges(r, body, ""),
        deep_links=_deep_links(r, body),
    )
    return order, r


def order_from_dict(data: Any) -> Order:
    """An :class:`Order` from a dict shaped as the create body; raises ``ValidationError``."""
    order, reader = _order(data)
    reader.problems.errors = reader.errors(order)
    reader.problems.raise_if_any()
    return order


def validate_order_dict(data: Any) -> dict[str, Any]:
    """Validate a create-order dict as the builders would; answer the body to send."""
    return order_from_dict(data).to_dict()


def pay_request_from_dict(data: Any) -> PayRequest:
    """A :class:`PayRequest` from a dict ``{"charges": [...]}``; raises ``ValidationError``."""
    reader = _Reader()
    body = _top(reader, data, frozenset({"charges"}))
    pay = PayRequest(_charges(reader, body, ""))
    reader.problems.errors = reader.errors(pay)
    reader.problems.raise_if_any()
    return pay


def validate_pay_dict(data: Any) -> dict[str, Any]:
    """Validate a pay-order dict as the builders would; answer the body to send."""
    return pay_request_from_dict(data).to_dict()
