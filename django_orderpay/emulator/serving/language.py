"""The emulator's pages in their reader's language: English or Brazilian Portuguese.

A person reads four of its pages: the bank's 3-D Secure challenge, the
boleto's bank page, the PagBank app's stand-in and Connect's authorisation
page (and its error page). They follow the shop's
language: the cookie Django's ``set_language`` view leaves (the demo serves
the emulator on the shop's own host), else the browser's ``Accept-Language``.
Their words are the package's own catalogue (``django_orderpay/locale``),
read with the standard library's :mod:`gettext`: the emulator needs no
Django settings. A page's module marks its words with :func:`mark` imported
as ``_``, so ``makemessages`` finds them.
"""

from __future__ import annotations

import gettext
from functools import cache
from http.cookies import CookieError, SimpleCookie
from pathlib import Path

from .http import Request

#: The cookie Django's ``set_language`` view sets (its ``LANGUAGE_COOKIE_NAME`` default).
LANGUAGE_COOKIE = "django_language"
#: The languages the package is written in; the first is the fallback.
LANGUAGES = ("en", "pt-br")
_LOCALE = Path(__file__).resolve().parents[2] / "locale"


def mark(message: str) -> str:
    """A word to translate when a page is rendered (see :func:`words`): returned as is."""
    return message


def _supported(tag: str) -> str | None:
    tag = tag.strip().lower().replace("_", "-")
    if tag.startswith("pt"):
        return "pt-br"
    if tag.startswith("en"):
        return "en"
    return None


def language(request: Request) -> str:
    """``"pt-br"`` or ``"en"``: the language cookie's, else the best of ``Accept-Language``."""
    try:
        cookies = SimpleCookie(request.header("Cookie") or "")
    except CookieError:
        cookies = SimpleCookie()
    chosen = cookies.get(LANGUAGE_COOKIE)
    if chosen is not None and _supported(chosen.value):
        return _supported(chosen.value) or LANGUAGES[0]
    return accepted(request.header("Accept-Language"))


def accepted(accept_language: str | None) -> str:
    """The language of ours an ``Accept-Language`` header ranks highest (else English)."""
    ranked = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, parameters = part.partition(";")
        weight = 1.0
        if parameters.strip().startswith("q="):
            try:
                weight = float(parameters.strip()[2:])
            except ValueError:
                weight = 0.0
        supported = _supported(tag)
        if supported is not None and weight > 0:
            ranked.append((-weight, position, supported))
    return min(ranked)[2] if ranked else LANGUAGES[0]


@cache
def _catalogue(code: str) -> gettext.NullTranslations:
    if code == "en":
        return gettext.NullTranslations()
    return gettext.translation("django", _LOCALE, languages=["pt_BR"], fallback=True)


def words(request: Request) -> gettext.NullTranslations:
    """The catalogue of the request's :func:`language` (``words(request).gettext(...)``)."""
    return _catalogue(language(request))


def money(cents: int, code: str) -> str:
    """``R$ 1.234,56`` (Brazilian Portuguese) or ``R$ 1,234.56`` (English)."""
    whole, part = divmod(cents, 100)
    text = f"{whole:,}.{part:02d}"
    if code == "pt-br":
        text = text.replace(",", "_").replace(".", ",").replace("_", ".")
    return f"R$ {text}"
