"""A sync's closing writes, sent together: one statement on PostgreSQL.

A sync ends with writes whose answers nothing reads before the commit: a
charge's changed columns, its history row, the order's columns. On
PostgreSQL they go as one statement, each a data-modifying ``WITH`` query,
so a notification's transition costs one round trip for them, not three;
elsewhere they run one after another. Each keeps what it means alone: an
update of a row gone meanwhile fails as ``save()`` does, an insert sets
its row's key, ``pre_save`` is sent as the write is queued and
``post_save`` once the statement has run. (So a shop's ``pre_save``
receiver on the order runs before the charge's row is written, not
after: the order's values are final by then, only the statement waits.)

Only writes to distinct rows go together: PostgreSQL runs the ``WITH``
queries on one snapshot, where none sees another's rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connections, models

from . import cursors, inserting, updating


@dataclass
class _Insert:
    row: models.Model
    sql: str
    params: list[Any]
    using: str


@dataclass
class Writes:
    """Writes queued by a sync, run by :meth:`flush`, in the order they were queued."""

    _queued: list[updating.Update | _Insert] = field(default_factory=list)

    def update(self, row: models.Model, names: list[str]) -> None:
        """Queue ``row.save(update_fields=names)``."""
        update = updating.prepare(row, names)
        if update is None:  # only its own save() can write it: now, in its turn
            self.flush()
            row.save(update_fields=names)
        else:
            self._queued.append(update)

    def insert(self, row: models.Model) -> None:
        """Queue the insert of a new row (auto primary key, no SQL expressions)."""
        sql, params, using = inserting.prepare(row)
        self._queued.append(_Insert(row, sql, params, using))

    def flush(self) -> None:
        """Run every queued write (one statement where the database can), then their signals."""
        queued, self._queued = self._queued, []
        if not queued:
            return
        databases = {_database(write) for write in queued}
        connection = connections[databases.pop()]
        together = not databases and len(queued) > 1 and connection.vendor == "postgresql"
        if together:
            sql, params = _together(queued)
            with cursors.cursor(connection, sql) as cursor:
                cursor.execute(sql, params)
                answers = list(cursor.fetchone() or ())
        else:  # one after another, each on its own database (a router may split them)
            answers = [_run(write) for write in queued]
        for write, answer in zip(queued, answers, strict=True):
            if isinstance(write, _Insert):
                inserting.inserted(write.row, answer, write.using)
            else:
                write.done(answer)


def _database(write: updating.Update | _Insert) -> str:
    return write.using if isinstance(write, _Insert) else str(write.row._state.db)


def _run(write: updating.Update | _Insert) -> Any:
    """One write on its own: the key an insert returned, the rows an update wrote."""
    with cursors.cursor(connections[_database(write)], write.sql) as cursor:
        cursor.execute(write.sql, write.params)
        if isinstance(write, _Insert):
            row = cursor.fetchone()
            return row[0] if row else None
        return cursor.rowcount


def _together(queued: list[updating.Update | _Insert]) -> tuple[str, list[Any]]:
    """One statement running every write: each a ``WITH`` query, answered in one row.

    An update answers how many rows it wrote, an insert the key it
    returned (the kept ``INSERT`` already says ``RETURNING``).
    """
    # Only kept statements and names made here are formatted in; values are parameters.
    parts, answers, params = [], [], []
    for index, write in enumerate(queued):
        name = f"orderpay_write_{index}"
        if isinstance(write, _Insert):
            parts.append(f"{name} AS ({write.sql})")
            answers.append(f"(SELECT * FROM {name})")  # noqa: S608
        else:
            parts.append(f"{name} AS ({write.sql} RETURNING 1)")
            answers.append(f"(SELECT count(*) FROM {name})")  # noqa: S608
        params.extend(write.params)
    return f"WITH {', '.join(parts)} SELECT {', '.join(answers)}", params
