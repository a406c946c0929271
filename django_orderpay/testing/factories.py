"""factory-boy factories for every model of django-orderpay.

They make rows directly, each with a ``data`` JSON shaped like the
provider's and agreeing with its columns, for a shop's own tests of
templates, signal receivers and admin screens. A charge made by
``ChargeFactory`` updates its order's derived status and JSON, as sync does.
To exercise the real path instead, sync the JSON of
:mod:`django_orderpay.testing.provider_json`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from typing import Any

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from .._deprecation import deprecated_getattr
from ..models import (
    CardToken,
    ChangeSource,
    Charge,
    ChargeStatus,
    ChargeStatusChange,
    DeepLink,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
    OrderStatus,
    Split,
    SplitMethod,
    deeplink_expiry,
    derive_order_status,
)
from .provider_json import (
    card_json,
    charge_json,
    deep_link_json,
    order_json,
    provider_id,
    split_json,
)


def _now() -> dt.datetime:
    # Milliseconds, like the provider's timestamps, so columns equal their JSON.
    now = timezone.now()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def _provider_id(prefix: str) -> factory.LazyFunction:
    return factory.LazyFunction(lambda: provider_id(prefix))


class OrderFactory(DjangoModelFactory):
    class Meta:
        model = Order

    provider_id = _provider_id("ORDE_")
    reference_id = factory.Sequence(lambda n: f"ex-{n:05d}")
    status = OrderStatus.CREATED
    customer_name = "Jose da Silva"
    customer_email = "jose@example.com"
    customer_tax_id = "12345678909"
    user = None
    created_at = factory.LazyFunction(_now)
    data = factory.LazyAttribute(
        lambda o: order_json(
            order_id=o.provider_id, reference_id=o.reference_id, created_at=o.created_at
        )
    )


class CardTokenFactory(DjangoModelFactory):
    class Meta:
        model = CardToken

    provider_id = _provider_id("CARD_")
    user = None
    brand = "visa"
    first_digits = "411111"
    last_digits = "1111"
    exp_month = "12"
    exp_year = "2030"
    holder_name = "Jose da Silva"
    data = factory.LazyAttribute(
        lambda o: card_json(
            token_id=o.provider_id,
            store=True,
            brand=o.brand,
            first_digits=o.first_digits,
            last_digits=o.last_digits,
            holder=o.holder_name,
        )
    )

    class Params:
        # An Elo card stored by an INITIAL recurrence charge.
        recurrence = factory.Trait(
            brand="elo",
            first_digits="451416",
            last_digits="3757",
            brand_reference_id="158762300000712",
            initial_amount=500,
        )


def _charge_data(o: Any) -> dict[str, Any]:
    recurring = {"type": o.recurring_type} if o.recurring_type else None
    card = card_json(
        token_id=o.card_token.provider_id if o.card_token else None,
        brand=o.card_brand,
        first_digits=o.card_first_digits,
        last_digits=o.card_last_digits,
    )
    return charge_json(
        status=o.status,
        amount=o.amount_value,
        paid=o.amount_paid,
        refunded=o.amount_refunded,
        charge_id=o.provider_id,
        reference_id=o.reference_id,
        card=card,
        capture=o.capture,
        installments=o.installments,
        recurring=recurring,
        brand_reference_id=o.brand_reference_id or None,
        split_method=o.split_method or None,
        created_at=o.created_at,
    )


class ChargeFactory(DjangoModelFactory):
    """A charge, PAID unless a trait says otherwise (``authorized``, ...)."""

    class Meta:
        model = Charge
        skip_postgeneration_save = True

    provider_id = _provider_id("CHAR_")
    order = factory.SubFactory(OrderFactory)
    reference_id = factory.Sequence(lambda n: f"ch-{n:05d}")
    status = ChargeStatus.PAID
    amount_value = 500
    amount_paid = factory.LazyAttribute(
        lambda o: o.amount_value if o.status == ChargeStatus.PAID or o.amount_refunded else 0
    )
    amount_refunded = 0
    currency = "BRL"
    payment_method = "CREDIT_CARD"
    installments = 1
    capture = True
    capture_before = None
    payment_response_code = factory.LazyAttribute(
        lambda o: "20003" if o.status == ChargeStatus.DECLINED else "20000"
    )
    payment_response_message = factory.LazyAttribute(
        lambda o: "NAO AUTORIZADA" if o.status == ChargeStatus.DECLINED else "SUCESSO"
    )
    card_brand = "visa"
    card_first_digits = "411111"
    card_last_digits = "1111"
    card_token = None
    recurring_type = ""
    brand_reference_id = ""
    split_method = ""
    created_at = factory.LazyFunction(_now)
    paid_at = factory.LazyAttribute(
        lambda o: o.created_at + dt.timedelta(seconds=1) if o.amount_paid else None
    )
    data = factory.LazyAttribute(_charge_data)

    class Params:
        authorized = factory.Trait(
            status=ChargeStatus.AUTHORIZED,
            capture=False,
            capture_before=factory.LazyAttribute(lambda o: o.created_at + dt.timedelta(days=5)),
        )
        in_analysis = factory.Trait(status=ChargeStatus.IN_ANALYSIS)
        declined = factory.Trait(status=ChargeStatus.DECLINED)
        canceled = factory.Trait(
            status=ChargeStatus.CANCELED,
            amount_refunded=factory.SelfAttribute("amount_value"),
        )
        stored_card = factory.Trait(
            card_token=factory.SubFactory(
                CardTokenFactory, user=factory.SelfAttribute("..order.user")
            )
        )

    @factory.post_generation
    def update_order(obj: Charge, create: bool, extracted: Any, **kwargs: Any) -> None:
        """Keep the order's derived status and JSON true, as sync would."""
        if not create:
            return
        order = obj.order
        charges = list(order.charges.order_by("pk"))
        order.status = derive_order_status(charge.effective_status for charge in charges)
        order.data = {**order.data, "charges": [charge.data for charge in charges]}
        order.save(update_fields=["status", "data"])


class SplitFactory(DjangoModelFactory):
    class Meta:
        model = Split

    provider_id = _provider_id("SPLI_")
    charge = factory.SubFactory(ChargeFactory, amount_value=10000, split_method=SplitMethod.FIXED)
    method = SplitMethod.FIXED
    status = "PROCESSING"
    created_at = factory.LazyFunction(_now)
    data = factory.LazyAttribute(lambda o: split_json(split_id=o.provider_id, method=o.method))


class DeepLinkFactory(DjangoModelFactory):
    class Meta:
        model = DeepLink

    order = factory.SubFactory(OrderFactory)
    deeplink_id = factory.LazyFunction(lambda: uuid.uuid4().hex)
    url = factory.LazyAttribute(
        lambda o: f"https://sandbox.sdk.pagseguro.com/download?f=order&r={o.deeplink_id}"
    )
    amount_value = 1500
    redirect_url = ""
    expires_at = factory.LazyAttribute(lambda o: deeplink_expiry(o.order.created_at))
    data = factory.LazyAttribute(
        lambda o: deep_link_json(
            amount=o.amount_value, deeplink_id=o.deeplink_id, redirect_url=o.redirect_url
        )
    )


class ChargeStatusChangeFactory(DjangoModelFactory):
    class Meta:
        model = ChargeStatusChange

    charge = factory.SubFactory(ChargeFactory)
    old_status = ""
    new_status = factory.SelfAttribute("charge.status")
    source = ChangeSource.API


class NotificationDeliveryFactory(DjangoModelFactory):
    """A delivery as received: the order's JSON as body, not yet processed."""

    class Meta:
        model = NotificationDelivery

    class Params:
        order = factory.LazyFunction(order_json)

    body = factory.LazyAttribute(lambda o: json.dumps(o.order).encode())
    headers = factory.LazyFunction(
        lambda: {"Content-Type": "application/json", "X-Authenticity-Token": "[removed]"}
    )
    remote_addr = "127.0.0.1"
    content_type = "application/json"
    valid = None
    outcome = DeliveryOutcome.RECEIVED
    order_provider_id = factory.LazyAttribute(lambda o: o.order["id"])
    dedupe_key = factory.LazyAttribute(lambda o: hashlib.sha256(o.body).hexdigest())


#: Old names, still answered with a DeprecationWarning (docs/names.md).
_DEPRECATED = {"DeeplinkFactory": ("DeepLinkFactory", "the model is DeepLink")}
__getattr__ = deprecated_getattr(__name__, _DEPRECATED, globals())
