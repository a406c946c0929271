"""The bare minimum that stores what it got: one INSERT of a body into a table of its own.

The production benchmark's bare view and ``bench_create_order``'s bare side
both end with it, so "ours ÷ bare" prices what we do beyond keeping the
data: a table with an id and the body, no index, no constraint.
"""

from __future__ import annotations

BARE_TABLE = "bench_bare_body"


def ensure_bare_table() -> None:
    """Create the table if it is not there (PostgreSQL or SQLite)."""
    from django.db import connection

    postgres = connection.vendor == "postgresql"
    key = "bigserial PRIMARY KEY" if postgres else "integer PRIMARY KEY"
    blob = "bytea" if postgres else "blob"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {BARE_TABLE} (id {key}, body {blob})")


def insert_body(body: bytes) -> None:
    """One INSERT, in autocommit: the body is stored when this returns."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {BARE_TABLE} (body) VALUES (%s)", [body])
