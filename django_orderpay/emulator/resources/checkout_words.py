"""What the hosted checkout page says, in English and Brazilian Portuguese.

The page speaks the shopper's language: ``?lang=pt-BR`` or ``?lang=en``,
else the browser's ``Accept-Language`` (Portuguese first: ``pt``), else
English. The emulator needs no settings or Django, so its words live here
rather than in the package's gettext catalogue.
"""

from __future__ import annotations

from ..serving.language import accepted
from ..serving.language import money as language_money

ENGLISH = "en"
PORTUGUESE = "pt-BR"
LANGUAGES = (ENGLISH, PORTUGUESE)

WORDS: dict[str, dict[str, str]] = {
    ENGLISH: {
        "title": "Pay with PagBank",
        "emulator": "emulator",
        "emulator_note": (
            "This page stands in for PagBank's checkout in django-orderpay's emulator: "
            "no real money moves."
        ),
        "other_language": "Português",
        "summary": "Your order",
        "quantity": "Qty",
        "shipping": "Shipping",
        "free": "Free",
        "discount": "Discount",
        "additional": "Additional amount",
        "total": "Total",
        "your_details": "Your details",
        "name": "Full name",
        "email": "E-mail",
        "tax_id": "CPF or CNPJ",
        "address": "Address",
        "street": "Street",
        "number": "Number",
        "complement": "Complement",
        "locality": "District",
        "city": "City",
        "region_code": "State",
        "postal_code": "CEP",
        "shipping_service": "Shipping service",
        "method": "Payment method",
        "CREDIT_CARD": "Credit card",
        "DEBIT_CARD": "Debit card",
        "PIX": "Pix",
        "BOLETO": "Boleto",
        "holder": "Name on the card",
        "card_number": "Card number",
        "exp_month": "Expiry month",
        "exp_year": "Expiry year",
        "security_code": "Security code",
        "installments": "Installments",
        "plan_free": "{count}x {share} interest-free",
        "plan_interest": "{count}x {share} (total {total})",
        "pay": "Pay {amount}",
        "paying": "Paying…",
        "pix_title": "Pay with Pix",
        "pix_hint": "Scan the QR code in your bank's app, or copy the code below.",
        "pix_code": "Pix copy and paste code",
        "pix_pay": "Pay with the emulated bank app",
        "boleto_title": "Your boleto",
        "boleto_hint": (
            "Pay it by its due date at any bank; PagBank confirms it in up to three business days."
        ),
        "boleto_line": "Typeable line",
        "boleto_pdf": "Open the boleto (PDF)",
        "back": "Back to the shop",
        "done_title": "Payment received",
        "done_text": "PagBank received your payment. You may close this page.",
        "paid_already": "This checkout has received a payment already.",
        "checkout_expired": "This payment link has expired.",
        "checkout_inactive": "This payment link is not available right now.",
        "checkout_not_found": "Payment link not found.",
        "declined": "The payment was declined. Try another card or payment method.",
        "card_invalid": "Check the card's details.",
        "not_authenticated": (
            "Your bank did not authenticate this card. Try another card or payment method."
        ),
        "debit_needs_3ds": (
            "This card can't be authenticated for debit. Try another card or payment method."
        ),
        "customer_required": "Fill in your name, e-mail and CPF or CNPJ.",
        "address_required": "Fill in the address.",
        "card_required": "Fill in the card's details.",
        "method_not_accepted": "This payment method is not accepted here.",
        "invalid_installments": "Choose the installments again.",
        "invalid_shipping_service": "Choose the shipping service.",
        "invalid_field": "Check this field: {field}.",
        "unreachable": "PagBank could not be reached. Try again.",
    },
    PORTUGUESE: {
        "title": "Pague com PagBank",
        "emulator": "emulador",
        "emulator_note": (
            "Esta página faz o papel do checkout do PagBank no emulador do django-orderpay: "
            "nenhum dinheiro de verdade se move."
        ),
        "other_language": "English",
        "summary": "Seu pedido",
        "quantity": "Qtd",
        "shipping": "Frete",
        "free": "Grátis",
        "discount": "Desconto",
        "additional": "Valor adicional",
        "total": "Total",
        "your_details": "Seus dados",
        "name": "Nome completo",
        "email": "E-mail",
        "tax_id": "CPF ou CNPJ",
        "address": "Endereço",
        "street": "Rua",
        "number": "Número",
        "complement": "Complemento",
        "locality": "Bairro",
        "city": "Cidade",
        "region_code": "Estado",
        "postal_code": "CEP",
        "shipping_service": "Serviço de entrega",
        "method": "Forma de pagamento",
        "CREDIT_CARD": "Cartão de crédito",
        "DEBIT_CARD": "Cartão de débito",
        "PIX": "Pix",
        "BOLETO": "Boleto",
        "holder": "Nome impresso no cartão",
        "card_number": "Número do cartão",
        "exp_month": "Mês de validade",
        "exp_year": "Ano de validade",
        "security_code": "Código de segurança",
        "installments": "Parcelas",
        "plan_free": "{count}x {share} sem juros",
        "plan_interest": "{count}x {share} (total {total})",
        "pay": "Pagar {amount}",
        "paying": "Pagando…",
        "pix_title": "Pague com Pix",
        "pix_hint": "Escaneie o QR code no app do seu banco ou copie o código abaixo.",
        "pix_code": "Código Pix copia e cola",
        "pix_pay": "Pagar com o app do banco emulado",
        "boleto_title": "Seu boleto",
        "boleto_hint": (
            "Pague até o vencimento em qualquer banco; o PagBank confirma em até três dias úteis."
        ),
        "boleto_line": "Linha digitável",
        "boleto_pdf": "Abrir o boleto (PDF)",
        "back": "Voltar à loja",
        "done_title": "Pagamento recebido",
        "done_text": "O PagBank recebeu seu pagamento. Você pode fechar esta página.",
        "paid_already": "Este checkout já recebeu um pagamento.",
        "checkout_expired": "Este link de pagamento expirou.",
        "checkout_inactive": "Este link de pagamento não está disponível no momento.",
        "checkout_not_found": "Link de pagamento não encontrado.",
        "declined": "O pagamento foi recusado. Tente outro cartão ou forma de pagamento.",
        "card_invalid": "Confira os dados do cartão.",
        "not_authenticated": (
            "Seu banco não autenticou este cartão. Tente outro cartão ou forma de pagamento."
        ),
        "debit_needs_3ds": (
            "Este cartão não pode ser autenticado para débito. Tente outro cartão ou forma."
        ),
        "customer_required": "Preencha seu nome, e-mail e CPF ou CNPJ.",
        "address_required": "Preencha o endereço.",
        "card_required": "Preencha os dados do cartão.",
        "method_not_accepted": "Esta forma de pagamento não é aceita aqui.",
        "invalid_installments": "Escolha as parcelas novamente.",
        "invalid_shipping_service": "Escolha o serviço de entrega.",
        "invalid_field": "Confira este campo: {field}.",
        "unreachable": "Não foi possível falar com o PagBank. Tente novamente.",
    },
}


def language_of(query_lang: str | None, accept_language: str | None) -> str:
    """The page's language: the ``lang`` asked for, else the browser's first choice we speak."""
    if query_lang in LANGUAGES:
        return query_lang
    return PORTUGUESE if accepted(accept_language) == "pt-br" else ENGLISH


def money(cents: int, language: str) -> str:
    """``R$ 1,234.56`` in English, ``R$ 1.234,56`` in Portuguese."""
    return language_money(cents, "pt-br" if language == PORTUGUESE else "en")
