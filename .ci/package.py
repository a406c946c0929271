"""Build the sdist and the wheel, check them, and use the wheel as a shop would.

    python .ci/package.py [--keep]

1. ``python -m build`` makes both archives in a temporary folder; ``twine check
   --strict`` reads their metadata as PyPI would render it.
2. The sdist must carry LICENSE, README.md and CHANGELOG.md and no tests
   (the suite needs the example shop and runs from a clone); the wheel must
   carry LICENSE, the translations and the static files.
3. A fresh virtualenv gets the wheel alone, no extras. In a project made by
   ``django-admin startproject``, with the README's settings and URLs added as
   a reader would add them: ``migrate``, ``check --deploy`` with production
   settings (no warning allowed), then one order paid on the emulator
   (``python -m django_orderpay.emulator``, the CLI a shop runs).

Everything happens under a temporary folder outside this repository, so
nothing of the repository's layout (``tests``, ``example_project``) can be
imported by accident. ``--keep`` leaves that folder for a look afterwards.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "shopsite"
#: The emulator CLI's default token: the smoke test pays with it.
TOKEN = "emulator-token"


def step(title: str) -> None:
    print(f"== package: {title}", flush=True)


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command; its output is shown only when it fails (then this exits)."""
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(result.stdout + result.stderr, file=sys.stderr)
        sys.exit(f"package: {' '.join(str(a) for a in args[:4])} ... exited {result.returncode}")
    return result.stdout


def build(dist: Path) -> tuple[Path, Path]:
    step("build the sdist and the wheel")
    run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    return sdist, wheel


def check_archives(sdist: Path, wheel: Path) -> None:
    step("check what the archives carry")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"} - names
    shipped_tests = sorted(n for n in names if n.startswith(("tests/", "example_project/")))
    if missing or shipped_tests:
        sys.exit(f"package: the sdist misses {sorted(missing)} or ships {shipped_tests[:5]}")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    needed = [
        r"\.dist-info/licenses/LICENSE$",
        r"^django_orderpay/locale/pt_BR/LC_MESSAGES/django\.mo$",
        r"^django_orderpay/static/django_orderpay/checkout\.js$",
        r"^django_orderpay/emulator/static/pagseguro\.js$",
        r"^django_orderpay/py\.typed$",
        r"^django_orderpay/migrations/0001_initial\.py$",
    ]
    absent = [p for p in needed if not any(re.search(p, n) for n in names)]
    strays = sorted(n for n in names if n.split("/", 1)[0] in ("tests", "example_project"))
    if absent or strays:
        sys.exit(f"package: the wheel misses {absent} or ships {strays[:5]}")


def fresh_venv(where: Path, wheel: Path) -> Path:
    step("install the wheel, no extras, in a fresh virtualenv")
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel)
    extras = {"segno", "pytest", "factory_boy", "playwright", "psycopg"}
    listed = run(python, "-m", "pip", "list", "--format=freeze").lower()
    present = sorted(e for e in extras if re.search(rf"^{e.replace('_', '[-_]')}==", listed, re.M))
    if present:
        sys.exit(f"package: the plain wheel pulled in extras: {present}")
    return python


def readme_settings() -> tuple[str, str]:
    """The README's settings.py and urls.py block, split as a reader would paste them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- docs-test: context settings -->\n```python\n(.*?)```", text, re.DOTALL)
    if match is None:
        sys.exit("package: the README's settings block was not found")
    settings_part, _, urls_part = match[1].partition("# urls.py\n")
    # The reader keeps startproject's apps where the README writes "...".
    settings_part = settings_part.replace("    ...,\n", "    *INSTALLED_APPS,\n")
    return settings_part, urls_part


def make_project(python: Path, where: Path) -> Path:
    step("a fresh project with the README's settings")
    django_admin = python.parent / "django-admin"
    run(django_admin, "startproject", PROJECT, where)
    settings_part, urls_part = readme_settings()
    package = where / PROJECT
    settings = package / "settings.py"
    pasted = "\n\n# From django-orderpay's README\n"
    settings.write_text(settings.read_text() + pasted + settings_part)
    urls = package / "urls.py"
    original = urls.read_text()
    readme_urls = urls_part.replace("urlpatterns = [", "urlpatterns += [")
    urls.write_text(original + pasted + readme_urls)
    # Production: what `check --deploy` asks of any Django site, and the provider's host.
    (package / "production.py").write_text(
        textwrap.dedent(
            f"""
            from .settings import *  # noqa: F403

            DEBUG = False
            SECRET_KEY = {os.urandom(32).hex()!r}
            ALLOWED_HOSTS = ["shop.example.com"]
            SECURE_SSL_REDIRECT = True
            SECURE_HSTS_SECONDS = 31536000
            SECURE_HSTS_INCLUDE_SUBDOMAINS = True
            SECURE_HSTS_PRELOAD = True
            SESSION_COOKIE_SECURE = True
            CSRF_COOKIE_SECURE = True
            ORDERPAY = {{**ORDERPAY, "ENVIRONMENT": "production"}}  # noqa: F405
            """
        )
    )
    # Development against the emulator CLI (its URL comes from the environment).
    (package / "emulated.py").write_text(
        textwrap.dedent(
            """
            import os

            from .settings import *  # noqa: F403

            ORDERPAY = {
                **ORDERPAY,  # noqa: F405
                "ENVIRONMENT": "emulator",
                "EMULATOR_URL": os.environ["SMOKE_EMULATOR_URL"],
                "NOTIFICATION_URL": "http://127.0.0.1:9/orderpay/notifications/",
            }
            """
        )
    )
    return package


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


ONE_ORDER = """
from django_orderpay import services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.models import Order
from django_orderpay.payloads import (
    Amount, Card, ChargeRequest, Customer, Item, OrderRequest, PaymentMethod,
)

# Encrypted as the browser SDK does, with the key fetched from the provider.
encrypted = encrypt_card(
    services.get_public_key(), number="4111111111111111", exp_month="12",
    exp_year="2030", security_code="123", holder="Jose da Silva",
)
services.create_order(
    OrderRequest(
        reference_id="smoke-1",
        customer=Customer(name="Jose da Silva", email="jose@example.com", tax_id="12345678909"),
        items=[Item(name="Camiseta", quantity=1, unit_amount=500)],
        charges=[
            ChargeRequest(
                reference_id="smoke-ch-1",
                description="Smoke test",
                amount=Amount(500),
                payment_method=PaymentMethod(
                    installments=1,
                    capture=True,
                    card=Card.from_encrypted(encrypted, holder="Jose da Silva"),
                ),
            )
        ],
    )
)
charge = Order.objects.get(reference_id="smoke-1").charges.get()
assert charge.status == "PAID", charge.status
print("paid:", charge.provider_id, charge.amount_paid, "cents")
"""


def smoke(python: Path, where: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": "",
        "ORDERPAY_TOKEN": TOKEN,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    # The project is a shop's, not this suite's: none of the suite's environment
    # (CI exports DJANGO_ALLOW_ASYNC_UNSAFE for the browser tests, which
    # `check --deploy` rightly refuses).
    for name in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    manage = where / "manage.py"

    step("migrate")
    run(python, manage, "migrate", "--noinput", cwd=where, env=env)

    step("check --deploy with production settings")
    production = {**env, "DJANGO_SETTINGS_MODULE": f"{PROJECT}.production"}
    run(python, manage, "check", "--deploy", "--fail-level", "WARNING", cwd=where, env=production)

    step("one order on the emulator")
    port = free_port()
    emulator = subprocess.Popen(
        [str(python), "-m", "django_orderpay.emulator", "--port", str(port), "--quiet"],
        cwd=where,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if emulator.poll() is not None or time.monotonic() > deadline:
                    sys.exit("package: the emulator CLI did not start")
                time.sleep(0.2)
        emulated = {
            **env,
            "DJANGO_SETTINGS_MODULE": f"{PROJECT}.emulated",
            "SMOKE_EMULATOR_URL": f"http://127.0.0.1:{port}",
        }
        print(run(python, manage, "shell", "-c", ONE_ORDER, cwd=where, env=emulated).strip())
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="orderpay-package-"))
    try:
        sdist, wheel = build(work / "dist")
        check_archives(sdist, wheel)
        python = fresh_venv(work / "venv", wheel)
        project = work / "project"
        project.mkdir()
        make_project(python, project)
        smoke(python, project)
    finally:
        if args.keep:
            print(f"package: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"== package: all good in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
