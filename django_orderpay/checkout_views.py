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

With PagBank Connect, a page paid to a connected account carries tokens that
name it (signed: a shopper cannot name another): its plans are that
account's (PagBank's fees are each account's own), and its sessions are made
with its token (a session says which merchant the SDK authenticates for; an
authentication of another account's session pays none of this account's
orders). An account the platform may no longer act for (revoked,
disconnected, or gone) is answered 503 with an ``error`` saying so.

Anyone can call them, and each answer may cost a provider call, so they are
bounded: each client address and session may ask each of them
:data:`PLANS_PER_CLIENT` times per :data:`PLANS_WINDOW` (then 429, with
``Retry-After``). The plans token also expires (``checkout.PLANS_TOKEN_MAX_AGE``)
and is good only with the session it was rendered for, and the provider's
answer for an amount and BIN is cached (``services.installment_plans``, 15
minutes, refusals too). Without that, one token copied from a pay page made a
provider call per request: an open proxy to ``/charges/fees/calculate`` and a
free BIN lookup.
"""

from __future__ import annotations

import logging
from typing import Final

from django.core import signing
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from django_orderpay import rules, services, throttling
from django_orderpay.checkout import (
    check_threeds_session_token,
    plan_choices,
    read_plans_token,
    session_binding,
)
from django_orderpay.conf import get_settings
from django_orderpay.connect.tokens import needs_authorization
from django_orderpay.exceptions import AccountNeedsAuthorization, OrderPayError
from django_orderpay.models import ConnectedAccount

logger = logging.getLogger("django_orderpay.checkout")

#: Requests a client address (and a session) may make per window. A shopper's
#: page asks once per card number typed: this leaves room for many corrections.
PLANS_PER_CLIENT: Final = 30
#: The window, in seconds.
PLANS_WINDOW: Final = 10 * 60


def _too_many(request: HttpRequest, view: str) -> JsonResponse | None:
    """Count this request of ``view`` for its address and session: a 429 once one of them
    is past :data:`PLANS_PER_CLIENT` in the window, else None."""
    address = throttling.client_address(request.META, get_settings(strict=False).trusted_proxies)
    session = session_binding(request)
    over = False
    for kind, who in (("address", address), ("session", session)):
        if who:
            hits = throttling.hit(throttling.key(view, kind, who), PLANS_WINDOW)
            over = over or hits > PLANS_PER_CLIENT
    if not over:
        return None
    answer = JsonResponse(
        {"error": _("Too many requests: try again in a few minutes.")}, status=429
    )
    answer["Retry-After"] = str(PLANS_WINDOW)
    return answer


def _not_connected(account_pk: int | None, error: Exception) -> JsonResponse:
    """503: the connected account a page pays can't be acted for (its seller must authorise
    the platform again, or it was removed)."""
    logger.warning(
        "a checkout page's connected account #%s is not connected: %s", account_pk, error
    )
    message = _(
        "account: the seller's PagBank account is not connected; the shop must connect it again"
    )
    return JsonResponse({"error": message}, status=503)


def _account(account_pk: int | None) -> ConnectedAccount | None:
    """The connected account a page's token names (None: the settings' ``TOKEN``).

    ``ConnectedAccount.DoesNotExist`` when it was removed, and
    ``AccountNeedsAuthorization`` when the platform may no longer act for it,
    before any cached answer of its is served.
    """
    if account_pk is None:
        return None
    account = ConnectedAccount.objects.get(pk=account_pk)
    if not account.is_active:
        raise needs_authorization(account)
    return account


@require_GET
def installment_plans_view(request: HttpRequest) -> JsonResponse:
    refused = _too_many(request, "plans")
    if refused is not None:
        return refused
    card_bin = request.GET.get("bin", "")
    if not rules.is_digits(card_bin, (6,)):
        return JsonResponse({"error": _("bin: the card's first six digits")}, status=400)
    try:
        token = read_plans_token(request.GET.get("plans", ""), session_binding(request))
    except signing.SignatureExpired:
        return JsonResponse({"error": _("plans: expired, reload the page")}, status=400)
    except (signing.BadSignature, ValueError, TypeError):
        return JsonResponse({"error": _("plans: not a parameter this shop made")}, status=400)
    try:
        plans = services.installment_plans(
            token.amount,
            card_bin=card_bin,
            max_installments=token.max_installments,
            max_installments_no_interest=token.no_interest,
            account=_account(token.account_pk),
        )
    except (ConnectedAccount.DoesNotExist, AccountNeedsAuthorization) as error:
        return _not_connected(token.account_pk, error)
    except OrderPayError as error:
        logger.warning("no installment plans for the checkout: %s", error)
        return JsonResponse({"error": _("Installments are unavailable right now.")}, status=502)
    return JsonResponse({"plans": plan_choices(plans)})


@require_POST
def threeds_session_view(request: HttpRequest) -> JsonResponse:
    refused = _too_many(request, "3ds-session")
    if refused is not None:
        return refused
    try:
        account_pk = check_threeds_session_token(request.POST.get("token", ""))
    except signing.BadSignature:
        return JsonResponse({"error": _("token: not a parameter this shop made")}, status=400)
    try:
        session = services.create_3ds_session(account=_account(account_pk))
    except (ConnectedAccount.DoesNotExist, AccountNeedsAuthorization) as error:
        return _not_connected(account_pk, error)
    except OrderPayError as error:
        logger.warning("no 3-D Secure session for the checkout: %s", error)
        return JsonResponse(
            {"error": _("Card authentication is unavailable right now.")}, status=502
        )
    return JsonResponse({"session": session.session, "env": session.env})
