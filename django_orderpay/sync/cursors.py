"""The cursor the hot statements run on: parameters bound on the server, plans kept where allowed.

Django's PostgreSQL cursor (psycopg 3) binds parameters on the client by
default: every value is quoted into the statement's text, which
PostgreSQL then parses and plans afresh, each time. The few statements
every notification and sync runs (:mod:`.inserting`, :mod:`.reading`,
:mod:`.batching`) go instead through psycopg's server-binding cursor:
values travel apart from the text, and when the shop's ``DATABASES``
``OPTIONS`` set psycopg's ``prepare_threshold``, psycopg prepares each
statement after that many runs on a connection, so PostgreSQL plans it
once per connection, not once per notification. Planning was half of
PostgreSQL's own time on a notification. While Django logs queries
(``DEBUG``, ``assertNumQueries``) they take the connection's own cursor,
so the log reads as Django's always does.

Each of these statements has its server-binding cursor, made once per
connection and kept (:func:`cursor`): a cursor is cheap to use and costly
to make (Django's checks and wrapper), and psycopg keeps a cursor's
adapters (which dumper for each parameter, which loader for each column)
only while it runs the very same statement again, so one cursor shared by
the claim, the locks and the writes looked them all up afresh each time.

Without ``prepare_threshold`` (Django's default, because a pooler such as
PgBouncer in transaction mode before 1.21 loses prepared statements) the
statements are unnamed, which every pooler passes. A shop whose own cursor
class is not Django's default (``OPTIONS["cursor_factory"]``, or
``server_side_binding``, which already binds on the server) keeps it.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.utils.asyncio import async_unsafe

#: Where a connection keeps its statements' cursors: (its psycopg connection,
#: the time zone its timestamps load in, statement -> (the statement, its cursor)).
_KEPT = "_orderpay_server_cursors"
#: The most statements a connection keeps a cursor for (the most recently run).
KEPT_STATEMENTS = 32


@cache
def _classes() -> tuple[type, type] | None:
    """(Django's default psycopg 3 cursor class, its server-binding twin); None on psycopg 2.

    Looked up on first use: only a PostgreSQL connection asks, so the
    backend module is imported where its driver is installed.
    """
    from django.db.backends.postgresql import base

    client, server = getattr(base, "Cursor", None), getattr(base, "ServerBindingCursor", None)
    return (client, server) if client is not None and server is not None else None


@cache
def _plain(backend: Any) -> bool:
    """Whether ``backend`` makes its cursors as Django's PostgreSQL backend does.

    A backend that overrides how cursors are made or wrapped (an APM's,
    a metrics exporter's) gets a new cursor for every statement, its own way.
    """
    from django.db.backends.postgresql import base

    return (
        backend.create_cursor is base.DatabaseWrapper.create_cursor
        and backend.make_cursor is BaseDatabaseWrapper.make_cursor
    )


class _Kept(CursorWrapper):
    """A statement's kept cursor, for one ``with`` block: leaving it does not close it."""

    def __init__(self, cursor: Any, db: BaseDatabaseWrapper, statement: str) -> None:
        super().__init__(cursor, db)
        self.statement = statement

    def execute(self, sql: Any, params: Any = None) -> Any:
        # The kept statement object itself, not an equal copy: psycopg keeps
        # the cursor's adapters only for the very object it ran last.
        return super().execute(self.statement if sql == self.statement else sql, params)

    def __exit__(self, *exc_info: Any) -> None:
        return None


def _kept(connection: BaseDatabaseWrapper) -> OrderedDict[str, tuple[str, Any]]:
    """The connection's kept cursors, emptied if it reconnected or changed time zone since."""
    kept = getattr(connection, _KEPT, None)
    if kept is not None and kept[0] is connection.connection and kept[1] is connection.timezone:
        cursors: OrderedDict[str, tuple[str, Any]] = kept[2]
        return cursors
    cursors = OrderedDict()
    setattr(connection, _KEPT, (connection.connection, connection.timezone, cursors))
    return cursors


@async_unsafe
def cursor(connection: BaseDatabaseWrapper, statement: str | None = None) -> CursorWrapper:
    """A cursor of ``connection`` to run ``statement`` on, Django's own (query log,
    wrappers), binding on the server.

    Use it in a ``with`` block, as Django's. With ``statement``, the cursor
    is kept for it; without, it is made for this block and closed after it.
    Elsewhere than PostgreSQL on psycopg 3, while queries are logged, or
    when the shop chose its own cursor class or backend, the connection's
    usual cursor.
    """
    # While Django logs queries (DEBUG, a test capturing them), its own
    # cursor: the log then shows each statement with its values, as it shows
    # every other query (a prepared statement would be logged as None).
    logged = connection.queries_logged
    classes = _classes() if connection.vendor == "postgresql" and not logged else None
    backend: Any = type(connection)
    if classes is None or not _plain(backend):
        return connection.cursor()
    # What Django's cursor() checks first, then the statement's kept cursor.
    connection.close_if_health_check_failed()
    if statement is not None and connection.connection is not None:
        kept = _kept(connection)
        found = kept.get(statement)
        if found is not None and not found[1].closed:
            kept.move_to_end(statement)
            connection.validate_thread_sharing()
            return _Kept(found[1], connection, found[0])
    connection.ensure_connection()
    raw: Any = connection.connection
    client, server = classes
    if raw.cursor_factory is not client:
        return connection.cursor()
    # Django's own cursor() (its thread check, time zone and wrapper) with
    # psycopg's server-binding class for this one cursor.
    raw.cursor_factory = server
    try:
        made = connection.cursor()
    finally:
        raw.cursor_factory = client
    if statement is None:
        return made
    kept = _kept(connection)
    kept[statement] = (statement, made.cursor)
    while len(kept) > KEPT_STATEMENTS:
        _, (_, oldest) = kept.popitem(last=False)
        oldest.close()
    return _Kept(made.cursor, connection, statement)
