"""Cards beyond the plain card form: 3-D Secure, debit, installment plans, "add a card".

- The card form of the payment page is a :class:`~django_orderpay.checkout.CardCheckoutForm`:
  3-D Secure as ``ORDERPAY['THREEDS']`` says (the demo: always), installments
  priced by the card's BIN when ``SHOP_FEE_PLANS`` is on (the shop absorbs
  the fee of ``SHOP_INSTALLMENTS_NO_INTEREST`` installments).
- ``pay_debit``: a debit card, always authenticated.
- ``add_card``: a logged-in shopper stores a card without paying
  (``services.store_card``); it is then among their saved cards, and pays.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from django_orderpay import payloads, services
from django_orderpay.checkout import CHECKOUT_FORM_FIELDS, CardCheckoutForm, DebitCardForm
from django_orderpay.checkout import threeds_required as needs_threeds
from django_orderpay.exceptions import OrderPayError
from django_orderpay.forms import (
    CardPaymentForm,
    SavedCardForm,
    add_payment_error,
    pending_intent,
)

from .marketplace import splits_for
from .models import Purchase
from .payments import _address, card_order, order_payload
from .views import page


def _existing_card_order(purchase: Purchase) -> Any:
    orders = purchase.payment_orders().filter(deeplink__isnull=True, qr_codes__isnull=True)
    return orders.exclude(charges__payment_method="BOLETO").first()


def card_checkout_form(request: HttpRequest, purchase: Purchase, data: Any = None) -> Any:
    """The payment page's card form for ``purchase`` (bound to ``data`` when posted).

    A card payment of the purchase still waiting for its answer is offered
    again (``resend``): the browser that sent it sends the very same post.
    """
    return CardCheckoutForm(
        data,
        user=request.user,
        request=request,  # the card-testing limits count this shopper and address
        amount=purchase.total,
        threeds=needs_threeds(_existing_card_order(purchase)),
        fee_plans=getattr(settings, "SHOP_FEE_PLANS", False),
        max_installments_no_interest=getattr(settings, "SHOP_INSTALLMENTS_NO_INTEREST", 0),
        resend="" if data is not None else pending_intent(services.in_flight_for(purchase)),
    )


def saved_card_form(request: HttpRequest, purchase: Purchase, data: Any = None) -> SavedCardForm:
    """The saved cards' form, its installments priced as the card form's (the same plans).

    The shop's own account's cards (no ``account``): its orders are its own, a seller's
    part being a split, and a card is offered only on the pages of the account that
    stored it (``SavedCardForm(account=...)``)."""
    return SavedCardForm(
        data,
        user=request.user,
        request=request,  # the card-testing limits count this shopper and address
        amount=purchase.total,
        fee_plans=getattr(settings, "SHOP_FEE_PLANS", False),
        max_installments_no_interest=getattr(settings, "SHOP_INSTALLMENTS_NO_INTEREST", 0),
    )


def debit_offered() -> bool:
    """Whether the payment page offers debit cards (``SHOP_DEBIT_CARDS``)."""
    return bool(getattr(settings, "SHOP_DEBIT_CARDS", False))


def debit_form(request: HttpRequest, purchase: Purchase, data: Any = None) -> DebitCardForm:
    return DebitCardForm(
        data, user=request.user, request=request, amount=purchase.total, prefix="debit"
    )


def shopper(purchase: Purchase) -> dict[str, Any]:
    """Who pays, for ``authenticate3DS`` before any provider order exists."""
    customer = order_payload(purchase).customer
    return {"customer": customer, "address": _address(purchase)}


def pay_with(request: HttpRequest, purchase: Purchase, form: Any, back: Any) -> HttpResponse:
    """Pay ``purchase`` with a bound card ``form``; ``back`` redirects a refusal to the page."""
    if form.is_valid():
        try:
            order = card_order(purchase, request.user, form.operation_key("create"))
        except OrderPayError as error:
            add_payment_error(form, error, CHECKOUT_FORM_FIELDS)
        else:
            description = f"Purchase {purchase.pk}"
            paid = form.pay(
                order,
                purchase.total,
                reference_id=purchase.reference_id,
                description=description,
                capture=not authorise_only(request),
                # A seller's products: the shop and each seller get their parts.
                splits=splits_for(purchase),
            )
            if paid is not None:
                return redirect(purchase)
        if awaiting_outcome(form):
            messages.warning(request, form.non_field_errors()[0])
            return redirect(purchase)
    return back(request, purchase, form)


def awaiting_outcome(form: Any) -> bool:
    """Whether a refused ``form`` is waiting for a payment's outcome (its own, unanswered,
    or another of the purchase in flight): the status page shows it, not the form again."""
    return any(getattr(form, name, None) is not None for name in ("outcome_unknown", "in_progress"))


def authorise_only(request: HttpRequest) -> bool:
    """The demo's test-only "authorise only" box (the emulator only): capture it later
    in the admin. A shop that captures later decides so itself, never from a form."""
    from .demo_views import in_emulator

    return in_emulator() and request.POST.get("authorise_only") == "on"


@require_POST
def pay_debit(request: HttpRequest, reference: str) -> HttpResponse:
    from .payment_views import _back_to_payment, _unless_payable, purchase_view

    @purchase_view
    def view(request: HttpRequest, purchase: Purchase) -> HttpResponse:
        refusal = _unless_payable(request, purchase)
        if refusal is not None:
            return refusal
        if not debit_offered():
            raise Http404("debit cards are not offered")
        form = debit_form(request, purchase, request.POST)
        return pay_with(request, purchase, form, _back_to_payment)

    return view(request, reference)


class AddCardForm(CardPaymentForm):
    """A card to store: the encrypted card and its holder's name, nothing to pay."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["installments"]
        self.fields.pop("save_card", None)

    def card(self) -> payloads.Card:
        return payloads.Card.from_encrypted(
            self.cleaned_data["encrypted_card"], holder=self.cleaned_data["holder_name"]
        )


@login_required(login_url="shop:login")
@require_http_methods(["GET", "POST"])
def add_card(request: HttpRequest) -> HttpResponse:
    """Store a card for the logged-in shopper without a charge; back to their saved cards."""
    form = AddCardForm(request.POST or None, user=request.user, request=request)
    if request.method == "POST" and form.is_valid():
        try:
            token = services.store_card(form.card(), user=request.user, shopper=form.shopper)
        except OrderPayError as error:
            add_payment_error(form, error, CHECKOUT_FORM_FIELDS)
        else:
            messages.success(request, _("%(card)s was saved.") % {"card": token.label})
            return redirect("shop:cards")
    return page(request, "shop/add_card.html", {"form": form})
