"""Every ```python block of README.md and docs/*.md runs as written.

How a block runs is said by an HTML comment on the line before its fence
(invisible on GitHub; the README's "Developing" section has the list):

- no comment: run as a script in a fresh namespace, with the database and
  ``ORDERPAY`` pointed at a running emulator (whose fixture object is the
  name ``orderpay_emulator``), as in a shop's test;
- ``<!-- docs-test: context NAME -->``: the same, plus the names that
  :data:`CONTEXTS` gives for NAME (``view``: the ``request`` of a logged-in
  shopper posting an encrypted card, a valid ``form`` of it, the shop's
  ``purchase``, its ``order`` and ``total``, the ``encrypted`` card and its
  holder's ``name``, an ``authentication_id``; a view the block defines is
  called with them;
  ``settings``: settings.py and urls.py, with what a settings.py
  has above the block, ``INSTALLED_APPS`` and ``ORDERPAY``, and the
  environment variables they read set);
- ``<!-- docs-test: pytest -->``: a test module: pytest runs it (its tests
  must pass), with this package's plugin and settings;
- ``<!-- docs-test: skip REASON -->``: not run (a signature list, a shell
  transcript in Python's clothes); kept to a few.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import RequestFactory

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?P<before>(?:^[ \t]*<!-- docs-test: (?P<marker>[^>]*?) -->[ \t]*\n)?)"
    r"^(?P<indent>[ \t]*)```python[^\n]*\n(?P<code>.*?)^(?P=indent)```",
    re.MULTILINE | re.DOTALL,
)
KINDS = ("run", "context", "pytest", "skip")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str
    argument: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks() -> Iterator[Block]:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            marker = (match["marker"] or "run").split(None, 1)
            kind, argument = marker[0], (marker[1] if len(marker) > 1 else "")
            line = text.count("\n", 0, match.start("indent")) + 1
            code = textwrap.dedent(match["code"])
            yield Block(page, line, kind, argument.strip(), code)


ALL = list(blocks())


def test_every_block_is_found_and_marked_with_a_known_kind():
    assert len(ALL) >= 20
    assert {block.kind for block in ALL} <= set(KINDS), [b.name for b in ALL if b.kind not in KINDS]
    unknown = [b.name for b in ALL if b.kind == "context" and b.argument not in CONTEXTS]
    assert unknown == []


def test_few_blocks_are_skipped_and_each_says_why():
    skipped = [block for block in ALL if block.kind == "skip"]
    assert len(skipped) <= 3, [b.name for b in skipped]
    assert all(block.argument for block in skipped)


# --- contexts ---------------------------------------------------------------------------


def _view(orderpay_emulator: Any, django_user_model: Any, **_: Any) -> dict[str, Any]:
    """A logged-in shopper's POST of the card form (``request``), that form (``form``, valid),
    the shop's ``purchase``, its ``order`` (created, not paid yet) and ``total`` (cents), the
    ``encrypted`` card posted and its holder's ``name``, and an ``authentication_id`` as the
    SDK's 3-D Secure answers one."""
    from django_orderpay import services
    from django_orderpay.cardcrypto import encrypt_card
    from django_orderpay.forms import CardPaymentForm
    from example_project.shop.models import Product, Purchase, PurchaseLine
    from example_project.shop.payments import order_payload

    user = django_user_model.objects.create_user("maria", email="maria@example.com")
    product = Product.objects.create(name="Camiseta", slug="camiseta", price=500)
    purchase = Purchase.objects.create(
        user=user,
        customer_name="Maria Souza",
        customer_email="maria@example.com",
        customer_tax_id="12345678909",
        phone_area="11",
        phone_number="999999999",
        street="Avenida Brigadeiro Faria Lima",
        number="1384",
        locality="Pinheiros",
        city="Sao Paulo",
        region_code="SP",
        postal_code="01452002",
    )
    PurchaseLine.objects.create(
        purchase=purchase, product=product, name="Camiseta", unit_amount=500, quantity=1
    )
    posted = {
        "encrypted_card": encrypt_card(
            services.get_public_key(),
            number="4111111111111111",
            exp_month="12",
            exp_year="2030",
            security_code="123",
            holder="Maria Souza",
        ),
        "holder_name": "Maria Souza",
        "installments": "1",
    }
    request = RequestFactory().post("/pay/", posted)
    request.user = user
    form = CardPaymentForm(request.POST, user=user, amount=purchase.total)
    assert form.is_valid(), form.errors
    return {
        "request": request,
        "form": form,
        "purchase": purchase,
        "order": services.create_order(order_payload(purchase), user=user, shop_object=purchase),
        "total": purchase.total,
        "encrypted": posted["encrypted_card"],
        "name": posted["holder_name"],
        "authentication_id": f"3DS_{str(uuid.uuid4()).upper()}",
    }


def _settings(monkeypatch: pytest.MonkeyPatch, **_: Any) -> dict[str, Any]:
    """settings.py and urls.py: what a settings.py has above the block (``INSTALLED_APPS``,
    ``ORDERPAY``), and the environment variables they read set."""
    for name in ("ORDERPAY_TOKEN", "PAGBANK_TOKEN"):
        monkeypatch.setenv(name, "token-from-the-environment")
    return {
        "INSTALLED_APPS": ["django.contrib.contenttypes", "rest_framework", "django_orderpay"],
        "ORDERPAY": {"TOKEN": "token-from-the-environment"},
    }


CONTEXTS: dict[str, Callable[..., dict[str, Any]]] = {"view": _view, "settings": _settings}


# --- running ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.filterwarnings("error::DeprecationWarning")  # the docs show today's names
@pytest.mark.parametrize(
    "block", [b for b in ALL if b.kind in ("run", "context")], ids=lambda b: b.name
)
def test_the_block_runs(block, orderpay_emulator, django_user_model, monkeypatch):
    names: dict[str, Any] = {"__name__": "docs_block", "orderpay_emulator": orderpay_emulator}
    if block.kind == "context":
        names |= CONTEXTS[block.argument](
            orderpay_emulator=orderpay_emulator,
            django_user_model=django_user_model,
            monkeypatch=monkeypatch,
        )
    before = set(names)
    code = compile(block.code, block.name, "exec")
    exec(code, names)  # the project's own documentation, run as its readers would
    if block.kind == "context" and block.argument == "view":
        _call_views(names, before)


def _call_views(names: dict[str, Any], before: set[str]) -> None:
    """A view the block defines (a function taking ``request``) is called with the context's
    POST (and the purchase's pk when it takes one): it must answer, not only be defined."""
    for name, value in list(names.items()):
        if name in before or not inspect.isfunction(value) or value.__module__ != "docs_block":
            continue
        parameters = list(inspect.signature(value).parameters)
        if parameters[:1] != ["request"]:
            continue
        extra = [names["purchase"].pk] if len(parameters) > 1 else []
        response = value(names["request"], *extra)
        assert response.status_code < 400, (name, response.status_code)


PYTEST_BLOCKS = [b for b in ALL if b.kind == "pytest"]


@pytest.mark.timeout(900)  # a whole pytest run of its own, bounded at 600 s below
def test_the_test_modules_pass(tmp_path):
    """Each ``pytest`` block as a file of its own, all in one pytest run (one process)."""
    assert PYTEST_BLOCKS
    files = {}
    for number, block in enumerate(PYTEST_BLOCKS):
        path = tmp_path / f"test_docs_block_{number}.py"
        path.write_text(block.code)
        files[path.name] = block.name
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            "-c",
            str(ROOT / "pyproject.toml"),
            "-q",
            "-rA",
            "-W",
            "error::DeprecationWarning",
        ],
        cwd=ROOT,
        env={**os.environ, "ORDERPAY_TEST_DATABASE": "test_orderpay_docs"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    for name, where in files.items():
        assert re.search(rf"^PASSED .*{name}::", report, re.MULTILINE), (where, report)
