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

The server-binding cursor is made once per connection and kept
(:func:`cursor`): a cursor is cheap to use and costly to make (Django's
checks and wrapper, psycopg's adapters looked up afresh for each), and a
notification runs three or four of these statements.

Without ``prepare_threshold`` (Django's default, because a pooler such as
PgBouncer in transaction mode before 1.21 loses prepared statements) the
statements are unnamed, which every pooler passes. A shop whose own cursor
class is not Django's default (``OPTIONS["cursor_factory"]``, or
``server_side_binding``, which already binds on the server) keeps it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.utils.asyncio import async_unsafe

#: Where a connection keeps its server-binding cursor: (the psycopg cursor,
#: the time zone its timestamps load in).
_KEPT = "_orderpay_server_cursor"


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
    """The connection's kept cursor, for one ``with`` block: leaving it does not close it."""

    def __exit__(self, *exc_info: Any) -> None:
        return None


@async_unsafe
def cursor(connection: BaseDatabaseWrapper) -> CursorWrapper:
    """A cursor of ``connection``, Django's own (query log, wrappers), binding on the server.

    Elsewhere than PostgreSQL on psycopg 3, while queries are logged, or
    when the shop chose its own cursor class or backend, the connection's
    usual cursor. Use it in a ``with`` block, as Django's.
    """
    # While Django logs queries (DEBUG, a test capturing them), its own
    # cursor: the log then shows each statement with its values, as it shows
    # every other query (a prepared statement would be logged as None).
    logged = connection.queries_logged
    classes = _classes() if connection.vendor == "postgresql" and not logged else None
    backend: Any = type(connection)
    if classes is None or not _plain(backend):
        return connection.cursor()
    # What Django's cursor() checks first, then the kept cursor if it is
    # still this connection's (not one closed, reconnected or set to
    # another time zone since).
    connection.close_if_health_check_failed()
    kept = getattr(connection, _KEPT, None)
    if kept is not None:
        psycopg_cursor, timezone = kept
        if (
            psycopg_cursor.connection is connection.connection
            and not psycopg_cursor.closed
            and timezone is connection.timezone
        ):
            connection.validate_thread_sharing()
            return _Kept(psycopg_cursor, connection)
    connection.ensure_connection()
    raw: Any = connection.connection
    client, server = classes
    if raw.cursor_factory is not client:
        return connection.cursor()
    # Django's own cursor() (its thread check, time zone and wrapper) with
    # psycopg's server-binding class for this one cursor, which is kept.
    raw.cursor_factory = server
    try:
        made = connection.cursor()
    finally:
        raw.cursor_factory = client
    setattr(connection, _KEPT, (made.cursor, connection.timezone))
    return _Kept(made.cursor, connection)
