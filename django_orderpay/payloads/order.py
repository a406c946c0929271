"""Request bodies: OrderRequest (``POST /orders``), PayRequest (``.../pay``), DeepLink."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator

from django_orderpay import rules

from ._problems import Builder, Problems, compact, index, join
from .charge import ChargeRequest
from .customer import Customer, Item, Shipping
from .pix import QrCode

_url_validator = URLValidator(schemes=["http", "https"])


@dataclass(frozen=True)
class DeepLink(Builder):
    """``deep_links[]``: an amount payable in the provider's app, and where the payer returns.

    ``redirect_url`` must match ``^([a-zA-Z0-9]+://)(.*)$`` (a universal link or
    an app URL scheme such as ``myshop://orders/1``).
    """

    amount: int
    redirect_url: str | None = None
    currency: str | None = None

    def collect(self, problems: Problems, path: str) -> None:
        problems.cents(join(path, "amount.value"), self.amount)
        problems.text(
            join(path, "amount.currency"), self.currency, choices=rules.CURRENCIES, required=False
        )
        problems.text(
            join(path, "redirect_url"),
            self.redirect_url,
            required=False,
            pattern=rules.REDIRECT_URL_PATTERN,
            pattern_message="must be an app or universal link such as myshop://orders/1",
        )

    def to_dict(self) -> dict[str, Any]:
        amount = compact(value=self.amount, currency=self.currency)
        return compact(amount=amount, redirect_url=self.redirect_url)


def _collect_charges(problems: Problems, charges: Sequence[ChargeRequest], path: str) -> None:
    for position, charge in enumerate(charges):
        where = index(path, position)
        if problems.instance(where, charge, ChargeRequest):
            charge.collect(problems, where)


@dataclass(frozen=True)
class OrderRequest(Builder):
    """The body of ``POST /orders``.

    ``charges`` pays it at once (one step); none, and it is paid later with a
    :class:`PayRequest` (two steps). ``deep_links`` (one at most) makes it
    payable in the provider's app, and excludes charges; so does ``qr_codes`` (one
    :class:`~.pix.QrCode`), which makes it payable by Pix: no charge until paid.

    Validation runs in :meth:`validate` and in :meth:`to_dict`, which raises
    :class:`~django_orderpay.exceptions.PayloadError` listing every invalid
    field by the path the provider would name, before any network call.
    """

    customer: Customer
    items: tuple[Item, ...] = ()
    reference_id: str | None = None
    shipping: Shipping | None = None
    notification_urls: tuple[str, ...] = ()
    charges: tuple[ChargeRequest, ...] = ()
    deep_links: tuple[DeepLink, ...] = ()
    qr_codes: tuple[QrCode, ...] = ()

    def __post_init__(self) -> None:
        for name in ("items", "notification_urls", "charges", "deep_links", "qr_codes"):
            value = getattr(self, name)
            if isinstance(value, list | tuple):
                object.__setattr__(self, name, tuple(value))
            elif value is None:
                object.__setattr__(self, name, ())

    def collect(self, problems: Problems, path: str = "") -> None:
        problems.text(
            join(path, "reference_id"), self.reference_id, limit="reference_id", required=False
        )
        customer_path = join(path, "customer")
        if problems.instance(customer_path, self.customer, Customer):
            self.customer.collect(problems, customer_path)
        items_path = join(path, "items")
        if problems.sequence(items_path, self.items):
            if not self.items:
                problems.add(items_path, "must list at least one item")
            for position, item in enumerate(self.items):
                where = index(items_path, position)
                if problems.instance(where, item, Item):
                    item.collect(problems, where)
        shipping_path = join(path, "shipping")
        if problems.instance(shipping_path, self.shipping, Shipping, required=False):
            self.shipping.collect(problems, shipping_path)  # type: ignore[union-attr]
        urls_path = join(path, "notification_urls")
        if problems.sequence(urls_path, self.notification_urls):
            for position, url in enumerate(self.notification_urls):
                _collect_url(problems, index(urls_path, position), url)
        charges_path = join(path, "charges")
        if problems.sequence(charges_path, self.charges):
            _collect_charges(problems, self.charges, charges_path)
        links_path = join(path, "deep_links")
        if problems.sequence(links_path, self.deep_links):
            if len(self.deep_links) > 1:
                problems.add(links_path, "an order has one deeplink at most")
            if self.deep_links and self.charges:
                problems.add(links_path, "an order has charges or a deeplink, not both")
            for position, link in enumerate(self.deep_links):
                where = index(links_path, position)
                if problems.instance(where, link, DeepLink):
                    link.collect(problems, where)
        qr_path = join(path, "qr_codes")
        if problems.sequence(qr_path, self.qr_codes):
            if len(self.qr_codes) > 1:
                problems.add(qr_path, "an order has one QR code at most")
            if self.qr_codes and self.charges:
                problems.add(qr_path, "an order has charges or a QR code, not both")
            for position, qr_code in enumerate(self.qr_codes):
                where = index(qr_path, position)
                if problems.instance(where, qr_code, QrCode):
                    qr_code.collect(problems, where)

    def to_dict(self) -> dict[str, Any]:
        """The validated JSON body; raises ``PayloadError`` naming every invalid field."""
        self.validate()
        return self.body()

    def body(self) -> dict[str, Any]:
        """The JSON body, for a request already validated (``to_dict`` checks it first)."""
        return compact(
            reference_id=self.reference_id,
            customer=self.customer.to_dict(),
            items=[item.to_dict() for item in self.items],
            shipping=self.shipping.to_dict() if self.shipping is not None else None,
            notification_urls=list(self.notification_urls) if self.notification_urls else None,
            charges=[charge.to_dict() for charge in self.charges] or None,
            deep_links=[link.to_dict() for link in self.deep_links] or None,
            qr_codes=[qr_code.to_dict() for qr_code in self.qr_codes] or None,
        )


def _collect_url(problems: Problems, path: str, url: Any) -> None:
    if not problems.text(path, url):
        return
    try:
        _url_validator(url)
    except DjangoValidationError:
        problems.add(path, "must be an absolute http(s) URL")


@dataclass(frozen=True)
class PayRequest(Builder):
    """The body of ``POST /orders/{id}/pay``: the charges that pay an existing order."""

    charges: tuple[ChargeRequest, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "charges", tuple(self.charges or ()))

    def collect(self, problems: Problems, path: str = "") -> None:
        charges_path = join(path, "charges")
        if not self.charges:
            problems.add(charges_path, "must list at least one charge")
        _collect_charges(problems, self.charges, charges_path)

    def to_dict(self) -> dict[str, Any]:
        """The validated JSON body; raises ``PayloadError`` naming every invalid field."""
        self.validate()
        return {"charges": [charge.to_dict() for charge in self.charges]}
