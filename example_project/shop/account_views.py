"""A logged-in shopper's own pages: their purchases, and the cards they saved."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from django_orderpay import services
from django_orderpay.exceptions import CardTokenNotOwned
from django_orderpay.models import CardToken

from .models import Purchase
from .payments import payment_state
from .views import page


@login_required(login_url="shop:login")
def purchases(request: HttpRequest) -> HttpResponse:
    """The shopper's purchases, newest first, each with where its payment stands."""
    mine = Purchase.objects.filter(user=request.user).prefetch_related("lines")
    rows = [(purchase, payment_state(purchase)) for purchase in mine]
    return page(request, "shop/purchases.html", {"rows": rows})


@login_required(login_url="shop:login")
@require_http_methods(["GET", "POST"])
def cards(request: HttpRequest) -> HttpResponse:
    """The shopper's saved cards; a POST with ``remove`` (a row id) removes one."""
    if request.method == "POST":
        token = CardToken.objects.active().filter(
            pk=_row_id(request.POST.get("remove")), user_id=request.user.pk
        )
        try:
            removed = services.remove_card_token(token.get(), user=request.user)
        except (CardToken.DoesNotExist, CardTokenNotOwned):
            messages.error(request, _("That card is not among your saved cards."))
        else:
            messages.success(
                request, _("%(card)s was removed from your saved cards.") % {"card": removed.label}
            )
        return redirect("shop:cards")
    saved = CardToken.objects.active().filter(user_id=request.user.pk)
    return page(request, "shop/cards.html", {"cards": saved})


def _row_id(value: str | None) -> int:
    """A posted row id, or 0 (no row) for anything that is not one."""
    text = (value or "").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 19 else 0
