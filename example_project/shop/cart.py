"""The cart: product ids and quantities in the session, nothing in the database until checkout."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.sessions.backends.base import SessionBase

from django_orderpay.models import format_cents

from .models import Product

SESSION_KEY = "shop_cart"
MAX_QUANTITY = 99
#: Longer ids than this are not ids of this shop (and would overflow the column).
_MAX_ID_DIGITS = 18


def _is_product_id(key: object) -> bool:
    return isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= _MAX_ID_DIGITS


@dataclass(frozen=True)
class CartLine:
    product: Product
    quantity: int

    @property
    def subtotal(self) -> int:
        return self.product.price * self.quantity

    @property
    def subtotal_display(self) -> str:
        return format_cents(self.subtotal)


class Cart:
    """``{product id: quantity}`` kept in ``session[SESSION_KEY]``."""

    def __init__(self, session: SessionBase) -> None:
        self.session = session
        raw = session.get(SESSION_KEY)
        # Only well-formed lines: a session written by an older shop must not break the cart.
        self.quantities: dict[str, int] = {
            key: quantity
            for key, quantity in (raw.items() if isinstance(raw, dict) else ())
            if _is_product_id(key) and isinstance(quantity, int) and 0 < quantity <= MAX_QUANTITY
        }

    def _save(self) -> None:
        self.session[SESSION_KEY] = self.quantities

    def add(self, product: Product, quantity: int = 1) -> None:
        key = str(product.pk)
        self.quantities[key] = min(self.quantities.get(key, 0) + quantity, MAX_QUANTITY)
        self._save()

    def set(self, product: Product, quantity: int) -> None:
        """Set a line's quantity; 0 removes it."""
        key = str(product.pk)
        if quantity <= 0:
            self.quantities.pop(key, None)
        else:
            self.quantities[key] = min(quantity, MAX_QUANTITY)
        self._save()

    def clear(self) -> None:
        self.quantities = {}
        self.session.pop(SESSION_KEY, None)

    def lines(self) -> list[CartLine]:
        """The cart's lines, for products still on sale (others drop out silently)."""
        products = Product.objects.filter(pk__in=map(int, self.quantities), active=True).in_bulk()
        return [
            CartLine(products[int(key)], quantity)
            for key, quantity in self.quantities.items()
            if int(key) in products
        ]

    @property
    def count(self) -> int:
        return sum(self.quantities.values())

    def __bool__(self) -> bool:
        return bool(self.lines())
