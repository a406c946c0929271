"""django_orderpay.testing.samples: fresh copies of the wire samples, changed by keyword."""

from __future__ import annotations

import subprocess
import sys

import pytest

from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT


def test_every_call_is_a_new_body():
    body = samples.order_request()
    body["customer"]["phones"].clear()
    body["charges"][0]["payment_method"]["card"]["number"] = "changed"

    again = samples.order_request()
    assert again["customer"]["phones"] == [
        {"country": "55", "area": "11", "number": "999999999", "type": "MOBILE"}
    ]
    assert samples.card()["number"] == "4111111111111111"


def test_the_parts_are_the_bodys_parts():
    body = samples.order_request()
    assert samples.customer() == body["customer"]
    assert samples.items() == body["items"]
    assert samples.shipping() == body["shipping"]
    assert samples.charge_request() == body["charges"][0]
    assert samples.payment_method() == body["charges"][0]["payment_method"]
    assert samples.card() == body["charges"][0]["payment_method"]["card"]


def test_a_keyword_replaces_a_field_omit_leaves_it_out_none_sends_null():
    card = samples.card(number="4539620659922097", store=OMIT, brand=None)
    assert card == {
        "number": "4539620659922097",
        "exp_month": "12",
        "exp_year": "2030",
        "security_code": "123",
        "holder": {"name": "Jose da Silva", "tax_id": "12345678909"},
        "brand": None,
    }
    assert list(samples.order_request(shipping=OMIT, charges=OMIT)) == [
        "reference_id",
        "customer",
        "items",
        "notification_urls",
    ]


def test_omitting_a_field_the_sample_lacks_names_it():
    with pytest.raises(KeyError, match="shiping"):
        samples.order_request(shiping=OMIT)


def test_the_answer_echoes_the_request_and_links_to_the_base_url():
    request = samples.order_request()
    answer = samples.order_response("http://127.0.0.1:8000/api")

    for field in ("reference_id", "items", "shipping", "notification_urls"):
        assert answer[field] == request[field]
    assert answer["customer"] == request["customer"]
    [charge] = answer["charges"]
    assert charge["status"] == "PAID" and charge["amount"]["summary"]["paid"] == 500
    assert "number" not in charge["payment_method"]["card"]
    assert [link["href"] for link in answer["links"]] == [
        "http://127.0.0.1:8000/api/orders/ORDE_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0",
        "http://127.0.0.1:8000/api/orders/ORDE_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0/pay",
    ]
    assert samples.order_response()["links"][0]["href"].startswith(samples.SANDBOX_URL)


def test_it_imports_no_django():
    # The emulator's tests use it where Django need not be set up.
    code = (
        "import sys; import django_orderpay.testing.samples; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
