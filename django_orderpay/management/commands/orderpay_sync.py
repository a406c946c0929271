"""``manage.py orderpay_sync [ORDE_... CHEC_... ...]``: re-fetch orders (and hosted checkouts)
to recover missed notifications.

Without ids it re-fetches every order whose state may still change at the
provider on its own (``Order.objects.not_final()``: no charge yet, or a
charge waiting, in analysis or authorised), oldest first; ``--max-age N``
keeps to orders created in the last N days, so abandoned carts don't cost
an API call each on every run forever. Each goes through
``services.refresh_order`` (history source ``sync``), so a change it finds
fires the same signals a notification would. Run it from cron, e.g. every
15 minutes: the provider's delivery is at least once, but a lost one is
only recovered by asking.

Hosted checkouts not EXPIRED yet (``Checkout.objects.not_final()``, within
``--max-age`` too) are re-fetched first, each with the orders made on its
page (``services.refresh_checkout``): a payment whose notifications were all
lost is adopted and linked to its checkout and shop object that way. A
``CHEC_`` id given re-fetches that checkout.

Then it works through the operations whose outcome is unknown (a create,
pay, capture or refund whose call got no answer): the refresh above settles
those the provider's state proves done; each one still open that can be
sent again as it was (no card secret in it, called over two minutes and
less than a day ago) is re-sent with its own idempotency key, so the
provider answers what the first call did, or does it now, once. An
operation that can't be re-sent (a card payment: its card data is never
kept) waits for the provider's notification; it is listed.

Each order is fetched for its own account (PagBank Connect): orders of a
connected account that needs re-authorisation are left out, counted on
stderr. ``--account ACCO_...`` keeps to one connected account, and fetches
the given ids with its token.

Orders are fetched ``--concurrency`` at a time (``ORDERPAY["SYNC_CONCURRENCY"]``,
8 by default), each in a thread with its own database connection: at the
provider's latency a thousand orders take seconds, not minutes, and two
syncs of one order (a notification arriving meanwhile) still take turns on
the order's row lock. Inside a transaction of the caller's (whose rows other
connections can't see yet) they are fetched one after another. On a
terminal, a progress line counts them.

An order the provider answers 404 for (it does not know it: an emulator
restarted without its state file, a sandbox that was reset) is reported
once, marked (``Order.provider_missing_since``) and left out of later runs;
naming it (``orderpay_sync ORDE_...``) fetches it again, and clears the mark
when the provider has it.

Exit status 0 when every order was fetched (or was already known to be
unknown to the provider) and every re-sent operation answered; 1
(``CommandError``) when any failed, a newly unknown order included (after
trying all of them), or an argument is wrong.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q
from django.utils import timezone

from django_orderpay import rules
from django_orderpay.conf import MAX_SYNC_CONCURRENCY, get_settings
from django_orderpay.exceptions import NotFound, OrderPayError
from django_orderpay.models import Checkout, Operation, OperationState, Order
from django_orderpay.services import operations

from ._fetching import (
    Progress,
    connected_account,
    fetch_all,
    of_account,
    refresh_checkouts,
    without_unauthorised,
)

_ORDER_ID = rules.ORDER_ID_PATTERN
_CHECKOUT_ID = rules.CHECKOUT_ID_PATTERN


class Command(BaseCommand):
    help = "Re-fetch orders from the provider: the given ORDE_ ids, or every order not final."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("order_ids", nargs="*", metavar="ORDE_ID", help="orders to re-fetch")
        parser.add_argument(
            "--max-age",
            type=int,
            metavar="DAYS",
            help="without ids: only orders created in the last DAYS days (default: all)",
        )
        parser.add_argument(
            "--account",
            metavar="ACCO_ID",
            help="a connected account (PagBank Connect): only its orders, and the given ids "
            "are fetched with its token",
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            metavar="N",
            help="orders fetched at the same time, 1 to "
            f"{MAX_SYNC_CONCURRENCY} (default: ORDERPAY['SYNC_CONCURRENCY'], 8)",
        )

    def handle(
        self,
        *args: Any,
        order_ids: list[str],
        max_age: int | None,
        concurrency: int | None = None,
        account: str | None = None,
        **options: Any,
    ) -> None:
        if concurrency is None:
            concurrency = get_settings().sync_concurrency
        elif not 1 <= concurrency <= MAX_SYNC_CONCURRENCY:
            raise CommandError(f"--concurrency must be 1 to {MAX_SYNC_CONCURRENCY}")
        acting = connected_account(account)
        given = list(order_ids)
        checkouts: list[Checkout | str] = [i for i in given if _CHECKOUT_ID.fullmatch(i)]
        order_ids = [i for i in given if not _CHECKOUT_ID.fullmatch(i)]
        targets: list[Order | str]
        if given:
            wrong = [order_id for order_id in order_ids if not _ORDER_ID.fullmatch(order_id)]
            if wrong:
                raise CommandError(f"not an order id (ORDE_...): {', '.join(wrong)}")
            if max_age is not None:
                raise CommandError("--max-age applies only without order ids")
            # An id not mirrored yet is fetched too: that is how one is adopted.
            targets = list(order_ids)
        else:
            orders = of_account(
                Order.objects.not_final().filter(provider_missing_since__isnull=True), acting
            )
            orders, skipped = without_unauthorised(orders)
            for account_id, count in skipped:
                self.stderr.write(
                    f"{count} orders of connected account {account_id} skipped: it needs "
                    "re-authorisation (docs/connect.md)"
                )
            open_checkouts, _ = without_unauthorised(
                of_account(Checkout.objects.not_final(), acting)
            )
            if max_age is not None:
                if max_age < 1:
                    raise CommandError("--max-age must be 1 or more")
                recent = Q(created_at__gte=timezone.now() - dt.timedelta(days=max_age))
                orders = orders.filter(recent | Q(created_at__isnull=True))
                open_checkouts = open_checkouts.filter(recent | Q(created_at__isnull=True))
            targets = list(orders.order_by("created_at", "pk"))
            checkouts = list(open_checkouts.order_by("created_at", "pk"))
        verbosity = options.get("verbosity", 1)
        # Checkouts first: the orders made on their pages are adopted and linked with them.
        checkout_failures = refresh_checkouts(
            checkouts, self.stdout, self.stderr, verbose=verbosity >= 1, account=acting
        )
        failures = 0
        progress = Progress(self.stdout, len(targets), enabled=verbosity >= 1)
        for target, fetched in fetch_all(targets, concurrency, acting):
            order_id = target.provider_id if isinstance(target, Order) else target
            before = target.status if isinstance(target, Order) else None
            if isinstance(fetched, NotFound) and isinstance(target, Order):
                progress.clear()
                if _mark_missing(target):
                    failures += 1
                    self.stderr.write(
                        f"{order_id}: the provider does not know this order (404): marked, "
                        "and left out of later runs (name it to fetch it again)"
                    )
            elif isinstance(fetched, OrderPayError):
                failures += 1
                progress.clear()
                self.stderr.write(f"{order_id}: {type(fetched).__name__}: {fetched}")
            elif before is not None and before != fetched.status:
                progress.line(f"{order_id}: {before} -> {fetched.status}", verbosity >= 1)
            else:
                # On a terminal the progress line stands for the unchanged ones.
                shown = verbosity >= (2 if progress.live else 1)
                progress.line(f"{order_id}: {fetched.status}", shown)
            if not isinstance(fetched, OrderPayError) and isinstance(target, str):
                _clear_missing(fetched)  # named: it may have been marked unknown before
            progress.advance(failures)
        progress.clear()
        summary = f"{len(targets) - failures} of {len(targets)} orders re-fetched"
        if checkouts:
            fetched_checkouts = len(checkouts) - checkout_failures
            summary += f", {fetched_checkouts} of {len(checkouts)} checkouts"
        failures += checkout_failures
        if not given:
            unanswered = self._operations(verbosity >= 1)
            failures += unanswered
            summary += self._waiting()
        if failures:
            raise CommandError(f"{summary}; {failures} failed (see above)")
        self.stdout.write(self.style.SUCCESS(summary))

    def _operations(self, verbose: bool) -> int:
        """Re-send the open operations that can be; how many got no answer again."""
        unanswered = 0
        for operation in operations.retryable():
            retried = operations.retry(operation)
            label = f"operation {operation.pk} ({operation.kind} {operation.target})"
            if retried.state == OperationState.UNKNOWN:
                unanswered += 1
                self.stderr.write(f"{label}: still unknown: {retried.detail}")
            elif verbose:
                detail = f" ({retried.detail})" if retried.detail else ""
                self.stdout.write(f"{label}: {retried.state}{detail}")
        return unanswered

    def _waiting(self) -> str:
        """The open operations left (for the notification, or for staff), listed."""
        still_open = list(Operation.objects.open().order_by("pk"))
        for operation in still_open:
            self.stdout.write(
                f"operation {operation.pk} ({operation.kind} {operation.target}): "
                f"{operation.state}, waiting for the provider's notification or a repeat"
            )
        return f"; {len(still_open)} operations still open" if still_open else ""


def _mark_missing(order: Order) -> bool:
    """Mark ``order`` as unknown to the provider; whether this run is the first to find it."""
    rows = Order.objects.filter(pk=order.pk, provider_missing_since__isnull=True)
    return rows.update(provider_missing_since=timezone.now()) > 0


def _clear_missing(order: Order) -> None:
    """The provider answered for ``order``: it is no longer marked as unknown there."""
    Order.objects.filter(pk=order.pk, provider_missing_since__isnull=False).update(
        provider_missing_since=None
    )
