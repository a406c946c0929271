"""``python manage.py seed_shop``: the demo's products and users (safe to run again)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext_noop

from example_project.shop.models import Product

#: (slug, name, description, price in cents). The descriptions are in the shop's
#: catalogue: the product page shows them in the shopper's language.
PRODUCTS = (
    ("camiseta", "Camiseta", gettext_noop("Cotton t-shirt, printed in São Paulo."), 5990),
    ("caneca", "Caneca", gettext_noop("A 350 ml ceramic mug for your cafezinho."), 3490),
    ("bone", "Boné", gettext_noop("Six-panel cap, adjustable."), 7900),
    ("ecobag", "Ecobag", gettext_noop("Canvas tote for the feira."), 2500),
    (
        "cafe-especial",
        "Café especial",
        gettext_noop("250 g of Minas Gerais beans, medium roast."),
        4290,
    ),
)


class Command(BaseCommand):
    help = "Creates the example shop's products, a staff user and a shopper, and prints the logins."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--admin-username", default="admin")
        parser.add_argument("--admin-password", default="orderpay-admin")
        parser.add_argument("--shopper-username", default="shopper")
        parser.add_argument("--shopper-password", default="orderpay-shopper")

    def handle(self, *args: Any, **options: Any) -> None:
        for slug, name, description, price in PRODUCTS:
            Product.objects.update_or_create(
                slug=slug,
                defaults={"name": name, "description": description, "price": price, "active": True},
            )
        self._user(options["admin_username"], options["admin_password"], staff=True)
        self._user(options["shopper_username"], options["shopper_password"], staff=False)

        self.stdout.write(self.style.SUCCESS(f"{len(PRODUCTS)} products ready."))
        self.stdout.write(
            f"Staff user:  {options['admin_username']} / {options['admin_password']}"
            "  (the shop's admin at /admin/)"
        )
        self.stdout.write(
            f"Shopper:     {options['shopper_username']} / {options['shopper_password']}"
            "  (saves cards, pays with saved cards)"
        )
        self.stdout.write(
            "Test cards (any name, any future expiry, CVV 123): 4111111111111111 approved, "
            "4929291898380766 declined, 4000000000000044 held in analysis."
        )

    def _user(self, username: str, password: str, *, staff: bool) -> None:
        user, _created = get_user_model().objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.com"}
        )
        user.is_staff = user.is_superuser = staff
        # The printed password always works, even if someone changed it since.
        user.set_password(password)
        user.save()
