"""``manage.py orderpay_rotate_keys``: encrypt every stored Connect secret with the first key.

Rotating ``ORDERPAY['CONNECT_KEYS']``: put the new key first (keep the old
ones after it, so what they encrypted still opens), deploy, run this, then
drop the old keys. Each connected account's tokens, and each authorisation
under way, are re-encrypted with the first key, row by row under the row's
lock (a refresh running meanwhile waits, and its tokens are written with the
new key anyway). Prints how many rows it re-encrypted; exit status 1 when a
value opens with none of the keys (named by its row, never its value).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from django_orderpay.connect.cipher import InvalidToken, rotate
from django_orderpay.models import ConnectAuthorization, ConnectedAccount

#: The encrypted columns of each model.
COLUMNS: tuple[tuple[type[Any], tuple[str, ...]], ...] = (
    (
        ConnectedAccount,
        ("access_token_encrypted", "refresh_token_encrypted", "previous_access_token_encrypted"),
    ),
    (ConnectAuthorization, ("code_verifier_encrypted",)),
)


class Command(BaseCommand):
    help = "Encrypt every stored Connect token again with the first of ORDERPAY['CONNECT_KEYS']."

    def handle(self, *args: Any, **options: Any) -> None:
        rotated, broken = 0, []
        for model, columns in COLUMNS:
            for pk in model.objects.order_by("pk").values_list("pk", flat=True):
                with transaction.atomic():
                    row = model.objects.select_for_update().filter(pk=pk).first()
                    if row is None:
                        continue
                    try:
                        for column in columns:
                            value = getattr(row, column)
                            if value:
                                setattr(row, column, rotate(value))
                    except InvalidToken:
                        broken.append(f"{model._meta.model_name} {pk}")
                        continue
                    row.save(update_fields=list(columns))
                    rotated += 1
        summary = f"{rotated} rows re-encrypted with the first key"
        if broken:
            raise CommandError(
                f"{summary}; {len(broken)} could not be opened with any key: {', '.join(broken)}"
            )
        self.stdout.write(self.style.SUCCESS(summary))
