"""``manage.py orderpay_replay [ID ...]``: process failed notification deliveries again.

Without ids it replays every delivery whose last attempt failed (oldest
first), and with ``--received`` also those still waiting for a background
worker that never ran. Each goes through ``process_delivery``, exactly as
the view would process it: duplicates are recognised, the order is
re-fetched (or its verified body trusted, per ``NOTIFICATION_TRUST_BODY``).
A rejected delivery is never replayed: its authenticity token is not kept,
so it can't be checked again.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_orderpay.models import DeliveryOutcome, NotificationDelivery
from django_orderpay.notifications.processing import process_delivery


class Command(BaseCommand):
    help = "Process failed notification deliveries again (or the deliveries with the given ids)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, metavar="ID", help="delivery ids")
        parser.add_argument(
            "--received",
            action="store_true",
            help="also replay deliveries still 'received' (a background task that never ran)",
        )

    def handle(self, *args: Any, ids: list[int], received: bool, **options: Any) -> None:
        if ids:
            deliveries = list(NotificationDelivery.objects.filter(pk__in=ids).order_by("pk"))
            missing = sorted(set(ids) - {delivery.pk for delivery in deliveries})
            if missing:
                raise CommandError(f"no notification delivery with id {missing}")
        else:
            outcomes = [DeliveryOutcome.FAILED]
            if received:
                outcomes.append(DeliveryOutcome.RECEIVED)
            deliveries = list(
                NotificationDelivery.objects.filter(outcome__in=outcomes).order_by("pk")
            )
        failed = 0
        for delivery in deliveries:
            if delivery.outcome == DeliveryOutcome.REJECTED:
                self.stderr.write(f"delivery {delivery.pk}: rejected deliveries are not replayed")
                continue
            result = process_delivery(delivery)
            line = f"delivery {delivery.pk} ({delivery.order_provider_id}): {result.outcome}"
            if result.outcome == DeliveryOutcome.FAILED:
                failed += 1
                self.stderr.write(f"{line}: {delivery.error}")
            else:
                self.stdout.write(line)
        summary = f"{len(deliveries)} deliveries replayed"
        if failed:
            raise CommandError(f"{summary}; {failed} failed again (see above)")
        self.stdout.write(self.style.SUCCESS(summary))
