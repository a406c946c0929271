"""PagBank's documented Checkout bodies, kept as they are published, for tests to hold us to.

Sources:

- ``create_request()`` and ``create_response()``: the request and ``201``
  examples of PagBank's API reference, "Criar Checkout"
  (https://developer.pagbank.com.br/reference/criar-checkout). The docs
  mirror this package follows (DominaSys/web-package-pagbank-php-sdk,
  ``docs-pagbank/checkout/api/gerencie-checkout/01-criar-checkout.md``)
  lists the fields but drops the examples; these are the reference page's,
  as integrators' public code copies them word for word. They are not
  cleaned up: lower-case enums (``"credit_card"``, ``"installments_limit"``),
  a card method listed twice with different brands, a box on a FREE
  shipping, ``weight`` a number where the field list says string. The
  answer shows what the API makes of them.
- ``notification()``: the checkout's own notification, from "Webhooks"
  (https://developer.pagbank.com.br/reference/webhooks-checkout), whose
  opening (id, reference, dates) the page shows; the rest as integrators'
  public code copies it.

Each call returns a new dict. The request's ``expiration_date`` is the
documented one (2023-08-14): send it with the emulator's clock set before
it (``CREATED_AT``, the answer's ``created_at``).
"""

from __future__ import annotations

from typing import Any, Final

#: When the documented checkout was created (its answer's ``created_at``).
CREATED_AT: Final = "2023-06-14T16:34:30-03:00"
_IMAGE = "https://www.petz.com.br/blog//wp-content/upload/2018/09/tamanho-de-cachorro-pet-1.jpg"
_ADDRESS = {
    "country": "BRA",
    "region_code": "SP",
    "city": "São Paulo",
    "postal_code": "01452002",
    "street": "Faria Lima",
    "number": "1384",
    "locality": "Pinheiros",
    "complement": "5 andar",
}


def create_request() -> dict[str, Any]:
    """``POST /checkouts``, the reference's example."""
    return {
        "reference_id": "REFERÊNCIA DO PRODUTO",
        "expiration_date": "2023-08-14T19:09:10-03:00",
        "customer": {
            "name": "João teste",
            "email": "joao@teste.com",
            "tax_id": "12345678909",
            "phone": {"country": "+55", "area": "27", "number": "999999999"},
        },
        "customer_modifiable": True,
        "items": [
            {
                "reference_id": "ITEM01",
                "name": "Nome do Produto",
                "quantity": 1,
                "unit_amount": 500,
                "image_url": _IMAGE,
            }
        ],
        "additional_amount": 0,
        "discount_amount": 0,
        "shipping": {
            "type": "FREE",
            "amount": 0,
            "service_type": "PAC",
            "address": dict(_ADDRESS),
            "address_modifiable": True,
            "box": {"dimensions": {"length": 15, "width": 10, "height": 14}, "weight": 300},
        },
        "payment_methods": [
            {"type": "credit_card", "brands": ["mastercard"]},
            {"type": "credit_card", "brands": ["visa"]},
            {"type": "debit_card", "brands": ["visa"]},
            {"type": "PIX"},
            {"type": "BOLETO"},
        ],
        "payment_methods_configs": [
            {
                "type": "credit_card",
                "config_options": [{"option": "installments_limit", "value": "1"}],
            }
        ],
        "soft_descriptor": "xxxx",
        "redirect_url": "https://pagseguro.uol.com.br",
        "return_url": "https://pagseguro.uol.com.br",
        "notification_urls": ["https://pagseguro.uol.com.br"],
        "payment_notification_urls": ["https://pagseguro.uol.com.br"],
    }


def create_response() -> dict[str, Any]:
    """The reference's ``201`` answer to it (its customer as published: tax id zeros)."""
    return {
        "id": "CHEC_XXXX",
        "reference_id": "REFERÊNCIA DO PRODUTO",
        "expiration_date": "2023-08-14T19:09:10-03:00",
        "created_at": CREATED_AT,
        "status": "ACTIVE",
        "customer": {
            "name": "João Teste",
            "email": "joao@teste.com",
            "tax_id": "00000000000",
            "phone": {"country": "+55", "area": "27", "number": "999999999"},
        },
        "customer_modifiable": True,
        "items": [
            {
                "reference_id": "ITEM01",
                "name": "Nome do Produto",
                "quantity": 1,
                "unit_amount": 500,
                "image_url": _IMAGE,
            }
        ],
        "additional_amount": 0,
        "discount_amount": 0,
        "shipping": {
            "type": "FREE",
            "amount": 0,
            "address": dict(_ADDRESS),
            "address_modifiable": True,
        },
        "payment_methods": [
            {"type": "CREDIT_CARD", "brands": ["MASTERCARD", "VISA"]},
            {"type": "DEBIT_CARD", "brands": ["VISA"]},
            {"type": "PIX"},
            {"type": "BOLETO"},
        ],
        "payment_methods_configs": [
            {
                "type": "CREDIT_CARD",
                "config_options": [{"option": "INSTALLMENTS_LIMIT", "value": "1"}],
            }
        ],
        "soft_descriptor": "xxxx",
        "redirect_url": "https://pagseguro.uol.com.br",
        "return_url": "https://pagseguro.uol.com.br",
        "notification_urls": ["https://pagseguro.uol.com.br"],
        "payment_notification_urls": ["https://pagseguro.uol.com.br"],
        "links": [
            {
                "rel": "PAY",
                "href": "https://pagamento.pagseguro.uol.com.br/pagamento?code=XXXX",
                "method": "GET",
            },
            {
                "rel": "SELF",
                "href": "https://api.pagseguro.com/checkouts/CHEC_7A06F414-AC7F-4428-B27E-4BC853B8046B",
                "method": "GET",
            },
            {
                "rel": "INACTIVATE",
                "href": (
                    "https://api.pagseguro.com/checkouts/"
                    "CHEC_7A06F414-AC7F-4428-B27E-4BC853B8046B/inactivate"
                ),
                "method": "POST",
            },
        ],
    }


def notification() -> dict[str, Any]:
    """The checkout notification of "Webhooks" (an INACTIVE checkout, as published)."""
    return {
        "id": "CHEC_120301FA-8B8B-4C25-B07D-A4541EB78EB5",
        "reference_id": "6a45813f-2d11-4a4b-a91c-8cfe49862858",
        "expiration_date": "2023-06-14T21:45:00-03:00",
        "created_at": "2023-06-14T15:45:00-03:00",
        "status": "INACTIVE",
        "customer": {
            "name": "joao",
            "email": "joao@joao.com",
            "tax_id": "00000000000",
            "phone": {"country": "+55", "area": "27", "number": "999999999"},
        },
        "customer_modifiable": True,
        "items": [
            {
                "reference_id": "123",
                "name": "Compra Checkout Pagbank",
                "quantity": 1,
                "unit_amount": 500,
                "dimensions": {"length": 1234, "width": 10, "height": 12345},
                "weight": 10,
                "image_url": "https://www.google.com",
            }
        ],
        "additional_amount": 0,
        "discount_amount": 0,
        "shipping": {
            "type": "FREE",
            "service_type": "PAC",
            "amount": 0,
            "address": {
                "country": "BRA",
                "region_code": "SP",
                "city": "São Paulo",
                "postal_code": "01452002",
                "street": "Faria Lima",
                "number": "1384",
                "locality": "Pinheiros",
                "complement": "5 andar",
            },
            "address_modifiable": True,
        },
        "redirect_url": "https://pagseguro.uol.com.br",
        "return_url": "https://pagseguro.uol.com.br",
        "notification_urls": ["https://pagseguro.uol.com.br"],
        "links": [
            {
                "rel": "PAY",
                "href": "https://pagamento.pagseguro.uol.com.br/pagamento?code=xxxx",
                "method": "GET",
            },
            {
                "rel": "SELF",
                "href": "https://api.pagseguro.com/checkouts/CHEC_xxxx",
                "method": "GET",
            },
            {
                "rel": "INACTIVATE",
                "href": "https://api.pagseguro.com/checkouts/CHEC_xxxx/activate",
                "method": "POST",
            },
        ],
    }
