"""The shop's own data: sellers and their products, and purchases (a cart frozen at checkout)
with their lines.

The shop is a small marketplace: it sells its own products and those of its
sellers, each of whom connects their PagBank account through PagBank Connect
(``django_orderpay``'s ``ConnectedAccount``, whose ``owner`` is the seller). A
purchase with a seller's products is paid with the shop's own token and split:
the shop is the primary receiver, each seller receives their lines less the
shop's commission. Payments live in django-orderpay's models; each provider
order points back to its purchase through ``Order.shop_object``.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from django_orderpay.models import AccountState, ConnectedAccount, Order, format_cents


class Seller(models.Model):
    """A seller of the marketplace: a user who sells here, paid through their PagBank account."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="seller",
        verbose_name=_("user"),
    )
    name = models.CharField(_("name"), max_length=120)
    #: What the shop keeps of each sale, in percent; the rest is the seller's.
    commission = models.PositiveSmallIntegerField(_("commission (%)"), default=10)

    class Meta:
        ordering = ("name",)
        verbose_name = _("seller")
        verbose_name_plural = _("sellers")

    def __str__(self) -> str:
        return self.name

    @property
    def account(self) -> ConnectedAccount | None:
        """The PagBank account this seller connected (None: not yet)."""
        return ConnectedAccount.objects.filter(
            content_type=ContentType.objects.get_for_model(Seller), object_id=str(self.pk)
        ).first()

    def share_of(self, cents: int) -> int:
        """The seller's part of a sale of ``cents`` (the commission rounded to the shop)."""
        return cents * (100 - self.commission) // 100


class ProductQuerySet(models.QuerySet["Product"]):
    def on_sale(self) -> ProductQuerySet:
        """Active products of the shop, and of sellers whose PagBank account is connected
        (a seller who must authorise again sells nothing meanwhile)."""
        connected = ConnectedAccount.objects.filter(
            content_type=ContentType.objects.get_for_model(Seller), state=AccountState.ACTIVE
        ).values_list("object_id", flat=True)
        sellers = [int(pk) for pk in connected if pk.isdigit()]
        return self.filter(active=True).filter(
            models.Q(seller__isnull=True) | models.Q(seller__in=sellers)
        )


class Product(models.Model):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(unique=True)
    description = models.TextField(_("description"), blank=True)
    price = models.PositiveIntegerField(_("price (cents)"))
    active = models.BooleanField(_("on sale"), default=True)
    #: Who sells it; empty: the shop itself.
    seller = models.ForeignKey(
        Seller,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="products",
        verbose_name=_("seller"),
    )

    objects = ProductQuerySet.as_manager()

    class Meta:
        ordering = ("name",)
        verbose_name = _("product")
        verbose_name_plural = _("products")

    def __str__(self) -> str:
        return self.name

    @property
    def price_display(self) -> str:
        return format_cents(self.price)


class Purchase(models.Model):
    """What a shopper checked out: the items, who buys and where it goes.

    ``reference`` (a UUID) is the purchase's public id in URLs, so one
    shopper cannot guess another's status page.
    """

    reference = models.UUIDField(_("reference"), default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("user"),
    )
    customer_name = models.CharField(_("full name"), max_length=120)
    customer_email = models.EmailField(_("e-mail"), max_length=255)
    customer_tax_id = models.CharField(_("CPF/CNPJ"), max_length=14)
    phone_area = models.CharField(_("area code"), max_length=2)
    phone_number = models.CharField(_("phone number"), max_length=9)
    street = models.CharField(_("street"), max_length=160)
    number = models.CharField(_("number"), max_length=20)
    complement = models.CharField(_("complement"), max_length=40, blank=True)
    locality = models.CharField(_("district"), max_length=60)
    city = models.CharField(_("city"), max_length=90)
    region_code = models.CharField(_("state"), max_length=2)
    postal_code = models.CharField(_("CEP"), max_length=8)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("purchase")
        verbose_name_plural = _("purchases")

    def __str__(self) -> str:
        return _("Purchase #%(number)s") % {"number": self.pk}

    def get_absolute_url(self) -> str:
        return reverse("shop:status", args=[self.reference])

    @property
    def reference_id(self) -> str:
        """The ``reference_id`` of this purchase's provider orders and charges."""
        return f"shop-{self.pk}"

    @property
    def total(self) -> int:
        """Cents: the sum of the lines."""
        return sum(line.subtotal for line in self.lines.all())

    @property
    def total_display(self) -> str:
        return format_cents(self.total)

    def payment_orders(self) -> QuerySet[Order]:
        """The provider orders made to pay this purchase, newest first."""
        return Order.objects.filter(
            content_type=ContentType.objects.get_for_model(Purchase), object_id=str(self.pk)
        ).order_by("-created_at", "-pk")


class PurchaseLine(models.Model):
    purchase = models.ForeignKey(
        Purchase, on_delete=models.CASCADE, related_name="lines", verbose_name=_("purchase")
    )
    product = models.ForeignKey(
        Product, null=True, on_delete=models.SET_NULL, verbose_name=_("product")
    )
    name = models.CharField(_("name"), max_length=200)
    unit_amount = models.PositiveIntegerField(_("unit price (cents)"))
    quantity = models.PositiveIntegerField(_("quantity"))

    class Meta:
        ordering = ("pk",)
        verbose_name = _("line")
        verbose_name_plural = _("lines")

    def __str__(self) -> str:
        return f"{self.quantity} x {self.name}"

    @property
    def subtotal(self) -> int:
        return self.unit_amount * self.quantity

    @property
    def subtotal_display(self) -> str:
        return format_cents(self.subtotal)
