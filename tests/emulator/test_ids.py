from __future__ import annotations

import re

from django_orderpay.emulator.state import ids

UUID_UPPER = r"[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}"


def test_new_id_is_prefix_and_upper_case_uuid4():
    for prefix in ("ORDE_", "CHAR_", "CARD_", "SPLI_", "ACCO_"):
        value = ids.new_id(prefix)
        assert re.fullmatch(re.escape(prefix) + UUID_UPPER, value)


def test_new_ids_differ():
    assert len({ids.new_id("ORDE_") for _ in range(100)}) == 100


def test_digit_strings_have_the_provider_lengths():
    for _ in range(50):
        assert re.fullmatch(r"\d{12}", ids.nsu())
        assert re.fullmatch(r"\d{6}", ids.authorization_code())
        assert re.fullmatch(r"\d{15}", ids.brand_reference_id())
