"""One-time keys for what a person meant once: a checkout attempt, a confirmation page.

A page that moves money carries a fresh random key, an *intent*, in a hidden
field (:class:`IntentField`). Every post of that page carries the same one:
a double click, two clicks on two buttons of it, the browser re-sending it
after a lost answer. The operations it starts take their idempotency keys
from it (:func:`operation_key`), so a repeat joins the first operation, or
is answered from it once it succeeded, instead of starting a second one
(``docs/services.md``, "Keys"). Rendered again, the page gets a new intent:
a new attempt.

An intent is no secret and proves nothing about who posted it; it only
tells one attempt from another. Whoever may act on the object is checked as
usual (the view's permissions, the card's owner).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

#: What an intent looks like: URL-safe base64, as :func:`new_intent` makes it.
INTENT_PATTERN = re.compile(r"[A-Za-z0-9_-]{22,64}")
#: The random bytes of a new intent (32 characters once encoded).
INTENT_BYTES = 24


def new_intent() -> str:
    """A fresh intent: 24 random bytes, URL-safe base64."""
    return secrets.token_urlsafe(INTENT_BYTES)


def is_intent(value: Any) -> bool:
    """Whether ``value`` is shaped as an intent (22 to 64 URL-safe base64 characters)."""
    return isinstance(value, str) and INTENT_PATTERN.fullmatch(value) is not None


def operation_key(intent: str, step: str) -> str:
    """The idempotency key of ``step`` (``create``, ``pay``, ``refund``...) of ``intent``.

    One intent may start several operations (an order created, then paid):
    each step gets its own key, and the same step the same key every time.
    """
    if not is_intent(intent):
        raise ValueError("not an intent (see new_intent())")
    if not re.fullmatch(r"[a-z0-9_]{1,32}", step):
        raise ValueError("step must be 1 to 32 lowercase letters, digits or underscores")
    return f"orderpay-intent-{step}-{intent}"


def intent_of(key: str, step: str) -> str | None:
    """The intent whose ``step`` an idempotency key is (:func:`operation_key`'s inverse), or
    None: what a page asks of the operation in flight, to offer sending it again."""
    prefix = f"orderpay-intent-{step}-"
    intent = key[len(prefix) :] if key.startswith(prefix) else ""
    return intent if is_intent(intent) else None


class IntentInput(forms.HiddenInput):
    """A hidden input that always renders a new intent, never a posted one.

    A page rendered again (a refused post shown with its errors) is a new
    attempt; only the browser re-sends an old intent, with the post it was
    made for.
    """

    def format_value(self, value: Any) -> str:
        return new_intent()


class IntentField(forms.CharField):
    """The page's intent: optional (a page without one just has no key of its own),
    refused when it is not shaped as one."""

    widget = IntentInput
    default_error_messages = {
        "invalid": _("This page is out of date: reload it and try again."),
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def clean(self, value: Any) -> str:
        value = super().clean(value)
        if value and not is_intent(value):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return str(value or "")
