"""A rendered answer shares nothing with the emulator's records.

``render`` copies each record's JSON parts into the answer (``copy_json``):
a caller changing an answer in place changes no later answer.
"""

from __future__ import annotations

import json

from django_orderpay.emulator.resources.render import order_json
from django_orderpay.emulator.state.jsonbody import copy_json
from tests.emulator.core_support import BASE_URL, charge_payload


def test_copy_json_copies_every_dict_and_list_and_keeps_the_rest():
    value = {"a": [1, {"b": "c"}], "d": None, "e": 1.5, "f": True, "g": "text"}

    copied = copy_json(value)

    assert copied == value
    assert copied is not value
    assert copied["a"] is not value["a"]
    assert copied["a"][1] is not value["a"][1]
    assert copy_json([[], {}]) == [[], {}]
    assert copy_json(7) == 7


def test_changing_a_rendered_order_changes_no_later_answer(api, emulator):
    created = api.create_order(charges=[charge_payload()])
    state = emulator._state
    record = state.orders[created["id"]]

    first = order_json(state, record, BASE_URL)
    before = json.dumps(first, sort_keys=True)
    first["customer"]["name"] = "changed"
    first["items"][0]["quantity"] = 99
    first["charges"][0]["payment_method"]["card"]["brand"] = "changed"
    first["charges"][0]["payment_response"]["code"] = "changed"

    assert json.dumps(order_json(state, record, BASE_URL), sort_keys=True) == before
    assert api.get(f"/orders/{created['id']}").json() == created
