"""The provider's wire samples as dicts: the bodies a shop's request and the answer must match.

``order_request()`` is the one-step create of the samples ("Create order, one
step, raw card, store"), written out once, field for field; ``customer()``,
``items()``, ``shipping()``, ``charge_request()``, ``payment_method()`` and
``card()`` are its parts. ``order_response()`` is the provider's ``201`` answer
to it. Every call returns a new dict, so a test may change what it gets.

Keywords replace the top-level field of that name (a new name is added at the
end); :data:`OMIT` leaves the field out, ``None`` sends JSON ``null``::

    order_request(reference_id="shop-1", shipping=OMIT)
    charge_request(payment_method=payment_method(card=card(store=OMIT)))

Pure data: no Django, so the emulator's tests can use it without settings.
"""

from __future__ import annotations

from typing import Any, Final

#: The API base the answer's links name unless told otherwise.
SANDBOX_URL: Final = "https://sandbox.api.pagseguro.com"


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


#: As a keyword's value: leave that field out of the body.
OMIT: Final = _Omit()


def order_request(**overrides: Any) -> dict[str, Any]:
    """``POST /orders``: one step, a raw card charged at once and stored."""
    # A literal built on each call (not a deep copy of a constant): as fresh,
    # and as cheap as the dict literal the payload benchmark measures it as.
    body: dict[str, Any] = {
        "reference_id": "ex-00001",
        "customer": {
            "name": "Jose da Silva",
            "email": "jose@example.com",
            "tax_id": "12345678909",
            "phones": [{"country": "55", "area": "11", "number": "999999999", "type": "MOBILE"}],
        },
        "items": [{"reference_id": "sku-1", "name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        "shipping": {
            "address": {
                "street": "Avenida Brigadeiro Faria Lima",
                "number": "1384",
                "complement": "apto 12",
                "locality": "Pinheiros",
                "city": "Sao Paulo",
                "region_code": "SP",
                "country": "BRA",
                "postal_code": "01452002",
            }
        },
        "notification_urls": ["https://shop.example.com/orderpay/notifications/"],
        "charges": [
            {
                "reference_id": "ch-00001",
                "description": "Pedido ex-00001",
                "amount": {"value": 500, "currency": "BRL"},
                "payment_method": {
                    "type": "CREDIT_CARD",
                    "installments": 1,
                    "capture": True,
                    "card": {
                        "number": "4111111111111111",
                        "exp_month": "12",
                        "exp_year": "2030",
                        "security_code": "123",
                        "holder": {"name": "Jose da Silva", "tax_id": "12345678909"},
                        "store": True,
                    },
                },
            }
        ],
    }
    return _changed(body, overrides)


def customer(**overrides: Any) -> dict[str, Any]:
    """``customer`` of :func:`order_request` (with its one MOBILE phone)."""
    return _changed(order_request()["customer"], overrides)


def items() -> list[dict[str, Any]]:
    """``items`` of :func:`order_request`: one Camiseta of 500 cents."""
    return order_request()["items"]


def shipping(**overrides: Any) -> dict[str, Any]:
    """``shipping`` of :func:`order_request` (an ``address`` with a complement)."""
    return _changed(order_request()["shipping"], overrides)


def charge_request(**overrides: Any) -> dict[str, Any]:
    """``charges[0]`` of :func:`order_request`: 500 cents BRL, the raw card."""
    return _changed(order_request()["charges"][0], overrides)


def payment_method(**overrides: Any) -> dict[str, Any]:
    """``charges[0].payment_method``: credit card, 1 installment, captured at once."""
    return _changed(charge_request()["payment_method"], overrides)


def card(**overrides: Any) -> dict[str, Any]:
    """``charges[0].payment_method.card``: the raw Visa test card, ``store: true``."""
    return _changed(payment_method()["card"], overrides)


def qr_codes(value: int = 500, **overrides: Any) -> list[dict[str, Any]]:
    """``qr_codes`` of a Pix order: one QR code of ``value`` cents (the default expiry)."""
    return [_changed({"amount": {"value": value}}, overrides)]


def boleto_charge_request(due_date: str, **overrides: Any) -> dict[str, Any]:
    """``charges[0]`` paid by boleto, due on ``due_date`` (``YYYY-MM-DD``): 500 cents."""
    body = order_request()
    payer = {key: body["customer"][key] for key in ("name", "tax_id", "email")} | {
        "address": body["shipping"]["address"]
    }
    charge: dict[str, Any] = {
        "reference_id": "ch-00001",
        "description": "Pedido ex-00001",
        "amount": {"value": 500, "currency": "BRL"},
        "payment_method": {
            "type": "BOLETO",
            "boleto": {
                "due_date": due_date,
                "instruction_lines": {
                    "line_1": "Pagamento processado para DESC Fatura",
                    "line_2": "Via PagBank",
                },
                "holder": payer,
            },
        },
    }
    return _changed(charge, overrides)


def order_response(base_url: str = SANDBOX_URL, **overrides: Any) -> dict[str, Any]:
    """The ``201`` answer to :func:`order_request`: the order with its charge PAID.

    It echoes the request's customer, items, shipping and notification URLs;
    ``base_url`` is the API base its links name.
    """
    request = order_request()
    order_id = "ORDE_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"
    charge_id = "CHAR_1A2B3C4D-5E6F-7081-92A3-B4C5D6E7F809"
    answer: dict[str, Any] = {
        "id": order_id,
        "reference_id": request["reference_id"],
        "created_at": "2026-11-21T14:05:31.482-03:00",
        # The provider answers a phone's fields in another order.
        "customer": _changed(
            request["customer"],
            {"phones": [{"type": "MOBILE", "country": "55", "area": "11", "number": "999999999"}]},
        ),
        "items": request["items"],
        "shipping": request["shipping"],
        "charges": [
            {
                "id": charge_id,
                "reference_id": "ch-00001",
                "status": "PAID",
                "created_at": "2026-11-21T14:05:31.611-03:00",
                "paid_at": "2026-11-21T14:05:32.000-03:00",
                "description": "Pedido ex-00001",
                "amount": {
                    "value": 500,
                    "currency": "BRL",
                    "summary": {"total": 500, "paid": 500, "refunded": 0},
                },
                "payment_response": {
                    "code": "20000",
                    "message": "SUCESSO",
                    "reference": "032416400102",
                    "raw_data": {
                        "authorization_code": "145803",
                        "nsu": "032416400102",
                        "reason_code": "00",
                    },
                },
                "payment_method": {
                    "type": "CREDIT_CARD",
                    "installments": 1,
                    "capture": True,
                    "card": {
                        "id": "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D",
                        "brand": "visa",
                        "first_digits": "411111",
                        "last_digits": "1111",
                        "exp_month": "12",
                        "exp_year": "2030",
                        "holder": {"name": "Jose da Silva"},
                        "store": True,
                    },
                    "soft_descriptor": "LOJAEXEMPLO",
                },
                "links": [
                    _link("SELF", f"{base_url}/charges/{charge_id}", "GET"),
                    _link("CHARGE.CANCEL", f"{base_url}/charges/{charge_id}/cancel", "POST"),
                ],
            }
        ],
        "notification_urls": request["notification_urls"],
        "links": [
            _link("SELF", f"{base_url}/orders/{order_id}", "GET"),
            _link("PAY", f"{base_url}/orders/{order_id}/pay", "POST"),
        ],
    }
    return _changed(answer, overrides)


def _link(rel: str, href: str, method: str) -> dict[str, str]:
    return {"rel": rel, "href": href, "media": "application/json", "type": method}


def _changed(fields: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    for name, value in overrides.items():
        if value is OMIT:
            del fields[name]  # a KeyError names a misspelt field
        else:
            fields[name] = value
    return fields
