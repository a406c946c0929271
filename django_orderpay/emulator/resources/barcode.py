"""A boleto's barcode (44 digits) and typeable line (47 digits), check digits right.

As FEBRABAN lays them out: bank (3), currency ``9``, the general check digit
(modulo 11), the due-date factor (days since 1997-10-07, restarting at 1000
on 2025-02-22), the amount (10 digits of cents) and a 25-digit free field.
The typeable line reorders them into five fields, the first three each with
a modulo-10 check digit.
"""

from __future__ import annotations

import datetime as dt

#: PagSeguro Internet's bank code (the boletos PagBank issues).
BANK = "290"
CURRENCY = "9"
FACTOR_BASE = dt.date(1997, 10, 7)
#: Factor 9999 was 2025-02-21; the next day the count restarted at 1000.
FACTOR_RESTART = dt.date(2025, 2, 22)
MAX_AMOUNT = 99_999_999_99


def due_factor(due: dt.date) -> str:
    """The four-digit due-date factor of ``due``."""
    days = (due - FACTOR_BASE).days
    if days <= 9999:
        return f"{days:04d}"
    return f"{(due - FACTOR_RESTART).days % 9000 + 1000:04d}"


def modulo_11(digits: str) -> str:
    """The barcode's general check digit: weights 2 to 9 from the right; 0, 10, 11 give 1."""
    weights = [2, 3, 4, 5, 6, 7, 8, 9]
    total = sum(int(d) * weights[i % 8] for i, d in enumerate(reversed(digits)))
    digit = 11 - total % 11
    return "1" if digit in (0, 10, 11) else str(digit)


def modulo_10(digits: str) -> str:
    """A typeable-line field's check digit: weights 2, 1, 2... from the right, digits summed."""
    total = 0
    for i, d in enumerate(reversed(digits)):
        product = int(d) * (2 if i % 2 == 0 else 1)
        total += product // 10 + product % 10
    return str((10 - total % 10) % 10)


def barcode(*, amount: int, due: dt.date, free_field: str, bank: str = BANK) -> str:
    """The 44-digit barcode of a boleto of ``amount`` cents due on ``due``."""
    if not (len(free_field) == 25 and free_field.isdigit()):
        raise ValueError("the free field is 25 digits")
    if not 0 <= amount <= MAX_AMOUNT:
        raise ValueError("a boleto's amount fits in 10 digits of cents")
    body = f"{bank}{CURRENCY}{due_factor(due)}{amount:010d}{free_field}"
    return body[:4] + modulo_11(body) + body[4:]


def typeable_line(code: str) -> str:
    """The 47-digit typeable line ("linha digitável") of a 44-digit barcode."""
    free = code[19:44]
    first = code[0:4] + free[0:5]
    second = free[5:15]
    third = free[15:25]
    return (
        first
        + modulo_10(first)
        + second
        + modulo_10(second)
        + third
        + modulo_10(third)
        + code[4]
        + code[5:19]
    )


def formatted(line: str) -> str:
    """``AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE``, as printed on a boleto."""
    return (
        f"{line[0:5]}.{line[5:10]} {line[10:15]}.{line[15:21]} "
        f"{line[21:26]}.{line[26:32]} {line[32]} {line[33:47]}"
    )


def barcode_of_line(line: str) -> str:
    """Back from a typeable line to its barcode (what a bank's app does when one is typed)."""
    return line[0:4] + line[32] + line[33:47] + line[4:9] + line[10:20] + line[21:31]
