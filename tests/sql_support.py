"""Reading captured SQL: the statements a sync sent together count one by one."""

from __future__ import annotations

import re


def parts(sql: str) -> list[str]:
    """The statements of one ``sync.batching`` statement (any other: itself).

    On PostgreSQL a sync's closing writes go as one ``WITH orderpay_write_0
    AS (...), orderpay_write_1 AS (...) SELECT ...`` statement.
    """
    if not sql.startswith("WITH orderpay_write_0 AS ("):
        return [sql]
    writes = sql.split(") SELECT (SELECT ", 1)[0]
    found = re.split(r"(?:WITH |\), )orderpay_write_\d+ AS \(", writes)[1:]
    return [part.removesuffix(" RETURNING 1") for part in found]
