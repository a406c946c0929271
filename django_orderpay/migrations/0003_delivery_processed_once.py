"""A notification's body is processed once: a partial unique index on ``dedupe_key``.

Before the index, copies of one body that raced before any order lock (two
copies adopting an order unknown here) could both end ``processed``: all but
the first of such copies become ``duplicate`` first, so the index can be built.
"""

from django.db import migrations, models
from django.db.models import Count, Min


def demote_extra_copies(apps, schema_editor):
    Delivery = apps.get_model("django_orderpay", "NotificationDelivery")
    processed = Delivery.objects.filter(outcome="processed")
    repeated = (
        processed.values("dedupe_key")
        .annotate(copies=Count("pk"), first=Min("pk"))
        .filter(copies__gt=1)
        .order_by()
    )
    for row in repeated:
        processed.filter(dedupe_key=row["dedupe_key"]).exclude(pk=row["first"]).update(
            outcome="duplicate", error=f"a copy of delivery {row['first']}"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("django_orderpay", "0002_operations_pix_boleto"),
    ]

    operations = [
        migrations.RunPython(demote_extra_copies, migrations.RunPython.noop, elidable=True),
        migrations.AddConstraint(
            model_name="notificationdelivery",
            constraint=models.UniqueConstraint(
                condition=models.Q(("outcome", "processed")),
                fields=("dedupe_key",),
                name="orderpay_delivery_processed_once",
            ),
        ),
    ]
