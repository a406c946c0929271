"""The reader's own model, as the docs' examples assume one: a purchase to be paid."""

from django.conf import settings
from django.db import models


class Purchase(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    description = models.CharField(max_length=100)
    total = models.PositiveIntegerField()  # cents
    customer_name = models.CharField(max_length=100)
    customer_email = models.EmailField()
    customer_tax_id = models.CharField(max_length=14)

    @property
    def reference_id(self) -> str:
        return f"purchase-{self.pk}"

    def get_absolute_url(self) -> str:
        return f"/purchases/{self.pk}/"
