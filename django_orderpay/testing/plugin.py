"""pytest plugin for shops' own tests (registered through the ``pytest11`` entry point).

The ``orderpay_emulator`` fixture gives a test the provider's emulator served
over real HTTP on 127.0.0.1, reset before the test, with ``ORDERPAY`` pointed
at it. See ``docs/testing.md``.

Nothing here imports Django models or reads settings at import time: pytest
loads entry-point plugins before Django is set up.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
import requests

if TYPE_CHECKING:
    from django.http.response import HttpResponseBase
    from django.test import Client

    from django_orderpay.emulator import Emulator
    from django_orderpay.emulator.serving.wsgi import EmulatorServer

__all__ = [
    "ControlPlaneError",
    "Delivery",
    "OrderPayConnect",
    "OrderPayEmulator",
    "ThreeDSAuthentication",
    "orderpay_connect",
    "orderpay_emulator",
]

#: The bearer token the fixture's emulator accepts (and ``ORDERPAY['TOKEN']`` is set to).
EMULATOR_TOKEN = "emulator-token"
CONTROL_PREFIX = "/_emulator"
CONTROL_TIMEOUT = 10.0
#: How long one deliver_notifications() may take before a test is told.
DELIVERY_TIMEOUT = 60.0
#: What ``authenticate_3ds`` sends as the shopper when a test names none: the
#: SDK's authenticate3DS requires a customer's name and e-mail and a billing address.
THREEDS_CUSTOMER = {"name": "Jose da Silva", "email": "jose@example.com"}
THREEDS_BILLING_ADDRESS = {
    "street": "Avenida Brigadeiro Faria Lima",
    "number": "1384",
    "regionCode": "SP",
    "country": "BRA",
    "city": "Sao Paulo",
    "postalCode": "01452002",
}


class ControlPlaneError(AssertionError):
    """The emulator's control plane refused a call (a test's own mistake, so an assertion)."""


@dataclass(frozen=True)
class Delivery:
    """One notification attempt made through the Django test client."""

    url: str
    status: int
    response: HttpResponseBase


@dataclass(frozen=True)
class ThreeDSAuthentication:
    """How 3-D Secure ended for a card, as the checkout page would post it.

    ``id`` is the ``3DS_`` authentication id (None when the card cannot pay:
    the challenge failed, or the risk engine asked for another card),
    ``status`` what ``authenticate3DS`` answered last (``AUTH_FLOW_COMPLETED``,
    ``AUTH_NOT_SUPPORTED``, ``CHANGE_PAYMENT_METHOD``) and ``challenged``
    whether the bank asked for its code on the way.
    """

    id: str | None
    status: str
    challenged: bool

    def form_data(self) -> dict[str, str]:
        """The hidden fields ``{% orderpay_card_form %}`` posts: ``authentication_id``
        and ``authentication_status``."""
        return {"authentication_id": self.id or "", "authentication_status": self.status}


class _Target:
    """The client one ``deliver_notifications`` call posts through, and what came of it."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.attempts: list[Delivery] = []
        self.error: Exception | None = None


class OrderPayEmulator:
    """The emulator a test talks to: the core, its URL and token, and its control plane.

    ``emulator`` is the core :class:`~django_orderpay.emulator.Emulator`,
    ``base_url`` its root (``http://127.0.0.1:PORT``), ``token`` the
    merchant's bearer token and ``account_id`` that merchant's ``ACCO_`` id.
    """

    def __init__(self, emulator: Emulator, server: EmulatorServer, token: str) -> None:
        self.emulator = emulator
        self.server = server
        self.base_url = server.url
        self.token = token
        self.account_id = emulator.accounts[token]
        self._session = requests.Session()
        # Only deliver_notifications() binds a client: a flush from elsewhere
        # (the control plane, served in the server's thread) posts for real.
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"<OrderPayEmulator {self.base_url}>"

    # --- settings ---------------------------------------------------------------

    def settings_overrides(self) -> dict[str, Any]:
        """What the fixture puts into ``ORDERPAY`` (over the project's own keys)."""
        return {
            "ENVIRONMENT": "emulator",
            "EMULATOR_URL": self.base_url,
            "BASE_URL": self.base_url,
            "SDK_URL": self.base_url + "/sdk/pagseguro.js",
            "SIMULATION_URL": self.base_url,
            "TOKEN": self.token,
            # A sandbox key in the project's settings would not decrypt here.
            "PUBLIC_KEY": self.emulator.public_key,
            "NOTIFICATION_TOKENS": [self.token],
            "EMULATOR_TOKENS": [self.token],
        }

    # --- control plane ----------------------------------------------------------

    def control(self, method: str, path: str, json: Any = None) -> Any:
        """Call ``/_emulator/<path>`` (``"reset"``, ``"/faults"`` or ``"/_emulator/orders"``).

        Answers the parsed JSON; raises :class:`ControlPlaneError` with the
        emulator's answer when it is not a 2xx.
        """
        if not path.startswith(CONTROL_PREFIX + "/"):
            path = CONTROL_PREFIX + "/" + path.lstrip("/")
        response = self._session.request(
            method.upper(), self.base_url + path, json=json, timeout=CONTROL_TIMEOUT
        )
        if not response.ok:
            raise ControlPlaneError(
                f"{method.upper()} {path} answered {response.status_code}: {response.text}"
            )
        return response.json() if response.content else None

    def reset(self) -> None:
        """Forget every order, charge, card, delivery and fault; the clock back to real time."""
        self.control("POST", "reset")

    def order_ids(self) -> list[str]:
        """Every order the emulator holds (``GET /_emulator/orders``), oldest first."""
        return list(self.control("GET", "orders")["orders"])

    def inject_fault(self, kind: str, count: int = 1, **options: Any) -> None:
        """Queue a fault (``timeout``, ``reset``, ``http_500``...) for the next ``count`` calls."""
        self.control("POST", "faults", {"kind": kind, "count": count, **options})

    def resolve_charge(self, charge_id: str, status: str) -> dict[str, Any]:
        """End an ``IN_ANALYSIS`` charge with ``PAID`` or ``DECLINED``; the charge JSON."""
        return self.control("POST", f"charges/{charge_id}/resolve", {"status": status})

    def pay_pix(self, qr_code_id: str) -> dict[str, Any]:
        """A payer pays the Pix QR code ``QRCO_...`` now; the new PAID charge's JSON (notified)."""
        return self.control("POST", f"qr_codes/{qr_code_id}/pay")

    def pay_boleto(self, boleto_or_charge_id: str) -> dict[str, Any]:
        """A payer pays the boleto (its id or its charge's ``CHAR_`` id); the charge's JSON."""
        return self.control("POST", f"boletos/{boleto_or_charge_id}/pay")

    def pay_checkout(self, checkout_id: str, method: str = "CREDIT_CARD", **details: Any) -> Any:
        """A shopper pays the hosted checkout ``CHEC_...`` on its page (``CREDIT_CARD``, ``PIX``
        or ``BOLETO``; ``details`` as the control plane takes them); the order's JSON."""
        return self.control("POST", f"checkouts/{checkout_id}/pay", {"method": method, **details})

    def expire_checkout(self, checkout_id: str) -> dict[str, Any]:
        """The hosted checkout's time runs out now (it is notified); the checkout's JSON."""
        return self.control("POST", f"checkouts/{checkout_id}/expire")

    def advance_clock(self, seconds: float) -> None:
        """Move the emulator's clock ``seconds`` ahead: QR codes expire, boletos fall due.

        Only the provider's clock: the shop's (``timezone.now()``) stays. To
        move both, as ``manage.py orderpay_expire`` needs, use :meth:`travel`.
        """
        self.control("POST", "clock", {"advance_seconds": seconds})

    @contextlib.contextmanager
    def travel(self, seconds: float) -> Iterator[None]:
        """The shop's clock and the emulator's, ``seconds`` ahead together, for the block.

        One clock for both (time-machine moves the process's time; the
        emulator serves from this process and reads it too), so what the shop
        decides by its clock (``orderpay_expire`` picks a Pix order once its QR
        code expired) and what the provider answers agree. Time flows on from
        the moved point.
        """
        import time_machine
        from django.utils import timezone

        with time_machine.travel(timezone.now() + timedelta(seconds=seconds), tick=True):
            yield

    # --- 3-D Secure ---------------------------------------------------------------

    def authenticate_3ds(
        self,
        card: str,
        amount: int,
        *,
        payment_type: str = "CREDIT_CARD",
        installments: int = 1,
        challenge_code: str | None = None,
        customer: dict[str, Any] | None = None,
        billing_address: dict[str, Any] | None = None,
    ) -> ThreeDSAuthentication:
        """Authenticate ``card`` for ``amount`` cents as the checkout page's SDK would.

        ``card`` is a number (``"4000000000002503"``) or a card encrypted with
        ``services.get_public_key()`` (what the page posts). The session is
        made with the shop's token (``services.create_3ds_session``), then
        ``authenticate3DS`` is called on the emulator; a card the bank
        challenges is answered with ``challenge_code`` (the emulated bank's
        code, ``emulator.CHALLENGE_CODE``, when None; a wrong one fails it).
        ``customer`` (name, e-mail) and ``billing_address`` (the SDK's
        words: ``regionCode``, ``postalCode``) default to a test shopper:
        PagBank requires both. Answers what the form posts
        (:meth:`ThreeDSAuthentication.form_data`).
        """
        from django_orderpay.emulator import CHALLENGE_CODE
        from django_orderpay.services import create_3ds_session

        if card.isdigit():
            sdk_card: dict[str, Any] = {"number": card, "expMonth": "12", "expYear": "2030"}
        else:
            sdk_card = {"encrypted": card}
        data = {
            "customer": customer or THREEDS_CUSTOMER,
            "paymentMethod": {"type": payment_type, "installments": installments, "card": sdk_card},
            "amount": {"value": amount, "currency": "BRL"},
            "billingAddress": billing_address or THREEDS_BILLING_ADDRESS,
        }
        session = create_3ds_session().session
        answer = self._sdk("/checkout-sdk/authentications", {"session": session, "data": data})
        challenge = answer.get("challenge")
        if answer.get("status") == "REQUIRE_CHALLENGE" and challenge:
            code = CHALLENGE_CODE if challenge_code is None else challenge_code
            path = urlsplit(challenge["url"]).path
            answer = self._sdk(path, {"code": code})
            return ThreeDSAuthentication(answer.get("id"), answer["status"], challenged=True)
        return ThreeDSAuthentication(answer.get("id"), answer["status"], challenged=False)

    def _sdk(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST to the SDK's open routes (no token); a refusal is the test's own mistake."""
        response = self._session.post(self.base_url + path, json=body, timeout=CONTROL_TIMEOUT)
        if not response.ok:
            raise ControlPlaneError(f"POST {path} answered {response.status_code}: {response.text}")
        answer: dict[str, Any] = response.json()
        return answer

    # --- notifications ----------------------------------------------------------

    def notifications(self) -> list[dict[str, Any]]:
        """Every notification the emulator queued, oldest first, with its attempts."""
        return self.emulator.notifier.deliveries()

    def deliver_notifications(
        self, client: Client | None = None, *, timeout: float = DELIVERY_TIMEOUT
    ) -> list[Delivery]:
        """POST every pending notification through ``client`` (a Django test ``Client``).

        Each goes to the path (and query) of its notification URL, with the
        provider's headers, in this thread: the view runs inside the test's
        transaction and sees its rows. A delivery the view answers with a
        non-2xx is retried at once, as the provider retries, up to five more
        times. Answers every attempt made, in order. An exception raised by
        the view stops the deliveries and is raised here; so is a delivery
        still pending after ``timeout`` seconds (a view that keeps failing
        slowly), as an ``AssertionError``.
        """
        if client is None:
            from django.test import Client

            client = Client()
        target = _Target(client)
        self._local.target = target
        try:
            finished = self.emulator.notifier.flush(timeout)
        finally:
            self._local.target = None
        if target.error is not None:
            raise target.error
        if not finished:
            raise AssertionError(
                f"notifications still pending after {timeout:g} s "
                f"({len(target.attempts)} attempts made)"
            )
        return target.attempts

    def send_notification(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        """The emulator's notification sender: the bound test client, else a real POST."""
        target: _Target | None = getattr(self._local, "target", None)
        if target is None:
            from django_orderpay.emulator.control.notifier import post_with_requests

            return post_with_requests(url, body, headers)
        if target.error is not None:
            return 500  # the test fails with the view's error; send nothing more
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        extra = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        try:
            response = target.client.post(
                path,
                data=body,
                content_type=headers.get("Content-Type", "application/json"),
                headers=extra,
                secure=parts.scheme == "https",
            )
        except Exception as exc:  # the notifier would swallow it: keep it for the test
            target.error = exc
            return 500
        target.attempts.append(Delivery(url, response.status_code, response))
        return response.status_code

    def close(self) -> None:
        self._session.close()


def _clear_caches() -> None:
    """Forget the cached public key, installment plans, this thread's HTTP clients and the
    rate limits' counters (a suite declining cards test after test is no card tester)."""
    from django_orderpay import throttling
    from django_orderpay.client import reset_client
    from django_orderpay.connect.clients import reset_clients
    from django_orderpay.services.fees import clear_installment_plans_cache
    from django_orderpay.services.keys import clear_public_key_cache

    clear_public_key_cache()
    clear_installment_plans_cache()
    reset_client()
    reset_clients()
    throttling.reset()


@pytest.fixture(scope="session")
def _orderpay_emulator_server() -> Iterator[OrderPayEmulator]:
    """One emulator for the whole session, served by a threading WSGI server on 127.0.0.1."""
    from django_orderpay.emulator import Emulator
    from django_orderpay.emulator.serving.wsgi import make_server, make_wsgi_app

    holder: list[OrderPayEmulator] = []

    def sender(url: str, body: bytes, headers: dict[str, str]) -> int:
        return holder[0].send_notification(url, body, headers)

    emulator = Emulator([EMULATOR_TOKEN], notification_sender=sender, notify_in_background=False)
    server = make_server(make_wsgi_app(emulator), "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(
        target=server.serve_forever, name="orderpay-emulator-fixture", daemon=True
    )
    thread.start()
    handle = OrderPayEmulator(emulator, server, EMULATOR_TOKEN)
    holder.append(handle)
    try:
        yield handle
    finally:
        handle.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        emulator.close()


@pytest.fixture
def orderpay_emulator(
    _orderpay_emulator_server: OrderPayEmulator, settings: Any
) -> Iterator[OrderPayEmulator]:
    """The provider's emulator over HTTP, reset for this test, with ``ORDERPAY`` pointed at it.

    ``ORDERPAY`` keeps the project's other keys; ENVIRONMENT, the URLs,
    TOKEN, PUBLIC_KEY, NOTIFICATION_TOKENS and EMULATOR_TOKENS are the
    emulator's for the test. Notifications wait until
    ``orderpay_emulator.deliver_notifications(client)``.
    """
    handle = _orderpay_emulator_server
    handle.reset()
    settings.ORDERPAY = {
        **(getattr(settings, "ORDERPAY", None) or {}),
        **handle.settings_overrides(),
    }
    _clear_caches()
    try:
        yield handle
    finally:
        _clear_caches()


#: The Connect application the ``orderpay_connect`` fixture registers.
CONNECT_CLIENT_ID = "emulator-connect-app"
CONNECT_CLIENT_SECRET = "emulator-connect-secret"


class OrderPayConnect:
    """PagBank Connect on the emulator: the application, and sellers connected through it.

    ``connect_seller(client, user, email)`` runs the whole authorisation as
    a browser would (the start view, PagBank's page answered as the seller
    ``email``, the callback) with a Django test ``Client`` logged in as
    ``user``, and answers the :class:`~django_orderpay.models.ConnectedAccount`.
    """

    def __init__(self, emulator: OrderPayEmulator, redirect_uri: str, key: str) -> None:
        self.emulator = emulator
        self.client_id = CONNECT_CLIENT_ID
        self.client_secret = CONNECT_CLIENT_SECRET
        self.redirect_uri = redirect_uri
        self.key = key

    def settings_overrides(self) -> dict[str, Any]:
        return {
            "CONNECT_CLIENT_ID": self.client_id,
            "CONNECT_CLIENT_SECRET": self.client_secret,
            "CONNECT_KEYS": [self.key],
            "CONNECT_REDIRECT_URI": self.redirect_uri,
        }

    def register(self) -> None:
        self.emulator.control(
            "POST",
            "oauth/applications",
            {
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "name": "django-orderpay tests",
                "redirect_uri": self.redirect_uri,
            },
        )

    def grants(self) -> list[dict[str, Any]]:
        """Every seller's grant as the emulator holds it (tokens included)."""
        return list(self.emulator.control("GET", "oauth/grants")["grants"])

    def revoke(self, account_id: str) -> None:
        """The seller revokes the platform's access in PagBank."""
        self.emulator.control("POST", "oauth/revoke", {"account_id": account_id})

    def configure(self, **values: Any) -> None:
        """``expires_in`` (seconds) and/or ``signer`` (``account``, ``application``)."""
        self.emulator.control("POST", "oauth/settings", values)

    def authorize(
        self,
        client: Client,
        email: str,
        *,
        decision: str = "allow",
        start_url: str | None = None,
        **query: str,
    ) -> Any:
        """Start as ``client``'s user (at ``start_url``: the package's start view, or a
        shop's own subclass of it) and answer PagBank's page as ``email``: the
        callback's response (not followed)."""
        from urllib.parse import parse_qsl, urlencode

        from django.urls import reverse

        start = client.get(start_url or reverse("orderpay:connect_start"), query)
        if start.status_code != 302:
            raise AssertionError(f"the start view answered {start.status_code}")
        page = requests.get(start["Location"], timeout=CONTROL_TIMEOUT)
        page.raise_for_status()
        fields = dict(parse_qsl(urlsplit(start["Location"]).query))
        fields.update(email=email, decision=decision)
        answer = requests.post(
            self.emulator.base_url + "/oauth2/authorize",
            data=urlencode(fields),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            allow_redirects=False,
            timeout=CONTROL_TIMEOUT,
        )
        back = urlsplit(answer.headers["Location"])
        return client.get(back.path, dict(parse_qsl(back.query)))

    def connect_seller(self, client: Client, user: Any, email: str) -> Any:
        """``user`` connects the emulator's seller ``email``: its ConnectedAccount."""
        from django_orderpay.emulator.state.oauth import seller_account
        from django_orderpay.models import ConnectedAccount

        client.force_login(user)
        response = self.authorize(client, email)
        if response.status_code not in (200, 302):
            raise AssertionError(f"the callback answered {response.status_code}")
        return ConnectedAccount.objects.get(account_id=seller_account(email))


@pytest.fixture(scope="session")
def _orderpay_connect_key() -> str:
    from django_orderpay.connect.cipher import generate_key

    return generate_key()


@pytest.fixture
def orderpay_connect(
    orderpay_emulator: OrderPayEmulator, settings: Any, _orderpay_connect_key: str
) -> Iterator[OrderPayConnect]:
    """PagBank Connect on ``orderpay_emulator``: an application registered, ``ORDERPAY``'s
    ``CONNECT_*`` keys pointed at it (a fresh token key), the callback at
    ``http://testserver`` (the Django test client's host)."""
    from django.urls import reverse

    handle = OrderPayConnect(
        orderpay_emulator,
        "http://testserver" + reverse("orderpay:connect_callback"),
        _orderpay_connect_key,
    )
    handle.register()
    settings.ORDERPAY = {**settings.ORDERPAY, **handle.settings_overrides()}
    _clear_caches()
    try:
        yield handle
    finally:
        _clear_caches()
