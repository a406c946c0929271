"""``manage.py orderpay_expire``: close the orders whose payment window has passed, after asking.

A Pix QR code expires at its ``expiration_date``; a boleto is cancelled by
the provider some time after its due date. Neither is closed on our clock
alone: a payer may have paid at the last minute, and the notification may
be late (real plugins cancelled orders that had been paid). So each order
still WAITING whose QR codes have all expired, or whose boleto is past due,
is fetched from the provider (``services.refresh_order``) and mirrored: a
paid one becomes PAID, an unpaid Pix order EXPIRED (``order_expired`` is
sent once, after commit), a boleto the provider cancelled CANCELED, and one
the provider still holds open stays WAITING for the next run.

Each order is asked for with its own account's token (PagBank Connect);
the orders of a connected account that needs re-authorisation are left out
(counted on stderr), and ``--account ACCO_...`` keeps to one account.

A hosted checkout still ACTIVE (or INACTIVE) in the mirror after its
``expiration_date`` is fetched too (``services.refresh_checkout``), with the
orders made on its page: it becomes EXPIRED, and ``checkout_expired`` is
sent once if nothing was paid through it. Its orders are never cancelled
for it: a checkout that expired after being paid stays paid.

Safe to run concurrently (from cron on several machines): each refresh
holds the order's row lock, and a status moves, and signals, only once.
Exit status 0 when every order was fetched, 1 when any failed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from django_orderpay import rules
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import Charge, ChargeStatus, Checkout, Order, OrderStatus, QrCode
from django_orderpay.services import refresh_order

from ._fetching import connected_account, of_account, refresh_checkouts, without_unauthorised


def past_their_window() -> Any:
    """Orders still WAITING whose Pix QR codes all expired, or with a boleto past due."""
    now = timezone.now()
    open_qr = QrCode.objects.filter(order=OuterRef("pk")).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )
    any_qr = QrCode.objects.filter(order=OuterRef("pk"))
    overdue_boleto = Charge.objects.filter(
        order=OuterRef("pk"), status=ChargeStatus.WAITING, due_date__lt=rules.provider_today()
    )
    return (
        Order.objects.filter(status=OrderStatus.WAITING)
        .filter((Exists(any_qr) & ~Exists(open_qr)) | Exists(overdue_boleto))
        .order_by("created_at", "pk")
    )


class Command(BaseCommand):
    help = "Close WAITING orders whose Pix QR code expired or boleto is past due, after asking."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--account", metavar="ACCO_ID", help="only this connected account's orders"
        )

    def handle(self, *args: Any, account: str | None = None, **options: Any) -> None:
        verbose = options.get("verbosity", 1) >= 1
        acting = connected_account(account)
        orders, skipped = without_unauthorised(of_account(past_their_window(), acting))
        for account_id, count in skipped:
            self.stderr.write(
                f"{count} orders of connected account {account_id} skipped: it needs "
                "re-authorisation (docs/connect.md)"
            )
        targets = list(orders)
        failures = 0
        for order in targets:
            try:
                refreshed = refresh_order(order)
            except OrderPayError as exc:
                failures += 1
                self.stderr.write(f"{order.provider_id}: {type(exc).__name__}: {exc}")
                continue
            if verbose:
                self.stdout.write(f"{order.provider_id}: {order.status} -> {refreshed.status}")
        summary = f"{len(targets) - failures} of {len(targets)} orders past their window checked"
        past, _ = without_unauthorised(of_account(Checkout.objects.past_expiry(), acting))
        checkouts = list(past.order_by("expires_at", "pk"))
        failures += refresh_checkouts(checkouts, self.stdout, self.stderr, verbose=verbose)
        if checkouts:
            summary += f"; {len(checkouts)} checkouts past their time checked"
        if failures:
            raise CommandError(f"{summary}; {failures} failed (see above)")
        self.stdout.write(self.style.SUCCESS(summary))
