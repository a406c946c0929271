"""Request bodies from builders or plain dicts, validated before any network call."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from django_orderpay import payloads
from django_orderpay.conf import get_settings
from django_orderpay.connect.routing import account_notification_url
from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.models import ConnectedAccount


def notification_url_for(account: ConnectedAccount | None) -> str | None:
    """``NOTIFICATION_URL`` for ``account``'s orders (None: the settings' account), with
    ``?account=<its pk>`` for a connected account's (``connect.routing``)."""
    url = get_settings().notification_url
    if not url or account is None:
        return url
    return account_notification_url(url, account.pk)


def order_body(
    order: payloads.OrderRequest | Mapping[str, Any], account: ConnectedAccount | None = None
) -> dict[str, Any]:
    """The validated ``POST /orders`` body.

    ``ORDERPAY['NOTIFICATION_URL']`` becomes the order's ``notification_urls``
    when the order names none, so the provider tells this shop of changes; a
    connected account's orders are sent it with ``?account=<its pk>``, which
    routes their notifications to that account.
    """
    notification_url = notification_url_for(account)
    if isinstance(order, payloads.OrderRequest):
        if notification_url and not order.notification_urls:
            order = dataclasses.replace(order, notification_urls=(notification_url,))
        return order.to_dict()
    if isinstance(order, Mapping):
        data = dict(order)
        if notification_url and not data.get("notification_urls"):
            data["notification_urls"] = [notification_url]
        return payloads.validate_order_dict(data)
    raise PayloadError([FieldError("", "the order must be a payloads.OrderRequest or a dict")])


def pay_body(charges: Sequence[payloads.ChargeRequest | Mapping[str, Any]]) -> dict[str, Any]:
    """The validated ``POST /orders/{id}/pay`` body ``{"charges": [...]}``.

    Builders and dicts may be mixed; every error names ``charges[i]...``.
    """
    if isinstance(charges, payloads.ChargeRequest | Mapping) or not isinstance(charges, Sequence):
        raise PayloadError([FieldError("charges", "must be a list of charges")])
    if all(isinstance(charge, payloads.ChargeRequest) for charge in charges):
        return payloads.PayRequest(tuple(charges)).to_dict()  # type: ignore[arg-type]
    errors: list[FieldError] = []
    entries: list[Any] = []
    for position, charge in enumerate(charges):
        if isinstance(charge, payloads.ChargeRequest):
            problems = charge.errors(f"charges[{position}]")
            errors.extend(problems)
            entries.append(None if problems else charge.to_dict())
        else:
            entries.append(charge)
    if errors:
        raise PayloadError(errors)
    return payloads.validate_pay_dict({"charges": entries})
