"""``manage.py orderpay_sync [ORDE_... ...]``: re-fetch orders to recover missed notifications.

Without ids it re-fetches every order whose state may still change at the
provider on its own (``Order.objects.not_final()``: no charge yet, or a
charge waiting, in analysis or authorised). Each goes through
``services.refresh_order`` (history source ``sync``), so a change it finds
fires the same signals a notification would. Run it from cron, e.g. every
15 minutes: the provider's delivery is at least once, but a lost one is
only recovered by asking.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import ChangeSource, Order
from django_orderpay.services import refresh_order


class Command(BaseCommand):
    help = "Re-fetch orders from the provider: the given ORDE_ ids, or every order not final."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("order_ids", nargs="*", metavar="ORDE_ID", help="orders to re-fetch")

    def handle(self, *args: Any, order_ids: list[str], **options: Any) -> None:
        targets: list[Order | str]
        if order_ids:
            # An id not mirrored yet is fetched too: that is how one is adopted.
            targets = list(order_ids)
        else:
            targets = list(Order.objects.not_final().order_by("pk"))
        failures = 0
        for target in targets:
            order_id = target.provider_id if isinstance(target, Order) else target
            before = target.status if isinstance(target, Order) else None
            try:
                order = refresh_order(target, source=ChangeSource.SYNC)
            except OrderPayError as exc:
                failures += 1
                self.stderr.write(f"{order_id}: {type(exc).__name__}: {exc}")
                continue
            if before is None or before == order.status:
                self.stdout.write(f"{order_id}: {order.status}")
            else:
                self.stdout.write(f"{order_id}: {before} -> {order.status}")
        summary = f"{len(targets) - failures} of {len(targets)} orders re-fetched"
        if failures:
            raise CommandError(f"{summary}; {failures} failed (see above)")
        self.stdout.write(self.style.SUCCESS(summary))
