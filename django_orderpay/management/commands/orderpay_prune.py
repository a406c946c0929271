"""``manage.py orderpay_prune --days N``: delete notification deliveries older than N days.

The delivery log grows with every request; keep what an investigation
needs (a few weeks) and prune the rest from cron. Deleted in batches, each
its own short transaction, so a large backlog never holds a long lock. The
card attempts the card-testing limits refused go too, once first refused
more than N days ago (that table also keeps itself to its newest 10,000).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from django_orderpay.models import CardAttemptRefusal, DeliveryOutcome, NotificationDelivery

DEFAULT_BATCH_SIZE = 1000


class Command(BaseCommand):
    help = (
        "Delete notification deliveries received, and card attempt refusals first "
        "refused, more than --days days ago."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, required=True, help="keep this many days")
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
        parser.add_argument(
            "--keep-failed",
            action="store_true",
            help="keep failed deliveries whatever their age (they may still need a replay)",
        )

    def handle(
        self, *args: Any, days: int, batch_size: int, keep_failed: bool, **options: Any
    ) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more")
        if batch_size < 1:
            raise CommandError("--batch-size must be 1 or more")
        cutoff = timezone.now() - dt.timedelta(days=days)
        old = NotificationDelivery.objects.filter(received_at__lt=cutoff)
        if keep_failed:
            old = old.exclude(outcome=DeliveryOutcome.FAILED)
        deleted = 0
        while True:
            with transaction.atomic():
                batch = list(old.order_by("pk").values_list("pk", flat=True)[:batch_size])
                if not batch:
                    break
                deleted += NotificationDelivery.objects.filter(pk__in=batch).delete()[0]
        refusals = CardAttemptRefusal.objects.filter(first_refused_at__lt=cutoff).delete()[0]
        self.stdout.write(
            self.style.SUCCESS(f"{deleted} notification deliveries older than {days} days deleted")
        )
        self.stdout.write(
            self.style.SUCCESS(f"{refusals} card attempt refusals older than {days} days deleted")
        )
