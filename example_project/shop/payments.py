"""How the shop pays a purchase through django-orderpay, and what it tells the shopper.

Card and saved-card payments use one provider order per purchase, created
without charges and then paid (so a declined card can be retried on the same
order). Paying in the provider's app, by Pix and by boleto each need an order
of their own: created with a deeplink, with a QR code, or with a boleto charge
(each reused while it can still be paid). Paying on PagBank's own page is a
hosted checkout of the purchase (reused while its page takes payments): each
payment made there is an order of the purchase, as the others are.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from django_orderpay import payloads, rules, services
from django_orderpay.models import (
    Charge,
    ChargeStatus,
    Checkout,
    DeepLink,
    Order,
    OrderStatus,
    QrCode,
    format_cents,
)
from django_orderpay.shopper_messages import charge_decline_message

from .models import Purchase

#: A phone or tablet: only there is paying in the provider's app offered (a
#: deeplink opens the app, which exists on mobile only).
MOBILE_USER_AGENT = re.compile(r"Mobi|Android|iPhone|iPad|iPod|Opera Mini|IEMobile", re.IGNORECASE)

#: How long a Pix QR code may be paid (PagBank's default is the end of the next
#: day; a shop holding stock picks a shorter time).
PIX_MINUTES = 30
#: A boleto is due this many days after it is issued.
BOLETO_DAYS = 3

#: What the shop tells the shopper, by its own status (the order's, plus its own).
WAITING_APP = "WAITING_APP"
WAITING_PIX = "WAITING_PIX"
#: A QR code only the PagBank app pays ("Pagar com PagBank"), shown on computers.
WAITING_APP_QR = "WAITING_APP_QR"
WAITING_BOLETO = "WAITING_BOLETO"
WAITING_CHECKOUT = "WAITING_CHECKOUT"
UNPAID = "UNPAID"
LABELS = {
    UNPAID: gettext_lazy("Not paid yet"),
    WAITING_APP: gettext_lazy("Waiting for payment in the PagBank app"),
    WAITING_PIX: gettext_lazy("Waiting for the Pix payment"),
    WAITING_APP_QR: gettext_lazy("Waiting for payment in the PagBank app"),
    WAITING_BOLETO: gettext_lazy("Waiting for the boleto to be paid"),
    WAITING_CHECKOUT: gettext_lazy("Waiting for the payment on PagBank's page"),
    OrderStatus.EXPIRED: gettext_lazy("Expired unpaid"),
    OrderStatus.CREATED: gettext_lazy("Not paid yet"),
    OrderStatus.WAITING: gettext_lazy("Waiting for payment"),
    OrderStatus.IN_ANALYSIS: gettext_lazy("Payment in analysis"),
    OrderStatus.AUTHORIZED: gettext_lazy("Payment authorized"),
    OrderStatus.PAID: gettext_lazy("Paid"),
    OrderStatus.DECLINED: gettext_lazy("Payment declined"),
    OrderStatus.CANCELED: gettext_lazy("Payment canceled"),
}
#: Where the shopper may (still, or again) pay, or pay another way.
PAYABLE = frozenset(
    {
        UNPAID,
        WAITING_APP,
        WAITING_APP_QR,
        WAITING_PIX,
        WAITING_BOLETO,
        WAITING_CHECKOUT,
        OrderStatus.DECLINED,
        OrderStatus.EXPIRED,
    }
)
#: Statuses that change only if the shopper acts again: the status page stops polling.
SETTLED = frozenset(
    {UNPAID, OrderStatus.PAID, OrderStatus.DECLINED, OrderStatus.CANCELED, OrderStatus.EXPIRED}
)


def is_mobile(request: HttpRequest) -> bool:
    return bool(MOBILE_USER_AGENT.search(request.headers.get("User-Agent", "")))


def _user(user: AbstractBaseUser | AnonymousUser | None) -> AbstractBaseUser | None:
    return user if user is not None and user.is_authenticated else None


def _address(purchase: Purchase) -> payloads.Address:
    return payloads.Address(
        street=purchase.street,
        number=purchase.number,
        complement=purchase.complement or None,
        locality=purchase.locality,
        city=purchase.city,
        region_code=purchase.region_code,
        postal_code=purchase.postal_code,
    )


def order_payload(
    purchase: Purchase,
    deep_link: payloads.DeepLink | None = None,
    *,
    qr_code: payloads.QrCode | None = None,
    charge: payloads.ChargeRequest | None = None,
) -> payloads.OrderRequest:
    """The ``POST /orders`` body for ``purchase``: no charges (cards come with ``pay``),
    or its deeplink, its Pix QR code or its boleto ``charge``."""
    return payloads.OrderRequest(
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
        shipping=payloads.Shipping(_address(purchase)),
        deep_links=(deep_link,) if deep_link is not None else (),
        qr_codes=(qr_code,) if qr_code is not None else (),
        charges=(charge,) if charge is not None else (),
    )


def card_order(
    purchase: Purchase,
    user: AbstractBaseUser | AnonymousUser | None,
    idempotency_key: str | None = None,
) -> Order:
    """The provider order that card payments of ``purchase`` go to, created on first use.

    ``idempotency_key`` is the checkout attempt's key for the create (the
    card form's ``operation_key("create")``): the same form posted twice
    gets the same order. Raises the services' errors (``PayloadError``,
    ``ProviderError``, ``PaymentInProgress``) when the order cannot be created.
    """
    cards = purchase.payment_orders().filter(deeplink__isnull=True, qr_codes__isnull=True)
    existing = cards.exclude(charges__payment_method="BOLETO").first()
    if existing is not None:
        return existing
    return services.create_order(
        order_payload(purchase),
        user=_user(user),
        shop_object=purchase,
        idempotency_key=idempotency_key,
    )


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


def pix_order(
    purchase: Purchase,
    user: AbstractBaseUser | AnonymousUser | None,
    arrangement: str = "PIX",
) -> Order:
    """The purchase's Pix order (``arrangement`` ``PAGBANK``: its "Pagar com PagBank" QR),
    reused while its QR code may be paid; a new one, payable for :data:`PIX_MINUTES`, else."""
    for existing in purchase.payment_orders().filter(
        status=OrderStatus.WAITING, qr_codes__isnull=False
    ):
        qr_code = existing.qr_codes.first()
        if (
            qr_code is not None
            and qr_code.arrangements == [arrangement]
            and not qr_code.is_expired()
        ):
            return existing
    expires = timezone.now().replace(microsecond=0) + dt.timedelta(minutes=PIX_MINUTES)
    qr_code = payloads.QrCode(purchase.total, expires, (arrangement,))
    body = order_payload(purchase, qr_code=qr_code)
    return services.create_order(body, user=_user(user), shop_object=purchase)


def boleto_order(purchase: Purchase, user: AbstractBaseUser | AnonymousUser | None) -> Order:
    """The purchase's boleto order, reused while it waits; a new one due in
    :data:`BOLETO_DAYS` days, to the buyer's name and address, else."""
    existing = (
        purchase.payment_orders()
        .filter(status=OrderStatus.WAITING, charges__payment_method="BOLETO")
        .first()
    )
    if existing is not None:
        return existing
    boleto = payloads.BoletoPayment(
        due_date=rules.provider_today() + dt.timedelta(days=BOLETO_DAYS),
        holder=payloads.BoletoHolder(
            # PagBank prints 30 characters of a payer's name (the form says so).
            name=rules.boleto_payer_name(purchase.customer_name),
            tax_id=purchase.customer_tax_id,
            email=purchase.customer_email,
            address=_address(purchase),
        ),
        # A boleto is a Brazilian bank's document: its lines are in Portuguese, accents kept.
        instruction_lines=(f"Compra {purchase.reference_id}", "Não receber após o vencimento"),
    )
    charge = payloads.ChargeRequest(
        reference_id=purchase.reference_id,
        description=f"Purchase {purchase.pk}",
        amount=payloads.Amount(purchase.total),
        payment_method=boleto,
    )
    body = order_payload(purchase, charge=charge)
    return services.create_order(body, user=_user(user), shop_object=purchase)


#: How long the purchase's PagBank page takes payments (PagBank's default is two hours).
CHECKOUT_HOURS = 2


def hosted_checkout(
    purchase: Purchase, user: AbstractBaseUser | AnonymousUser | None, back_url: str
) -> Checkout:
    """The purchase's PagBank page (a hosted checkout), reused while it takes payments.

    The shopper comes back to ``back_url`` (the status page) once paid. The
    buyer's details fill the page in (they may change them there); the
    purchase's address is where it goes. Raises the services' errors.
    """
    existing = services.payable_checkout(purchase)
    if existing is not None:
        return existing
    phone = None
    if re.fullmatch(r"9[0-9]{8}", purchase.phone_number):
        phone = payloads.CheckoutPhone(area=purchase.phone_area, number=purchase.phone_number)
    expires = timezone.now().replace(microsecond=0) + dt.timedelta(hours=CHECKOUT_HOURS)
    body = payloads.CheckoutRequest(
        reference_id=purchase.reference_id,
        expiration_date=expires,
        customer=payloads.CheckoutCustomer(
            name=purchase.customer_name,
            email=purchase.customer_email,
            tax_id=purchase.customer_tax_id,
            phone=phone,
        ),
        customer_modifiable=True,
        items=tuple(
            payloads.CheckoutItem(
                reference_id=f"sku-{line.product_id}" if line.product_id else None,
                name=line.name[:100],
                quantity=line.quantity,
                unit_amount=line.unit_amount,
            )
            for line in purchase.lines.all()
        ),
        shipping=payloads.CheckoutShipping(
            type="FREE", address=_address(purchase), address_modifiable=False
        ),
        redirect_url=back_url,
        return_url=back_url,
    )
    return services.create_checkout(body, user=_user(user), shop_object=purchase)


#: Charges that hold (or held) the shopper's money, or may: a line each on the status page.
MONEY_STATUSES = frozenset(
    {ChargeStatus.PAID, ChargeStatus.AUTHORIZED, ChargeStatus.IN_ANALYSIS, ChargeStatus.CANCELED}
)


@dataclass(frozen=True)
class PaymentState:
    """Where a purchase's payment stands, for the status page, the history and its JSON.

    ``charges`` are every charge of the purchase's orders, oldest first: the
    payments and refunds listed (:attr:`lines`), not only the one shown.
    """

    status: str
    order: Order | None
    charge: Charge | None
    deeplink: DeepLink | None
    qr_code: QrCode | None = None
    charges: tuple[Charge, ...] = ()

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
    def charged(self) -> int | None:
        """Cents the shopper pays for the purchase (the shown charge's amount, its buyer's
        interest included, less what was refunded of it); None before any is charged."""
        charge = self.charge
        if charge is None or charge.status not in MONEY_STATUSES - {ChargeStatus.CANCELED}:
            return None
        return charge.amount_value - charge.amount_refunded

    @property
    def interest(self) -> int:
        """Cents of the buyer's interest inside :attr:`charged` (an installment plan's)."""
        return self.charge.buyer_interest if self.charged is not None and self.charge else 0

    @property
    def detail(self) -> str:
        """One sentence for the shopper: what was charged and how, or why it was declined.

        Sentences are whole msgids (no English pieces glued together), so each
        language can order its words.
        """
        charge = self.charge
        if self.status == WAITING_BOLETO:
            return _(
                "Pay the boleto by its due date; this page updates when the bank confirms it "
                "(up to three business days)."
            )
        if self.status == OrderStatus.EXPIRED:
            return _("The time to pay ran out before the payment arrived. You may pay again.")
        if self.status == WAITING_CHECKOUT:
            return _("If you paid on PagBank's page, this page updates when PagBank confirms it.")
        if charge is None:
            if self.status == WAITING_APP:
                return _("Open the PagBank app to pay; this page updates when the payment arrives.")
            if self.status == WAITING_PIX:
                return _(
                    "Scan the QR code or copy the code to pay; this page updates when it is paid."
                )
            if self.status == WAITING_APP_QR:
                return _(
                    "Scan the QR code with the PagBank app on your phone to pay; this page "
                    "updates when it is paid."
                )
            return ""
        if charge.status == ChargeStatus.DECLINED:
            # What the shopper can do; the code is for staff (the admin shows it).
            reason = charge_decline_message(charge)
            return _("The payment was declined. %(reason)s") % {"reason": reason}
        if charge.status == ChargeStatus.PAID:
            return _("Paid: %(payment)s") % {"payment": self._payment(charge)}
        if charge.status == ChargeStatus.IN_ANALYSIS:
            return _(
                "The payment%(how)s is being analysed; this page updates when it is decided."
            ) % {"how": self._how_paid(charge)}
        if charge.status == ChargeStatus.AUTHORIZED:
            return _(
                "Authorised, to be charged when the shop confirms the purchase: %(payment)s"
            ) % {"payment": self._payment(charge)}
        return f"{LABELS.get(charge.status, charge.status)}{self._how_paid(charge)}."

    def _payment(self, charge: Charge) -> str:
        """``R$ 142,50 with Visa •••• 1111 in 6 installments, R$ 13,80 of it interest.``"""
        values = {
            "amount": format_cents(charge.amount_value, charge.currency),
            "how": self._how_paid(charge),
            "count": charge.installments,
            "interest": format_cents(charge.buyer_interest, charge.currency),
        }
        if charge.installments > 1 and charge.buyer_interest:
            return (
                _("%(amount)s%(how)s in %(count)d installments, %(interest)s of it interest.")
                % values
            )
        if charge.installments > 1:
            return _("%(amount)s%(how)s in %(count)d installments, no interest.") % values
        return _("%(amount)s%(how)s.") % values

    def _how_paid(self, charge: Charge) -> str:
        """`` with Visa •••• 1111``, `` with the Visa debit card •••• 1111``, `` in the PagBank
        app``, `` by Pix``, both, or nothing."""
        if charge.payment_method == "PIX":
            return _(" by Pix")
        if charge.payment_method == "BOLETO":
            return _(" by boleto")
        card = ""
        if charge.card_last_digits:
            values = {
                "brand": (charge.card_brand or _("card")).capitalize(),
                "last_digits": charge.card_last_digits,
            }
            if charge.payment_method == "DEBIT_CARD":
                card = _(" with the %(brand)s debit card •••• %(last_digits)s") % values
            else:
                card = _(" with %(brand)s •••• %(last_digits)s") % values
        # Its own order's deeplink (orders come with theirs: no query).
        if getattr(charge.order, "deeplink", None) is not None:
            return _(" in the PagBank app%(card)s") % {"card": card}
        return card

    @property
    def lines(self) -> list[str]:
        """Every payment of the purchase and what became of it, oldest first, one sentence
        each: a second payment given back says so."""
        lines = []
        kept = [c for c in self.charges if c.amount_paid > c.amount_refunded]
        for charge in self.charges:
            if charge.status not in MONEY_STATUSES or (
                charge.status == ChargeStatus.CANCELED and not charge.amount_paid
            ):
                continue
            line = self._payment(charge)
            if charge.status == ChargeStatus.AUTHORIZED:
                line = _("Authorised: %(payment)s") % {"payment": line}
            elif charge.status == ChargeStatus.IN_ANALYSIS:
                line = _("In analysis: %(payment)s") % {"payment": line}
            else:
                line = _("Paid: %(payment)s") % {"payment": line}
            refunded = format_cents(charge.amount_refunded, charge.currency)
            if charge.amount_refunded and charge.amount_refunded < charge.amount_paid:
                line += " " + _("%(amount)s of it was refunded.") % {"amount": refunded}
            elif charge.amount_refunded and any(other is not charge for other in kept):
                line += " " + _(
                    "Refunded in full (%(amount)s): the purchase had already been paid, "
                    "so this second payment was given back."
                ) % {"amount": refunded}
            elif charge.amount_refunded:
                line += " " + _("Refunded in full (%(amount)s).") % {"amount": refunded}
            lines.append(line)
        return lines

    @property
    def refund_note(self) -> str:
        """``Partially refunded: R$ 38,90`` or ``Refunded: R$ 154,70`` (every payment of the
        purchase counted); "" when nothing was."""
        paid = sum(c.amount_paid for c in self.charges)
        refunded = sum(c.amount_refunded for c in self.charges)
        if not refunded:
            return ""
        amount = format_cents(refunded)
        if refunded < paid:
            return _("Partially refunded: %(amount)s") % {"amount": amount}
        return _("Refunded: %(amount)s") % {"amount": amount}

    def as_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "label": self.label,
            "detail": self.detail,
            "settled": self.settled,
        }


def payment_state(purchase: Purchase) -> PaymentState:
    """The purchase's payment: a paid order if any, else its newest order's state."""
    orders = list(
        purchase.payment_orders().select_related("deeplink").prefetch_related("charges", "qr_codes")
    )
    if not orders:
        waiting = services.payable_checkout(purchase) is not None
        return PaymentState(WAITING_CHECKOUT if waiting else UNPAID, None, None, None)
    everything = sorted(
        (charge for each in orders for charge in each.charges.all()),
        key=lambda c: (c.created_at is None, c.created_at, c.pk),
    )
    paid = [order for order in orders if order.status == OrderStatus.PAID]
    order = paid[0] if paid else orders[0]
    charges = [charge for charge in everything if charge.order_id == order.pk]
    paid_charges = [c for c in charges if c.status == ChargeStatus.PAID]
    charge = paid_charges[-1] if paid_charges else (charges[-1] if charges else None)
    deeplink = getattr(order, "deeplink", None)  # the reverse one-to-one raises when absent
    qr_codes = list(order.qr_codes.all())
    qr_code = qr_codes[0] if qr_codes else None
    status = order.status
    boleto = charge is not None and charge.payment_method == "BOLETO"
    if status == OrderStatus.CREATED and deeplink is not None:
        status = WAITING_APP
    elif status == OrderStatus.CREATED:
        status = UNPAID
    elif status == OrderStatus.WAITING and qr_code is not None:
        status = WAITING_APP_QR if qr_code.arrangements == ["PAGBANK"] else WAITING_PIX
    elif status == OrderStatus.WAITING and boleto:
        status = WAITING_BOLETO
    elif status == OrderStatus.CANCELED and boleto and not order.total_paid:
        status = OrderStatus.EXPIRED  # the provider cancelled it unpaid after its due date
    return PaymentState(status, order, charge, deeplink, qr_code, tuple(everything))
