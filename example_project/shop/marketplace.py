"""The marketplace's split: the shop keeps its own lines and its commission, each seller the rest.

A purchase with products of a seller is paid with the shop's own token and a
``FIXED`` split (``django_orderpay.services.platform_splits``): the shop (its
``ORDERPAY['ACCOUNT_ID']``) is the primary receiver, each seller's connected
PagBank account a secondary one, receiving its lines' subtotal less the
shop's commission. Only a card charge can be split (PagBank takes no splits on
a boleto, and a Pix QR code or a deeplink is no charge), so such a purchase is
paid by card (credit or debit).
"""

from __future__ import annotations

from django_orderpay import payloads, services
from django_orderpay.models import ConnectedAccount

from .models import Purchase

#: Why a seller is paid: what each seller's PagBank statement says.
REASON = "Venda no marketplace django-orderpay"


def seller_parts(purchase: Purchase) -> dict[ConnectedAccount, int]:
    """Each connected seller's part of ``purchase``, in cents."""
    parts: dict[ConnectedAccount, int] = {}
    for line in purchase.lines.select_related("product__seller"):
        seller = line.product.seller if line.product is not None else None
        if seller is None:
            continue
        account = seller.account
        if account is None:
            continue
        parts[account] = parts.get(account, 0) + seller.share_of(line.subtotal)
    return {account: cents for account, cents in parts.items() if cents > 0}


def splits_for(purchase: Purchase) -> payloads.Splits | None:
    """The split of ``purchase``'s charge, or None when it has no seller's products."""
    parts = seller_parts(purchase)
    if not parts:
        return None
    return services.platform_splits(purchase.total, parts, reason=REASON)


def is_marketplace(purchase: Purchase) -> bool:
    """Whether ``purchase`` holds a seller's products (paid by card, split)."""
    return purchase.lines.filter(product__seller__isnull=False).exists()
