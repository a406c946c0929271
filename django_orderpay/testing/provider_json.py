"""Provider answers as JSON, shaped field for field like the provider's.

Feed them to :func:`django_orderpay.sync.sync_order` (or ``sync_charge``,
``sync_split``) when a test wants rows made the real way; the model
factories in :mod:`django_orderpay.testing.factories` make rows directly.
Provider ids have the provider's format: prefix + upper-case UUID.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.utils import timezone

from ..models import PROVIDER_TIMEZONE, ChargeStatus, SplitMethod
from . import samples

BASE_URL = samples.SANDBOX_URL


def provider_id(prefix: str) -> str:
    """A provider id: ``ORDE_``/``CHAR_``/``CARD_``/``SPLI_``/``ACCO_`` + upper-case UUID."""
    return f"{prefix}{str(uuid.uuid4()).upper()}"


def timestamp(moment: dt.datetime) -> str:
    """The provider's format: -03:00 offset, milliseconds."""
    return moment.astimezone(PROVIDER_TIMEZONE).isoformat(timespec="milliseconds")


def link(rel: str, href: str, method: str = "GET") -> dict[str, str]:
    return {"rel": rel, "href": href, "media": "application/json", "type": method}


def card_json(
    *,
    token_id: str | None = None,
    store: bool = False,
    brand: str = "visa",
    first_digits: str = "411111",
    last_digits: str = "1111",
    holder: str = "Jose da Silva",
) -> dict[str, Any]:
    """``payment_method.card`` of a charge answer (no number, no security code)."""
    card: dict[str, Any] = {
        "brand": brand,
        "first_digits": first_digits,
        "last_digits": last_digits,
        "exp_month": "12",
        "exp_year": "2030",
        "holder": {"name": holder},
    }
    if token_id:
        card = {"id": token_id, **card}
    if store:
        card["store"] = True
    return card


def charge_json(
    *,
    status: str = ChargeStatus.PAID,
    amount: int = 500,
    paid: int | None = None,
    refunded: int = 0,
    charge_id: str | None = None,
    reference_id: str = "ch-00001",
    card: dict[str, Any] | None = None,
    capture: bool = True,
    installments: int = 1,
    recurring: dict[str, Any] | None = None,
    brand_reference_id: str | None = None,
    split_id: str | None = None,
    split_method: str | None = None,
    created_at: dt.datetime | None = None,
) -> dict[str, Any]:
    """One charge of an Order answer, as the provider returns it."""
    charge_id = charge_id or provider_id("CHAR_")
    created_at = created_at or timezone.now()
    if paid is None:
        # Paid is the amount once captured, and stays so after a refund.
        paid = amount if status == ChargeStatus.PAID or refunded else 0
    approved = status not in (ChargeStatus.DECLINED,)
    response: dict[str, Any] = (
        samples.order_response()["charges"][0]["payment_response"]
        if approved
        else {
            "code": "20003",
            "message": "NAO AUTORIZADA",
            "reference": "032416400103",
            "raw_data": {"reason_code": "51"},
        }
    )
    if brand_reference_id:
        response["brand_reference_id"] = brand_reference_id
    method: dict[str, Any] = {
        "type": "CREDIT_CARD",
        "installments": installments,
        "capture": capture,
        "card": card if card is not None else card_json(),
        "soft_descriptor": "LOJAEXEMPLO",
    }
    href = f"{BASE_URL}/charges/{charge_id}"
    links = [link("SELF", href)]
    if status in (ChargeStatus.PAID, ChargeStatus.AUTHORIZED):
        links.append(link("CHARGE.CANCEL", f"{href}/cancel", "POST"))
    if status == ChargeStatus.AUTHORIZED:
        method["capture_before"] = timestamp(created_at + dt.timedelta(days=5))
        links.append(link("CHARGE.CAPTURE", f"{href}/capture", "POST"))
    if split_id:
        links.append(link("SPLIT", f"{BASE_URL}/splits/{split_id}"))
    charge: dict[str, Any] = {
        "id": charge_id,
        "reference_id": reference_id,
        "status": status,
        "created_at": timestamp(created_at),
        "description": "Pedido ex-00001",
        "amount": {
            "value": amount,
            "currency": "BRL",
            "summary": {"total": amount, "paid": paid, "refunded": refunded},
        },
        "payment_response": response,
        "payment_method": method,
        "links": links,
    }
    if status == ChargeStatus.PAID or (status == ChargeStatus.CANCELED and paid):
        charge["paid_at"] = timestamp(created_at + dt.timedelta(seconds=1))
    if recurring:
        charge["recurring"] = recurring
    if split_method:
        charge["splits"] = {"method": split_method}
    return charge


def order_json(
    *,
    charges: list[dict[str, Any]] | None = None,
    order_id: str | None = None,
    reference_id: str = "ex-00001",
    items: list[dict[str, Any]] | None = None,
    deep_link: dict[str, Any] | None = None,
    qr_code: dict[str, Any] | None = None,
    created_at: dt.datetime | None = None,
) -> dict[str, Any]:
    """An Order answer (create, pay, GET, or a notification body)."""
    order_id = order_id or provider_id("ORDE_")
    href = f"{BASE_URL}/orders/{order_id}"
    # The samples' answer (its customer, items, shipping), with these ids and times.
    order = samples.order_response(
        BASE_URL,
        id=order_id,
        reference_id=reference_id,
        created_at=timestamp(created_at or timezone.now()),
        charges=charges or [],
        links=[link("SELF", href), link("PAY", f"{href}/pay", "POST")],
    )
    if items is not None:
        order["items"] = items
    if deep_link is not None:
        order["deep_links"] = [deep_link]
    if qr_code is not None:
        order["qr_codes"] = [qr_code]
    return order


def qr_code_json(
    *,
    amount: int = 500,
    qr_code_id: str | None = None,
    expires_at: dt.datetime | None = None,
    arrangements: tuple[str, ...] = ("PIX",),
) -> dict[str, Any]:
    """``qr_codes[0]`` of a Pix Order answer (a day to pay, unless ``expires_at``)."""
    qr_code_id = qr_code_id or provider_id("QRCO_")
    expires_at = expires_at or timezone.now() + dt.timedelta(days=1)
    key = qr_code_id.removeprefix("QRCO_")
    href = f"{BASE_URL}/qrcode/{qr_code_id}"
    return {
        "id": qr_code_id,
        "expiration_date": expires_at.astimezone(PROVIDER_TIMEZONE).isoformat(timespec="seconds"),
        "amount": {"value": amount},
        "text": (
            "00020101021226830014br.gov.bcb.pix2561api.pagseguro.com/pix/v2/"
            f"{key}5204000053039865802BR5913Loja Exemplo6009Sao Paulo62070503***6304ABCD"
        ),
        "arrangements": list(arrangements),
        "links": [
            {"rel": "QRCODE.PNG", "href": f"{href}/png", "media": "image/png", "type": "GET"},
            {
                "rel": "QRCODE.BASE64",
                "href": f"{href}/base64",
                "media": "text/plain",
                "type": "GET",
            },
        ],
    }


def pix_charge_json(
    *, amount: int = 500, charge_id: str | None = None, status: str = ChargeStatus.PAID
) -> dict[str, Any]:
    """The charge a paid Pix QR code makes appear on its order."""
    charge = charge_json(charge_id=charge_id, amount=amount, status=status)
    charge["payment_method"] = {
        "type": "PIX",
        "pix": {
            "end_to_end_id": "E18236120202611241234s0123456789",
            "holder": {"name": "Jose da Silva", "tax_id": "***.456.789-**"},
        },
    }
    charge["payment_response"] = {"code": "20000", "message": "SUCESSO"}
    return charge


def boleto_charge_json(
    *,
    amount: int = 500,
    charge_id: str | None = None,
    status: str = ChargeStatus.WAITING,
    due_date: dt.date | None = None,
    paid: int | None = None,
) -> dict[str, Any]:
    """A boleto charge: WAITING until the payer pays it, with its barcode and PDF/PNG links."""
    charge = charge_json(charge_id=charge_id, amount=amount, status=status, paid=paid)
    boleto_id = str(uuid.uuid4()).upper()
    due = (due_date or timezone.localdate() + dt.timedelta(days=3)).isoformat()
    barcode = "03399853012970000024227020901016278150000015000"
    charge["payment_method"] = {
        "type": "BOLETO",
        "boleto": {
            "id": boleto_id,
            "barcode": barcode,
            "formatted_barcode": "03399.85301 29700.000242 27020.901016 2 78150000015000",
            "due_date": due,
            "instruction_lines": {"line_1": "Pagamento processado para DESC Fatura"},
            "holder": {"name": "Jose da Silva", "tax_id": "12345678909"},
        },
    }
    charge["payment_response"] = {"code": "20000", "message": "SUCESSO"}
    base = f"https://boleto.sandbox.pagseguro.com.br/{boleto_id.lower()}"
    charge["links"] = [
        {"rel": "SELF", "href": f"{base}.pdf", "media": "application/pdf", "type": "GET"},
        {"rel": "SELF", "href": f"{base}.png", "media": "image/png", "type": "GET"},
        *charge["links"],
    ]
    return charge


def deep_link_json(
    *, amount: int = 1500, deeplink_id: str | None = None, redirect_url: str | None = None
) -> dict[str, Any]:
    """``deep_links[0]`` of an Order answer."""
    deeplink_id = deeplink_id or uuid.uuid4().hex
    link: dict[str, Any] = {
        "url": f"https://sandbox.sdk.pagseguro.com/download?f=order&r={deeplink_id}",
        "amount": {"value": amount},
    }
    if redirect_url:
        link["redirect_url"] = redirect_url
    return link


def split_json(
    *, split_id: str | None = None, method: str = SplitMethod.FIXED, amounts: tuple = (7000, 3000)
) -> dict[str, Any]:
    """A Split answer (``GET /splits/{id}``)."""
    split_id = split_id or provider_id("SPLI_")
    receivers = [
        {
            "type": "PRIMARY" if index == 0 else "SECONDARY",
            "account": {"id": provider_id("ACCO_")},
            "amount": {"value": value},
        }
        for index, value in enumerate(amounts)
    ]
    return {
        "id": split_id,
        "method": method,
        "status": "PROCESSING",
        "created_at": timestamp(timezone.now()),
        "receivers": receivers,
        "links": [link("SELF", f"{BASE_URL}/splits/{split_id}")],
    }
