"""3-D Secure: the checkout-SDK session, the browser SDK's authentications, and the charge's check.

``POST /checkout-sdk/sessions`` (the merchant's token) answers a session for
``PagSeguro.setUp``; the SDK's ``authenticate3DS`` posts here
(``POST /checkout-sdk/authentications``, the session in the body) and gets
``{status, id}``. Outcomes go by card number, as in the sandbox's table
(:data:`SANDBOX_3DS_CARDS`), plus cards of the emulator's own; every other
card is authenticated without a challenge. A challenge is a page of the
emulated bank (:mod:`.challenge`). A charge then names the result in
``payment_method.authentication_method``: ``{type: THREEDS, id}`` (checked:
this merchant's, not used, not expired, the same card, amount and payment
type), or an external authentication ``{type, cavv, eci, xid, version,
dstrans_id, status}``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django_orderpay import rules
from django_orderpay.cardcrypto import CardDecryptionError

from ..serving.http import Response
from ..state import errors, ids
from ..state.store import Call, State
from ..state.threeds import (
    AUTHENTICATED,
    AUTHENTICATION_LIFETIME,
    CHALLENGE_FAILED,
    CHALLENGE_PENDING,
    NOT_AUTHENTICATED,
    SESSION_LIFETIME,
    Authentication,
    Session,
    card_digest,
)
from ..state.validation import (
    field_path,
    reject_unknown,
    require_int,
    require_object,
    require_str,
)
from .cards import DECLINED, Outcome

# The SDK's answers (``status`` of authenticate3DS).
AUTH_FLOW_COMPLETED = "AUTH_FLOW_COMPLETED"
AUTH_NOT_SUPPORTED = "AUTH_NOT_SUPPORTED"
CHANGE_PAYMENT_METHOD = "CHANGE_PAYMENT_METHOD"
REQUIRE_CHALLENGE = "REQUIRE_CHALLENGE"

FRICTIONLESS = "frictionless"
CHALLENGE = "challenge"


@dataclass(frozen=True)
class CardBehaviour:
    """How a test card authenticates: the flow, the issuer's verdict, and the amount it declines."""

    flow: str  # FRICTIONLESS or CHALLENGE
    status: str  # AUTHENTICATED or NOT_AUTHENTICATED
    declined_amount: int


#: PagBank's sandbox 3DS table (its 3DS guide, "Casos de teste"): the card decides the
#: flow and the verdict; the charge is PAID, except for the amount listed, which is DECLINED.
SANDBOX_3DS_CARDS: dict[str, CardBehaviour] = {
    "4000000000002701": CardBehaviour(FRICTIONLESS, AUTHENTICATED, 4001),
    "5200000000001005": CardBehaviour(FRICTIONLESS, AUTHENTICATED, 5201),
    "6505050000001000": CardBehaviour(FRICTIONLESS, AUTHENTICATED, 4001),
    "4000000000002503": CardBehaviour(CHALLENGE, AUTHENTICATED, 4003),
    "5200000000001096": CardBehaviour(CHALLENGE, AUTHENTICATED, 5206),
    "6505050000001091": CardBehaviour(CHALLENGE, AUTHENTICATED, 6501),
    "4000000000002925": CardBehaviour(FRICTIONLESS, NOT_AUTHENTICATED, 4005),
    "5200000000001013": CardBehaviour(FRICTIONLESS, NOT_AUTHENTICATED, 5203),
    "6505050000001018": CardBehaviour(FRICTIONLESS, NOT_AUTHENTICATED, 6508),
    "4000000000002370": CardBehaviour(CHALLENGE, NOT_AUTHENTICATED, 4000),
    "5200000000001104": CardBehaviour(CHALLENGE, NOT_AUTHENTICATED, 5204),
    "6505050000001109": CardBehaviour(CHALLENGE, NOT_AUTHENTICATED, 6509),
}
#: The emulator's own: a card whose issuer takes no part in 3-D Secure.
THREEDS_NOT_SUPPORTED_CARD = "4000000000003006"
#: The emulator's own: a card PagBank's risk engine refuses to authenticate.
THREEDS_CHANGE_PAYMENT_METHOD_CARD = "4000000000003105"
#: The emulator's own: declined with 20159 unless the charge is authenticated.
AUTHENTICATION_REQUIRED_CARD = "4000000000003204"
#: The code the emulated bank's challenge page accepts.
CHALLENGE_CODE = "1234"

#: An issuer's decline that asks the merchant to retry with 3-D Secure.
AUTHENTICATION_REQUIRED = Outcome(
    DECLINED, "20159", "NAO AUTORIZADA - TENTE NOVAMENTE USANDO AUTENTICACAO", "1A"
)
#: A sandbox 3DS test card charged for its declining amount.
THREEDS_ISSUER_DECLINED = Outcome(DECLINED, "20003", "NAO AUTORIZADA", "51")
#: A debit card whose issuer did not authenticate the shopper: no debit without it.
DEBIT_NOT_AUTHENTICATED = Outcome(DECLINED, "20003", "NAO AUTORIZADA", "57")

PAYMENT_TYPES = ("CREDIT_CARD", "DEBIT_CARD")
#: ``authentication_method`` of a charge: PagBank's own (an ``id``), or an external one.
AUTHENTICATION_KEYS = frozenset(
    {"type", "id", "cavv", "eci", "xid", "version", "dstrans_id", "status"}
)
#: THREEDS (PagBank's id, or an external 3DS) and INAPP (an Elo network token's in-app
#: authentication: ``cavv`` and ``eci``).
AUTHENTICATION_TYPES = ("THREEDS", "INAPP")
#: ECIs answered AUTHENTICATED when no ``status`` is sent: a fully authenticated shopper
#: (Mastercard 02, Visa and Elo 05), and 01 (Mastercard's attempt), which the docs'
#: network-token debit example answers AUTHENTICATED.
AUTHENTICATED_ECIS = ("01", "02", "05")
#: A body the SDK posts: its session and its ``data``.
SDK_KEYS = frozenset({"session", "data"})
DATA_KEYS = frozenset(
    {
        "customer",
        "paymentMethod",
        "amount",
        "billingAddress",
        "shippingAddress",
        "dataOnly",
        "deviceInformation",
    }
)


def new_session(state: State, account: str, now: datetime) -> Session:
    """A checkout-SDK session authenticating cards for ``account`` (its token, or its checkout)."""
    state.threeds.prune(now)
    session = Session(secrets.token_hex(32), account, now + SESSION_LIFETIME)
    state.threeds.sessions[session.id] = session
    return session


def create_session(state: State, call: Call) -> Response:
    """``POST /checkout-sdk/sessions`` (no body): 200 ``{session, expires_at}`` (epoch ms), as
    the docs say (201 with the option ``created_statuses: "plugin"``: the official plugin
    requires it)."""
    reject_unknown(call.payload, (), "")
    session = new_session(state, call.merchant, call.now)
    expires_at = int(session.expires_at.timestamp() * 1000)
    body = {"session": session.id, "expires_at": expires_at}
    return Response.json(state.options.session_status, body)


def _session(state: State, value: Any, now: datetime) -> Session:
    if not isinstance(value, str) or not value:
        raise errors.required("session")
    session = state.threeds.sessions.get(value)
    if session is None or session.expires_at <= now:
        # As an expired session: "a new session must be created and set up again".
        raise errors.invalid("session", "session_expired_or_unknown")
    return session


def _sdk_card(state: State, card: dict[str, Any], path: str) -> str:
    """The number of ``paymentMethod.card``: typed (``number``) or the SDK's ``encrypted``."""
    reject_unknown(card, {"number", "expMonth", "expYear", "holder", "encrypted"}, path)
    if card.get("encrypted") is not None:
        blob = require_str(card, "encrypted", path) or ""
        try:
            number = state.keys.decrypt(blob).number
        except CardDecryptionError:
            raise errors.invalid(field_path(path, "encrypted"), "invalid_encrypted_card") from None
    else:
        number = require_str(card, "number", path) or ""
        require_str(card, "expMonth", path, pattern=r"[0-9]{1,2}")
        require_str(card, "expYear", path, pattern=r"[0-9]{4}")
    if not rules.is_digits(number, range(13, 20)) or not rules.luhn_valid(number):
        raise errors.invalid(field_path(path, "number"))
    if rules.card_brand(number) is None:
        raise errors.invalid(field_path(path, "number"), "card_brand_not_supported")
    return number


def _answer(authentication: Authentication | None, status: str) -> dict[str, Any]:
    """``{id, status}``; once the flow is complete, the issuer's verdict too
    (``authenticationStatus``, as the official plugin's SDK types have it)."""
    if authentication is None:
        return {"status": status}
    answer = {"id": authentication.id, "status": status}
    if status == AUTH_FLOW_COMPLETED:
        answer["authenticationStatus"] = authentication.status
    return answer


def authenticate(state: State, call: Call) -> Response:
    """``POST /checkout-sdk/authentications`` ``{session, data}``: ``authenticate3DS``'s answer.

    200 ``{id, status}``: AUTH_FLOW_COMPLETED (frictionless), REQUIRE_CHALLENGE
    (with ``challenge.url``, the bank's page), AUTH_NOT_SUPPORTED or
    CHANGE_PAYMENT_METHOD (no id). ``dataOnly`` forbids a challenge: a card
    that would need one completes NOT_AUTHENTICATED.
    """
    body = call.payload
    reject_unknown(body, SDK_KEYS, "")
    session = _session(state, body.get("session"), call.now)
    data = require_object(body.get("data"), "data")
    reject_unknown(data, DATA_KEYS, "data")
    customer = require_object(data.get("customer"), "data.customer")
    require_str(customer, "name", "data.customer", limit=(1, 120))
    require_str(customer, "email", "data.customer", limit=(5, 255))
    require_object(data.get("billingAddress"), "data.billingAddress")
    method_path = "data.paymentMethod"
    method = require_object(data.get("paymentMethod"), method_path)
    reject_unknown(method, {"type", "installments", "card"}, method_path)
    payment_type = require_str(method, "type", method_path, choices=PAYMENT_TYPES)
    installments = require_int(method, "installments", method_path, minimum=1, maximum=18)
    if payment_type == "DEBIT_CARD" and installments != 1:
        raise errors.invalid(field_path(method_path, "installments"), "debit_card_installments_1")
    card_path = field_path(method_path, "card")
    number = _sdk_card(state, require_object(method.get("card"), card_path), card_path)
    amount = require_object(data.get("amount"), "data.amount")
    value = require_int(amount, "value", "data.amount", minimum=1, maximum=rules.MAX_AMOUNT)
    require_str(amount, "currency", "data.amount", choices=rules.CURRENCIES)
    data_only = data.get("dataOnly") is True

    if number == THREEDS_NOT_SUPPORTED_CARD:
        return Response.json(200, _answer(None, AUTH_NOT_SUPPORTED))
    if number == THREEDS_CHANGE_PAYMENT_METHOD_CARD:
        return Response.json(200, _answer(None, CHANGE_PAYMENT_METHOD))
    behaviour = SANDBOX_3DS_CARDS.get(number)
    challenge = behaviour is not None and behaviour.flow == CHALLENGE and not data_only
    if behaviour is None:
        status = AUTHENTICATED
    elif behaviour.flow == CHALLENGE and data_only:
        status = NOT_AUTHENTICATED
    else:
        status = CHALLENGE_PENDING if challenge else behaviour.status
    brand = rules.card_brand(number) or "unknown"
    authentication = Authentication(
        id=ids.new_id("3DS_"),
        account=session.account,
        card=card_digest(number),
        amount=value or 0,
        payment_type=payment_type or "CREDIT_CARD",
        status=status,
        brand=brand,
        expires_at=call.now + AUTHENTICATION_LIFETIME,
        verdict=behaviour.status if behaviour is not None else AUTHENTICATED,
    )
    state.threeds.authentications[authentication.id] = authentication
    if not challenge:
        return Response.json(200, _answer(authentication, AUTH_FLOW_COMPLETED))
    answer = _answer(authentication, REQUIRE_CHALLENGE)
    answer["challenge"] = {
        "url": f"{call.base_url}/checkout-sdk/challenges/{authentication.id}",
        "brand": brand,
        "issuer": "Banco Emulado",
    }
    return Response.json(200, answer)


def answer_challenge(state: State, call: Call) -> Response:
    """``POST /checkout-sdk/challenges/{id}`` ``{"code"}`` or ``{"cancel": true}``: 200.

    The right code completes it (AUTH_FLOW_COMPLETED, the card's verdict);
    a wrong code or a cancel fails it: CHANGE_PAYMENT_METHOD, and the id pays nothing.
    """
    authentication = state.threeds.authentications.get(call.params[0])
    if authentication is None or authentication.expires_at <= call.now:
        raise errors.not_found("authentication")
    if authentication.status != CHALLENGE_PENDING:
        raise errors.invalid("id", "challenge_already_answered")
    reject_unknown(call.payload, {"code", "cancel"}, "")
    code = require_str(call.payload, "code", "", limit=(1, 12), optional=True)
    if call.payload.get("cancel") is True or code != CHALLENGE_CODE:
        authentication.status = CHALLENGE_FAILED
        return Response.json(200, _answer(None, CHANGE_PAYMENT_METHOD))
    authentication.status = authentication.verdict
    return Response.json(200, _answer(authentication, AUTH_FLOW_COMPLETED))


@dataclass(frozen=True)
class ChargeAuthentication:
    """A charge's ``authentication_method``, checked: what it answers, and the id it uses up."""

    answer: dict[str, Any]
    status: str  # AUTHENTICATED or NOT_AUTHENTICATED
    authentication: Authentication | None = None


def _external(method: dict[str, Any], path: str) -> ChargeAuthentication:
    """An authentication made elsewhere: the issuer's ``cavv`` and ``eci`` are required."""
    cavv = require_str(method, "cavv", path, limit=(1, 64))
    eci = require_str(method, "eci", path, pattern=r"[0-9]{2}")
    require_str(method, "xid", path, limit=(1, 64), optional=True)
    require_str(method, "version", path, pattern=r"[0-9]+\.[0-9]+\.[0-9]+", optional=True)
    require_str(method, "dstrans_id", path, limit=(1, 64), optional=True)
    given = require_str(
        method, "status", path, choices=(AUTHENTICATED, NOT_AUTHENTICATED), optional=True
    )
    status = given or (AUTHENTICATED if eci in AUTHENTICATED_ECIS else NOT_AUTHENTICATED)
    answer = {key: method[key] for key in AUTHENTICATION_KEYS if method.get(key) is not None}
    answer.update(type="THREEDS", cavv=cavv, eci=eci, status=status)
    return ChargeAuthentication(answer, status)


def _in_app(method: dict[str, Any], path: str) -> ChargeAuthentication:
    """INAPP (the docs' Elo network token): ``cavv`` and ``eci`` required, echoed without a
    ``status`` as the docs' answers show; the wallet authenticated the shopper."""
    for key in ("id", "xid", "version", "dstrans_id", "status"):
        if method.get(key) is not None:
            raise errors.invalid(field_path(path, key), "not_taken_with_inapp")
    cavv = require_str(method, "cavv", path, limit=(1, 80))
    eci = require_str(method, "eci", path, pattern=r"[0-9]{2}")
    return ChargeAuthentication({"type": "INAPP", "eci": eci, "cavv": cavv}, AUTHENTICATED)


def check_authentication(
    value: Any,
    path: str,
    *,
    number: str,
    amount: int,
    payment_type: str,
    account: str,
    state: State,
) -> ChargeAuthentication:
    """``payment_method.authentication_method`` of a charge, checked against its card and amount.

    Every refusal is 40002 naming ``{path}.id`` (or the field at fault); an id
    of another merchant answers as an unknown one.
    """
    method = require_object(value, path)
    reject_unknown(method, AUTHENTICATION_KEYS, path)
    kind = require_str(method, "type", path, choices=AUTHENTICATION_TYPES)
    if kind == "INAPP":
        return _in_app(method, path)
    if method.get("id") is None:
        return _external(method, path)
    for key in ("cavv", "eci", "xid", "dstrans_id"):
        if method.get(key) is not None:
            raise errors.invalid(field_path(path, key), "not_allowed_with_authentication_id")
    where = field_path(path, "id")
    auth_id = require_str(method, "id", path, pattern=r"3DS_[0-9A-Fa-f-]{36}")
    found = state.threeds.authentications.get(auth_id or "")
    now = state.clock.now()
    if found is None or found.account != account:
        raise errors.invalid(where, "authentication_not_found")
    if found.expires_at <= now:
        raise errors.invalid(where, "authentication_expired")
    if found.used_by is not None:
        raise errors.invalid(where, "authentication_already_used")
    if found.status not in (AUTHENTICATED, NOT_AUTHENTICATED):
        raise errors.invalid(where, "authentication_not_completed")
    if found.card != card_digest(number):
        raise errors.invalid(where, "authentication_card_mismatch")
    if found.amount != amount:
        raise errors.invalid(where, "authentication_amount_mismatch")
    if found.payment_type != payment_type:
        raise errors.invalid(where, "authentication_payment_method_mismatch")
    answer = {"type": "THREEDS", "id": found.id, "status": found.status}
    return ChargeAuthentication(answer, found.status, found)


def threeds_outcome(
    number: str,
    amount: int,
    authentication: ChargeAuthentication | None,
    payment_type: str,
    *,
    debit_not_authenticated: str = "PAID",
) -> Outcome | None:
    """The network's answer where 3-D Secure decides it; None to go by the card alone.

    A NOT_AUTHENTICATED debit pays as the sandbox table says, unless the option
    ``debit_not_authenticated`` is ``DECLINED``.
    """
    authenticated = authentication is not None and authentication.status == AUTHENTICATED
    if payment_type == "DEBIT_CARD" and not authenticated:
        if authentication is None or debit_not_authenticated == "DECLINED":
            return DEBIT_NOT_AUTHENTICATED
    if number == AUTHENTICATION_REQUIRED_CARD and not authenticated:
        return AUTHENTICATION_REQUIRED
    behaviour = SANDBOX_3DS_CARDS.get(number)
    if behaviour is not None and authentication is not None and amount == behaviour.declined_amount:
        return THREEDS_ISSUER_DECLINED
    return None
