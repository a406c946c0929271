"""One home for each rule shared by the request builders, the emulator, the settings and the
notification view: the same object everywhere, so they can't drift apart again."""

from __future__ import annotations

import pytest

from django_orderpay import conf, payloads, rules
from django_orderpay.client import api, http
from django_orderpay.emulator.resources import splits as emulator_splits
from django_orderpay.emulator.serving import wsgi
from django_orderpay.emulator.state import errors as emulator_errors
from django_orderpay.exceptions import PayloadError
from django_orderpay.notifications import verification
from django_orderpay.payloads import parse
from django_orderpay.services import create_order, get_split, pay_order
from tests.test_services_support import OTHER_ACCOUNT, charge, order_payload


def test_split_keys_and_the_account_id_pattern_have_one_home():
    assert parse.SPLITS_KEYS is emulator_splits.SPLITS_KEYS is rules.SPLITS_KEYS
    assert parse.RECEIVER_KEYS is emulator_splits.RECEIVER_KEYS is rules.RECEIVER_KEYS
    assert emulator_splits.RECEIVER_TYPES is rules.RECEIVER_TYPES
    assert payloads.ACCOUNT_ID_PATTERN is emulator_splits.ACCOUNT_ID_PATTERN
    assert payloads.ACCOUNT_ID_PATTERN is rules.ACCOUNT_ID_PATTERN


def test_the_body_limit_and_the_client_defaults_have_one_home():
    assert rules.MAX_BODY_SIZE == 1024 * 1024
    assert conf.DEFAULT_NOTIFICATION_MAX_BODY is rules.MAX_BODY_SIZE
    assert verification.DEFAULT_MAX_BODY_SIZE is rules.MAX_BODY_SIZE
    assert wsgi.MAX_BODY_SIZE is rules.MAX_BODY_SIZE
    assert (http.DEFAULT_TIMEOUT, http.DEFAULT_RETRIES) == (conf.DEFAULT_TIMEOUT, 3)
    assert api.DEFAULT_TIMEOUT is conf.DEFAULT_TIMEOUT


def test_the_unused_emulator_error_helper_is_gone():
    assert not hasattr(emulator_errors, "malformed_body")


# A receiver's ``type`` (PRIMARY or SECONDARY): the real API takes it, the emulator took it,
# the builders refused it. Now one key set, and the builders send what they are given.


MERCHANT = "ACCO_00000000-0000-4000-8000-00000000000A"


def _split_body(primary: str, *, primary_type: str = "PRIMARY") -> dict:
    return {
        "method": "FIXED",
        "receivers": [
            {"account": {"id": primary}, "amount": {"value": "7000"}, "type": primary_type},
            {"account": {"id": OTHER_ACCOUNT}, "amount": {"value": "3000"}, "type": "SECONDARY"},
        ],
    }


@pytest.mark.django_db
def test_a_receiver_type_is_taken_by_the_builders_and_the_emulator(orderpay_emulator):
    order = create_order(order_payload("split-typed", unit_amount=10000))

    paid = pay_order(order, [charge(10000, splits=_split_body(orderpay_emulator.account_id))])

    split = get_split(paid.charges.get())
    types = {r["account"]["id"]: r["type"] for r in split.receivers}
    assert types == {orderpay_emulator.account_id: "PRIMARY", OTHER_ACCOUNT: "SECONDARY"}


def test_a_receiver_builder_sends_its_type_and_refuses_a_wrong_one():
    receiver = payloads.Receiver.fixed(OTHER_ACCOUNT, 3000, type="SECONDARY")
    assert receiver.to_dict()["type"] == "SECONDARY"
    assert "type" not in payloads.Receiver.fixed(OTHER_ACCOUNT, 3000).to_dict()

    with pytest.raises(PayloadError) as caught:
        payloads.validate_pay_dict(
            {"charges": [charge(10000, splits=_split_body(MERCHANT, primary_type="MAIN"))]}
        )
    assert [e.path for e in caught.value.errors] == ["charges[0].splits.receivers[0].type"]


def test_provider_id_patterns_and_the_error_length_have_one_home():
    from django_orderpay.management.commands import orderpay_sync
    from django_orderpay.models.base import ERROR_TEXT_KEPT
    from django_orderpay.notifications import recording
    from django_orderpay.services import operations

    assert verification._ORDER_ID is orderpay_sync._ORDER_ID is rules.ORDER_ID_PATTERN
    assert verification._CHARGE_ID is rules.CHARGE_ID_PATTERN
    assert recording.MAX_ERROR_LENGTH is operations.MAX_ERROR_LENGTH is ERROR_TEXT_KEPT
    assert rules.ORDER_ID_PATTERN.fullmatch("ORDE_" + "A" * 59)
    assert not rules.ORDER_ID_PATTERN.fullmatch("ORDE_" + "A" * 60)  # the first refused
    assert not rules.ORDER_ID_PATTERN.fullmatch("ORDE_../charges")
