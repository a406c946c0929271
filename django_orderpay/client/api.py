"""``OrderPayClient``: one method per provider endpoint, each answering the parsed JSON."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote, urlencode

import requests

from django_orderpay import rules
from django_orderpay.exceptions import (
    AuthenticationError,
    ConfigurationError,
    FieldError,
    PayloadError,
    ProviderError,
    ProviderUnavailable,
)

from .http import (
    DEFAULT_BACKOFF,
    DEFAULT_BACKOFF_MAX,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    USER_AGENT,
    ProviderHttp,
    TokenSource,
)

_PROVIDER_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
DEEPLINK_STATUSES = ("PAID", "DECLINED")
#: The most orders ``GET /checkouts/{id}`` lists at once ("Máximo de 100").
CHECKOUT_ORDERS_PAGE = 100


class Body(Protocol):
    """A request builder (``django_orderpay.payloads``): ``to_dict()`` validates and shapes."""

    def to_dict(self) -> dict[str, Any]: ...


Payload = Mapping[str, Any] | Body


def _as_dict(payload: Payload) -> Mapping[str, Any]:
    # A builder validates itself in to_dict(); a dict is sent as given (the
    # services validate dicts with payloads.validate_order_dict first).
    return payload.to_dict() if hasattr(payload, "to_dict") else payload


def _id(field: str, value: Any) -> str:
    """A provider id, safe in a path; ``PayloadError`` naming ``field`` otherwise."""
    if not isinstance(value, str) or not _PROVIDER_ID.fullmatch(value):
        raise PayloadError([FieldError(field, "must be a provider id such as ORDE_...")])
    return quote(value, safe="")


def _amount(value: Any) -> dict[str, Any]:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= rules.MAX_AMOUNT:
        message = f"must be a whole number of cents between 1 and {rules.MAX_AMOUNT}"
        raise PayloadError([FieldError("amount.value", message)])
    return {"amount": {"value": value}}


class OrderPayClient:
    """The provider's Orders API over one ``requests.Session`` (connection reuse).

    ``Authorization: Bearer <token>``, JSON, a default ``timeout`` (seconds),
    User-Agent ``django-orderpay/<version>``. Every POST carries an
    ``x-idempotency-key`` (the one given, else a fresh uuid4) that each retry
    reuses. Failures raise :mod:`django_orderpay.exceptions`; a declined
    charge is not a failure (its ``status`` says ``DECLINED``).

    ``simulation_url`` is the host of the deeplink payment simulator (the
    sandbox's, or the emulator root); ``backoff`` (seconds, doubled on each
    retry, capped at ``backoff_max``) and ``sleep`` let tests retry at once.
    """

    def __init__(
        self,
        base_url: str,
        token: str | TokenSource,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        backoff_max: float = DEFAULT_BACKOFF_MAX,
        session: requests.Session | None = None,
        user_agent: str = USER_AGENT,
        simulation_url: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        threeds_url: str | None = None,
    ) -> None:
        self.http = ProviderHttp(
            base_url,
            token,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            backoff_max=backoff_max,
            session=session,
            user_agent=user_agent,
            sleep=sleep,
        )
        self.base_url = self.http.base_url
        self.simulation_url = simulation_url.rstrip("/") if simulation_url else None
        self.threeds_url = threeds_url.rstrip("/") if threeds_url else None

    def __repr__(self) -> str:
        return f"OrderPayClient({self.base_url!r})"

    def __enter__(self) -> OrderPayClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def session(self) -> requests.Session:
        return self.http.session

    def close(self) -> None:
        """Close the session (only if the client created it)."""
        self.http.close()

    def _get(self, path: str) -> dict[str, Any]:
        return self.http.request("GET", self.base_url + path)

    def _post(self, path: str, payload: Payload, idempotency_key: str | None) -> dict[str, Any]:
        return self.http.request(
            "POST", self.base_url + path, _as_dict(payload), idempotency_key=idempotency_key
        )

    # --- orders -------------------------------------------------------------------

    def create_order(
        self, payload: Payload, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /orders``: the created Order (paid at once when it carries charges)."""
        return self._post("/orders", payload, idempotency_key)

    def get_order(self, order_id: str) -> dict[str, Any]:
        """``GET /orders/{id}``: the Order with its charges' current state."""
        return self._get(f"/orders/{_id('order_id', order_id)}")

    def get_order_by_charge(self, charge_id: str) -> dict[str, Any]:
        """``GET /orders?charge_id={id}``: the Order ``charge_id`` belongs to."""
        return self._get(f"/orders?charge_id={_id('charge_id', charge_id)}")

    def pay_order(
        self, order_id: str, payload: Payload, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /orders/{id}/pay`` with ``{"charges": [...]}``: the Order."""
        return self._post(f"/orders/{_id('order_id', order_id)}/pay", payload, idempotency_key)

    # --- checkouts (PagBank's hosted payment page) ---------------------------------

    def create_checkout(
        self, payload: Payload, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /checkouts``: the checkout, ``ACTIVE``, with its ``PAY`` link."""
        return self._post("/checkouts", payload, idempotency_key)

    def get_checkout(
        self, checkout_id: str, *, offset: int = 0, limit: int = CHECKOUT_ORDERS_PAGE
    ) -> dict[str, Any]:
        """``GET /checkouts/{id}``: the checkout and (``limit`` of) the orders paid through it."""
        if not (0 <= offset and 1 <= limit <= CHECKOUT_ORDERS_PAGE):
            message = f"offset must be 0 or more and limit 1 to {CHECKOUT_ORDERS_PAGE}"
            raise PayloadError([FieldError("limit", message)])
        query = urlencode({"offset": offset, "limit": limit})
        return self._get(f"/checkouts/{_id('checkout_id', checkout_id)}?{query}")

    def activate_checkout(
        self, checkout_id: str, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /checkouts/{id}/activate``: an inactive checkout takes payments again."""
        path = f"/checkouts/{_id('checkout_id', checkout_id)}/activate"
        return self.http.request("POST", self.base_url + path, idempotency_key=idempotency_key)

    def inactivate_checkout(
        self, checkout_id: str, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /checkouts/{id}/inactivate``: its page stops taking payments."""
        path = f"/checkouts/{_id('checkout_id', checkout_id)}/inactivate"
        return self.http.request("POST", self.base_url + path, idempotency_key=idempotency_key)

    # --- charges ------------------------------------------------------------------

    def get_charge(self, charge_id: str) -> dict[str, Any]:
        """``GET /charges/{id}``: the Charge."""
        return self._get(f"/charges/{_id('charge_id', charge_id)}")

    def capture_charge(
        self, charge_id: str, amount: int, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /charges/{id}/capture`` ``{"amount": {"value": amount}}``: the Charge."""
        path = f"/charges/{_id('charge_id', charge_id)}/capture"
        return self._post(path, _amount(amount), idempotency_key)

    def cancel_charge(
        self, charge_id: str, amount: int, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST /charges/{id}/cancel``: refund ``amount`` (all of it cancels): the Charge."""
        path = f"/charges/{_id('charge_id', charge_id)}/cancel"
        return self._post(path, _amount(amount), idempotency_key)

    # --- splits and keys ----------------------------------------------------------

    def get_split(self, split: str) -> dict[str, Any]:
        """``GET /splits/{id}``, given the ``SPLI_`` id or the charge's ``SPLIT`` link href.

        An href must point at this client's base URL: the bearer token is never
        sent to another host.
        """
        if isinstance(split, str) and split.startswith(("http://", "https://")):
            if not split.startswith(self.base_url + "/splits/"):
                raise PayloadError(
                    [FieldError("split", "link is not under this provider's base URL")]
                )
            split = split.rsplit("/", 1)[-1]
        return self._get(f"/splits/{_id('split', split)}")

    def get_public_key(self) -> dict[str, Any]:
        """``POST /public-keys`` ``{"type": "card"}``, else ``GET /public-keys/card``.

        Answers ``{"public_key": <base64 DER>, "created_at": <epoch ms>}``. The GET
        is tried when the POST is refused (but not for a bad token or an outage).
        """
        try:
            return self._post("/public-keys", {"type": "card"}, None)
        except (AuthenticationError, ProviderUnavailable):
            raise
        except ProviderError:
            return self._get("/public-keys/card")

    # --- deeplink payment simulation (sandbox and emulator only) -----------------

    def _simulation(self, kind: str, deeplink_id: str, payload: dict[str, Any]) -> Any:
        if not self.simulation_url:
            raise ConfigurationError("deeplink payment simulation exists only in the sandbox")
        url = f"{self.simulation_url}/pagpay/{kind}/{_id('deeplink_id', deeplink_id)}"
        return self.http.request("POST", url, payload)

    def simulate_deeplink_balance(self, deeplink_id: str, status: str) -> Any:
        """``POST /pagpay/balance/{id}`` ``{"status": "PAID" | "DECLINED"}``: ``"PAID"`` or
        ``"DECLINED"`` (the bare string the sandbox answers; the charge is notified)."""
        if status not in DEEPLINK_STATUSES:
            raise PayloadError([FieldError("status", "must be PAID or DECLINED")])
        return self._simulation("balance", deeplink_id, {"status": status})

    def simulate_pix_payment(self, qr_code_id: str) -> Any:
        """``POST /pix/pay/{QRCO_id}`` (sandbox and emulator): pay a QR code as a payer would.

        The sandbox answers 200 and then notifies the order's PAID charge.
        """
        if not self.simulation_url:
            raise ConfigurationError("Pix payment simulation exists only in the sandbox")
        path = f"/pix/pay/{_id('qr_code_id', qr_code_id)}"
        return self._post(path, {"status": "PAID", "tx_id": qr_code_id}, None)

    def simulate_deeplink_credit_card(self, deeplink_id: str, card_number: str) -> Any:
        """``POST /pagpay/credit-card/{id}`` ``{"card_number": ...}`` (a sandbox test card):
        ``"PAID"`` or ``"DECLINED"``."""
        if not rules.is_digits(card_number, range(13, 20)):
            raise PayloadError([FieldError("card_number", "must be 13 to 19 digits")])
        return self._simulation("credit-card", deeplink_id, {"card_number": card_number})

    # --- 3-D Secure, installment fees, cards stored without a charge --------------

    def create_3ds_session(self) -> dict[str, Any]:
        """``POST {sdk host}/checkout-sdk/sessions`` (no body): ``{session, expires_at}``.

        The session lets a shopper's browser run ``PagSeguro.authenticate3DS``
        for this merchant for 30 minutes; it is made here, with the token, so
        the token never reaches the page.
        """
        if not self.threeds_url:
            raise ConfigurationError("no 3-D Secure session host (ORDERPAY['THREEDS_URL'])")
        return self.http.request("POST", self.threeds_url + "/checkout-sdk/sessions")

    def calculate_fees(
        self,
        value: int,
        *,
        credit_card_bin: str | None = None,
        max_installments: int | None = None,
        max_installments_no_interest: int | None = None,
    ) -> dict[str, Any]:
        """``GET /charges/fees/calculate``: the installment plans of ``value`` cents by brand."""
        _amount(value)
        query = {"payment_methods": "CREDIT_CARD", "value": str(value)}
        if credit_card_bin is not None:
            if not rules.is_digits(credit_card_bin, (6, 8)):
                raise PayloadError([FieldError("credit_card_bin", "must be 6 or 8 digits")])
            query["credit_card_bin"] = credit_card_bin
        for name, number in (
            ("max_installments", max_installments),
            ("max_installments_no_interest", max_installments_no_interest),
        ):
            if number is not None:
                query[name] = str(number)
        return self._get("/charges/fees/calculate?" + urlencode(query))

    def store_card(self, payload: Payload, *, idempotency_key: str | None = None) -> dict[str, Any]:
        """``POST /tokens/cards`` (an encrypted or raw card): the stored card and its ``id``."""
        return self._post("/tokens/cards", payload, idempotency_key)
