"""The provider's rules as code: field limits, check digits, card brands.

Pure data and functions (no Django, no I/O), shared by the request builders
(``payloads``) and the emulator, so both enforce the same documented facts
(``provider-facts.md``). Where a rule is our own choice it says so.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta, timezone
from typing import Final

from stdnum.br import cnpj as stdnum_cnpj
from stdnum.br import cpf as stdnum_cpf

CHARGE_STATUSES: Final = ("AUTHORIZED", "PAID", "IN_ANALYSIS", "DECLINED", "CANCELED", "WAITING")
PHONE_TYPES: Final = ("MOBILE", "BUSINESS", "HOME")
SPLIT_METHODS: Final = ("FIXED", "PERCENTAGE")
#: ``recurring.type``, as the charge object documents it.
RECURRING_TYPES: Final = ("INITIAL", "SUBSEQUENT", "UNSCHEDULED", "STANDING ORDER")
CURRENCIES: Final = ("BRL",)

#: A charge's own notification URL: HTTPS ("Necessário que seja em ambiente seguro com
#: SSL"). Linear to match (no nested quantifier).
HTTPS_URL_PATTERN: Final = re.compile(r"https://[^\s/?#]+(?:[/?#]\S*)?")
#: ``redirect_url`` of a deeplink: a universal link or an app URL scheme.
REDIRECT_URL_PATTERN: Final = re.compile(r"^([a-zA-Z0-9]+://)(.*)$")

MAX_AMOUNT: Final = 999_999_999
MAX_QUANTITY: Final = 99_999
MAX_INSTALLMENTS: Final = 12
SPLIT_RECEIVERS: Final = (2, 15)
#: The keys of ``charges[].splits`` and of each of its ``receivers``, as the real API
#: takes them (``type``, PRIMARY or SECONDARY, is sent by some integrations and accepted).
SPLITS_KEYS: Final = frozenset({"method", "receivers"})
RECEIVER_KEYS: Final = frozenset({"account", "amount", "reason", "configurations", "type"})
RECEIVER_TYPES: Final = ("PRIMARY", "SECONDARY")
#: The keys of an address, a card payment method, a card and a network token's data, as
#: the real API takes them (the builders' dict reader and the emulator refuse any other).
ADDRESS_KEYS: Final = frozenset(
    {
        "street",
        "number",
        "complement",
        "locality",
        "city",
        "region",
        "region_code",
        "country",
        "postal_code",
    }
)
PAYMENT_METHOD_KEYS: Final = frozenset(
    {
        "type",
        "installments",
        "capture",
        "store",
        "card",
        "soft_descriptor",
        "holder",
        "authentication_method",
        "token_data",
    }
)
CARD_KEYS: Final = frozenset(
    {
        "number",
        "exp_month",
        "exp_year",
        "security_code",
        "cvv",
        "holder",
        "store",
        "encrypted",
        "id",
        "network_token",
        "token_data",
        "wallet",
    }
)
#: ``token_data.wallet`` (the charge object's enum) and ``card.wallet.type`` (the wallets
#: PagBank documents a payment key of: its Google Pay and Apple Pay pages).
TOKEN_WALLETS: Final = ("APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY", "MERCHANT_TOKENIZATION_PROGRAM")
WALLET_TYPES: Final = ("GOOGLE_PAY", "APPLE_PAY")
TOKEN_DATA_KEYS: Final = frozenset(
    {"requestor_id", "wallet", "cryptogram", "ecommerce_domain", "assurance_level"}
)
#: An order's and a charge's id as this package accepts them from outside (a notification's
#: body, ``orderpay_sync --order``): the prefix and up to 59 characters safe in a URL path.
ORDER_ID_PATTERN: Final = re.compile(r"ORDE_[A-Za-z0-9_-]{1,59}")
CHARGE_ID_PATTERN: Final = re.compile(r"CHAR_[A-Za-z0-9_-]{1,59}")
#: ``ACCO_`` + upper-case UUID, as the spec's identifiers are: a split receiver's account.
ACCOUNT_ID_PATTERN: Final = r"ACCO_[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"
#: The largest JSON body either side reads (our choice: a whole Order JSON is a few KiB,
#: 1 MiB leaves room and bounds what a stranger can post): the notification view's
#: default ``NOTIFICATION_MAX_BODY`` and the emulator's request limit.
MAX_BODY_SIZE: Final = 1024 * 1024
#: Deeplink simulation bounds (R$1.00 to R$1,500.00).
DEEPLINK_PAY_AMOUNT: Final = (100, 150_000)

#: Length bounds (inclusive) of string fields, by the field's name in the
#: provider's JSON (the last segment of its path).
FIELD_LIMITS: Final[dict[str, tuple[int, int]]] = {
    "reference_id": (1, 64),
    "item.name": (1, 200),
    "customer.name": (1, 120),
    "email": (10, 255),
    "description": (1, 64),
    "holder.name": (1, 30),
    # The charge object's table: a boleto's payer, 1-30 (the bank prints it).
    "boleto.holder.name": (1, 30),
    "street": (1, 160),
    "address.number": (1, 20),
    "complement": (1, 40),
    "locality": (1, 60),
    "city": (1, 90),
    # The state's name and the country as written (a boleto's payer: "Brasil").
    "region": (1, 50),
    "country": (1, 50),
    "soft_descriptor": (1, 22),
    "item.reference_id": (1, 255),
    "instruction_line": (1, 75),
}
#: The provider's time zone: Brasilia, a fixed -03:00 (no daylight saving since 2019).
#: Due dates and "the next day" of a Pix's default expiry are days here.
PROVIDER_TZ: Final = timezone(timedelta(hours=-3))
#: How a Pix QR code may be paid: any bank's Pix, or the PagBank app ("Pagar com PagBank").
PIX_ARRANGEMENTS: Final = ("PIX", "PAGBANK")
#: How long a paid charge may be refunded (PagBank's "cancelando uma cobrança"): a Pix 90
#: days, a Mastercard debit card 180, a card or boleto 350.
PIX_REFUND_DAYS: Final = 90
MASTERCARD_DEBIT_REFUND_DAYS: Final = 180
REFUND_DAYS: Final = 350
#: A boleto's smallest amount: R$ 0,20 ("Esse método de pagamento impõe um valor mínimo").
BOLETO_MIN_AMOUNT: Final = 20
#: How far ahead a boleto's due date may be (our bound: PagBank documents none).
BOLETO_LONGEST_TERM_DAYS: Final = 365
#: ``boleto.days_until_expiration``: how many days after its due date a boleto may still be
#: paid (the docs' example: 45). The bound is ours (PagBank documents none): ten years.
BOLETO_LONGEST_EXPIRATION_DAYS: Final = 3650
#: A boleto's fine, interest and discounts (``payment_instructions``): each ``value`` is a
#: percentage times 100 (200 is 2,00 %), from 1 up to these (PagBank's "criar e pagar pedido
#: com boleto": fine 0,01 % to 99,99 %, interest to 59,99 %, discounts to 99,99 %).
BOLETO_INSTRUCTION_LIMITS: Final = {"fine": 9999, "interest": 5999, "discounts": 9999}
#: A boleto's models: ``COBRANCA`` takes fines, interest and discounts; ``PROPOSTA`` (the
#: default) does not.
BOLETO_TEMPLATES: Final = ("COBRANCA", "PROPOSTA")
#: Each installment of a card charge is at least R$ 5,00.
MIN_INSTALLMENT: Final = 500
#: 18 installments, for accounts PagBank enabled them on ("mediante aprovação").
MAX_INSTALLMENTS_ENABLED: Final = 18
#: The characters PagBank refuses in a person's name (customer, card holder),
#: answering "must not contains any of the characters [...]".
FORBIDDEN_NAME_CHARACTERS: Final = '!@#$%¨*()"”\\|{}[]<>;'
#: Besides letters and spaces, what a card holder's name may hold: the SDK strips
#: ``'`` and ``/`` before it encrypts the name, and drops the rest but letters and
#: spaces; these few are dropped harmlessly (``D'Ávila``, ``J. Silva``, ``Ana-Maria``).
HOLDER_NAME_PUNCTUATION: Final = "'/.-"
#: What a soft descriptor keeps: letters and digits; the rest (spaces too: the docs' answers
#: give "Lojadomeuteste" for "Loja do meu teste") is stripped, not refused.
SOFT_DESCRIPTOR_DROPPED: Final = re.compile(r"[^A-Za-z0-9]")

BRAZILIAN_STATES: Final = frozenset(
    "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO".split()
)

_DIGITS = re.compile(r"^[0-9]+\Z")  # ASCII only, no trailing newline


def is_digits(value: object, lengths: tuple[int, ...] | range | None = None) -> bool:
    """True when ``value`` is a string of ASCII digits of one of ``lengths``."""
    if not isinstance(value, str) or not _DIGITS.match(value):
        return False
    return lengths is None or len(value) in lengths


def luhn_valid(number: str) -> bool:
    """The Luhn check every card number passes."""
    if not is_digits(number):
        return False
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


#: A CNPJ as sent: 12 letters or digits (alphanumeric from July 2026), 2 check digits.
_CNPJ = re.compile(r"[0-9A-Z]{12}[0-9]{2}")


def valid_cpf(value: str) -> bool:
    """An 11-digit CPF with both check digits right (not all one digit)."""
    return is_digits(value, (11,)) and len(set(value)) > 1 and stdnum_cpf.is_valid(value)


def valid_cnpj(value: str) -> bool:
    """A CNPJ: 14 digits, or (from July 2026) 12 upper-case letters or digits and
    2 check digits computed on each character's ASCII value minus 48; not all one
    character. Check digits by python-stdnum, which knows both forms.
    """
    if not isinstance(value, str) or not _CNPJ.fullmatch(value) or len(set(value)) == 1:
        return False
    return stdnum_cnpj.is_valid(value)


def valid_tax_id(value: str) -> bool:
    """A CPF (11 digits) or a CNPJ (14 characters), nothing else (no dots or dashes)."""
    return valid_cpf(value) or valid_cnpj(value)


def storable_text(value: str) -> bool:
    """No character a database text column can't hold: NUL (PostgreSQL), a lone surrogate."""
    return not any(char == "\x00" or "\ud800" <= char <= "\udfff" for char in value)


def boleto_payer_name(name: str) -> str:
    """``name`` as a boleto's payer fits PagBank's 30 characters: whole words while they fit
    (a single longer word is cut), as the partner plugin shortens it. PagBank refuses a
    longer name; a shop that would rather ask the shopper can refuse one instead."""
    _low, high = FIELD_LIMITS["boleto.holder.name"]
    words = name.split()
    kept = ""
    for word in words:
        candidate = f"{kept} {word}" if kept else word
        if len(candidate) > high:
            break
        kept = candidate
    return kept or " ".join(words)[:high]


def forbidden_name_characters(name: str) -> str:
    """The characters of ``name`` PagBank refuses in a person's name, in order, once each."""
    return "".join(dict.fromkeys(c for c in name if c in FORBIDDEN_NAME_CHARACTERS))


def holder_name_refused_characters(name: str) -> str:
    """The characters of a card holder's name that are not letters: in order, once each.

    The browser SDK encrypts the name as ``[a-zA-Z ]`` once accents are
    dropped (``'`` and ``/`` stripped first): anything else (a digit, an
    emoji, a symbol) is dropped from the name the issuer sees, so it is
    refused here; :data:`HOLDER_NAME_PUNCTUATION` is let through.
    """
    refused = []
    for char in name:
        if char.isspace() or char in HOLDER_NAME_PUNCTUATION:
            continue
        base = "".join(
            c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
        )
        if not (base.isascii() and base.isalpha()):
            refused.append(char)
    return "".join(dict.fromkeys(refused))


def strip_soft_descriptor(value: str) -> str:
    """A soft descriptor as PagBank prints it: accents dropped, then spaces and specials
    stripped."""
    ascii_text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return SOFT_DESCRIPTOR_DROPPED.sub("", ascii_text)


def _ranges(*spans: tuple[int, int] | int) -> tuple[tuple[int, int], ...]:
    return tuple((s, s) if isinstance(s, int) else s for s in spans)


# Six-digit BIN ranges, checked before the shorter prefixes: several Elo BINs
# start with 4 and would otherwise pass for Visa (the sandbox Elo cards do).
_ELO_BINS: Final = _ranges(
    401178, 401179, 431274, 438935, 451416, 457393, 457631, 457632, 504175,
    (506699, 506778), (509000, 509999), 627780, 636297, 636368, (650031, 650033),
    (650035, 650051), (650405, 650439), (650485, 650538), (650541, 650598),
    (650700, 650718), (650720, 650727), (650901, 650920), (651652, 651679),
    (655000, 655019), (655021, 655058),
)  # fmt: skip
_PREFIX_BRANDS: Final = (
    ("hipercard", ("606282", "3841")),
    ("amex", ("34", "37")),
    ("diners", ("36", "38", "300", "301", "302", "303", "304", "305")),
)


def card_brand(number: str) -> str | None:
    """The lower-case brand the provider reports for ``number``, from its BIN."""
    if not is_digits(number) or len(number) < 6:
        return None
    bin6 = int(number[:6])
    if any(low <= bin6 <= high for low, high in _ELO_BINS):
        return "elo"
    for brand, prefixes in _PREFIX_BRANDS:
        if number.startswith(prefixes):
            return brand
    if 51 <= int(number[:2]) <= 55 or 2221 <= int(number[:4]) <= 2720:
        return "mastercard"
    if number.startswith("4"):
        return "visa"
    return None


#: How people write each brand the provider reports (``card.brand`` is lower case).
CARD_BRAND_NAMES: Final = {
    "visa": "Visa",
    "mastercard": "Mastercard",
    "amex": "American Express",
    "elo": "Elo",
    "hipercard": "Hipercard",
    "hiper": "Hiper",
    "diners": "Diners Club",
}


def card_brand_name(brand: str) -> str:
    """``"mastercard"`` -> ``"Mastercard"``; a brand not listed is capitalised; ``""`` stays."""
    key = brand.strip().lower()
    return CARD_BRAND_NAMES.get(key, key.capitalize())


def provider_today(now: datetime | None = None) -> date:
    """Today in São Paulo (the day a boleto's due date is compared with)."""
    return (now or datetime.now(PROVIDER_TZ)).astimezone(PROVIDER_TZ).date()


# --- Checkout (the hosted payment page, ``POST /checkouts``) ------------------------
# From PagBank's "Criar Checkout" reference; shared by ``payloads.CheckoutRequest``
# and the emulator's checkout resource.

#: A checkout's statuses: payable, switched off by the merchant, past its expiry.
CHECKOUT_STATUSES: Final = ("ACTIVE", "INACTIVE", "EXPIRED")
#: "Caso não seja informada, a expiração será a data e hora da criação do checkout + 2 horas."
CHECKOUT_LIFETIME: Final = timedelta(hours=2)
#: ``CHEC_`` + up to 59 URL-safe characters (as ``ORDER_ID_PATTERN``).
CHECKOUT_ID_PATTERN: Final = re.compile(r"CHEC_[A-Za-z0-9_-]{1,59}")
#: ``payment_methods[].type``; ``payment_methods_configs`` applies to the cards only.
CHECKOUT_PAYMENT_METHODS: Final = ("CREDIT_CARD", "DEBIT_CARD", "BOLETO", "PIX")
CHECKOUT_CARD_METHODS: Final = ("CREDIT_CARD", "DEBIT_CARD")
CHECKOUT_CONFIG_OPTIONS: Final = ("INSTALLMENTS_LIMIT", "INTEREST_FREE_INSTALLMENTS")
#: ``payment_methods[].brands`` (the answer spells them in upper case).
CHECKOUT_BRANDS: Final = ("VISA", "MASTERCARD", "AMEX", "ELO", "HIPERCARD", "HIPER", "DINERS")
SHIPPING_TYPES: Final = ("FIXED", "FREE", "CALCULATE")
SHIPPING_SERVICES: Final = ("SEDEX", "PAC")
RECURRENCE_UNITS: Final = ("MONTH", "YEAR")
#: ``unit_amount``, ``additional_amount`` and ``discount_amount``: "Máximo de 999999900".
CHECKOUT_MAX_AMOUNT: Final = 999_999_900
#: ``shipping.amount``: "Máximo de 2147483647" (an int32).
MAX_INT32: Final = 2_147_483_647
#: ``shipping.box.dimensions`` in centimetres.
BOX_DIMENSIONS: Final = {"length": (15, 100), "width": (10, 100), "height": (1, 100)}
#: Length bounds of a checkout's text fields, by their path (the create page's).
CHECKOUT_FIELD_LIMITS: Final[dict[str, tuple[int, int]]] = {
    "reference_id": (1, 64),
    "customer.name": (1, 120),
    "customer.email": (10, 60),
    "items.reference_id": (1, 100),
    "items.name": (1, 100),
    "items.description": (1, 255),
    "shipping.address.street": (1, 160),
    "shipping.address.number": (1, 20),
    "shipping.address.locality": (1, 60),
    "shipping.address.city": (1, 90),
    "soft_descriptor": (1, 17),
    "redirect_url": (1, 255),
    "return_url": (1, 255),
    "notification_urls": (1, 100),
    "payment_notification_urls": (5, 100),
    "recurrence_plan.name": (1, 100),
}


def canonical_enum(value: object) -> object:
    """An enum value as the Checkout API stores it: upper case (its own example sends
    ``"credit_card"`` and ``"installments_limit"``, and answers them upper case)."""
    return value.upper() if isinstance(value, str) else value
