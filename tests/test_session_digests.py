"""The digests of a session key stay HMAC-SHA1, whatever Django's default becomes.

Django 6.1 warns that ``salted_hmac``'s default algorithm will change to
SHA-256. A plans token rendered, or card attempts counted, for a session
before an upgrade must still match that session after it, so every call
names its algorithm.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import warnings
from pathlib import Path
from types import SimpleNamespace

from django.conf import settings

import django_orderpay
from django_orderpay.card_testing import SESSION_SALT, Shopper
from django_orderpay.checkout import PLANS_SALT, session_binding

KEY = "k3y0fas3ssion"


def sha1_digest(salt: str, value: str) -> str:
    """``salted_hmac(salt, value, algorithm="sha1").hexdigest()[:24]``, by hand."""
    key = hashlib.sha1((salt + settings.SECRET_KEY).encode()).digest()
    return hmac.new(key, value.encode(), hashlib.sha1).hexdigest()[:24]


def test_the_session_digests_are_hmac_sha1_and_warn_of_nothing():
    request = SimpleNamespace(session=SimpleNamespace(session_key=KEY))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Django 6.1's RemovedInDjango2028Warning among them
        binding = session_binding(request)
        identity = Shopper(session_key=KEY).identity

    assert binding == sha1_digest(PLANS_SALT, KEY)
    assert identity == "session:" + sha1_digest(SESSION_SALT, KEY)


def test_every_salted_hmac_of_the_package_names_its_algorithm():
    root = Path(django_orderpay.__file__).parent
    calls = {
        f"{path.relative_to(root)}:{node.lineno}": [keyword.arg for keyword in node.keywords]
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "salted_hmac"
    }
    assert len(calls) >= 2  # the plans token's session binding, the card-testing identity
    assert [where for where, keywords in calls.items() if "algorithm" not in keywords] == []
