"""``POST /checkouts`` as PagBank validates it, and the body it keeps (the answer's form).

The Checkout API is not the Orders API: its errors are
``{"error_messages": [{"error", "description", "parameter_name"}]}`` with
named errors (``invalid_value``, ``field_cannot_be_empty``, ...) instead of
40001/40002 codes; it ignores fields it does not know (a sandbox capture
sent ``qr_codes`` and ``customer.phones`` and was answered 201 without
them); and it takes its enums in any case (its own create example sends
``"credit_card"`` and ``"installments_limit"``) and answers them upper case,
a payment method listed twice merged into one with both brands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django_orderpay import rules

from ..serving.http import Response
from ..state.errors import ProviderError
from ..state.validation import field_path, item_path

#: Each named error of the Checkout API's table, and what the emulator says of it.
DESCRIPTIONS = {
    "invalid_request_body": "The request body is invalid.",
    "field_cannot_be_empty": "Field cannot be empty.",
    "invalid_length": "Field has an invalid length, see documentation.",
    "invalid_list_element_length": "An element of the list has an invalid length.",
    "invalid_enum": "Field has an invalid value, see the accepted values in the documentation.",
    "invalid_format": "Field has an invalid format, see documentation.",
    "invalid_value": "Field has an invalid value, see documentation.",
    "invalid_list_element_value": "An element of the list has an invalid value.",
    "invalid_shipping_config": "The shipping configuration is invalid.",
    "checkout_not_found": "Checkout not found.",
    "checkout_expired": "The checkout has expired.",
    "invalid_discount_value": "The discount is larger than the items plus the additional amount.",
    "invalid_cart_total_value": "The checkout's total is invalid.",
    "invalid_calculate_shipping_config": "A calculated shipping needs its box.",
    "inconsistent_brand_configurations": "The brands of a payment method are inconsistent.",
    "invalid_payment_method": "Invalid payment method.",
    "field_brands_is_not_compatible_with_payment_method": (
        "Brands apply to card payment methods only."
    ),
    "invalid_config_option": "Invalid configuration option.",
    "repeated_options": "A configuration option is repeated.",
    "inconsistent_checkout_payment_method_configs": (
        "A payment method is configured but not accepted by the checkout."
    ),
    "invalid_fixed_shipping_configuration": "A fixed shipping needs its amount.",
    "invalid_unmodifiable_address": "An address that can't be modified must be given.",
    "recurrent_checkout_disabled": "Recurrent checkout is not enabled for this account.",
    "more_than_one_item_not_allowed_for_recurrence": "A recurrent checkout has one item.",
    "shipping_type_not_allowed_for_recurrence": "A recurrent checkout has no shipping.",
    "payment_method_not_allowed_for_recurrence": "A recurrent checkout is paid by credit card.",
    "installments_not_allowed_for_recurrence": "A recurrent checkout is paid in one installment.",
}

ADDRESS_FIELDS = ("street", "number", "complement", "locality", "city", "region_code")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_HTTP_URL = re.compile(r"https?://[^\s/?#]+(?:[/?#]\S*)?")
#: "Formato ISO-8601": a date and time with its offset.
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


class CheckoutError(ProviderError):
    """An error answer of the Checkout API: one named ``error`` about ``parameter_name``."""

    def __init__(self, error: str, parameter_name: str | None = None, *, status: int = 400):
        self.error = error
        entry = {"error": error, "description": DESCRIPTIONS[error]}
        if parameter_name is not None:
            entry["parameter_name"] = parameter_name
        super().__init__(status, [entry])

    @property
    def code(self) -> str:
        return self.error

    def to_response(self) -> Response:
        return Response.json(self.status, {"error_messages": [dict(self.error_messages[0])]})


def not_found(status: int = 404) -> CheckoutError:
    return CheckoutError("checkout_not_found", status=status)


class _Reader:
    """Reads one object of the body; every failure a :class:`CheckoutError` naming the field."""

    def __init__(self, data: Mapping[str, Any], path: str) -> None:
        self.data = data
        self.path = path

    def where(self, key: str) -> str:
        return field_path(self.path, key)

    def value(self, key: str, required: bool) -> Any:
        value = self.data.get(key)
        if required and (value is None or value == "" or value == []):
            raise CheckoutError("field_cannot_be_empty", self.where(key))
        return value

    def text(
        self, key: str, *, limit: str | None = None, required: bool = False, pattern: Any = None
    ) -> str | None:
        value = self.value(key, required)
        if value is None:
            return None
        if not isinstance(value, str):
            raise CheckoutError("invalid_format", self.where(key))
        bounds = rules.CHECKOUT_FIELD_LIMITS.get(limit or "")
        if bounds is not None and not bounds[0] <= len(value) <= bounds[1]:
            raise CheckoutError("invalid_length", self.where(key))
        if pattern is not None and not re.fullmatch(pattern, value):
            raise CheckoutError("invalid_value", self.where(key))
        return value

    def enum(self, key: str, choices: tuple[str, ...], *, required: bool = False) -> str | None:
        value = self.value(key, required)
        if value is None:
            return None
        if not isinstance(value, str):
            raise CheckoutError("invalid_format", self.where(key))
        upper = str(rules.canonical_enum(value))
        if upper not in choices:
            raise CheckoutError("invalid_enum", self.where(key))
        return upper

    def integer(
        self, key: str, low: int, high: int, *, required: bool = False, digit_string: bool = False
    ) -> int | None:
        value = self.value(key, required)
        if value is None:
            return None
        if digit_string and isinstance(value, str) and rules.is_digits(value, range(1, 10)):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise CheckoutError("invalid_format", self.where(key))
        if not low <= value <= high:
            raise CheckoutError("invalid_value", self.where(key))
        return value

    def boolean(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise CheckoutError("invalid_format", self.where(key))
        return value

    def object(self, key: str, *, required: bool = False) -> _Reader | None:
        value = self.value(key, required)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise CheckoutError("invalid_format", self.where(key))
        return _Reader(value, self.where(key))

    def objects(self, key: str, *, required: bool = False) -> list[_Reader]:
        value = self.value(key, required)
        if value is None:
            return []
        if not isinstance(value, list):
            raise CheckoutError("invalid_format", self.where(key))
        readers = []
        for index, entry in enumerate(value):
            where = item_path(self.where(key), index)
            if not isinstance(entry, dict):
                raise CheckoutError("invalid_format", where)
            readers.append(_Reader(entry, where))
        return readers

    def urls(self, key: str, limit: str) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise CheckoutError("invalid_format", self.where(key))
        low, high = rules.CHECKOUT_FIELD_LIMITS[limit]
        for index, url in enumerate(value):
            where = item_path(self.where(key), index)
            if not isinstance(url, str) or not _HTTP_URL.fullmatch(url):
                raise CheckoutError("invalid_list_element_value", where)
            if not low <= len(url) <= high:
                raise CheckoutError("invalid_list_element_length", where)
        return list(value)


def _compact(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


def _customer(body: _Reader, modifiable: bool) -> dict[str, Any] | None:
    """``customer``: every field required when the shopper may not change it."""
    reader = body.object("customer", required=not modifiable)
    if reader is None:
        return None
    whole = not modifiable
    name = reader.text("name", limit="customer.name", required=whole)
    email = reader.text("email", limit="customer.email", required=whole, pattern=_EMAIL)
    tax_id = reader.text("tax_id", required=whole)
    if tax_id is not None and not rules.valid_tax_id(tax_id.upper()):
        raise CheckoutError("invalid_value", reader.where("tax_id"))
    phone = None
    phone_reader = reader.object("phone", required=whole)
    if phone_reader is not None:
        # "Somente o caractere especial + é aceito. Somente o código do Brasil (55)."
        country = phone_reader.text("country", required=True, pattern=r"\+?55")
        area = phone_reader.text("area", required=True, pattern=r"[0-9]{2}")
        number = phone_reader.text("number", required=True, pattern=r"9[0-9]{8}")
        phone = {"country": country, "area": area, "number": number}
    return _compact(name=name, email=email, tax_id=tax_id, phone=phone)


def _items(body: _Reader) -> tuple[list[dict[str, Any]], int]:
    """``items`` (at least one) and their total in cents."""
    entries = body.objects("items", required=True)
    items, total = [], 0
    for item in entries:
        quantity = item.integer("quantity", 1, rules.MAX_QUANTITY, required=True) or 0
        unit_amount = item.integer("unit_amount", 1, rules.CHECKOUT_MAX_AMOUNT, required=True) or 0
        image_url = item.text("image_url", pattern=_HTTP_URL)
        entry = _compact(
            reference_id=item.text("reference_id", limit="items.reference_id"),
            name=item.text("name", limit="items.name"),
            description=item.text("description", limit="items.description"),
            quantity=quantity,
            unit_amount=unit_amount,
            image_url=image_url,
        )
        items.append(entry)
        total += quantity * unit_amount
    return items, total


def _address(shipping: _Reader, required: bool) -> dict[str, Any] | None:
    reader = shipping.object("address", required=required)
    if reader is None:
        return None
    address = {}
    for name in ADDRESS_FIELDS:
        limit = f"shipping.address.{name}"
        address[name] = reader.text(
            name,
            limit=limit if limit in rules.CHECKOUT_FIELD_LIMITS else None,
            required=name != "complement",
        )
    region = address["region_code"]
    if region is not None and region not in rules.BRAZILIAN_STATES:
        raise CheckoutError("invalid_value", reader.where("region_code"))
    address["country"] = reader.text("country", required=True, pattern="BRA")
    address["postal_code"] = reader.text("postal_code", required=True, pattern=r"[0-9]{8}")
    return _compact(**address)


def _box(shipping: _Reader) -> dict[str, Any]:
    box = shipping.object("box", required=True)
    assert box is not None
    weight = box.value("weight", True)
    if isinstance(weight, bool) or not isinstance(weight, int | str):
        raise CheckoutError("invalid_format", box.where("weight"))
    if isinstance(weight, str) and not rules.is_digits(weight, range(1, 7)):
        raise CheckoutError("invalid_value", box.where("weight"))
    dimensions = box.object("dimensions", required=True)
    assert dimensions is not None
    sizes = {
        name: dimensions.integer(name, low, high, required=True)
        for name, (low, high) in rules.BOX_DIMENSIONS.items()
    }
    return {"dimensions": sizes, "weight": weight}


def _shipping(body: _Reader) -> dict[str, Any] | None:
    """``shipping``: FIXED needs its amount, CALCULATE its box, an unmodifiable address itself."""
    reader = body.object("shipping")
    if reader is None:
        return None
    kind = reader.enum("type", rules.SHIPPING_TYPES, required=True)
    service = reader.enum("service_type", rules.SHIPPING_SERVICES)
    modifiable = reader.boolean("address_modifiable")
    modifiable = True if modifiable is None else modifiable
    if not modifiable and reader.data.get("address") is None:
        raise CheckoutError("invalid_unmodifiable_address", reader.where("address"))
    address = _address(reader, required=False)
    amount = reader.integer("amount", 0, rules.MAX_INT32)
    if kind == "FIXED" and amount is None:
        raise CheckoutError("invalid_fixed_shipping_configuration", reader.where("amount"))
    answer: dict[str, Any] = {"type": kind, "amount": amount if kind == "FIXED" else 0}
    if kind == "CALCULATE":
        if reader.data.get("box") is None:
            raise CheckoutError("invalid_calculate_shipping_config", reader.where("box"))
        answer["service_type"] = service
        answer["box"] = _box(reader)
    if address is not None:
        answer["address"] = address
    answer["address_modifiable"] = modifiable
    return _compact(**answer)


def _payment_methods(body: _Reader) -> list[dict[str, Any]]:
    """``payment_methods``: each type once in the answer, the brands of repeats merged."""
    merged: dict[str, list[str]] = {}
    for method in body.objects("payment_methods"):
        kind = method.enum("type", rules.CHECKOUT_PAYMENT_METHODS, required=True) or ""
        brands = method.value("brands", False)
        names = merged.setdefault(kind, [])
        if brands is None:
            continue
        if kind not in rules.CHECKOUT_CARD_METHODS:
            raise CheckoutError(
                "field_brands_is_not_compatible_with_payment_method", method.where("brands")
            )
        if not isinstance(brands, list):
            raise CheckoutError("invalid_format", method.where("brands"))
        for index, brand in enumerate(brands):
            upper = rules.canonical_enum(brand)
            if upper not in rules.CHECKOUT_BRANDS:
                raise CheckoutError(
                    "invalid_list_element_value", f"{method.where('brands')}[{index}]"
                )
            if upper not in names:
                names.append(str(upper))
    return [{"type": kind, **({"brands": b} if b else {})} for kind, b in merged.items()]


def _configs(body: _Reader, methods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``payment_methods_configs`` of the card methods: installments, interest-free ones."""
    accepted = {method["type"] for method in methods}
    answer = []
    seen_types: set[str] = set()
    for config in body.objects("payment_methods_configs"):
        kind = config.enum("type", rules.CHECKOUT_CARD_METHODS, required=True) or ""
        if kind in seen_types:
            raise CheckoutError("repeated_options", config.where("type"))
        seen_types.add(kind)
        if accepted and kind not in accepted:
            raise CheckoutError(
                "inconsistent_checkout_payment_method_configs", config.where("type")
            )
        options: dict[str, int] = {}
        for option in config.objects("config_options", required=True):
            name = option.value("option", True)
            upper = rules.canonical_enum(name)
            if upper not in rules.CHECKOUT_CONFIG_OPTIONS:
                raise CheckoutError("invalid_config_option", option.where("option"))
            if upper in options:
                raise CheckoutError("repeated_options", option.where("option"))
            options[str(upper)] = (
                option.integer("value", 1, 18, required=True, digit_string=True) or 1
            )
        limit = options.get("INSTALLMENTS_LIMIT")
        free = options.get("INTEREST_FREE_INSTALLMENTS")
        if kind == "DEBIT_CARD" and (limit or 1) > 1:
            raise CheckoutError("invalid_value", config.where("config_options"))
        if limit is not None and free is not None and free > limit:
            raise CheckoutError(
                "inconsistent_checkout_payment_method_configs", config.where("config_options")
            )
        answer.append(
            {
                "type": kind,
                "config_options": [
                    {"option": name, "value": str(value)} for name, value in options.items()
                ],
            }
        )
    return answer


def _recurrence(
    body: _Reader, recurrent_allowed: bool, checkout: dict[str, Any]
) -> dict[str, Any] | None:
    reader = body.object("recurrence_plan")
    if reader is None:
        return None
    if not recurrent_allowed:
        raise CheckoutError("recurrent_checkout_disabled", "recurrence_plan")
    name = reader.text("name", limit="recurrence_plan.name", required=True)
    cycles = reader.integer("billing_cycles", 1, 999)
    interval = reader.object("interval")
    unit, length = "MONTH", 1
    if interval is not None:
        unit = interval.enum("unit", rules.RECURRENCE_UNITS) or "MONTH"
        length = interval.integer("length", 1, 12) or 1
    if len(checkout["items"]) > 1:
        raise CheckoutError("more_than_one_item_not_allowed_for_recurrence", "items")
    if checkout.get("shipping") is not None:
        raise CheckoutError("shipping_type_not_allowed_for_recurrence", "shipping.type")
    methods = [method["type"] for method in checkout.get("payment_methods") or ()]
    if methods and methods != ["CREDIT_CARD"]:
        raise CheckoutError("payment_method_not_allowed_for_recurrence", "payment_methods")
    for config in checkout.get("payment_methods_configs") or ():
        for option in config["config_options"]:
            if option["option"] == "INSTALLMENTS_LIMIT" and option["value"] != "1":
                raise CheckoutError(
                    "installments_not_allowed_for_recurrence", "payment_methods_configs"
                )
    return _compact(name=name, billing_cycles=cycles, interval={"unit": unit, "length": length})


def parse_moment(value: Any, path: str, now: datetime) -> datetime:
    """``expiration_date``: ISO-8601 with its offset, in the future."""
    if not isinstance(value, str):
        raise CheckoutError("invalid_format", path)
    if not _DATETIME.fullmatch(value):
        raise CheckoutError("invalid_format", path)
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment <= now:
        raise CheckoutError("invalid_value", path)
    return moment


def total_of(checkout: Mapping[str, Any]) -> int:
    """What the shopper pays: the items, the additional amount and shipping, less discount."""
    items = sum(item["quantity"] * item["unit_amount"] for item in checkout["items"])
    shipping = (checkout.get("shipping") or {}).get("amount") or 0
    return (
        items + checkout.get("additional_amount", 0) + shipping - checkout.get("discount_amount", 0)
    )


def parse_checkout(
    payload: Mapping[str, Any], now: datetime, *, recurrent_allowed: bool = False
) -> tuple[dict[str, Any], datetime]:
    """The checkout as the API keeps and answers it (fields it does not know dropped), and
    when it expires; :class:`CheckoutError` naming the first field at fault."""
    body = _Reader(payload, "")
    expires = None
    if payload.get("expiration_date") is not None:
        expires = parse_moment(payload["expiration_date"], "expiration_date", now)
    modifiable = body.boolean("customer_modifiable")
    modifiable = True if modifiable is None else modifiable
    items, items_total = _items(body)
    additional = body.integer("additional_amount", 0, rules.CHECKOUT_MAX_AMOUNT) or 0
    discount = body.integer("discount_amount", 0, rules.CHECKOUT_MAX_AMOUNT) or 0
    if discount > items_total + additional:
        raise CheckoutError("invalid_discount_value", "discount_amount")
    methods = _payment_methods(body)
    checkout = _compact(
        reference_id=body.text("reference_id", limit="reference_id"),
        customer=_customer(body, modifiable),
        customer_modifiable=modifiable,
        items=items,
        additional_amount=additional,
        discount_amount=discount,
        shipping=_shipping(body),
        payment_methods=methods or None,
        payment_methods_configs=_configs(body, methods) or None,
        soft_descriptor=body.text("soft_descriptor", limit="soft_descriptor"),
        redirect_url=body.text("redirect_url", limit="redirect_url", pattern=_HTTP_URL),
        return_url=body.text("return_url", limit="return_url", pattern=_HTTP_URL),
        notification_urls=body.urls("notification_urls", "notification_urls") or None,
        payment_notification_urls=(
            body.urls("payment_notification_urls", "payment_notification_urls") or None
        ),
    )
    recurrence = _recurrence(body, recurrent_allowed, checkout)
    if recurrence is not None:
        checkout["recurrence_plan"] = recurrence
    if not 1 <= total_of(checkout) <= rules.MAX_AMOUNT:
        raise CheckoutError("invalid_cart_total_value", "items")
    return checkout, expires or now + rules.CHECKOUT_LIFETIME
