"""Sending a shopper to PagBank's hosted checkout: a link of the shop's own that redirects.

``checkout_link(checkout)`` is a path on the shop's domain
(``/orderpay/checkouts/<signed id>/pay/``) that the ``orderpay:checkout-pay``
view turns into a redirect to the checkout's page while it takes payments,
and into a page saying the link has expired (or is switched off) once it
does not: a link to put in an e-mail or a WhatsApp message, and in a
template as ``{% orderpay_checkout_url checkout %}``. The id is signed
(``SECRET_KEY``), so nobody can walk the shop's checkouts by number.
"""

from __future__ import annotations

from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from .models import Checkout, CheckoutStatus

SALT = "django_orderpay.checkout-pay"


def checkout_link(checkout: Checkout) -> str:
    """The shop's path that sends a shopper to ``checkout``'s page (``request.build_absolute_uri``
    makes it a full URL for an e-mail)."""
    token = signing.dumps(checkout.pk, salt=SALT)
    return reverse("orderpay:checkout-pay", args=[token])


@require_GET
def checkout_pay_view(request: HttpRequest, token: str) -> HttpResponse:
    """302 to the checkout's page while it takes payments; else 410, saying why."""
    try:
        pk = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise Http404("no such payment link") from None
    checkout = Checkout.objects.filter(pk=pk).first()
    if checkout is None:
        raise Http404("no such payment link")
    if checkout.is_payable() and checkout.pay_url.startswith(("https://", "http://")):
        return HttpResponseRedirect(checkout.pay_url)
    context = {
        "checkout": checkout,
        "expired": checkout.is_expired() or checkout.status == CheckoutStatus.EXPIRED,
        "return_url": str(checkout.data.get("return_url") or ""),
    }
    return render(request, "django_orderpay/checkout_unavailable.html", context, status=410)
