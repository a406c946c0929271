"""``make mutants``: mutation testing of the code that moves money or decides state.

mutmut (the ``mutants`` extra, configured in ``pyproject.toml``) changes one
thing at a time in each function named in :data:`MUTATED` (a comparison
flipped, a constant moved by one, an argument dropped, a condition negated)
and runs the tests of ``[tool.mutmut] pytest_add_cli_args_test_selection``
that reach that function (it records which in a first run). A mutant no test
notices *survives*. Each survivor is killed by a new test or explained, by
its name, in docs/testing.md ("Mutation testing"). This prints the kill
rate, every survivor with its diff, the time taken and the machine's load,
and exits 1 when a survivor is not explained there.

Usage: ``python -m tests.mutants [--max-children N] [GLOB ...]`` (globs of
mutant names narrow the run, e.g. ``'django_orderpay.sync.operations.*'``).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import resource
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = Path(sys.executable).with_name("mutmut")
EXPLAINED_IN = ROOT / "docs" / "testing.md"

#: module -> the functions (``Class.method`` for a method) whose every line is mutated:
#: where a wrong line moves money twice or decides a state wrongly. (The wiring around
#: them, building requests and writing rows, fails loudly in every test when broken.)
MUTATED: dict[str, tuple[str, ...]] = {
    # The operation record: which failure is a refusal, which success answers a repeat.
    "django_orderpay.services.operations": (
        "_is_refusal",
        "_answers",
        "pending",
        "_unheard_success",
        "_owed",
        "retryable",
    ),
    # Settling open operations from the provider's state: the proofs.
    "django_orderpay.sync.operations": (
        "_proof",
        "_refunded_since",
        "_ambiguous_refunds",
        "_is_refund",
    ),
    # Mirroring: a charge's state only moves forward.
    "django_orderpay.sync.charges": ("supersedes",),
    # Idempotency keys and the digests they are derived from.
    "django_orderpay.services.idempotency": (
        "canonical",
        "digest",
        "operation_key",
        "check_explicit_key",
    ),
    # Installment plans: their cache key.
    "django_orderpay.services.fees": ("installment_plans", "plan_for"),
    # Refunds: "everything", and the basis settling reads.
    "django_orderpay.services.charges": ("cancel_intent", "_everything"),
    # Payload bounds: money in whole cents, integers within their limits.
    "django_orderpay.services._common": ("check_amount",),
    "django_orderpay.payloads._problems": ("Problems.integer",),
    # Is this notification the provider's?
    "django_orderpay.notifications.verification": ("check_authenticity", "token_matches"),
    # Order and charge states.
    "django_orderpay.models.states": (
        "charge_transition_allowed",
        "effective_charge_status",
        "derive_order_status",
    ),
    # A purchase paid twice.
    "django_orderpay.duplicates": ("holds_money", "other_payments", "other_payments_among"),
    # When 3-D Secure runs.
    "django_orderpay.checkout": ("threeds_required", "declined_for_authentication"),
}

#: mutmut's result -> killed (a test failed, or the mutant hung past its time limit).
KILLED = frozenset({"killed", "timeout"})


def mutant_glob(module: str, function: str) -> str:
    """mutmut's name for the mutants of ``function`` (``x_f``, or ``xǁClassǁmethod``)."""
    owner, _, name = function.rpartition(".")
    mangled = f"xǁ{owner}ǁ{name}" if owner else f"x_{name}"
    return f"{module}.{mangled}__mutmut_*"


def check_configuration() -> None:
    """Each module of :data:`MUTATED` is in ``[tool.mutmut] only_mutate``, and no other."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    configured = {path.removesuffix(".py").replace("/", ".") for path in conf["only_mutate"]}
    if configured != set(MUTATED):
        sys.exit(
            "pyproject.toml [tool.mutmut] only_mutate and tests/mutants.py MUTATED differ: "
            f"{sorted(configured ^ set(MUTATED))}"
        )


def results(globs: list[str]) -> dict[str, str]:
    """Each mutant of ``globs`` and its status, as mutmut recorded it."""
    listed = subprocess.run(
        [MUTMUT, "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in listed.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in globs):
            found[name] = status
    return found


def explained() -> set[str]:
    """The mutant names docs/testing.md explains."""
    return set(re.findall(r"`(django_orderpay\.[^`\s]+__mutmut_\d+)`", EXPLAINED_IN.read_text()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("globs", nargs="*", help="mutant names to run (default: all of MUTATED)")
    args = parser.parse_args()
    check_configuration()
    every = [mutant_glob(module, f) for module, functions in MUTATED.items() for f in functions]
    globs = args.globs or every

    load_before, started = os.getloadavg(), time.monotonic()
    run = [MUTMUT, "run", "--max-children", str(args.max_children), *globs]
    # SQLite in memory whatever DATABASE_URL says: mutants run side by side, each in its
    # own test session, and one PostgreSQL test database would be theirs to share.
    # And a client timeout that a loaded machine's plain answers stay under (still below
    # the second a ``timeout`` fault holds its answer): a flaky test would stop the run.
    env = {**os.environ, "DATABASE_URL": "sqlite:///:memory:", "ORDERPAY_TEST_TIMEOUT": "0.8"}
    code = subprocess.run(run, cwd=ROOT, env=env, check=False).returncode
    took = time.monotonic() - started
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        print(f"mutmut run failed (exit {code}): run it by hand to see why: {' '.join(run[1:3])}")
        return code

    statuses = results(globs)
    killed = [name for name, status in statuses.items() if status in KILLED]
    survived = sorted(name for name, status in statuses.items() if status not in KILLED)
    unexplained = [name for name in survived if name not in explained()]
    for name in survived:
        shown = subprocess.run([MUTMUT, "show", name], cwd=ROOT, capture_output=True, text=True)
        mark = "" if name in explained() else "  (not explained in docs/testing.md)"
        print(f"--- survived ({statuses[name]}): {name}{mark}\n{shown.stdout.strip()}\n")
    total = len(statuses)
    print(
        f"{len(killed)} of {total} mutants killed ({100 * len(killed) / max(total, 1):.1f} %), "
        f"{len(survived)} survived ({len(unexplained)} not explained)"
    )
    print(
        f"{took / 60:.1f} min on {os.cpu_count()} cores, {args.max_children} at a time; "
        f"{(cpu.ru_utime + cpu.ru_stime) / 60:.1f} CPU-min; load average "
        f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return 1 if unexplained and not args.globs else 0


if __name__ == "__main__":
    sys.exit(main())
