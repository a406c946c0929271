"""Paying a purchase: the payment page, each way to pay, the status page and its JSON.

Every view here is of one purchase and goes through :func:`purchase_view`,
which lets its buyer in and nobody else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from django_orderpay import services
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import OrderPayError
from django_orderpay.forms import SAVED_CARD_FORM_FIELDS, add_payment_error
from django_orderpay.models import OrderStatus
from django_orderpay.shopper_messages import refusal_message

from .card_views import (
    awaiting_outcome,
    card_checkout_form,
    debit_form,
    debit_offered,
    pay_with,
    saved_card_form,
    shopper,
)
from .marketplace import is_marketplace
from .models import Purchase
from .payments import (
    BOLETO_DAYS,
    PIX_MINUTES,
    app_order,
    boleto_order,
    card_order,
    hosted_checkout,
    is_mobile,
    payment_state,
    pix_order,
)
from .views import page

logger = logging.getLogger(__name__)

#: Environments with a deeplink pay simulator (the provider's sandbox, the emulator).
SIMULATED_ENVIRONMENTS = ("sandbox", "emulator")


def purchase_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view of one purchase (``reference`` in the URL), for its buyer only.

    A purchase made logged in is its user's: another shopper gets a 404 (the
    page shows a name, an e-mail and a street), an anonymous visitor the login
    page. A guest purchase is reached by its link alone, a random UUID.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, reference: str) -> HttpResponse:
        purchase = get_object_or_404(
            Purchase.objects.prefetch_related("lines"), reference=reference
        )
        if purchase.user_id is not None and purchase.user_id != request.user.pk:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path(), reverse("shop:login"))
            raise Http404("no such purchase")
        return view(request, purchase)

    return wrapped


def _pay_page(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    marketplace = is_marketplace(purchase)
    saved_form = None
    if request.user.is_authenticated and not marketplace:
        saved_form = saved_card_form(request, purchase)
    context = {
        "purchase": purchase,
        "state": payment_state(purchase),
        "card_form": card_checkout_form(request, purchase),
        "debit_form": debit_form(request, purchase) if debit_offered() else None,
        "shopper": shopper(purchase),
        "saved_form": saved_form if saved_form is not None and saved_form.has_cards else None,
        "offer_app": is_mobile(request),
        # A seller's products: only a charge can be split (a card, a boleto).
        "marketplace": marketplace,
        "pix_minutes": PIX_MINUTES,
        "boleto_days": BOLETO_DAYS,
    }
    return page(request, "shop/pay.html", context)


def _split_only(request: HttpRequest, purchase: Purchase) -> HttpResponse | None:
    """A purchase with a seller's products is paid by a split charge: a card, typed here."""
    if not is_marketplace(purchase):
        return None
    messages.error(request, _("A purchase with products of our sellers is paid by card."))
    return redirect("shop:pay", reference=purchase.reference)


def _unless_payable(request: HttpRequest, purchase: Purchase) -> HttpResponse | None:
    """None when ``purchase`` may be paid; else its page, with a sentence saying why not."""
    state = payment_state(purchase)
    if state.payable:
        return None
    if state.status in (OrderStatus.PAID, OrderStatus.AUTHORIZED):
        messages.info(request, _("This purchase is paid already: there is nothing left to pay."))
    elif state.status == OrderStatus.IN_ANALYSIS:
        messages.warning(
            request,
            _("Your payment is being analysed: wait for its outcome before paying again."),
        )
    else:
        messages.warning(request, _("This purchase can no longer be paid here."))
    return redirect(purchase)


@never_cache
@purchase_view
def pay(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    return _unless_payable(request, purchase) or _pay_page(request, purchase)


def _back_to_payment(request: HttpRequest, purchase: Purchase, form: Any) -> HttpResponse:
    """Redirect after a refused POST: its errors go to the payment page as messages, so a
    reload there never posts again (the pay URLs answer POST only)."""
    for field, errors in form.errors.items():
        label = "" if field == NON_FIELD_ERRORS else str(form.fields[field].label or field)
        for error in errors:
            named = label and not error.startswith(f"{label}:") and not error.endswith(".")
            messages.error(request, f"{label}: {error}" if named else error)
    return redirect("shop:pay", reference=purchase.reference)


@require_POST
@purchase_view
def pay_card(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """The card form's post: only the encrypted card, installments and "save this card"."""
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    form = card_checkout_form(request, purchase, request.POST)
    return pay_with(request, purchase, form, _back_to_payment)


@require_POST
@purchase_view
def pay_saved_card(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect(
            f"{reverse('shop:login')}?next={reverse('shop:pay', args=[purchase.reference])}"
        )
    refusal = _unless_payable(request, purchase) or _split_only(request, purchase)
    if refusal is not None:
        return refusal
    total = purchase.total
    form = saved_card_form(request, purchase, request.POST)
    if form.is_valid():
        try:
            order = card_order(purchase, request.user, form.operation_key("create"))
        except OrderPayError as error:
            add_payment_error(form, error, SAVED_CARD_FORM_FIELDS)
        else:
            if form.pay(order, total) is not None:
                return redirect(purchase)
        if awaiting_outcome(form):
            messages.warning(request, form.non_field_errors()[0])
            return redirect(purchase)
    return _back_to_payment(request, purchase, form)


def _start_payment(
    request: HttpRequest, purchase: Purchase, start: Callable[[], Any], failure: str
) -> HttpResponse:
    """Make (or reuse) the order a way to pay needs, then show it on the status page.

    A refusal goes back to the payment page in words for the shopper (the
    provider's codes go to the log).
    """
    refusal = _unless_payable(request, purchase)
    if refusal is not None:
        return refusal
    try:
        start()
    except OrderPayError as error:
        logger.warning("purchase %s: %s", purchase.pk, error)
        messages.error(request, f"{failure} {refusal_message(error)}")
        return redirect("shop:pay", reference=purchase.reference)
    return redirect(purchase)


@require_POST
@purchase_view
def pay_in_app(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Create (or reuse) the purchase's deeplink order; the status page then offers the app."""
    refusal = _split_only(request, purchase)
    if refusal is not None:
        return refusal
    if not is_mobile(request):
        messages.error(request, _("Paying in the PagBank app needs a phone or tablet."))
        return redirect("shop:pay", reference=purchase.reference)
    # Where the app sends the payer back once paid.
    redirect_url = request.build_absolute_uri(purchase.get_absolute_url())
    return _start_payment(
        request,
        purchase,
        lambda: app_order(purchase, request.user, redirect_url),
        _("The payment in the app could not be prepared."),
    )


@require_POST
@purchase_view
def pay_pix(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Create (or reuse) the purchase's Pix order; the status page shows its QR code.

    ``arrangement=PAGBANK`` makes the "Pagar com PagBank" QR that only the
    PagBank app pays (offered on computers, where the app link can't open).
    """
    refusal = _split_only(request, purchase)
    if refusal is not None:
        return refusal
    arrangement = "PAGBANK" if request.POST.get("arrangement") == "PAGBANK" else "PIX"
    return _start_payment(
        request,
        purchase,
        lambda: pix_order(purchase, request.user, arrangement),
        _("The Pix payment could not be prepared."),
    )


@require_POST
@purchase_view
def pay_boleto(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Create (or reuse) the purchase's boleto; the status page shows its line and PDF."""
    refusal = _split_only(request, purchase)
    if refusal is not None:
        return refusal
    return _start_payment(
        request,
        purchase,
        lambda: boleto_order(purchase, request.user),
        _("The boleto could not be issued."),
    )


@require_POST
@purchase_view
def pay_on_pagbank(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Send the shopper to PagBank's own page for the purchase (a hosted checkout)."""
    refusal = _unless_payable(request, purchase) or _split_only(request, purchase)
    if refusal is not None:
        return refusal
    back = request.build_absolute_uri(purchase.get_absolute_url())
    try:
        checkout = hosted_checkout(purchase, request.user, back)
    except OrderPayError as error:
        logger.warning("purchase %s: %s", purchase.pk, error)
        failure = _("PagBank's page could not be prepared.")
        messages.error(request, f"{failure} {refusal_message(error)}")
        return redirect("shop:pay", reference=purchase.reference)
    return redirect(checkout.pay_url)


@require_POST
@purchase_view
def simulate_pix_payment(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Stand in for the payer's bank (sandbox and emulator only): pay the Pix QR code."""
    state = payment_state(purchase)
    if get_settings().environment not in SIMULATED_ENVIRONMENTS or state.qr_code is None:
        messages.error(request, _("There is no Pix payment to simulate here."))
        return redirect(purchase)
    try:
        services.simulate_pix_payment(state.order)
    except OrderPayError as error:
        logger.warning("purchase %s: %s", purchase.pk, error)
        messages.error(
            request, f"{_('The Pix payment was not simulated.')} {refusal_message(error)}"
        )
    return redirect(purchase)


@require_POST
@purchase_view
def simulate_app_payment(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Stand in for the payer's app (sandbox and emulator only): pay the deeplink, come back."""
    state = payment_state(purchase)
    if get_settings().environment not in SIMULATED_ENVIRONMENTS or state.deeplink is None:
        messages.error(request, _("There is no payment in the app to simulate here."))
        return redirect(purchase)
    outcome = "DECLINED" if request.POST.get("outcome") == "DECLINED" else "PAID"
    try:
        services.simulate_deeplink_payment(state.order, status=outcome)
    except OrderPayError as error:
        logger.warning("purchase %s: %s", purchase.pk, error)
        messages.error(
            request, f"{_('The app payment was not simulated.')} {refusal_message(error)}"
        )
        return redirect(purchase)
    # As the app does: back to the redirect_url the order was created with.
    return redirect(state.deeplink.redirect_url or purchase.get_absolute_url())


@never_cache
@require_GET
@purchase_view
def status(request: HttpRequest, purchase: Purchase) -> HttpResponse:
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
    return page(request, "shop/status.html", context)


def _emulator_bank_url(charge: Any) -> str:
    """The emulator's page where a payer pays a boleto (its stand-in for a bank), or ""."""
    boleto_id = charge.boleto.get("id") if charge is not None else None
    return f"{get_settings().base_url}/boletos/{boleto_id}" if boleto_id else ""


@never_cache
@require_GET
@purchase_view
def status_json(request: HttpRequest, purchase: Purchase) -> JsonResponse:
    """What the status page polls: the payment's status, its label and one sentence."""
    return JsonResponse(payment_state(purchase).as_json())
