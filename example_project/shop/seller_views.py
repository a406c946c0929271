"""A seller's own page, and connecting their PagBank account (PagBank Connect).

A seller connects their PagBank account through django-orderpay's
authorisation: :class:`SellerConnectView` is its start view with the
marketplace's rules (a seller connects their own account, which then
belongs to them: ``ConnectedAccount.owner``); PagBank sends them back to
django-orderpay's callback, which returns them to their page.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.contenttypes.models import ContentType
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse

from django_orderpay.conf import get_settings
from django_orderpay.connect.views import ConnectStartView
from django_orderpay.models import ConnectedAccount

from .models import Product, Seller
from .views import page


def seller_of(user: object) -> Seller | None:
    """The seller ``user`` is, if any."""
    if not getattr(user, "is_authenticated", False):
        return None
    return Seller.objects.filter(user_id=getattr(user, "pk", None)).first()


def _belongs_to(account: ConnectedAccount, seller: Seller) -> bool:
    return account.content_type_id == ContentType.objects.get_for_model(
        Seller
    ).pk and account.object_id == str(seller.pk)


class SellerConnectView(ConnectStartView):
    """Start PagBank Connect for the logged-in seller: their account, new or again."""

    login_url = "shop:login"

    def may_connect(self, request: HttpRequest, account: ConnectedAccount | None) -> bool:
        seller = seller_of(request.user)
        if seller is None:
            return super().may_connect(request, account)
        if account is None:
            return seller.account is None
        return _belongs_to(account, seller)

    def get_owner(self, request: HttpRequest, account: ConnectedAccount | None) -> Seller | None:
        return seller_of(request.user)


@login_required(login_url="shop:login")
def seller_home(request: HttpRequest) -> HttpResponse:
    """The seller's page: their PagBank account's state (connect or re-authorise) and products."""
    seller = seller_of(request.user)
    if seller is None:
        raise Http404("not a seller")
    account = seller.account
    connect_url = reverse("shop:seller_connect") + "?" + _query(account, request.path)
    context = {
        "seller": seller,
        "account": account,
        "connect_url": connect_url,
        "products": Product.objects.filter(seller=seller, active=True),
        "connect_enabled": get_settings().connect_enabled,
    }
    return page(request, "shop/seller.html", context)


def _query(account: ConnectedAccount | None, next_url: str) -> str:
    from urllib.parse import urlencode

    query = {"next": next_url}
    if account is not None:
        query["account"] = str(account.pk)
    return urlencode(query)
