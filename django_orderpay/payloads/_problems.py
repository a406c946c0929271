"""The error collector the builders share: every problem found, each named by its path.

Messages name the rule, never the value: a card number or security code must
not reach an exception message.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from decimal import Decimal
from typing import Any, TypeGuard

from django_orderpay import rules
from django_orderpay.exceptions import FieldError, PayloadError


def join(path: str, key: str) -> str:
    """``path.key`` (just ``key`` at the top level)."""
    return f"{path}.{key}" if path else key


def index(path: str, position: int) -> str:
    """``path[position]``."""
    return f"{path}[{position}]"


def is_int(value: Any) -> TypeGuard[int]:
    """A real integer: ``True`` and ``5.0`` are not."""
    return isinstance(value, int) and not isinstance(value, bool)


def not_an_integer(value: Any, *, money: bool = False) -> str:
    """The message for a value that is not a real integer, saying what it was instead.

    Money is integer cents: a float or Decimal is refused, never rounded
    (``19.90`` could mean R$ 19,90 or 19.9 cents).
    """
    if not money:
        return "must be an integer"
    if isinstance(value, float | Decimal):
        kind = type(value).__name__
        return f"must be an integer number of cents, not a {kind} (money is never rounded)"
    return "must be an integer number of cents"


class Problems:
    """Collects :class:`FieldError` s; each ``check_*`` answers whether the value passed."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def add(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message))

    def raise_if_any(self) -> None:
        if self.errors:
            raise PayloadError(self.errors)

    def present(self, path: str, value: Any, required: bool) -> bool:
        """False when ``value`` is absent (reporting it when ``required``)."""
        if value is None:
            if required:
                self.add(path, "is required")
            return False
        return True

    def text(
        self,
        path: str,
        value: Any,
        *,
        limit: str | tuple[int, int] | None = None,
        required: bool = True,
        pattern: re.Pattern[str] | str | None = None,
        pattern_message: str = "has an invalid format",
        choices: Collection[str] | None = None,
        choices_message: str | None = None,
    ) -> bool:
        """A string within ``limit`` (a ``FIELD_LIMITS`` key or a pair), ``pattern``, choices."""
        if not self.present(path, value, required):
            return False
        if not isinstance(value, str):
            self.add(path, "must be a string")
            return False
        if not rules.storable_text(value):
            # The provider would charge it; our database could not then mirror it.
            self.add(path, "contains a character that can't be stored (NUL or a lone surrogate)")
            return False
        bounds = rules.FIELD_LIMITS[limit] if isinstance(limit, str) else limit
        if bounds and not bounds[0] <= len(value) <= bounds[1]:
            low, high = bounds
            self.add(path, f"must be {low} to {high} characters long")
            return False
        if pattern is not None and not re.fullmatch(pattern, value):
            self.add(path, pattern_message)
            return False
        if choices is not None and value not in choices:
            self.add(path, choices_message or "must be one of " + ", ".join(sorted(choices)))
            return False
        return True

    def digits(self, path: str, value: Any, low: int, high: int, *, required: bool = True) -> bool:
        """A string of ``low``..``high`` ASCII digits."""
        size = str(low) if low == high else f"{low} to {high}"
        return self.text(
            path,
            value,
            required=required,
            pattern=rf"[0-9]{{{low},{high}}}",
            pattern_message=f"must be {size} digits",
        )

    def integer(
        self,
        path: str,
        value: Any,
        low: int,
        high: int,
        *,
        required: bool = True,
        money: bool = False,
    ) -> bool:
        """An integer within ``low``..``high`` (``money``: cents, so the message says so)."""
        if not self.present(path, value, required):
            return False
        if not is_int(value):
            self.add(path, not_an_integer(value, money=money))
            return False
        if not low <= value <= high:
            self.add(path, f"must be between {low} and {high}")
            return False
        return True

    def cents(self, path: str, value: Any, *, required: bool = True) -> bool:
        """An amount in cents: 1 to 999999999."""
        return self.integer(path, value, 1, rules.MAX_AMOUNT, required=required, money=True)

    def boolean(self, path: str, value: Any, *, required: bool = False) -> bool:
        if not self.present(path, value, required):
            return False
        if not isinstance(value, bool):
            self.add(path, "must be true or false")
            return False
        return True

    def tax_id(
        self, path: str, value: Any, *, required: bool = True, check_digits: bool = False
    ) -> bool:
        """A CPF (11 digits) or a CNPJ (14, letters allowed in the first 12); with
        ``check_digits``, their check digits right.

        PagBank checks the digits only where it documents it (a sub-merchant's) and
        where a bank registers the document (a boleto's payer): its card examples send
        a holder's CPF with wrong ones and are PAID, so a customer's or holder's are
        not refused for them. Compared upper-case (the builders send it so):
        ``12abc34501de35`` is the alphanumeric CNPJ ``12ABC34501DE35``.
        """
        if not self.text(path, value, required=required):
            return False
        if not re.fullmatch(r"[0-9]{11}|[0-9A-Za-z]{12}[0-9]{2}", value):
            self.add(
                path,
                "must be a CPF (11 digits) or a CNPJ (14 letters and digits), "
                "without dots, slashes or dashes",
            )
            return False
        if check_digits and not rules.valid_tax_id(value.upper()):
            self.add(path, "has wrong check digits for a CPF or CNPJ")
            return False
        return True

    def name(self, path: str, value: Any, *, limit: str, required: bool = True) -> bool:
        """A person's name: within ``limit``, without the characters PagBank refuses."""
        if not self.text(path, value, limit=limit, required=required):
            return False
        refused = rules.forbidden_name_characters(value)
        if refused:
            self.add(
                path,
                f"must not contain {' '.join(refused)} (PagBank refuses names with any of "
                f"{' '.join(rules.FORBIDDEN_NAME_CHARACTERS)})",
            )
            return False
        return True

    def sequence(self, path: str, value: Any) -> bool:
        """A list or tuple (the builders keep tuples)."""
        if not isinstance(value, list | tuple):
            self.add(path, "must be a list")
            return False
        return True

    def instance(self, path: str, value: Any, kind: type, *, required: bool = True) -> bool:
        """A nested builder of the right type."""
        if not self.present(path, value, required):
            return False
        if not isinstance(value, kind):
            self.add(path, f"must be a payloads.{kind.__name__}")
            return False
        return True


class Builder:
    """Base of the request builders: ``to_dict()`` and validation under a path.

    ``validate(path)`` raises :class:`PayloadError` listing every problem,
    each error's path prefixed with ``path`` (``charges[0]``), so a nested
    builder reports the path the provider would name.
    """

    def collect(self, problems: Problems, path: str) -> None:
        """Add this object's problems, named under ``path``, to ``problems``."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The JSON object the provider expects (no validation: see ``validate``)."""
        raise NotImplementedError

    def errors(self, path: str = "") -> list[FieldError]:
        """Every problem of this object, empty when it is valid."""
        problems = Problems()
        self.collect(problems, path)
        return problems.errors

    def validate(self, path: str = "") -> None:
        """Raise :class:`PayloadError` naming every invalid field."""
        errors = self.errors(path)
        if errors:
            raise PayloadError(errors)


def compact(**fields: Any) -> dict[str, Any]:
    """A JSON object without the fields that are ``None`` (the provider omits them)."""
    return {key: value for key, value in fields.items() if value is not None}
