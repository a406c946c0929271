"""The demo's test-only controls (the emulator only): decide a card payment held in analysis.

A real shop has nothing of this: the provider decides an analysis and
notifies. The demo stands in for it through the emulator's control plane,
so the whole flow can be seen without curl or a shell.
"""

from __future__ import annotations

import requests
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from django_orderpay import services
from django_orderpay.conf import get_settings
from django_orderpay.emulator.serving.django_view import CONTROL_SECRET_HEADER
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import ChargeStatus

from .models import Purchase
from .payment_views import purchase_view
from .payments import payment_state

#: The emulator answers its control plane at once; anything slower is broken.
CONTROL_TIMEOUT = 10


def in_emulator() -> bool:
    return get_settings().environment == "emulator"


@require_POST
@purchase_view
def resolve_analysis(request: HttpRequest, purchase: Purchase) -> HttpResponse:
    """Approve (``outcome=PAID``) or refuse the purchase's card payment held in analysis."""
    if not in_emulator():
        raise Http404("only the emulator takes test-only controls")
    state = payment_state(purchase)
    charge = state.charge
    if state.order is None or charge is None or charge.status != ChargeStatus.IN_ANALYSIS:
        messages.error(request, _("There is no payment in analysis to decide."))
        return redirect(purchase)
    outcome = "DECLINED" if request.POST.get("outcome") == "DECLINED" else "PAID"
    conf = get_settings()
    url = f"{conf.base_url}/_emulator/charges/{charge.provider_id}/resolve"
    # The mounted emulator opens its control plane to the shop's own secret.
    headers = {CONTROL_SECRET_HEADER: conf.emulator_control_secret or ""}
    try:
        requests.post(
            url, json={"status": outcome}, headers=headers, timeout=CONTROL_TIMEOUT
        ).raise_for_status()
        services.refresh_order(state.order)  # the notification says the same, soon
    except (requests.RequestException, OrderPayError) as error:
        messages.error(request, _("The analysis was not decided: %(error)s") % {"error": error})
    return redirect(purchase)
