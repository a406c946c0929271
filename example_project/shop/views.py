"""The shop's pages: products, cart, checkout and logging in (paying is in ``payment_views``)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.views import LoginView
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from django_orderpay.conf import get_settings

from .cart import Cart
from .forms import CartLineForm, CheckoutForm, QuantityForm
from .models import Product, Purchase, PurchaseLine

#: The languages the shop is written in (the footer offers them).
SHOP_LANGUAGES = ("en", "pt-br")


def page(
    request: HttpRequest, template: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    context.setdefault("cart_count", Cart(request.session).count)
    context.setdefault("emulator_mode", get_settings().environment == "emulator")
    context.setdefault("shop_languages", SHOP_LANGUAGES)
    return render(request, template, context, status=status)


@require_GET
def products(request: HttpRequest) -> HttpResponse:
    products = Product.objects.on_sale().select_related("seller")
    return page(request, "shop/products.html", {"products": products})


@require_POST
def cart_add(request: HttpRequest, product_id: int) -> HttpResponse:
    product = get_object_or_404(Product.objects.on_sale(), pk=product_id)
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
    return page(request, "shop/cart.html", {"lines": lines, "total": total})


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
    return page(request, "shop/checkout.html", {"form": form, "lines": lines, "total": total})


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
