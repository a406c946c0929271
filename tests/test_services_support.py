"""Request bodies and fixtures the services' tests share (no tests of its own).

Every services test runs against the ``orderpay_emulator`` fixture: real HTTP
to the emulator on 127.0.0.1, never a mock of our own code.
"""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

APPROVED_VISA = "4111111111111111"
DECLINED_VISA = "4929291898380766"
APPROVED_ELO = "4514161122113757"
CVV = "123"
OTHER_ACCOUNT = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
[NOTIFY_URL] = samples.order_request()["notification_urls"]


def raw_card(number: str = APPROVED_VISA, **extra: Any) -> dict[str, Any]:
    """``payment_method.card`` with the full card data (the holder's name only), not stored."""
    fields = {"number": number, "security_code": CVV, "holder": {"name": "Jose da Silva"}}
    return samples.card(**{**fields, "store": OMIT, **extra})


def charge(
    amount: int = 500,
    card: dict[str, Any] | None = None,
    *,
    capture: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """One ``charges[]`` entry paid by credit card."""
    entry = samples.charge_request(
        reference_id=OMIT,
        description="Pedido de teste",
        amount={"value": amount, "currency": "BRL"},
        payment_method=samples.payment_method(
            capture=capture, card=card if card is not None else raw_card()
        ),
    )
    entry.update(extra)
    return entry


def order_payload(
    reference_id: str = "ex-00001",
    *,
    charges: list[dict[str, Any]] | None = None,
    items: int = 1,
    unit_amount: int = 500,
    **extra: Any,
) -> dict[str, Any]:
    """A create-order body as the samples show it, ``items`` Camisetas; no charges unless given."""
    body = samples.order_request(
        reference_id=reference_id,
        items=[
            {
                "reference_id": f"sku-{n}",
                "name": f"Camiseta {n}",
                "quantity": 1,
                "unit_amount": unit_amount,
            }
            for n in range(1, items + 1)
        ],
        charges=OMIT,
    )
    if charges is not None:
        body["charges"] = charges
    body.update(extra)
    return body


def encrypted_visa(public_key: str) -> str:
    """The approved Visa (CVV, 12/2030, Jose da Silva) encrypted with ``public_key``.

    Each call's blob differs, as the browser SDK's do.
    """
    from django_orderpay.cardcrypto import encrypt_card

    return encrypt_card(
        public_key,
        number=APPROVED_VISA,
        security_code=CVV,
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )


def encrypted_card() -> dict[str, Any]:
    """``payment_method.card`` with the approved Visa encrypted by the emulator's key."""
    from django_orderpay.services import get_public_key

    return {"encrypted": encrypted_visa(get_public_key()), "holder": {"name": "Jose da Silva"}}


#: The client's timeout under ``no_retries``: well under the second a ``timeout`` fault
#: holds its answer. ``make mutants`` raises it (``ORDERPAY_TEST_TIMEOUT``): on a loaded
#: machine a plain answer can take longer than 0.3 s, never less than that second.
NO_RETRIES_TIMEOUT = float(os.environ.get("ORDERPAY_TEST_TIMEOUT", "0.3"))


def closed_port() -> str:
    """A local URL nothing listens on: every connection to it is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def no_retries(orderpay_emulator, orderpay):
    """One attempt per call, a short timeout: each call meets the fault itself."""
    orderpay(RETRIES=0, TIMEOUT=NO_RETRIES_TIMEOUT)


@pytest.fixture
def buyer(django_user_model):
    return django_user_model.objects.create_user("buyer", "buyer@example.com")


@pytest.fixture
def other_buyer(django_user_model):
    return django_user_model.objects.create_user("other", "other@example.com")
