"""Writing some columns of one row: what ``save(update_fields=...)`` does, compiled once.

A sync writes the same few column sets again and again (a charge's status,
sums and JSON; an order's status, JSON and ``synced_at``). Django builds and
compiles that ``UPDATE`` on every ``save()``: on PostgreSQL this cost as
much as the statement's round trip, twice per notification. Here the SQL is
kept per (model, database, columns), and each write only works out its
values as the ORM would (``pre_save``, ``get_db_prep_save``).

Unlike :mod:`.inserting`, this keeps what a shop may listen to: ``pre_save``
and ``post_save`` are sent as ``save(update_fields=...)`` sends them (a
receiver sees ``created=False`` and the ``update_fields``), and a row that
is gone raises the same ``DatabaseError``. A model whose ``save()`` is
overridden is saved by it.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import DatabaseError, connections, models, router
from django.db.models.fields import Field
from django.db.models.signals import post_save, pre_save

#: (model, database alias, columns) -> the UPDATE's SQL and its fields.
_KEPT: dict[tuple[type[models.Model], str, tuple[str, ...]], tuple[str, list[Field]]] = {}


def _update_sql(
    model: type[models.Model], using: str, names: tuple[str, ...]
) -> tuple[str, list[Field]] | None:
    """``UPDATE table SET a = %s, ... WHERE pk = %s`` for ``names``; None if a field needs more."""
    key = (model, using, names)
    found = _KEPT.get(key)
    if found is None:
        meta = model._meta
        fields = [meta.get_field(name) for name in names]
        kept = [f for f in fields if isinstance(f, Field) and f.concrete and f.column]
        if len(kept) != len(fields) or any(hasattr(f, "get_placeholder") for f in kept):
            return None  # a field with its own SQL placeholder: let save() compile it
        quote = connections[using].ops.quote_name
        sets = ", ".join(f"{quote(str(f.column))} = %s" for f in kept)
        where = f"{quote(str(meta.pk.column))} = %s"
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {where}"  # noqa: S608
        found = _KEPT[key] = (sql, kept)
    return found


def save_fields(row: models.Model, names: Sequence[str]) -> None:
    """``row.save(update_fields=names)``, with the statement compiled once per column set."""
    model = type(row)
    using = row._state.db or router.db_for_write(model, instance=row)
    kept = None if model.save is not models.Model.save else _update_sql(model, using, tuple(names))
    if kept is None or row._meta.parents:
        row.save(update_fields=names)
        return
    sql, fields = kept
    connection = connections[using]
    update_fields = frozenset(names)
    pre_save.send(sender=model, instance=row, raw=False, using=using, update_fields=update_fields)
    params = [field.get_db_prep_save(field.pre_save(row, False), connection) for field in fields]
    params.append(row._meta.pk.get_db_prep_value(row.pk, connection))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount == 0:
            # What save(update_fields=...) raises for a row deleted meanwhile.
            raise DatabaseError("Save with update_fields did not affect any rows.")
    row._state.adding = False
    row._state.db = using
    post_save.send(
        sender=model,
        instance=row,
        created=False,
        update_fields=update_fields,
        raw=False,
        using=using,
    )
