"""Where the benchmarks run: Django on ``tests.settings`` and a fresh, migrated database.

The database is made as the test runner makes it (``create_test_db``): an
in-memory SQLite database by default, or ``test_<name>`` on the PostgreSQL
server ``DATABASE_URL`` names; it is dropped at the end.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SETTINGS_MODULE = "tests.settings"


def setup_django() -> None:
    """Configure Django with the test settings (unless another module is already chosen)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS_MODULE)
    import django

    django.setup()


@contextmanager
def database() -> Iterator[None]:
    """A fresh database with every migration applied, for the duration of the block."""
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()


def describe() -> str:
    """One line on what the numbers were measured with."""
    import django
    from django.db import connection

    database = connection.vendor
    if database == "sqlite":
        database += f" {connection.Database.sqlite_version}"
        if connection.creation.is_in_memory_db(connection.settings_dict["NAME"]):
            database += " (in memory)"
    elif database == "postgresql":
        version = connection.pg_version  # e.g. 160002 for 16.2
        database += f" {version // 10000}.{version % 10000}"
    return (
        f"Python {platform.python_version()} ({sys.implementation.name}), "
        f"Django {django.get_version()}, {database}, "
        f"{os.cpu_count()} CPUs, {platform.machine()} {platform.system()}, "
        f"{load_average()}"
    )


def load_average() -> str:
    """The 1-minute load average: other work on the machine slows both sides alike, but shows."""
    try:
        return f"load average {os.getloadavg()[0]:.2f}"
    except OSError:  # not on every platform
        return "load average unknown"
