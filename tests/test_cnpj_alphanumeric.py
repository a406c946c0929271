"""Alphanumeric CNPJs (issued from July 2026) end to end: builders, the emulator, the mirror.

The builders' rule is pinned in ``test_payloads_text``; here the emulator,
as the real API from July 2026, takes one sent around the builders too, and
still refuses a malformed one naming the field (check digits are checked
where PagBank documents them: a boleto's payer, a sub-merchant).
"""

from __future__ import annotations

import pytest

from django_orderpay.client import get_client
from django_orderpay.exceptions import ProviderError
from django_orderpay.services import create_order
from tests.test_services_support import charge, order_payload

pytestmark = pytest.mark.django_db

#: The Receita Federal's example.
CNPJ = "12ABC34501DE35"


def with_tax_id(reference_id: str, tax_id: str) -> dict:
    body = order_payload(reference_id, charges=[charge(500)])
    body["customer"]["tax_id"] = tax_id
    return body


def test_an_order_for_a_company_with_an_alphanumeric_cnpj_is_charged_and_mirrored(
    orderpay_emulator,
):
    order = create_order(with_tax_id("cnpj-1", CNPJ.lower()))

    assert order.status == "PAID"
    assert order.data["customer"]["tax_id"] == CNPJ
    assert get_client().get_order(order.provider_id)["customer"]["tax_id"] == CNPJ


@pytest.mark.parametrize(
    ("tax_id", "accepted"),
    [
        (CNPJ, True),
        # A customer's check digits are not PagBank's to refuse (its examples' wrong ones pay).
        ("12ABC34501DE36", True),
        ("12ABC34501DE3A", False),
    ],
)
def test_the_emulator_checks_an_alphanumeric_cnpj_as_the_real_api(
    orderpay_emulator, tax_id, accepted
):
    api = get_client()
    if accepted:
        assert api.create_order(with_tax_id("cnpj-2", tax_id))["customer"]["tax_id"] == tax_id
        return
    with pytest.raises(ProviderError) as caught:
        api.create_order(with_tax_id("cnpj-2", tax_id))
    assert caught.value.status == 400
    assert [m.parameter_name for m in caught.value.error_messages] == ["customer.tax_id"]
