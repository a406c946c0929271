"""The admin's actions on provider state: cancel, partial refund, capture, refresh, replay.

Each acts only through :mod:`django_orderpay.services` (or the notification
processing, for a replay) and shows a confirmation page first (see
:mod:`.confirm`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django.contrib import messages
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import services
from ..models import Charge, ChargeStatus, DeliveryOutcome, NotificationDelivery, Order
from ..notifications import processing
from ..services import operations
from ..services.charges import cancel_intent, capture_intent
from .confirm import ConfirmedAction, Outcome, Step
from .display import money, outcome_badge, short_datetime, status_badge
from .forms import RefundAmountForm


def _order_detail(order: Order) -> str:
    """How staff know an order: the shop's reference and the customer."""
    return ", ".join(filter(None, [order.reference_id, order.customer_name]))


def _charge_step(charge: Charge, text: str, *, skipped: bool = False) -> Step:
    detail = _("order %(order)s") % {"order": _order_detail(charge.order)}
    badge = status_badge(charge.status, charge.get_status_display())
    return Step(charge, text, skipped=skipped, badge=badge, detail=detail)


def _not_refundable(charge: Charge) -> str:
    """Why nothing of ``charge`` can be given back, in words."""
    reasons = {
        ChargeStatus.DECLINED: _("it was declined: nothing was paid"),
        ChargeStatus.CANCELED: _("it is already canceled"),
        ChargeStatus.IN_ANALYSIS: _("it is in analysis: the provider has not decided yet"),
        ChargeStatus.WAITING: _("it is waiting for payment"),
        ChargeStatus.AUTHORIZED: _("it is authorised, not paid: use the cancel action to void it"),
    }
    return reasons.get(ChargeStatus(charge.status), _("it has been refunded in full already"))


class CancelCharges(ConfirmedAction):
    """Void an authorisation, or refund everything still refundable of a paid charge."""

    name = "cancel_charges"
    description = gettext_lazy("Cancel selected charges (full refund)")
    button_label = gettext_lazy("Cancel (full refund)")
    permission = "cancel_charge"
    submit_label = gettext_lazy("Yes, cancel them")
    already_done = gettext_lazy("already canceled by the same request")

    def intent(self, obj: Charge, cleaned_data: dict[str, Any]) -> operations.Intent:
        return cancel_intent(obj, account=obj.order.account)

    def plan(self, obj: Charge) -> Step:
        if obj.status == ChargeStatus.AUTHORIZED:
            text = _("void the authorisation of %(amount)s (nothing was paid)") % {
                "amount": money(obj.amount_value, obj.currency)
            }
            return _charge_step(obj, text)
        if obj.refundable_amount > 0:
            text = _("refund %(amount)s, everything still refundable; it becomes Canceled") % {
                "amount": money(obj.refundable_amount, obj.currency)
            }
            return _charge_step(obj, text)
        return _charge_step(obj, _not_refundable(obj), skipped=True)

    def summary(self, todo: Sequence[Step]) -> str:
        charges = [cast(Charge, step.obj) for step in todo]
        voids = sum(c.amount_value for c in charges if c.status == ChargeStatus.AUTHORIZED)
        refunds = sum(c.refundable_amount for c in charges if c.status != ChargeStatus.AUTHORIZED)
        parts = []
        if refunds:
            parts.append(_("In all, %(amount)s will be refunded.") % {"amount": money(refunds)})
        if voids:
            parts.append(
                _("In all, authorisations of %(amount)s will be voided.") % {"amount": money(voids)}
            )
        return " ".join(parts)

    def perform(self, obj: Charge, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        was_paid = obj.status == ChargeStatus.PAID
        charge = services.cancel_charge(obj, None, idempotency_key=idempotency_key)
        if was_paid:
            text = _("refunded; %(refunded)s refunded in all, status %(status)s") % {
                "refunded": money(charge.amount_refunded, charge.currency),
                "status": charge.get_status_display(),
            }
        else:
            text = _("authorisation voided, status %(status)s") % {
                "status": charge.get_status_display()
            }
        return Outcome(text)


class RefundChargesPartially(ConfirmedAction):
    """Give back part of a paid charge: the amount staff enter, at most what is refundable."""

    name = "refund_charges_partially"
    description = gettext_lazy("Refund part of selected charges")
    button_label = gettext_lazy("Refund part")
    permission = "cancel_charge"
    form_class = RefundAmountForm
    submit_label = gettext_lazy("Refund this amount")
    already_done = gettext_lazy("already refunded by the same request")

    def intent(self, obj: Charge, cleaned_data: dict[str, Any]) -> operations.Intent:
        return cancel_intent(obj, cleaned_data["amount"], obj.order.account)

    def plan(self, obj: Charge) -> Step:
        if obj.refundable_amount <= 0:
            return _charge_step(obj, _not_refundable(obj), skipped=True)
        text = _("refund the amount entered below (%(amount)s can still be refunded)") % {
            "amount": money(obj.refundable_amount, obj.currency)
        }
        return _charge_step(obj, text)

    def form_kwargs(self, todo: Sequence[Step]) -> dict[str, Any]:
        # One amount for every selected charge, so it must fit the smallest.
        charges = [cast(Charge, step.obj) for step in todo]
        maximum = min((charge.refundable_amount for charge in charges), default=0)
        currency = charges[0].currency if charges else "BRL"
        return {"maximum": maximum, "currency": currency}

    def intro(self, todo: Sequence[Step], skipped: Sequence[Step]) -> str:
        return _(
            "The amount entered is refunded from each charge listed under “Will be done”. "
            "A refund of everything still refundable cancels the charge."
        )

    def perform(self, obj: Charge, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        amount = cleaned_data["amount"]
        charge = services.cancel_charge(obj, amount, idempotency_key=idempotency_key)
        text = _("refunded %(amount)s; %(refunded)s refunded in all, status %(status)s") % {
            "amount": money(amount, charge.currency),
            "refunded": money(charge.amount_refunded, charge.currency),
            "status": charge.get_status_display(),
        }
        return Outcome(text)


class CaptureCharges(ConfirmedAction):
    """Capture the whole authorised amount of charges made with ``capture: false``."""

    name = "capture_charges"
    description = gettext_lazy("Capture selected authorised charges")
    button_label = gettext_lazy("Capture")
    permission = "capture_charge"
    submit_label = gettext_lazy("Yes, capture them")
    already_done = gettext_lazy("already captured by the same request")

    def intent(self, obj: Charge, cleaned_data: dict[str, Any]) -> operations.Intent:
        return capture_intent(obj, account=obj.order.account)

    def plan(self, obj: Charge) -> Step:
        if obj.can_capture():
            text = _("capture %(amount)s") % {"amount": money(obj.amount_value, obj.currency)}
            if obj.capture_before:
                text = _("capture %(amount)s (authorised until %(deadline)s)") % {
                    "amount": money(obj.amount_value, obj.currency),
                    "deadline": short_datetime(obj.capture_before),
                }
            return _charge_step(obj, text)
        if obj.status == ChargeStatus.AUTHORIZED and obj.capture_before is not None:
            reason = _("its authorisation expired on %(deadline)s") % {
                "deadline": short_datetime(obj.capture_before)
            }
        elif obj.status == ChargeStatus.PAID:
            reason = _("it is paid already: there is nothing to capture")
        else:
            reason = _("only authorised charges can be captured; this one is %(status)s") % {
                "status": obj.get_status_display()
            }
        return _charge_step(obj, reason, skipped=True)

    def summary(self, todo: Sequence[Step]) -> str:
        total = sum(cast(Charge, step.obj).amount_value for step in todo)
        return _("In all, %(amount)s will be captured.") % {"amount": money(total)}

    def perform(self, obj: Charge, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        charge = services.capture_charge(obj, None, idempotency_key=idempotency_key)
        text = _("captured %(amount)s, status %(status)s") % {
            "amount": money(charge.amount_paid, charge.currency),
            "status": charge.get_status_display(),
        }
        return Outcome(text)


class RefreshOrders(ConfirmedAction):
    """Fetch orders again from the provider: for a missed notification, or after an error."""

    name = "refresh_orders"
    description = gettext_lazy("Refresh selected orders from the provider")
    button_label = gettext_lazy("Refresh from the provider")
    permission = "refresh_order"
    changes_state = False
    submit_label = gettext_lazy("Yes, refresh them")

    def plan(self, obj: Order) -> Step:
        text = _("fetch it from the provider and update its charges here")
        badge = status_badge(obj.status, obj.get_status_display())
        return Step(obj, text, badge=badge, detail=_order_detail(obj))

    def perform(self, obj: Order, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        before = obj.get_status_display()
        order = services.refresh_order(obj)
        after = order.get_status_display()
        if before == after:
            text = _("refreshed, status %(status)s") % {"status": after}
        else:
            text = _("refreshed, status %(status)s (was %(before)s)") % {
                "status": after,
                "before": before,
            }
        return Outcome(text)


class RefreshOrdersOfCharges(RefreshOrders):
    """The refresh action on the charge changelist: each selected charge's order, once."""

    name = "refresh_orders_of_charges"
    description = gettext_lazy("Refresh the orders of selected charges from the provider")

    def targets(self, queryset: models.QuerySet) -> list[models.Model]:
        ids = queryset.values_list("order_id", flat=True)
        return list(Order.objects.filter(pk__in=ids).order_by("pk"))


class ReplayDeliveries(ConfirmedAction):
    """Process logged notification deliveries again (the order is fetched afresh)."""

    name = "replay_deliveries"
    description = gettext_lazy("Replay selected notification deliveries")
    permission = "refresh_order"
    changes_state = False
    submit_label = gettext_lazy("Yes, replay them")

    def plan(self, obj: NotificationDelivery) -> Step:
        badge = outcome_badge(obj.outcome, obj.get_outcome_display())
        if obj.outcome == DeliveryOutcome.REJECTED:
            reason = _("it was rejected on arrival, and its authenticity can't be checked again")
            return Step(obj, reason, skipped=True, badge=badge)
        text = _("process it again: fetch order %(order)s from the provider and update it") % {
            "order": obj.order_provider_id or "?"
        }
        return Step(obj, text, badge=badge)

    def perform(
        self, obj: NotificationDelivery, cleaned_data: dict[str, Any], idempotency_key: str
    ) -> Outcome:
        result = processing.process_delivery(obj)
        outcome = DeliveryOutcome(result.outcome).label
        text = _("replayed, outcome %(outcome)s") % {"outcome": outcome}
        if result.detail:
            text = f"{text} ({result.detail})"
        return Outcome(text, messages.SUCCESS if result.ok else messages.ERROR)


#: Each action once: the changelists list the functions, the objects' pages the instances.
CANCEL_CHARGES = CancelCharges()
REFUND_CHARGES_PARTIALLY = RefundChargesPartially()
CAPTURE_CHARGES = CaptureCharges()
REFRESH_ORDERS = RefreshOrders()
REFRESH_ORDERS_OF_CHARGES = RefreshOrdersOfCharges()
REPLAY_DELIVERIES = ReplayDeliveries()

cancel_charges = CANCEL_CHARGES.as_admin_action()
refund_charges_partially = REFUND_CHARGES_PARTIALLY.as_admin_action()
capture_charges = CAPTURE_CHARGES.as_admin_action()
refresh_orders = REFRESH_ORDERS.as_admin_action()
refresh_orders_of_charges = REFRESH_ORDERS_OF_CHARGES.as_admin_action()
replay_deliveries = REPLAY_DELIVERIES.as_admin_action()
