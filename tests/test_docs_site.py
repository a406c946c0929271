"""The documentation site (mkdocs.yml) and what points at it.

`make docs` builds the site strictly (a broken link or anchor inside docs/
fails it; CI runs it). These tests check what that build cannot: every page
of docs/ is in the navigation (mkdocs only warns about an omitted page), and
the README's links, absolute so they work on a package index, name a page
and an anchor the site has.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE = "https://django-orderpay.readthedocs.io/en/latest/"


def nav_pages() -> list[str]:
    """The .md files named in mkdocs.yml's ``nav`` (read as text: no YAML parser needed)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config.split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", nav, re.MULTILINE)


def slug(heading: str) -> str:
    """A heading's anchor as mkdocs makes it (Python-Markdown's toc ``slugify``)."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(m[1]) for m in re.finditer(r"^#{1,6} (.+?)\s*$", text, re.MULTILINE)}


def test_every_docs_page_is_in_the_navigation_once():
    listed = nav_pages()
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(set(listed)) == pages
    assert len(listed) == len(set(listed))


def test_the_home_page_and_the_changelog_are_the_readme_and_the_changelog():
    assert (DOCS / "index.md").read_text().strip() == '--8<-- "README.md"'
    assert (DOCS / "changelog.md").read_text().strip() == '--8<-- "CHANGELOG.md"'


def test_the_readme_links_to_the_site_by_absolute_urls_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    relative = re.findall(r"\]\((?!https?://|#)([^)]+)\)", readme)
    assert relative == [], "a relative link is dead on a package index"
    links = re.findall(rf"\]\({re.escape(SITE)}([^)]*)\)", readme)
    assert len(links) >= 15
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        page = DOCS / ((path.strip("/") or "index") + ".md")
        if not page.is_file() or (anchor and anchor not in anchors(page)):
            broken.append(link)
    assert broken == []


def test_the_slug_matches_the_anchors_the_docs_link_to():
    assert slug("3-D Secure, debit, installment fees, cards stored without a charge") == (
        "3-d-secure-debit-installment-fees-cards-stored-without-a-charge"
    )
    assert slug("Prepared statements: let PostgreSQL plan the hot statements once") == (
        "prepared-statements-let-postgresql-plan-the-hot-statements-once"
    )
    assert slug("The WSGI app (`django_orderpay.emulator.serving.wsgi`)") == (
        "the-wsgi-app-django_orderpayemulatorservingwsgi"
    )


def test_the_project_urls_point_at_the_site():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'Documentation = "{SITE.removesuffix("en/latest/")}"' in pyproject
    assert f'Changelog = "{SITE}changelog/"' in pyproject
    assert f"site_url: {SITE}" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_read_the_docs_builds_this_site_as_make_docs_does():
    """The site's URL is Read the Docs': its config builds mkdocs.yml, strictly, with the
    docs extra (read as text: no YAML parser in the test environments)."""
    config = (ROOT / ".readthedocs.yaml").read_text(encoding="utf-8")
    assert re.search(r"^version: 2$", config, re.MULTILINE)
    mkdocs = config.split("\nmkdocs:\n", 1)[1].split("\n\n", 1)[0]
    assert "configuration: mkdocs.yml" in mkdocs and "fail_on_warning: true" in mkdocs
    assert re.search(r"extra_requirements:\n\s+- docs$", config, re.MULTILINE)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^docs = \[\n\s+\"mkdocs>=", pyproject, re.MULTILINE)


def test_the_version_lives_in_one_place_and_the_changelog_names_it():
    import django_orderpay

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "django_orderpay.__version__" }' in pyproject
    assert not re.search(r'^version = "', pyproject, re.MULTILINE)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.index("## Unreleased") < changelog.index(f"## {django_orderpay.__version__}")
    relative = re.findall(r"\]\((?!https?://|#)([^)]+)\)", changelog)
    assert relative == [], "the changelog is read on the site and in the repository alike"
