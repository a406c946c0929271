"""``python manage.py seed_marketplace``: the marketplace's seller, a login and products.

Ateliê da Ana sells two products through the shop once she connects her
PagBank account (``/seller/``, PagBank Connect: docs/connect.md); each
sale is then split between the shop and her. Safe to run again.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from example_project.shop.models import Product, Seller

#: (slug, name, description, price in cents)
SELLER_PRODUCTS = (
    ("bolsa-croche", "Bolsa de crochê", "Handmade crochet bag, by Ateliê da Ana.", 8900),
    ("vaso-ceramica", "Vaso de cerâmica", "A small glazed vase, by Ateliê da Ana.", 12900),
)


class Command(BaseCommand):
    help = "Creates the marketplace's seller (a login and two products) and prints the login."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seller-username", default="ana")
        parser.add_argument("--seller-password", default="orderpay-seller")

    def handle(self, *args: Any, **options: Any) -> None:
        user, _created = get_user_model().objects.get_or_create(
            username=options["seller_username"],
            defaults={"email": f"{options['seller_username']}@example.com"},
        )
        user.set_password(options["seller_password"])  # the printed one always works
        user.save()
        seller, _created = Seller.objects.get_or_create(
            user=user, defaults={"name": "Ateliê da Ana"}
        )
        for slug, name, description, price in SELLER_PRODUCTS:
            Product.objects.update_or_create(
                slug=slug,
                defaults={
                    "name": name,
                    "description": description,
                    "price": price,
                    "active": True,
                    "seller": seller,
                },
            )
        self.stdout.write(
            f"Seller:      {options['seller_username']} / {options['seller_password']}"
            "  (connects a PagBank account at /seller/; then sells, split with the shop)"
        )
