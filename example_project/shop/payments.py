"""How the shop pays a purchase through django-orderpay, and what it tells the shopper.

Card and saved-card payments use one provider order per purchase, created
without charges and then paid (so a declined card can be retried on the same
order); paying in the provider's app needs an order of its own, created with
a deeplink.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from django_orderpay import payloads, services
from django_orderpay.models import Charge, ChargeStatus, Deeplink, Order, OrderStatus

from .models import Purchase

#: A phone or tablet: only there is paying in the provider's app offered (a
#: deeplink opens the app, which exists on mobile only).
MOBILE_USER_AGENT = re.compile(r"Mobi|Android|iPhone|iPad|iPod|Opera Mini|IEMobile", re.IGNORECASE)

#: What the shop tells the shopper, by its own status (the order's, plus two of its own).
WAITING_APP = "WAITING_APP"
UNPAID = "UNPAID"
LABELS = {
    UNPAID: gettext_lazy("Not paid yet"),
    WAITING_APP: gettext_lazy("Waiting for payment in the PagBank app"),
    OrderStatus.CREATED: gettext_lazy("Not paid yet"),
    OrderStatus.WAITING: gettext_lazy("Waiting for payment"),
    OrderStatus.IN_ANALYSIS: gettext_lazy("Payment in analysis"),
    OrderStatus.AUTHORIZED: gettext_lazy("Payment authorized"),
    OrderStatus.PAID: gettext_lazy("Paid"),
    OrderStatus.DECLINED: gettext_lazy("Payment declined"),
    OrderStatus.CANCELED: gettext_lazy("Payment canceled"),
}
#: Where the shopper may (still, or again) pay.
PAYABLE = frozenset({UNPAID, WAITING_APP, OrderStatus.DECLINED})
#: Statuses that change only if the shopper acts again: the status page stops polling.
SETTLED = frozenset({UNPAID, OrderStatus.PAID, OrderStatus.DECLINED, OrderStatus.CANCELED})


def is_mobile(request: HttpRequest) -> bool:
    return bool(MOBILE_USER_AGENT.search(request.headers.get("User-Agent", "")))


def _user(user: AbstractBaseUser | AnonymousUser | None) -> AbstractBaseUser | None:
    return user if user is not None and user.is_authenticated else None


def order_payload(purchase: Purchase, deep_link: payloads.DeepLink | None = None) -> payloads.Order:
    """The ``POST /orders`` body for ``purchase`` (no charges: they come with ``pay``)."""
    return payloads.Order(
        reference_id=purchase.reference_id,
        customer=payloads.Customer(
            name=purchase.customer_name,
            email=purchase.customer_email,
            tax_id=purchase.customer_tax_id,
            phones=(payloads.Phone(area=purchase.phone_area, number=purchase.phone_number),),
        ),
        items=tuple(
            payloads.Item(
                reference_id=f"sku-{line.product_id}" if line.product_id else None,
                name=line.name,
                quantity=line.quantity,
                unit_amount=line.unit_amount,
            )
            for line in purchase.lines.all()
        ),
        shipping=payloads.Shipping(
            payloads.Address(
                street=purchase.street,
                number=purchase.number,
                complement=purchase.complement or None,
                locality=purchase.locality,
                city=purchase.city,
                region_code=purchase.region_code,
                postal_code=purchase.postal_code,
            )
        ),
        deep_links=(deep_link,) if deep_link is not None else (),
    )


def card_order(purchase: Purchase, user: AbstractBaseUser | AnonymousUser | None) -> Order:
    """The provider order that card payments of ``purchase`` go to, created on first use.

    Raises the services' errors (``ValidationError``, ``ProviderError``) when
    the order cannot be created.
    """
    existing = purchase.payment_orders().filter(deeplink__isnull=True).first()
    if existing is not None:
        return existing
    return services.create_order(order_payload(purchase), user=_user(user), shop_object=purchase)


def app_order(
    purchase: Purchase, user: AbstractBaseUser | AnonymousUser | None, redirect_url: str
) -> Order:
    """The order paid in the app (a deeplink back to ``redirect_url``), reused while open."""
    existing = purchase.payment_orders().filter(deeplink__isnull=False).first()
    # A deeplink takes payments until one is approved or it expires (a declined one may retry).
    reusable = (OrderStatus.CREATED, OrderStatus.DECLINED)
    if existing is not None and existing.status in reusable and not existing.deeplink.is_expired():
        return existing
    deep_link = payloads.DeepLink(amount=purchase.total, redirect_url=redirect_url)
    return services.create_order(
        order_payload(purchase, deep_link), user=_user(user), shop_object=purchase
    )


@dataclass(frozen=True)
class PaymentState:
    """Where a purchase's payment stands, for the status page and its JSON."""

    status: str
    order: Order | None
    charge: Charge | None
    deeplink: Deeplink | None

    @property
    def label(self) -> str:
        return str(LABELS.get(self.status, self.status.replace("_", " ").capitalize()))

    @property
    def settled(self) -> bool:
        return self.status in SETTLED

    @property
    def payable(self) -> bool:
        return self.status in PAYABLE

    @property
    def is_paid(self) -> bool:
        return self.status == OrderStatus.PAID

    @property
    def detail(self) -> str:
        """One sentence for the shopper: the card used, or why it was declined.

        Sentences are whole msgids (no English pieces glued together), so each
        language can order its words.
        """
        charge = self.charge
        if charge is None:
            if self.status == WAITING_APP:
                return _("Open the PagBank app to pay; this page updates when the payment arrives.")
            return ""
        if charge.status == ChargeStatus.DECLINED:
            message = charge.payment_response_message or _("declined")
            if charge.payment_response_code:
                message = f"{message} ({charge.payment_response_code})"
            return _("The payment was declined: %(reason)s. You may try another card.") % {
                "reason": message
            }
        how = self._how_paid(charge)
        if charge.status == ChargeStatus.PAID:
            if charge.installments > 1:
                return _("Paid%(how)s in %(count)d installments.") % {
                    "how": how,
                    "count": charge.installments,
                }
            return _("Paid%(how)s.") % {"how": how}
        if charge.status == ChargeStatus.IN_ANALYSIS:
            return _(
                "The payment%(how)s is being analysed; this page updates when it is decided."
            ) % {"how": how}
        return f"{LABELS.get(charge.status, charge.status)}{how}."

    def _how_paid(self, charge: Charge) -> str:
        """`` with Visa •••• 1111``, `` in the PagBank app``, both, or nothing."""
        card = ""
        if charge.card_last_digits:
            card = _(" with %(brand)s •••• %(last_digits)s") % {
                "brand": (charge.card_brand or _("card")).capitalize(),
                "last_digits": charge.card_last_digits,
            }
        if self.deeplink is not None:
            return _(" in the PagBank app%(card)s") % {"card": card}
        return card

    def as_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "label": self.label,
            "detail": self.detail,
            "settled": self.settled,
        }


def payment_state(purchase: Purchase) -> PaymentState:
    """The purchase's payment: a paid order if any, else its newest order's state."""
    orders = list(purchase.payment_orders().select_related("deeplink").prefetch_related("charges"))
    if not orders:
        return PaymentState(UNPAID, None, None, None)
    paid = [order for order in orders if order.status == OrderStatus.PAID]
    order = paid[0] if paid else orders[0]
    charges = sorted(order.charges.all(), key=lambda c: (c.created_at is None, c.created_at, c.pk))
    paid_charges = [c for c in charges if c.status == ChargeStatus.PAID]
    charge = paid_charges[-1] if paid_charges else (charges[-1] if charges else None)
    deeplink = getattr(order, "deeplink", None)  # the reverse one-to-one raises when absent
    status = order.status
    if status == OrderStatus.CREATED and deeplink is not None:
        status = WAITING_APP
    elif status == OrderStatus.CREATED:
        status = UNPAID
    return PaymentState(status, order, charge, deeplink)
