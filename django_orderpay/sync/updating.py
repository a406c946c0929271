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
from typing import Any

from django.db import DatabaseError, connections, models, router
from django.db.models.fields import Field
from django.db.models.signals import post_save, pre_save

#: (model, database alias, columns) -> the UPDATE's SQL and its fields.
_KEPT: dict[tuple[type[models.Model], str, tuple[str, ...]], tuple[str, list[Field]]] = {}


def _own_placeholder(field: Field) -> bool:
    """Whether ``field`` writes its value with SQL of its own (not a plain ``%s``): Django
    6.1 renamed the hook (``get_placeholder_sql``; ``BinaryField`` has only that one)."""
    return hasattr(field, "get_placeholder") or hasattr(field, "get_placeholder_sql")


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
        if len(kept) != len(fields) or any(_own_placeholder(f) for f in kept):
            return None  # a field with its own SQL placeholder: let save() compile it
        quote = connections[using].ops.quote_name
        sets = ", ".join(f"{quote(str(f.column))} = %s" for f in kept)
        where = f"{quote(str(meta.pk.column))} = %s"
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {where}"  # noqa: S608
        found = _KEPT[key] = (sql, kept)
    return found


class Update:
    """One row's ``UPDATE`` of ``names``, its values worked out as ``save()`` would."""

    def __init__(self, row: models.Model, names: Sequence[str], sql: str, params: list[Any]):
        self.row, self.names, self.sql, self.params = row, frozenset(names), sql, params

    def done(self, rowcount: int) -> None:
        """After the statement: a row gone meanwhile fails as in ``save()``; ``post_save`` sent."""
        if rowcount == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")
        post_save.send(
            sender=type(self.row),
            instance=self.row,
            created=False,
            update_fields=self.names,
            raw=False,
            using=self.row._state.db,
        )


def prepare(row: models.Model, names: Sequence[str]) -> Update | None:
    """The kept ``UPDATE`` of ``names`` on ``row``, ``pre_save`` sent; None when only
    ``save()`` can write it (its own ``save()``, a parent model, a field with its own SQL)."""
    model = type(row)
    using = row._state.db or router.db_for_write(model, instance=row)
    if model.save is not models.Model.save or row._meta.parents:
        return None
    kept = _update_sql(model, using, tuple(names))
    if kept is None:
        return None
    sql, fields = kept
    row._state.db = using
    # As save(update_fields=...) sends it, before the values are worked out:
    # a receiver may still change the row.
    pre_save.send(
        sender=model, instance=row, raw=False, using=using, update_fields=frozenset(names)
    )
    connection = connections[using]
    params = [f.get_db_prep_save(f.pre_save(row, False), connection) for f in fields]
    params.append(row._meta.pk.get_db_prep_value(row.pk, connection))
    return Update(row, names, sql, params)
