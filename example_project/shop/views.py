"""The shop's pages: products, cart, checkout, payment, and the order status (with its JSON)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.views import LoginView
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from django_orderpay import services
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import OrderPayError
from django_orderpay.forms import (
    CARD_FORM_FIELDS,
    SAVED_CARD_FORM_FIELDS,
    CardPaymentForm,
    SavedCardForm,
    add_payment_error,
)

from .cart import Cart
from .forms import CartLineForm, CheckoutForm, QuantityForm
from .models import Product, Purchase, PurchaseLine
from .payments import (
    BOLETO_DAYS,
    PIX_MINUTES,
    app_order,
    boleto_order,
    card_order,
    is_mobile,
    payment_state,
    pix_order,
)

#: Environments with a deeplink pay simulator (the provider's sandbox, the emulator).
SIMULATED_ENVIRONMENTS = ("sandbox", "emulator")
#: The languages the shop is written in (the footer offers them).
SHOP_LANGUAGES = ("en", "pt-br")


def _page(
    request: HttpRequest, template: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    context.setdefault("cart_count", Cart(request.session).count)
    context.setdefault("emulator_mode", get_settings().environment == "emulator")
    context.setdefault("shop_languages", SHOP_LANGUAGES)
    return render(request, template, context, status=status)


@require_GET
def products(request: HttpRequest) -> HttpResponse:
    return _page(request, "shop/products.html", {"products": Product.objects.filter(active=True)})


@require_POST
def cart_add(request: HttpRequest, product_id: int) -> HttpResponse:
    product = get_object_or_404(Product, pk=product_id, active=True)
    form = QuantityForm(request.POST or {"quantity": 1})
    quantity = form.cleaned_data["quantity"] if form.is_valid() else 1
    Cart(request.session).add(product, max(quantity, 1))
    messages.success(request, _("%(product)s is in your cart.") % {"product": product.name})
    return redirect("shop:cart")


def cart(request: HttpRequest) -> HttpResponse:
    basket = Cart(request.session)
    if request.method == "POST":
        form = CartLineForm(request.POST)
        if form.is_valid():
            basket.set(form.cleaned_data["product"], form.cleaned_data["quantity"])
        else:
            for name, errors in form.errors.items():
                label = form.fields[name].label or name.capitalize()
                messages.error(request, f"{label}: {errors[0]}")
        return redirect("shop:cart")
    lines = basket.lines()
    total = sum(line.subtotal for line in lines)
    return _page(request, "shop/cart.html", {"lines": lines, "total": total})


def _previous_details(request: HttpRequest) -> dict[str, Any]:
    """A logged-in shopper's last checkout details, so they need not type them again."""
    if not request.user.is_authenticated:
        return {"customer_email": ""}
    last = Purchase.objects.filter(user=request.user).first()
    if last is None:
        return {"customer_email": request.user.email}
    fields = CheckoutForm._meta.fields
    initial = {name: getattr(last, name) for name in fields if hasattr(last, name)}
    initial["phone"] = f"({last.phone_area}) {last.phone_number}"
    return initial


def checkout(request: HttpRequest) -> HttpResponse:
    basket = Cart(request.session)
    lines = basket.lines()
    if not lines:
        messages.info(request, _("Your cart is empty."))
        return redirect("shop:cart")
    form = CheckoutForm(request.POST or None, initial=_previous_details(request))
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            purchase = form.save(commit=False)
            purchase.user = request.user if request.user.is_authenticated else None
            purchase.save()
            PurchaseLine.objects.bulk_create(
                PurchaseLine(
                    purchase=purchase,
                    product=line.product,
                    name=line.product.name,
                    unit_amount=line.product.price,
                    quantity=line.quantity,
                )
                for line in lines
            )
        basket.clear()
        return redirect("shop:pay", reference=purchase.reference)
    total = sum(line.subtotal for line in lines)
    return _page(request, "shop/checkout.html", {"form": form, "lines": lines, "total": total})


def _purchase(reference: str) -> Purchase:
    return get_object_or_404(Purchase.objects.prefetch_related("lines"), reference=reference)


def _pay_page(
    request: HttpRequest,
    purchase: Purchase,
    *,
    card_form: CardPaymentForm | None = None,
    saved_form: SavedCardForm | None = None,
) -> HttpResponse:
    total = purchase.total
    if card_form is None:
        card_form = CardPaymentForm(user=request.user, amount=total)
    if saved_form is None and request.user.is_authenticated:
        saved_form = SavedCardForm(user=request.user, amount=total)
    context = {
        "purchase": purchase,
        "state": payment_state(purchase),
        "card_form": card_form,
        "saved_form": saved_form if saved_form is not None and saved_form.has_cards else None,
        "offer_app": is_mobile(request),
        "pix_minutes": PIX_MINUTES,
        "boleto_days": BOLETO_DAYS,
    }
    return _page(request, "shop/pay.html", context)


def _unless_payable(request: HttpRequest, purchase: Purchase) -> HttpResponse | None:
    state = payment_state(purchase)
    if state.payable:
        return None
    text = _("This purchase cannot be paid now: %(status)s.") % {"status": state.label.lower()}
    messages.info(request, text)
    return redirect(purchase)


@never_cache
def pay(request: HttpRequest, reference: str) -> HttpResponse:
    purchase = _purchase(reference)
    return _unless_payable(request, purchase) or _pay_page(request, purchase)


@require_POST
def pay_card(request: HttpRequest, reference: str) -> HttpResponse:
    """The card form's post: only the encrypted card, installments and "save this card"."""
    purchase = _purchase(reference)
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    total = purchase.total
    form = CardPaymentForm(request.POST, user=request.user, amount=total)
    if form.is_valid():
        try:
            order = card_order(purchase, request.user)
        except OrderPayError as error:
            add_payment_error(form, error, CARD_FORM_FIELDS)
        else:
            description = f"Purchase {purchase.pk}"
            paid = form.pay(
                order, total, reference_id=purchase.reference_id, description=description
            )
            if paid is not None:
                return redirect(purchase)
            if getattr(form, "outcome_unknown", None) is not None:
                # It may have been charged: the status page follows it, the form can't.
                messages.warning(request, form.non_field_errors()[0])
                return redirect(purchase)
    return _pay_page(request, purchase, card_form=form)


@require_POST
def pay_saved_card(request: HttpRequest, reference: str) -> HttpResponse:
    purchase = _purchase(reference)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('shop:login')}?next={reverse('shop:pay', args=[reference])}")
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    total = purchase.total
    form = SavedCardForm(request.POST, user=request.user, amount=total)
    if form.is_valid():
        try:
            order = card_order(purchase, request.user)
        except OrderPayError as error:
            add_payment_error(form, error, SAVED_CARD_FORM_FIELDS)
        else:
            if form.pay(order, total) is not None:
                return redirect(purchase)
            if getattr(form, "outcome_unknown", None) is not None:
                messages.warning(request, form.non_field_errors()[0])
                return redirect(purchase)
    return _pay_page(request, purchase, saved_form=form)


@require_POST
def pay_in_app(request: HttpRequest, reference: str) -> HttpResponse:
    """Create (or reuse) the purchase's deeplink order; the status page then offers the app."""
    purchase = _purchase(reference)
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    if not is_mobile(request):
        messages.error(request, _("Paying in the PagBank app needs a phone or tablet."))
        return redirect("shop:pay", reference=reference)
    # Where the app sends the payer back once paid.
    redirect_url = request.build_absolute_uri(purchase.get_absolute_url())
    try:
        app_order(purchase, request.user, redirect_url)
    except OrderPayError as error:
        messages.error(
            request, _("The payment in the app could not be prepared: %(error)s") % {"error": error}
        )
        return redirect("shop:pay", reference=reference)
    return redirect(purchase)


@require_POST
def pay_pix(request: HttpRequest, reference: str) -> HttpResponse:
    """Create (or reuse) the purchase's Pix order; the status page shows its QR code.

    ``arrangement=PAGBANK`` makes the "Pagar com PagBank" QR that only the
    PagBank app pays (offered on computers, where the app link can't open).
    """
    purchase = _purchase(reference)
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    arrangement = "PAGBANK" if request.POST.get("arrangement") == "PAGBANK" else "PIX"
    try:
        pix_order(purchase, request.user, arrangement)
    except OrderPayError as error:
        text = _("The Pix payment could not be prepared: %(error)s") % {"error": error}
        messages.error(request, text)
        return redirect("shop:pay", reference=reference)
    return redirect(purchase)


@require_POST
def pay_boleto(request: HttpRequest, reference: str) -> HttpResponse:
    """Create (or reuse) the purchase's boleto; the status page shows its line and PDF."""
    purchase = _purchase(reference)
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    try:
        boleto_order(purchase, request.user)
    except OrderPayError as error:
        text = _("The boleto could not be issued: %(error)s") % {"error": error}
        messages.error(request, text)
        return redirect("shop:pay", reference=reference)
    return redirect(purchase)


@require_POST
def simulate_pix_payment(request: HttpRequest, reference: str) -> HttpResponse:
    """Stand in for the payer's bank (sandbox and emulator only): pay the Pix QR code."""
    purchase = _purchase(reference)
    state = payment_state(purchase)
    if get_settings().environment not in SIMULATED_ENVIRONMENTS or state.qr_code is None:
        messages.error(request, _("There is no Pix payment to simulate here."))
        return redirect(purchase)
    try:
        services.simulate_pix_payment(state.order)
    except OrderPayError as error:
        text = _("The Pix payment was not simulated: %(error)s") % {"error": error}
        messages.error(request, text)
    return redirect(purchase)


@require_POST
def simulate_app_payment(request: HttpRequest, reference: str) -> HttpResponse:
    """Stand in for the payer's app (sandbox and emulator only): pay the deeplink, come back."""
    purchase = _purchase(reference)
    state = payment_state(purchase)
    if get_settings().environment not in SIMULATED_ENVIRONMENTS or state.deeplink is None:
        messages.error(request, _("There is no payment in the app to simulate here."))
        return redirect(purchase)
    outcome = "DECLINED" if request.POST.get("outcome") == "DECLINED" else "PAID"
    try:
        services.simulate_deeplink_payment(state.order, status=outcome)
    except OrderPayError as error:
        text = _("The app payment was not simulated: %(error)s") % {"error": error}
        messages.error(request, text)
        return redirect(purchase)
    # As the app does: back to the redirect_url the order was created with.
    return redirect(state.deeplink.redirect_url or purchase.get_absolute_url())


@never_cache
@require_GET
def status(request: HttpRequest, reference: str) -> HttpResponse:
    purchase = _purchase(reference)
    state = payment_state(purchase)
    conf = get_settings()
    context = {
        "purchase": purchase,
        "state": state,
        "simulate_app": conf.environment in SIMULATED_ENVIRONMENTS,
        "emulator_bank_url": _emulator_bank_url(state.charge)
        if conf.environment == "emulator"
        else "",
    }
    return _page(request, "shop/status.html", context)


def _emulator_bank_url(charge: Any) -> str:
    """The emulator's page where a payer pays a boleto (its stand-in for a bank), or ""."""
    boleto_id = charge.boleto.get("id") if charge is not None else None
    return f"{get_settings().base_url}/boletos/{boleto_id}" if boleto_id else ""


@never_cache
@require_GET
def status_json(request: HttpRequest, reference: str) -> JsonResponse:
    """What the status page polls: the payment's status, its label and one sentence."""
    return JsonResponse(payment_state(_purchase(reference)).as_json())


class ShopLoginView(LoginView):
    template_name = "shop/login.html"
    redirect_authenticated_user = True
    next_page = "shop:products"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update(
            cart_count=Cart(self.request.session).count,
            emulator_mode=get_settings().environment == "emulator",
            shop_languages=SHOP_LANGUAGES,
        )
        return context
