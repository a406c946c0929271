"""The emulator's core: one stateful provider behind ``Emulator.handle(Request) -> Response``.

The core routes by method and path, authenticates the merchant, applies
``x-idempotency-key`` and injected faults, and hands the call to the rule
modules (``orders``, ``charges``, ``pagpay``, ``resources``, ``control``).
Every answer is in the provider's shapes; bad input is a 4xx naming the
field, and only a bug of ours is a 500 (logged, never with request data).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from .control import connect as connect_control
from .control import plane
from .control.latency import Latency
from .control.notifier import Notifier
from .resources import (
    boleto,
    card_tokens,
    challenge,
    checkout_control,
    checkout_page,
    checkouts,
    connect,
    connect_page,
    fees,
    keys,
    orders,
    pagpay,
    pagpay_page,
    pix,
    pix_payment,
    threeds,
)
from .resources.charges import cancel_charge, capture_charge, get_charge
from .serving.http import Request, Response
from .state import errors, persistence
from .state.clock import Clock
from .state.errors import ProviderError, SimulationError
from .state.idempotency import fingerprint
from .state.jsonbody import parse_json
from .state.keypair import KeyPair
from .state.options import Options
from .state.retention import DEFAULT_RETAINED_ORDERS, Retention, trim
from .state.store import Call, State

DEFAULT_TOKEN = "emulator-token"
#: Generated ``ACCO_`` ids derive from the token (UUID5 in this namespace), so
#: a token names the same account in every run of the emulator.
ACCOUNT_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "urn:django-orderpay:emulator:account")

logger = logging.getLogger("django_orderpay.emulator")

Handler = Callable[[State, Call], Response]
Sender = Callable[[str, bytes, dict[str, str]], int]

MERCHANT = "merchant"  # a merchant's token required; errors in the Orders API shape
OPEN = "open"  # no token (the SDK script)
SIMULATOR = "simulator"  # no token; errors in the simulator's shape
CONTROL = "control"  # no token, no faults, no idempotency
APPLICATION = "application"  # a Connect application's credentials; Connect's error codes
#: The browser SDK's calls come from the shop's pages, another origin: CORS allows them.
CORS_HEADERS = (
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type"),
    ("Access-Control-Max-Age", "600"),
)


@dataclass(frozen=True)
class Route:
    """One endpoint: ``template`` uses ``{id}`` for a path segment the handler receives."""

    method: str
    template: str
    handler: Handler
    access: str = MERCHANT
    body_optional: bool = False
    #: False for a control call that waits on the notifier: a shop's handler
    #: may call the emulator back while it is being notified.
    locked: bool = True
    #: Called by the browser SDK from a shop's page: answers carry CORS headers.
    cors: bool = False
    #: A form post from a page (not JSON): the handler reads the body itself.
    form: bool = False
    #: The Connect scopes of which an application's access token needs one (none: any token).
    scopes: tuple[str, ...] = ()
    #: ``Authorization: Bearer <token>`` only. Otherwise the bare token is taken too: PagBank's
    #: own fee example sends ``Authorization: <token>``, and the official WooCommerce plugin
    #: (and Virtuaria) send a token so to ``/orders``, ``/charges/*``, ``/public-keys`` and
    #: the 3-D Secure session; to the Checkout API and ``/oauth2/application``, documented and
    #: sent as ``Bearer`` only (by those same plugins), nothing shows a bare one taken.
    bearer_only: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\\\{\w+\\\}", "([^/]+)", re.escape(self.template)) + "$")


#: What a Connect access token needs for each kind of call (PagBank's scope table).
CREATE = ("payments.create",)
READ = ("payments.read", "payments.create")
REFUND = ("payments.refund",)
SPLIT_READ = ("payments.split.read", "payments.read", "payments.create")
CHECKOUT_CREATE = ("checkout.create",)
CHECKOUT_VIEW = ("checkout.view", "checkout.create")
CHECKOUT_UPDATE = ("checkout.update",)

ROUTES: tuple[Route, ...] = (
    Route("POST", "/orders", orders.create_order, scopes=CREATE),
    Route("GET", "/orders", orders.find_order_by_charge, scopes=READ),
    Route("GET", "/orders/{id}", orders.get_order, scopes=READ),
    Route("POST", "/orders/{id}/pay", orders.pay_order, scopes=CREATE),
    Route(
        "POST", "/checkouts", checkouts.create_checkout, scopes=CHECKOUT_CREATE, bearer_only=True
    ),
    Route("GET", "/checkouts/{id}", checkouts.get_checkout, scopes=CHECKOUT_VIEW, bearer_only=True),
    Route(
        "POST",
        "/checkouts/{id}/activate",
        checkouts.activate_checkout,
        body_optional=True,
        scopes=CHECKOUT_UPDATE,
        bearer_only=True,
    ),
    Route(
        "POST",
        "/checkouts/{id}/inactivate",
        checkouts.inactivate_checkout,
        body_optional=True,
        scopes=CHECKOUT_UPDATE,
        bearer_only=True,
    ),
    Route("GET", "/pagamento", checkout_page.checkout_page, OPEN),
    Route("GET", "/pagamento/checkout.js", checkout_page.checkout_script, OPEN),
    Route("GET", "/pagamento/done", checkout_page.done_page, OPEN),
    Route("POST", "/pagamento/{id}", checkout_page.pay_from_page, OPEN),
    Route("POST", "/pagamento/{id}/pix/{id}", checkout_page.pay_pix_from_page, OPEN, True),
    Route("GET", "/charges/{id}", get_charge, scopes=READ),
    Route("POST", "/charges/{id}/capture", capture_charge, body_optional=True, scopes=CREATE),
    Route("POST", "/charges/{id}/cancel", cancel_charge, body_optional=True, scopes=REFUND),
    Route("POST", "/pix/pay/{id}", pix_payment.simulate_payment, body_optional=True),
    Route("GET", "/qrcode/{id}/png", pix.qr_png, OPEN),
    Route("GET", "/qrcode/{id}/base64", pix.qr_base64, OPEN),
    Route("GET", "/boletos/{id}", boleto.boleto_page, OPEN),
    Route("GET", "/boletos/{id}/pdf", boleto.boleto_pdf, OPEN),
    Route("GET", "/boletos/{id}/png", boleto.boleto_png, OPEN),
    Route("POST", "/boletos/{id}/pay", boleto.pay_from_page, OPEN, body_optional=True),
    Route("GET", "/splits/{id}", keys.get_split, scopes=SPLIT_READ),
    Route("POST", "/splits/{id}/custody/release", keys.release_custody, scopes=CREATE),
    Route("POST", "/public-keys", keys.create_public_key),
    Route("GET", "/public-keys/card", keys.get_public_key),
    Route("POST", "/tokens/cards", card_tokens.store_card, scopes=CREATE),
    Route("GET", "/charges/fees/calculate", fees.calculate_fees),
    Route("POST", "/checkout-sdk/sessions", threeds.create_session, body_optional=True),
    Route("POST", "/checkout-sdk/authentications", threeds.authenticate, OPEN, cors=True),
    Route("GET", "/checkout-sdk/challenges/{id}", challenge.challenge_page, OPEN),
    Route("POST", "/checkout-sdk/challenges/{id}", threeds.answer_challenge, OPEN, cors=True),
    Route("GET", "/sdk/pagseguro.js", keys.sdk_script, OPEN),
    Route("POST", "/pagpay/balance/{id}", pagpay.pay_with_balance, SIMULATOR),
    Route("POST", "/pagpay/credit-card/{id}", pagpay.pay_with_card, SIMULATOR),
    Route("GET", "/pagpay/download", pagpay.download_page, SIMULATOR),
    Route("POST", "/pagpay/app/{id}/pay", pagpay_page.pay_from_page, SIMULATOR, True),
    Route("POST", "/pagpay/app/{id}/decline", pagpay_page.decline_from_page, SIMULATOR, True),
    Route("GET", "/oauth2/authorize", connect_page.authorize_page, OPEN),
    Route("POST", "/oauth2/authorize", connect_page.authorize_answer, OPEN, form=True),
    Route("POST", "/oauth2/token", connect.token, APPLICATION),
    Route("POST", "/oauth2/refresh", connect.refresh, APPLICATION),
    Route("POST", "/oauth2/revoke", connect.revoke, APPLICATION),
    Route("POST", "/oauth2/application", connect.create_application, bearer_only=True),
    Route("GET", "/oauth2/application/{id}", connect.get_application, bearer_only=True),
    Route("POST", "/_emulator/oauth/applications", connect_control.register_application, CONTROL),
    Route("GET", "/_emulator/oauth/grants", connect_control.list_grants, CONTROL),
    Route("POST", "/_emulator/oauth/revoke", connect_control.revoke_account, CONTROL),
    Route("GET", "/_emulator/oauth/settings", connect_control.get_settings, CONTROL),
    Route("POST", "/_emulator/oauth/settings", connect_control.set_settings, CONTROL),
    Route("POST", "/_emulator/reset", plane.reset, CONTROL, True),
    Route("GET", "/_emulator/notifications", plane.list_notifications, CONTROL),
    Route(
        "POST", "/_emulator/notifications/flush", plane.flush_notifications, CONTROL, True, False
    ),
    Route("POST", "/_emulator/notifications/drop", plane.drop_notifications, CONTROL),
    Route("POST", "/_emulator/charges/{id}/resolve", plane.resolve_charge, CONTROL),
    Route(
        "POST", "/_emulator/qr_codes/{id}/pay", pix_payment.pay_from_control_plane, CONTROL, True
    ),
    Route("POST", "/_emulator/boletos/{id}/pay", boleto.pay_from_control_plane, CONTROL, True),
    Route("GET", "/_emulator/checkouts", checkout_control.list_checkouts, CONTROL),
    Route("POST", "/_emulator/checkouts/{id}/pay", checkout_control.pay, CONTROL),
    Route("POST", "/_emulator/checkouts/{id}/expire", checkout_control.expire_now, CONTROL, True),
    Route("GET", "/_emulator/clock", plane.get_clock, CONTROL),
    Route("POST", "/_emulator/clock", plane.move_clock, CONTROL),
    Route("GET", "/_emulator/faults", plane.list_faults, CONTROL),
    Route("POST", "/_emulator/faults", plane.inject_fault, CONTROL),
    Route("DELETE", "/_emulator/faults", plane.clear_faults, CONTROL),
    Route("GET", "/_emulator/orders", plane.list_orders, CONTROL),
    Route("GET", "/_emulator/accounts", plane.list_accounts, CONTROL),
    Route("GET", "/_emulator/options", plane.get_options, CONTROL),
    Route("POST", "/_emulator/options", plane.set_options, CONTROL),
    Route("GET", "/_emulator/latency", plane.get_latency, CONTROL),
    Route("POST", "/_emulator/latency", plane.set_latency, CONTROL),
    Route("GET", "/_emulator/retention", plane.get_retention, CONTROL),
    Route("POST", "/_emulator/retention", plane.set_retention, CONTROL),
)
_COMPILED = tuple((route, route.pattern) for route in ROUTES)


def account_for(token: str) -> str:
    """The ``ACCO_`` id the emulator gives ``token`` when none was assigned."""
    return f"ACCO_{str(uuid.uuid5(ACCOUNT_NAMESPACE, token)).upper()}"


def _accounts(tokens: Iterable[str] | Mapping[str, str] | None) -> dict[str, str]:
    if tokens is None:
        tokens = [DEFAULT_TOKEN]
    elif isinstance(tokens, str):  # one token, not an iterable of characters
        tokens = [tokens]
    if isinstance(tokens, Mapping):
        accounts = {str(token): str(account) for token, account in tokens.items()}
    else:
        accounts = {str(token): account_for(str(token)) for token in tokens}
    if not accounts or not all(accounts):
        raise ValueError("the emulator needs at least one non-empty bearer token")
    return accounts


def _held_back(response: Response, latency: Latency, path: str) -> Response:
    """``response`` with the added latency (the adapter sleeps it, outside the lock)."""
    if not latency.applies_to(path):
        return response
    return dataclasses.replace(response, delay=response.delay + latency.seconds)


def _json_payload(request: Request, route: Route) -> dict[str, Any]:
    """The body as a JSON object: ``{}`` for a GET or an allowed empty body; else 40002 ``body``."""
    if request.method.upper() != "POST" or route.form:
        return {}
    if not request.body.strip() and route.body_optional:
        return {}
    media = (request.header("Content-Type") or "").split(";")[0].strip().lower()
    if media != "application/json":
        raise errors.invalid("body", "content_type_must_be_application_json")
    payload = parse_json(request.body)
    if not isinstance(payload, dict):
        raise errors.invalid("body", "body_must_be_a_json_object")
    return payload


class Emulator:
    """A stateful, in-memory PagBank Orders API for one or more merchants.

    ``tokens``: bearer token -> ``ACCO_`` id, or tokens whose accounts are
    derived from them (``account_for``); None means ``[DEFAULT_TOKEN]``.
    ``notification_sender(url, body, headers) -> status`` replaces the
    default ``requests`` POST; ``notify_in_background=False`` sends only on
    ``notifier.flush()``, in the caller's thread. ``options`` picks the
    behaviours the real API does not settle (:class:`~.state.options.Options`).
    ``latency`` seconds are added to every provider answer
    (:mod:`.control.latency`); ``retain_orders`` is how many orders are
    remembered before the oldest are forgotten (:mod:`.state.retention`).
    ``applications`` are Connect applications registered from the start
    (``{"client_id", "client_secret", "name", "redirect_uri"}``; also through
    the control plane, ``POST /_emulator/oauth/applications``).
    ``state_file``: a path where the state is kept across restarts
    (:mod:`.state.persistence`); read now if it exists, written after every
    call that may change the state.
    """

    def __init__(
        self,
        tokens: Iterable[str] | Mapping[str, str] | None = None,
        *,
        notify_delay: float = 0.0,
        notification_sender: Sender | None = None,
        clock: Clock | None = None,
        notify_in_background: bool = True,
        options: Options | None = None,
        latency: float = 0.0,
        retain_orders: int = DEFAULT_RETAINED_ORDERS,
        applications: Iterable[Mapping[str, str]] = (),
        state_file: str | os.PathLike[str] | None = None,
    ) -> None:
        self.accounts = _accounts(tokens)
        self.state_file = Path(state_file) if state_file else None
        saved = persistence.load(self.state_file) if self.state_file else None
        self.clock = clock or Clock()
        self.notifier = Notifier(
            notification_sender,
            delay=notify_delay,
            clock=self.clock,
            background=notify_in_background,
        )
        if saved is not None:
            keys = saved.keys
        else:
            keys = KeyPair.generate(created_at=int(self.clock.now().timestamp() * 1000))
        options = options or Options()
        delay = Latency(latency)
        retention = Retention(retain_orders)
        self._state = State(
            clock=self.clock,
            keys=keys,
            notifier=self.notifier,
            accounts=self.accounts,
            options=options,
            initial_options=options,
            latency=delay,
            initial_latency=delay,
            retention=retention,
            initial_retention=retention,
        )
        if saved is not None:
            for name, value in saved.parts.items():
                setattr(self._state, name, value)
        self.faults = self._state.faults
        for application in applications:
            try:
                connect.register(self._state, dict(application), None)
            except ProviderError as error:
                raise ValueError(f"Connect application: {error}") from None
        # One lock around all state: calls are served one at a time, which is
        # what makes idempotency and "one approved payment" races impossible here.
        self._lock = threading.RLock()
        if self.state_file is not None:
            self._save()  # at once: a new file, or a file set aside, is replaced now

    @property
    def public_key(self) -> str:
        """The card public key, base64 DER SubjectPublicKeyInfo (as ``/public-keys`` answers)."""
        return self._state.keys.public_key

    @property
    def private_key(self) -> rsa.RSAPrivateKey:
        """The private half of the card key pair: a test plays the provider's side with it
        (``cardcrypto.decrypt_card(emulator.private_key, blob)``). Never log or serialise it."""
        return self._state.keys.private_key

    def reset(self) -> None:
        """Forget all orders, charges, cards, deliveries and faults; the clock back to real time."""
        with self._lock:
            plane.reset_world(self._state)
            self._save()

    def _save(self) -> None:
        """Keep the state in ``state_file`` (called under the lock, after a change)."""
        if self.state_file is None:
            return
        try:
            persistence.save(self._state, self.state_file)
        except OSError as exc:
            # Serving goes on: the file is a convenience of development, not the state.
            logger.warning("emulator state file %s not written: %s", self.state_file, exc)

    def close(self) -> None:
        """Stop the notifier's background thread."""
        self.notifier.close()

    def handle(self, request: Request) -> Response:
        """Serve one request. Never raises: a bug of ours is a logged 500 in the error shape."""
        try:
            return self._handle(request)
        except Exception:
            logger.exception("emulator failed before routing a %s", request.method[:10])
            return errors.internal_error()

    def _handle(self, request: Request) -> Response:
        path = request.path.rstrip("/") or "/"
        method = request.method.upper()
        candidates = [
            (route, match) for route, pattern in _COMPILED if (match := pattern.match(path))
        ]
        if not candidates:
            return errors.not_found("resource").to_response()
        if method == "OPTIONS" and any(route.cors for route, _ in candidates):
            return Response(204, b"", list(CORS_HEADERS))  # the browser's preflight
        chosen = next(((r, m) for r, m in candidates if r.method == method), None)
        if chosen is None:
            allowed = ", ".join(sorted({route.method for route, _ in candidates}))
            response = ProviderError(
                405, [{"code": "METHOD_NOT_ALLOWED", "description": f"use {allowed}"}]
            ).to_response()
            response.headers.append(("Allow", allowed))
            return response
        route, match = chosen
        changes = method != "GET"
        if route.access == CONTROL:
            if not route.locked:
                return self._serve(route, request, match.groups())
            with self._lock:
                response = self._serve(route, request, match.groups())
                if changes:
                    self._save()
                return response
        fault = self.faults.take(path)
        latency = self._state.latency
        if fault is not None and fault.before_work:
            return _held_back(fault.respond(), latency, path)
        with self._lock:
            response = self._serve(route, request, match.groups())
            trim(self._state)
            if changes:
                # (A read cancels boletos past due too; after a restart the next call does.)
                self._save()
        if route.cors:
            response.headers.extend(CORS_HEADERS[:1])
        response = fault.respond(response) if fault is not None else response
        return _held_back(response, latency, path)

    def _authenticate(
        self, request: Request, *, bearer_only: bool = False
    ) -> tuple[str, str | None, str]:
        """The caller's account, and, for a Connect access token (unexpired by the
        emulator's clock, not revoked), its application and scopes.

        ``Authorization: Bearer <token>``, or (unless ``bearer_only``) the bare token."""
        scheme, space, token = (request.header("Authorization") or "").strip().partition(" ")
        if not space and not bearer_only:
            scheme, token = "bearer", scheme
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise errors.unauthorized()
        account = self.accounts.get(token)
        if account is not None:
            return account, None, ""
        found = self._state.oauth.by_access_token(token)
        if found is None or found[1] <= self.clock.now():
            raise errors.unauthorized()
        grant = found[0]
        return grant.account, grant.client_id, grant.scope

    def _application(self, request: Request) -> str:
        """The Connect application calling ``/oauth2/*``: ``Pub <secret>``, or a merchant's
        ``Bearer`` with ``X_CLIENT_ID`` and ``X_CLIENT_SECRET`` (``X-Client-Id`` too)."""
        scheme, _, value = (request.header("Authorization") or "").strip().partition(" ")
        app = None
        if scheme.lower() == "pub" and value.strip():
            app = self._state.oauth.application(None, value.strip())
        elif scheme.lower() == "bearer" and value.strip() in self.accounts:
            client_id = request.header("X_CLIENT_ID") or request.header("X-Client-Id")
            secret = request.header("X_CLIENT_SECRET") or request.header("X-Client-Secret")
            if client_id and secret:
                app = self._state.oauth.application(client_id, secret)
        if app is None:
            raise errors.connect_error("41003", 401)
        return app.client_id

    def _serve(self, route: Route, request: Request, params: tuple[str, ...]) -> Response:
        client_id: str | None = None
        try:
            if route.access == MERCHANT:
                account, client_id, scope = self._authenticate(
                    request, bearer_only=route.bearer_only
                )
                if (
                    client_id is not None
                    and route.scopes
                    and not set(route.scopes) & set(scope.split())
                ):
                    raise errors.forbidden(f"insufficient scope: needs {' or '.join(route.scopes)}")
            else:
                account = None
                if route.access == APPLICATION:
                    client_id = self._application(request)
        except ProviderError as error:
            return error.to_response()
        is_post = request.method.upper() == "POST"
        key = request.header("x-idempotency-key") if account and is_post else None
        if key:
            stored = self._state.idempotency.lookup(account or "", key)
            if stored is not None:
                if stored.fingerprint != fingerprint(request):
                    shape = self._state.options.idempotency_conflict
                    return errors.idempotency_conflict(shape).to_response()
                return stored.response()
        response = self._call(route, request, params, account, client_id)
        if key and response.status < 500:
            self._state.idempotency.remember(account or "", key, request, response)
        return response

    def _call(
        self,
        route: Route,
        request: Request,
        params: tuple[str, ...],
        account: str | None,
        client_id: str | None = None,
    ) -> Response:
        try:
            try:
                payload = _json_payload(request, route)
            except ProviderError:
                if route.access == SIMULATOR:
                    raise SimulationError.bad_request("body must be a JSON object") from None
                raise
            call = Call(request, params, payload, account, self.clock.now(), client_id)
            if route.locked:
                # Boletos past due are cancelled, checkouts past their time expired (and
                # notified), before anyone looks.
                boleto.expire_boletos(self._state, call.now, call.base_url)
                checkouts.expire_checkouts(self._state, call.now, call.base_url)
            return route.handler(self._state, call)
        except (ProviderError, SimulationError) as error:
            return error.to_response()
        except Exception:
            # The log names the route's template only: paths, bodies and
            # headers may hold card data or tokens.
            logger.exception("emulator failed on %s %s", route.method, route.template)
            return errors.internal_error()
