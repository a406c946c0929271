"""Split records from ``GET /splits/{id}`` answers."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import Charge, Order, Split
from .locking import no_key, sync_transaction
from .parse import SyncError, parse_split


def sync_split(payload: dict[str, Any], charge: Charge) -> Split:
    """Mirror the split of ``charge`` (the record its ``SPLIT`` link names)."""
    state = parse_split(payload)
    expected = charge.link("SPLIT")
    if expected and not expected.rstrip("/").endswith(state.provider_id):
        raise SyncError("id", f"{state.provider_id} is not the split of {charge.provider_id}")
    with sync_transaction():
        # The order lock serialises this with sync_order, which may be
        # creating the same row from the charge's link right now.
        Order.objects.select_for_update(no_key=no_key()).only("pk").get(pk=charge.order_id)
        split = Split.objects.filter(charge=charge).first() or Split(charge=charge)
        split.provider_id = state.provider_id
        for name, value in state.columns.items():
            if value not in ("", None) or name == "data":
                setattr(split, name, value)
        split.synced_at = timezone.now()
        split.save()
        if state.columns["method"] and charge.split_method != state.columns["method"]:
            charge.split_method = state.columns["method"]
            Charge.objects.filter(pk=charge.pk).update(split_method=charge.split_method)
    return split
