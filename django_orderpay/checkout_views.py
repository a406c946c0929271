"""The checkout's JSON views: installment plans for the card being typed, and a fresh
3-D Secure session before each authentication.

``GET /orderpay/installments/?plans=<signed>&bin=<6 digits>`` answers
``{"plans": [{installments, label, total}]}`` for the amount and limits the
page was rendered with (signed: a shopper cannot ask for another amount).
``checkout.js`` calls it once the first six digits are typed and relabels the
installment choices; the form asks again (from the cache) when it is posted.

``POST /orderpay/3ds-session/`` ``token=<signed>`` answers ``{"session", "env"}``:
a session lasts 30 minutes, so ``checkout.js`` asks for a new one before each
``authenticate3DS`` (as the official plugin does) instead of trusting the one
the page was rendered with. The token (signed, 12 hours) says the page is this
shop's; the merchant's token never leaves the server.
"""

from __future__ import annotations

import logging

from django.core import signing
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from django_orderpay import rules, services
from django_orderpay.checkout import check_threeds_session_token, plan_choices, unsign_plans
from django_orderpay.exceptions import OrderPayError

logger = logging.getLogger("django_orderpay.checkout")


@require_GET
def installment_plans_view(request: HttpRequest) -> JsonResponse:
    card_bin = request.GET.get("bin", "")
    if not rules.is_digits(card_bin, (6,)):
        return JsonResponse({"error": _("bin: the card's first six digits")}, status=400)
    try:
        amount, max_installments, no_interest = unsign_plans(request.GET.get("plans", ""))
    except (signing.BadSignature, ValueError, TypeError):
        return JsonResponse({"error": _("plans: not a parameter this shop made")}, status=400)
    try:
        plans = services.installment_plans(
            amount,
            card_bin=card_bin,
            max_installments=max_installments,
            max_installments_no_interest=no_interest,
        )
    except OrderPayError as error:
        logger.warning("no installment plans for the checkout: %s", error)
        return JsonResponse({"error": _("Installments are unavailable right now.")}, status=502)
    return JsonResponse({"plans": plan_choices(plans)})


@require_POST
def threeds_session_view(request: HttpRequest) -> JsonResponse:
    try:
        check_threeds_session_token(request.POST.get("token", ""))
    except signing.BadSignature:
        return JsonResponse({"error": _("token: not a parameter this shop made")}, status=400)
    try:
        session = services.create_3ds_session()
    except OrderPayError as error:
        logger.warning("no 3-D Secure session for the checkout: %s", error)
        return JsonResponse(
            {"error": _("Card authentication is unavailable right now.")}, status=502
        )
    return JsonResponse({"session": session.session, "env": session.env})
