"""The delivery log keeps only the indexes something reads: every delivery is an insert.

Dropped: ``outcome`` (its readers, a worker's drain and ``orderpay_replay``,
read the few waiting rows: a partial index on them now), ``dedupe_key``
(the partial unique index ``orderpay_delivery_processed_once`` finds a
body's processed copy), and the LIKE-only copies PostgreSQL got of those and
of ``order_provider_id`` (kept as a plain index).

``dedupe_key``'s index is dropped by hand: Django's ``AlterField`` dropping
``db_index`` drops every non-constraint index on the column, and it takes
``orderpay_delivery_processed_once`` (a unique *index* with a condition) for
one of them: the rule that applies a notification once would be gone.
"""

from django.db import migrations, models


def _plain_indexes(schema_editor, model):
    """Names of the non-unique indexes on ``dedupe_key`` (never the partial unique one)."""
    return schema_editor._constraint_names(model, ["dedupe_key"], index=True, unique=False)


def drop_dedupe_key_indexes(apps, schema_editor):
    model = apps.get_model("django_orderpay", "NotificationDelivery")
    for name in _plain_indexes(schema_editor, model):
        schema_editor.execute(schema_editor._delete_index_sql(model, name))


def add_dedupe_key_index(apps, schema_editor):
    model = apps.get_model("django_orderpay", "NotificationDelivery")
    if not _plain_indexes(schema_editor, model):
        schema_editor.add_index(
            model, models.Index(fields=["dedupe_key"], name="orderpay_delivery_dedupe_key")
        )


class Migration(migrations.Migration):
    dependencies = [
        ("django_orderpay", "0004_cardtoken_removed_at"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="notificationdelivery",
                    name="dedupe_key",
                    field=models.CharField(blank=True, max_length=128, verbose_name="dedupe key"),
                ),
            ],
            database_operations=[
                migrations.RunPython(drop_dedupe_key_indexes, add_dedupe_key_index),
            ],
        ),
        migrations.AlterField(
            model_name="notificationdelivery",
            name="order_provider_id",
            field=models.CharField(blank=True, max_length=64, verbose_name="order provider id"),
        ),
        migrations.AlterField(
            model_name="notificationdelivery",
            name="outcome",
            field=models.CharField(
                choices=[
                    ("received", "Received"),
                    ("processed", "Processed"),
                    ("duplicate", "Duplicate"),
                    ("ignored", "Ignored"),
                    ("rejected", "Rejected"),
                    ("failed", "Failed"),
                ],
                default="received",
                max_length=16,
                verbose_name="outcome",
            ),
        ),
        migrations.AddIndex(
            model_name="notificationdelivery",
            index=models.Index(
                condition=models.Q(("outcome__in", ["received", "failed"])),
                fields=["id"],
                name="orderpay_delivery_waiting",
            ),
        ),
        migrations.AddIndex(
            model_name="notificationdelivery",
            index=models.Index(fields=["order_provider_id"], name="orderpay_delivery_order"),
        ),
    ]
