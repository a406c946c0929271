"""Every string of the package and of the example shop has its Brazilian Portuguese.

The catalogues are read as gettext reads them: each entry of the ``.po``
(contexts and plurals included) must have every ``msgstr`` filled, no
``fuzzy`` flag (gettext ignores a fuzzy translation), the same
``%(name)s`` placeholders as its ``msgid``, and be in the compiled ``.mo``.
And the ``.po`` must hold every string the source marks today:
``makemessages`` runs on a copy of the sources, and its catalogue must have
no msgid the committed one lacks (a string added without running it would
otherwise be shown in English, whatever the ``.po`` says).
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = {
    "django_orderpay": ROOT / "django_orderpay",
    "example_shop": ROOT / "example_project" / "shop",
}
PO = Path("locale/pt_BR/LC_MESSAGES/django.po")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|%[sd]")


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str = ""
    context: str = ""
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self) -> str:
        return f"{self.context}\x04{self.msgid}" if self.context else self.msgid


def _text(quoted: str) -> str:
    """A .po string's value (``"a\\"b"`` -> ``a"b``)."""
    body = quoted.strip()[1:-1]
    return re.sub(r'\\(["\\nt])', lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), body)


def read_po(path: Path) -> list[Entry]:
    """The entries of a .po file, the header left out."""
    entries, entry, target = [], Entry(), None
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            if entry.msgid or entry.msgstr:
                entries.append(entry)
            entry, target = Entry(), None
            continue
        if line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        else:
            entry.obsolete = entry.obsolete or obsolete
            keyword, _, rest = line.partition(" ")
            if line.startswith('"'):
                keyword, rest = "", line
            if keyword:
                target = keyword
            value = _text(rest)
            if target == "msgctxt":
                entry.context += value
            elif target == "msgid":
                entry.msgid += value
            elif target == "msgid_plural":
                entry.msgid_plural += value
            elif target and target.startswith("msgstr"):
                index = int(target[7:-1]) if "[" in target else 0
                entry.msgstr[index] = entry.msgstr.get(index, "") + value
    return [e for e in entries if e.msgid]


def live(entries: list[Entry]) -> list[Entry]:
    return [entry for entry in entries if not entry.obsolete]


@pytest.mark.parametrize("app", APPS)
def test_every_string_is_translated(app):
    entries = live(read_po(APPS[app] / PO))
    assert len(entries) > 100

    untranslated = [e.msgid for e in entries if not e.msgstr or not all(e.msgstr.values())]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    placeholders = [
        e.msgid
        for e in entries
        for text in e.msgstr.values()
        if sorted(PLACEHOLDER.findall(text)) != sorted(PLACEHOLDER.findall(e.msgid))
        and not e.msgid_plural
    ]

    assert untranslated == []
    assert fuzzy == []
    assert placeholders == []


@pytest.mark.parametrize("app", APPS)
def test_the_compiled_catalogue_is_the_po(app):
    entries = live(read_po(APPS[app] / PO))
    compiled = gettext.GNUTranslations((APPS[app] / PO.with_suffix(".mo")).open("rb"))
    catalog = compiled._catalog  # type: ignore[attr-defined]

    keys = {k if isinstance(k, str) else k[0] for k in catalog} - {""}
    assert keys == {e.key for e in entries}
    for entry in entries:
        if not entry.msgid_plural:
            assert catalog[entry.key] == entry.msgstr[0], entry.msgid


@pytest.mark.parametrize("app", APPS)
def test_the_po_holds_every_string_the_source_marks(app, tmp_path):
    """``makemessages`` on a copy of the sources finds nothing the catalogue lacks."""
    if shutil.which("xgettext") is None:
        pytest.skip("makemessages needs GNU gettext (apt-get install gettext)")
    copy = tmp_path / app
    shutil.copytree(APPS[app], copy, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    admin = Path(sys.executable).with_name("django-admin")
    # Without settings, as a developer runs it in the app's folder.
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    run = subprocess.run(
        [str(admin), "makemessages", "-l", "pt_BR"],
        cwd=copy,
        capture_output=True,
        text=True,
        env=environment,
    )
    assert run.returncode == 0, run.stderr

    marked = {e.key for e in live(read_po(copy / PO))}
    committed = {e.key for e in live(read_po(APPS[app] / PO))}
    assert sorted(marked - committed) == []
    assert sorted(committed - marked) == []  # none kept for a string no longer used
