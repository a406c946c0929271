"""A throwaway PostgreSQL cluster for the benchmark, as ``make tox`` starts one.

``initdb`` in a temporary folder, started on a free port of 127.0.0.1 with
``fsync=off`` (the numbers are about round trips, not the disk), a role and
a database for the shop; stopped and removed at the end. As root, the
cluster runs as the ``postgres`` user (``initdb`` refuses root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROLE = "bench"
DATABASE = "orderpay_bench"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    if found:
        return Path(found[-1])
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl:
        return Path(pg_ctl).parent
    raise RuntimeError(
        "PostgreSQL is not installed (apt-get install postgresql), or set DATABASE_URL"
    )


@contextmanager
def throwaway_cluster(max_connections: int = 200) -> Iterator[str]:
    """Start a cluster; yield its ``postgres://`` URL for a fresh database; remove it after."""
    bin_dir = _bin_dir()
    root = Path(tempfile.mkdtemp(prefix="orderpay-bench-pg-"))
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        subprocess.run(
            [*as_postgres, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
             "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"],
            check=True, **quiet,
        )  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
            f"-c max_connections={max_connections}"
        )
        subprocess.run(
            [*as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"),
             "-w", "-o", options, "start"],
            check=True, **quiet,
        )  # fmt: skip
        psql = [str(bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-q"]
        subprocess.run([*psql, "-c", f"CREATE ROLE {ROLE} LOGIN PASSWORD '{ROLE}'"], check=True)
        subprocess.run([*psql, "-c", f"CREATE DATABASE {DATABASE} OWNER {ROLE}"], check=True)
        yield f"postgres://{ROLE}:{ROLE}@127.0.0.1:{port}/{DATABASE}"
    finally:
        subprocess.run(
            [*as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"],
            check=False, **quiet,
        )  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)
