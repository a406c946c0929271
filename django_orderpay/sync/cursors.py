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


@cache
def _classes() -> tuple[type, type] | None:
    """(Django's default psycopg 3 cursor class, its server-binding twin); None on psycopg 2.

    Looked up on first use: only a PostgreSQL connection asks, so the
    backend module is imported where its driver is installed.
    """
    from django.db.backends.postgresql import base

    client, server = getattr(base, "Cursor", None), getattr(base, "ServerBindingCursor", None)
    return (client, server) if client is not None and server is not None else None


def cursor(connection: BaseDatabaseWrapper) -> CursorWrapper:
    """A cursor of ``connection``, Django's own (query log, wrappers), binding on the server.

    Elsewhere than PostgreSQL on psycopg 3, while queries are logged, or
    when the shop chose its own cursor class, the connection's usual cursor.
    """
    # While Django logs queries (DEBUG, a test capturing them), its own
    # cursor: the log then shows each statement with its values, as it shows
    # every other query (a prepared statement would be logged as None).
    logged = connection.queries_logged
    classes = _classes() if connection.vendor == "postgresql" and not logged else None
    if classes is None:
        return connection.cursor()
    connection.ensure_connection()
    raw: Any = connection.connection
    client, server = classes
    if raw.cursor_factory is not client:
        return connection.cursor()
    # Django's own cursor() (its thread check, time zone and query log) with
    # psycopg's server-binding class for this one cursor.
    raw.cursor_factory = server
    try:
        return connection.cursor()
    finally:
        raw.cursor_factory = client
