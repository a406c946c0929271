"""The HTTP client against the emulator through its ``requests`` transport (no socket)."""

from __future__ import annotations

import logging
import multiprocessing
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.test import override_settings

from django_orderpay import __version__
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.client import OrderPayClient, client_from_settings, get_client, reset_client
from django_orderpay.emulator import Emulator
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.exceptions import (
    AuthenticationError,
    ConfigurationError,
    IdempotencyConflict,
    NotFound,
    OrderPayError,
    PayloadError,
    ProviderError,
    ProviderUnavailable,
)
from django_orderpay.payloads import (
    Card,
    ChargeRequest,
    Customer,
    DeepLink,
    Holder,
    Item,
    OrderRequest,
    PaymentMethod,
    PayRequest,
    Receiver,
    Splits,
)

TOKEN = "client-test-token-4f1c2d"
OTHER_TOKEN = "client-test-token-other"
APPROVED_VISA = "4539620659922097"
DECLINED_VISA = "4929291898380766"
CVV = "123"


@pytest.fixture
def emulator():
    emulator = Emulator([TOKEN, OTHER_TOKEN])
    yield emulator
    emulator.close()


@pytest.fixture
def session(emulator):
    session = requests.Session()
    session.base_url = mount(session, emulator, sleep=lambda seconds: None)
    sent: list[requests.PreparedRequest] = []
    session.hooks["response"].append(lambda response, **kw: sent.append(response.request))
    session.sent = sent
    yield session
    session.close()


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def client(session, sleeps):
    return OrderPayClient(
        session.base_url,
        TOKEN,
        session=session,
        backoff=0.5,
        simulation_url=session.base_url,
        sleep=sleeps.append,
    )


def inject(session, kind, count=1, **extra):
    answer = session.post(
        session.base_url + "/_emulator/faults", json={"kind": kind, "count": count, **extra}
    )
    assert answer.status_code < 300, answer.text


def emulator_orders(session):
    answer = session.get(session.base_url + "/_emulator/orders")
    assert answer.status_code == 200
    body = answer.json()
    return body["orders"] if isinstance(body, dict) else body


def order(
    card: Card | None = None, *, capture: bool = True, amount: int = 500, **extra
) -> OrderRequest:
    charges = []
    if card is not None:
        charges = [
            ChargeRequest(
                reference_id="ch-1",
                description="Pedido 1",
                amount=amount,
                payment_method=PaymentMethod(card=card, capture=capture),
            )
        ]
    return OrderRequest(
        reference_id="ex-1",
        customer=Customer("Jose da Silva", "jose@example.com", "12345678909"),
        items=[Item("Camiseta", 1, amount, reference_id="sku-1")],
        charges=charges,
        **extra,
    )


def raw(number: str = APPROVED_VISA, **kw) -> Card:
    return Card.raw(number, 12, 2030, CVV, Holder("Jose da Silva"), **kw)


def link(resource, rel):
    return next(item["href"] for item in resource["links"] if item["rel"] == rel)


# --- each endpoint --------------------------------------------------------------------


def test_create_get_order_and_charge(client):
    created = client.create_order(order(raw()))
    charge = created["charges"][0]
    assert created["id"].startswith("ORDE_")
    assert charge["status"] == "PAID"
    assert charge["payment_response"]["code"] == "20000"
    assert client.get_order(created["id"])["id"] == created["id"]
    assert client.get_charge(charge["id"])["status"] == "PAID"


def test_a_declined_charge_is_an_answer_not_an_exception(client):
    created = client.create_order(order(raw(DECLINED_VISA, store=True)))
    charge = created["charges"][0]
    assert charge["status"] == "DECLINED"
    assert charge["payment_method"]["card"]["id"].startswith("CARD_")


def test_capture_then_partial_and_full_cancel(client):
    created = client.create_order(order(raw(), capture=False, amount=1000))
    charge_id = created["charges"][0]["id"]
    assert created["charges"][0]["status"] == "AUTHORIZED"
    assert client.capture_charge(charge_id, 1000)["status"] == "PAID"
    partial = client.cancel_charge(charge_id, 300)
    assert partial["amount"]["summary"]["refunded"] == 300
    assert client.cancel_charge(charge_id, 700)["status"] == "CANCELED"


def test_two_step_pay_with_an_encrypted_card(client):
    public_key = client.get_public_key()["public_key"]
    created = client.create_order(order())
    assert not created.get("charges")
    encrypted = encrypt_card(
        public_key,
        number=APPROVED_VISA,
        security_code=CVV,
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )
    charge = ChargeRequest(
        amount=500,
        payment_method=PaymentMethod(card=Card.from_encrypted(encrypted, holder="Jose da Silva")),
        reference_id="c",
    )
    paid = client.pay_order(created["id"], PayRequest([charge]))
    assert paid["charges"][0]["status"] == "PAID"


def test_public_key_is_the_emulators(client, emulator):
    assert client.get_public_key()["public_key"] == emulator.public_key


def test_split_fetched_by_link_and_by_id(client, emulator):
    merchant = emulator.accounts[TOKEN]
    partner = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
    created = client.create_order(order())
    splits = Splits.fixed(Receiver.fixed(merchant, 7000), Receiver.fixed(partner, 3000))
    charge = ChargeRequest(amount=10000, payment_method=PaymentMethod(card=raw()), splits=splits)
    paid = client.pay_order(created["id"], PayRequest([charge]))
    href = link(paid["charges"][0], "SPLIT")
    split = client.get_split(href)
    assert split["id"] == href.rsplit("/", 1)[-1]
    assert client.get_split(split["id"]) == split
    assert sorted(r["amount"]["value"] for r in split["receivers"]) == [3000, 7000]


def test_deeplink_simulations(client):
    created = client.create_order(order(deep_links=[DeepLink(1500, "myshop://orders/1")]))
    url = created["deep_links"][0]["url"]
    deeplink_id = parse_qs(urlsplit(url).query)["r"][0]
    client.simulate_deeplink_balance(deeplink_id, "PAID")
    charges = client.get_order(created["id"])["charges"]
    assert [c["status"] for c in charges] == ["PAID"]

    second = client.create_order(order(deep_links=[DeepLink(1500)]))
    second_id = parse_qs(urlsplit(second["deep_links"][0]["url"]).query)["r"][0]
    client.simulate_deeplink_credit_card(second_id, APPROVED_VISA)
    assert client.get_order(second["id"])["charges"][0]["status"] == "PAID"
    with pytest.raises(ProviderError) as caught:
        client.simulate_deeplink_balance(second_id, "PAID")
    assert caught.value.status == 409


def test_simulation_needs_a_sandbox(session):
    client = OrderPayClient(session.base_url, TOKEN, session=session)
    with pytest.raises(ConfigurationError):
        client.simulate_deeplink_balance("abc", "PAID")


# --- headers: auth, JSON, user agent, idempotency --------------------------------------


def test_headers_of_every_request(client, session):
    created = client.create_order(order(raw()))
    client.get_order(created["id"])
    post, get = session.sent[-2:]
    for request in (post, get):
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        assert request.headers["User-Agent"].startswith(f"django-orderpay/{__version__}")
        assert request.headers["Accept"] == "application/json"
    assert post.headers["Content-Type"] == "application/json"
    assert len(post.headers["x-idempotency-key"]) == 36
    assert "x-idempotency-key" not in get.headers


def test_each_post_gets_its_own_key_unless_given(client, session):
    client.create_order(order(raw()))
    client.create_order(order(raw()))
    keys = [r.headers["x-idempotency-key"] for r in session.sent]
    assert len(set(keys)) == 2
    client.create_order(order(raw()), idempotency_key="order-ex-1")
    assert session.sent[-1].headers["x-idempotency-key"] == "order-ex-1"


def test_same_key_same_body_answers_the_first_order(client, session):
    first = client.create_order(order(raw()), idempotency_key="k-1")
    again = client.create_order(order(raw()), idempotency_key="k-1")
    assert again["id"] == first["id"]
    assert len(emulator_orders(session)) == 1


def test_same_key_other_body_is_an_idempotency_conflict(client):
    client.create_order(order(raw()), idempotency_key="k-2")
    with pytest.raises(IdempotencyConflict) as caught:
        client.create_order(order(raw(), amount=900), idempotency_key="k-2")
    assert caught.value.status == 409
    assert caught.value.codes == ["IDEMPOTENCY_CONFLICT"]
    assert "k-2" in str(caught.value)


# --- errors -------------------------------------------------------------------------------


def test_a_bad_token_is_an_authentication_error(session):
    client = OrderPayClient(session.base_url, "not-a-token", session=session)
    with pytest.raises(AuthenticationError) as caught:
        client.get_order("ORDE_00000000-0000-0000-0000-000000000000")
    assert caught.value.status == 401
    assert "not-a-token" not in str(caught.value)


def test_an_unknown_order_is_not_found(client):
    with pytest.raises(NotFound) as caught:
        client.get_order("ORDE_00000000-0000-0000-0000-000000000000")
    assert caught.value.status == 404


def test_another_merchants_order_is_not_found(client, session):
    created = client.create_order(order(raw()))
    other = OrderPayClient(session.base_url, OTHER_TOKEN, session=session)
    with pytest.raises(NotFound):
        other.get_order(created["id"])


@pytest.mark.parametrize("status", [404, 400])
def test_checkout_not_found_is_not_found_whatever_its_status(client, session, status):
    session.post(
        session.base_url + "/_emulator/options", json={"checkout_not_found_status": status}
    )
    with pytest.raises(NotFound) as caught:
        client.get_checkout("CHEC_00000000-0000-0000-0000-000000000000")
    assert caught.value.status == status
    assert caught.value.has("checkout_not_found")
    # Another of the Checkout API's named 400s stays a refusal.
    items = [{"quantity": 1, "unit_amount": 500}]
    with pytest.raises(ProviderError) as refused:
        client.create_checkout({"items": items, "discount_amount": 501})
    assert type(refused.value) is ProviderError
    assert refused.value.has("invalid_discount_value")


def test_a_refused_request_carries_the_providers_error_messages(client, session):
    body = order(deep_links=[DeepLink(1500)]).to_dict()
    body["deep_links"][0]["redirect_url"] = "myshop:/orders/1"  # a dict is sent as given
    with pytest.raises(ProviderError) as caught:
        client.create_order(body)
    error = caught.value
    assert error.status == 400
    assert error.codes == ["40002"]
    assert error.parameter_names == ["deep_links[0].redirect_url"]
    assert "deep_links[0].redirect_url" in str(error)
    assert len(session.sent) == 1  # a 400 is never retried


def test_capture_of_a_paid_charge_is_refused(client):
    charge_id = client.create_order(order(raw()))["charges"][0]["id"]
    with pytest.raises(ProviderError) as caught:
        client.capture_charge(charge_id, 500)
    assert caught.value.codes == ["40006"]


def test_invalid_arguments_fail_before_the_network(client, session):
    with pytest.raises(PayloadError) as caught:
        client.get_order("../charges/x")
    assert caught.value.paths == ["order_id"]
    with pytest.raises(PayloadError) as caught:
        client.capture_charge("CHAR_X", 0)
    assert caught.value.paths == ["amount.value"]
    with pytest.raises(PayloadError) as caught:
        client.get_split("https://elsewhere.example.com/splits/SPLI_X")
    assert caught.value.paths == ["split"]
    with pytest.raises(PayloadError) as caught:
        client.create_order(order(raw("4111111111111112")))
    assert caught.value.paths == ["charges[0].payment_method.card.number"]
    with pytest.raises(PayloadError):
        client.simulate_deeplink_balance("abc", "MAYBE")
    assert session.sent == []


# --- retries and faults ------------------------------------------------------------------


def test_a_create_that_times_out_is_retried_with_the_same_key(client, session, caplog):
    caplog.set_level(logging.INFO, logger="django_orderpay.client")
    inject(session, "timeout", 1)
    created = client.create_order(order(raw()))
    assert created["charges"][0]["status"] == "PAID"
    attempts = [r.orderpay for r in caplog.records if r.name == "django_orderpay.client"]
    assert [a["status"] for a in attempts] == [None, 201]
    assert attempts[0]["idempotency_key"] == attempts[1]["idempotency_key"]
    assert "timeout" in caplog.records[0].getMessage()
    assert emulator_orders(session) == [created["id"]]


def test_a_reset_connection_is_retried(client, session):
    inject(session, "reset", 2)
    created = client.create_order(order(raw()))
    assert created["charges"][0]["status"] == "PAID"
    assert len(emulator_orders(session)) == 1


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("timeout", "timeout"),
        ("reset", "connection was reset"),
        ("http_500", "HTTP 500 with an empty body"),
        ("http_502", "HTTP 502"),
        ("rate_limit", "rate limited"),
    ],
)
def test_retries_run_out_into_provider_unavailable(client, session, kind, words):
    inject(session, kind, 4)
    with pytest.raises(ProviderUnavailable) as caught:
        client.create_order(order(raw()))
    error = caught.value
    assert error.attempts == 4
    assert words in error.reason
    assert words in str(error)
    assert "after 4 attempts" in str(error)
    # The same key went out each time, so at most one order can exist.
    keys = {r.headers["x-idempotency-key"] for r in session.sent if "/_emulator/" not in r.url}
    assert len(keys) <= 1  # responses seen (a timeout or reset leaves none)
    assert len(emulator_orders(session)) <= 1


def test_backoff_doubles_and_honours_retry_after(client, session, sleeps):
    inject(session, "http_502", 3)
    client.create_order(order(raw()))
    assert sleeps == [0.5, 1.0, 2.0]
    sleeps.clear()
    inject(session, "rate_limit", 1)
    no_backoff = OrderPayClient(
        session.base_url, TOKEN, session=session, backoff=0, sleep=sleeps.append
    )
    no_backoff.create_order(order(raw()))
    assert sleeps == [1.0]  # the emulator's Retry-After: 1


def test_a_cdn_html_403_is_not_retried_and_says_so(client, session):
    inject(session, "http_403_html", 5)
    with pytest.raises(ProviderUnavailable) as caught:
        client.create_order(order(raw()))
    assert caught.value.attempts == 1
    assert caught.value.status == 403
    assert "HTML page from the provider's CDN" in str(caught.value)
    assert emulator_orders(session) == []


def test_zero_retries_fail_at_once(session):
    inject(session, "http_500", 1)
    client = OrderPayClient(session.base_url, TOKEN, session=session, retries=0)
    with pytest.raises(ProviderUnavailable) as caught:
        client.get_order("ORDE_00000000-0000-0000-0000-000000000000")
    assert caught.value.attempts == 1


# --- logging and redaction -----------------------------------------------------------------


def test_log_lines_say_method_path_status_and_key(client, caplog):
    caplog.set_level(logging.INFO, logger="django_orderpay.client")
    client.create_order(order(raw()), idempotency_key="log-key-1")
    [record] = [r for r in caplog.records if r.name == "django_orderpay.client"]
    message = record.getMessage()
    assert message.startswith("POST /orders -> 201 in ")
    assert "log-key-1" in message
    assert record.orderpay["status"] == 201
    assert record.orderpay["idempotency_key"] == "log-key-1"


def test_no_secret_reaches_a_log_line_or_an_exception(client, session, caplog):
    caplog.set_level(logging.DEBUG)
    public_key = client.get_public_key()["public_key"]
    encrypted = encrypt_card(
        public_key,
        number=APPROVED_VISA,
        security_code=CVV,
        exp_month="12",
        exp_year="2030",
        holder="Jose da Silva",
    )
    client.create_order(order(raw()))
    client.create_order(order(Card.from_encrypted(encrypted, security_code=CVV, holder="Jose")))
    created = client.create_order(order(deep_links=[DeepLink(1500)]))
    deeplink_id = parse_qs(urlsplit(created["deep_links"][0]["url"]).query)["r"][0]
    client.simulate_deeplink_credit_card(deeplink_id, APPROVED_VISA)
    failures = []
    for kind, count in (("timeout", 4), ("http_500", 4), ("http_403_html", 1)):
        inject(session, kind, count)
        with pytest.raises(OrderPayError) as caught:
            client.create_order(order(raw()))
        failures.append(caught.value)
    bad_token = OrderPayClient(session.base_url, TOKEN + "x", session=session)
    with pytest.raises(AuthenticationError) as caught:
        bad_token.create_order(order(raw()))
    failures.append(caught.value)

    texts = [r.getMessage() for r in caplog.records] + [str(e) for e in failures]
    assert any('"security_code": "[REDACTED]"' in text for text in texts)  # bodies were logged
    for text in texts:
        assert APPROVED_VISA not in text
        assert encrypted[:24] not in text
        assert TOKEN not in text
        assert '"security_code": "123"' not in text


# --- settings ----------------------------------------------------------------------------


def test_client_from_settings_and_get_client(emulator):
    session = requests.Session()
    base = mount(session, emulator, "http://emulator.orderpay.test/emu", sleep=lambda s: None)
    settings = {"ENVIRONMENT": "emulator", "EMULATOR_URL": base, "TOKEN": TOKEN, "RETRIES": 1}
    with override_settings(ORDERPAY=settings):
        client = client_from_settings(session=session)
        assert client.base_url == base
        assert client.simulation_url == base
        assert client.http.retries == 1
        assert client.create_order(order(raw()))["charges"][0]["status"] == "PAID"
        assert get_client() is get_client()
        first = get_client()
    with override_settings(ORDERPAY={**settings, "TIMEOUT": 3}):
        assert get_client() is not first
        assert get_client().http.timeout == 3.0
        assert isinstance(get_client().session, requests.Session)
        second = get_client()

        reset_client()

        # Forgotten: the next call builds a new client; a reset with none cached is fine.
        assert get_client() is not second
        reset_client()
        reset_client()
        assert get_client().http.timeout == 3.0
    reset_client()


def test_a_forked_process_makes_its_own_client_and_leaves_the_parents_open():
    """Two processes writing to one inherited connection garble each other's requests (the
    provider reads half of one and half of the other): a child builds its own client."""
    settings = {"ENVIRONMENT": "emulator", "EMULATOR_URL": "http://emulator.test", "TOKEN": TOKEN}
    with override_settings(ORDERPAY=settings):
        parent = get_client()
        context = multiprocessing.get_context("fork")
        answers = context.Queue()

        def child() -> None:
            theirs = get_client()
            answers.put((theirs is parent, theirs is get_client()))

        process = context.Process(target=child)
        process.start()
        process.join(10)

        assert answers.get(timeout=5) == (False, True)
        assert get_client() is parent  # the parent's own, untouched
    reset_client()


# --- answers the emulator does not give on its own -----------------------------------------


class Provider:
    """The emulator, except for the paths given a canned answer from its own error builders."""

    def __init__(self, emulator, answers):
        self.emulator = emulator
        self.answers = answers
        self.calls = []

    def handle(self, request):
        self.calls.append((request.method, request.path))
        answer = self.answers.get((request.method, request.path))
        return answer if answer is not None else self.emulator.handle(request)


def client_for(emulator, answers):
    session = requests.Session()
    provider = Provider(emulator, answers)
    base = mount(session, provider, sleep=lambda s: None)
    return OrderPayClient(base, TOKEN, session=session, backoff=0, sleep=lambda s: None), provider


def test_a_json_403_is_forbidden(emulator):
    from django_orderpay.emulator.state import errors
    from django_orderpay.exceptions import Forbidden

    path = "/orders/ORDE_00000000-0000-0000-0000-000000000000"
    client, _provider = client_for(emulator, {("GET", path): errors.forbidden().to_response()})
    with pytest.raises(Forbidden) as caught:
        client.get_order("ORDE_00000000-0000-0000-0000-000000000000")
    assert caught.value.status == 403
    assert "Access denied" in str(caught.value)


def test_a_500_with_a_json_error_is_not_retried(emulator):
    from django_orderpay.emulator.serving.http import Response

    body = {"error_messages": [{"code": "50000", "description": "internal_error"}]}
    client, provider = client_for(emulator, {("POST", "/orders"): Response.json(500, body)})
    with pytest.raises(ProviderError) as caught:
        client.create_order(order(raw()))
    assert not isinstance(caught.value, ProviderUnavailable)
    assert caught.value.codes == ["50000"]
    assert provider.calls == [("POST", "/orders")]


def test_40004_in_a_400_is_a_rate_limit_and_retried(emulator, caplog):
    from django_orderpay.emulator.serving.http import Response

    body = {"error_messages": [{"code": "40004", "description": "rate_limit"}]}
    client, provider = client_for(emulator, {("POST", "/orders"): Response.json(400, body)})
    caplog.set_level(logging.INFO, logger="django_orderpay.client")
    with pytest.raises(ProviderUnavailable) as caught:
        client.create_order(order(raw()))
    assert caught.value.attempts == 4
    assert caught.value.status == 400
    assert "40004" in caught.value.reason
    # The last answer's error entries are kept (a non-2xx Response is falsy).
    assert caught.value.codes == ["40004"]
    assert provider.calls == [("POST", "/orders")] * 4


def test_public_key_falls_back_to_get_when_post_is_refused(emulator):
    from django_orderpay.emulator.state import errors

    refused = errors.not_found("public_key").to_response()
    client, provider = client_for(emulator, {("POST", "/public-keys"): refused})
    assert client.get_public_key()["public_key"] == emulator.public_key
    assert provider.calls == [("POST", "/public-keys"), ("GET", "/public-keys/card")]


def test_the_providers_other_error_shapes_are_read():
    from django_orderpay.exceptions import ErrorMessage, parse_error_messages

    single = {"error": "invalid_request", "description": "bad", "parameter_name": "amount.value"}
    assert parse_error_messages(single) == [
        ErrorMessage("invalid_request", "bad", "amount.value", error="invalid_request")
    ]
    simulator = {"errors": [{"code": "40901", "message": "already paid"}]}
    assert parse_error_messages(simulator) == [ErrorMessage("40901", "already paid")]
    # The gateway's 403 (https://developer.pagbank.com.br/discuss/686fae80c36eff001e4edf6d).
    assert parse_error_messages({"message": "Forbidden"}) == [ErrorMessage("", "Forbidden")]
    assert parse_error_messages({"message": ["not", "text"]}) == []
    assert parse_error_messages("<html>") == []


def test_redact_masks_secrets_by_key_and_by_look():
    from django_orderpay.redaction import MASK, redact, redact_headers, redact_text

    body = {
        "card": {
            "number": APPROVED_VISA,
            "security_code": CVV,
            "encrypted": "QUJD",
            "id": "CARD_1",
        },
        "shipping": {"address": {"number": "1384"}},
        "note": f"card {APPROVED_VISA} here",
        "card_number": APPROVED_VISA,
    }
    masked = redact(body)
    assert masked["card"] == {
        "number": MASK,
        "security_code": MASK,
        "encrypted": MASK,
        "id": "CARD_1",
    }
    assert masked["shipping"]["address"]["number"] == "1384"
    assert masked["note"] == f"card {MASK} here"
    assert masked["card_number"] == MASK
    assert body["card"]["number"] == APPROVED_VISA  # a copy: the request still has its card
    assert redact_headers({"Authorization": "Bearer x", "Accept": "a"}) == {
        "Authorization": "[removed]",
        "Accept": "a",
    }
    assert redact_text("Bearer abc.def", ()) == f"Bearer {MASK}"
    assert redact_text("token tok-1 seen", ("tok-1",)) == f"token {MASK} seen"
    assert redact_text("order 12345678909") == "order 12345678909"  # a CPF is not a card


def test_provider_errors_survive_pickling(session, client):
    import pickle

    inject(session, "http_502", 4)
    with pytest.raises(ProviderUnavailable) as caught:
        client.get_order("ORDE_00000000-0000-0000-0000-000000000000")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is ProviderUnavailable
    assert (copy.status, copy.attempts, copy.reason) == (502, 4, caught.value.reason)
    assert str(copy) == str(caught.value)


# --- answers that are not answers ----------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # The docs' shape, production's shape (seen by the official plugin), and none at all.
        {"error_messages": [{"code": "40005", "description": "idempotency_key_in_use"}]},
        {
            "error_messages": [
                {
                    "code": "IDEMPOTENCY_CONFLICT",
                    "description": "request body must be the same as the original request",
                }
            ]
        },
        None,
    ],
)
def test_any_409_on_a_post_is_an_idempotency_conflict(emulator, body):
    from django_orderpay.emulator.serving.http import Response

    answer = Response.json(409, body) if body is not None else Response(409, b"")
    client, _provider = client_for(emulator, {("POST", "/orders"): answer})
    with pytest.raises(IdempotencyConflict) as caught:
        client.create_order(order(raw()), idempotency_key="k-409")
    assert caught.value.status == 409
    assert caught.value.idempotency_key == "k-409"


def test_a_refusal_after_a_timeout_is_no_answer(client, session):
    # The first attempt was processed (its answer lost); the retries were refused
    # by a gateway. The refusal says nothing about the first attempt.
    inject(session, "timeout", 1)
    inject(session, "http_403_json", 3)
    with pytest.raises(ProviderUnavailable) as caught:
        client.create_order(order(raw()))
    error = caught.value
    assert error.status == 403
    assert error.attempts == 2
    assert "after an attempt that may have been processed" in error.reason
    assert len(emulator_orders(session)) == 1


def test_a_refusal_after_attempts_that_did_nothing_is_a_refusal(client, session):
    # A rate limit acts on nothing: the 403 that follows is the answer.
    from django_orderpay.exceptions import Forbidden

    inject(session, "rate_limit", 1)
    inject(session, "http_403_json", 3)
    with pytest.raises(Forbidden) as caught:
        client.create_order(order(raw()))
    assert caught.value.status == 403
    assert emulator_orders(session) == []


def test_a_409_after_a_timeout_is_still_the_conflict(emulator):
    from django_orderpay.emulator.serving.http import Response

    conflict = Response.json(409, {"error_messages": [{"code": "40005"}]})
    provider = Provider(emulator, {})
    calls = iter([Response(504, b"", reset=True), conflict])
    provider.answers = _Sequence(calls)
    session = requests.Session()
    base = mount(session, provider, sleep=lambda s: None)
    client = OrderPayClient(base, TOKEN, session=session, backoff=0, sleep=lambda s: None)
    with pytest.raises(IdempotencyConflict):
        client.create_order(order(raw()))


class _Sequence(dict):
    """Canned answers for every request, one after the other."""

    def __init__(self, answers):
        super().__init__()
        self._answers = answers

    def get(self, key, default=None):
        return next(self._answers, default)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_environments_proxy_is_honoured_and_read_once(emulator, monkeypatch):
    """requests would read os.environ on every request; the client reads it on its first."""
    from django_orderpay.emulator.serving.wsgi import make_wsgi_app, serving

    proxy = f"http://127.0.0.1:{_closed_port()}"
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "")
    with serving(make_wsgi_app(emulator)) as server:
        for name in ("http_proxy", "HTTP_PROXY"):
            monkeypatch.setenv(name, proxy)
        client = OrderPayClient(server.url, TOKEN, retries=0, timeout=5)
        reads = []
        environ_proxies = requests.sessions.get_environ_proxies
        monkeypatch.setattr(
            requests.sessions,
            "get_environ_proxies",
            lambda *args, **kwargs: reads.append(args) or environ_proxies(*args, **kwargs),
        )

        with pytest.raises(ProviderUnavailable, match="could not connect"):
            client.get_order("ORDE_00000000-0000-0000-0000-000000000000")  # through the proxy
        assert len(reads) == 1

        for name in ("http_proxy", "HTTP_PROXY"):
            monkeypatch.delenv(name)
        with pytest.raises(ProviderUnavailable, match="could not connect"):
            client.get_order("ORDE_00000000-0000-0000-0000-000000000000")  # read once: still it
        assert len(reads) == 1

        fresh = OrderPayClient(server.url, TOKEN, retries=0, timeout=5)
        with pytest.raises(NotFound):
            fresh.get_order("ORDE_00000000-0000-0000-0000-000000000000")  # no proxy now
        client.close()
        fresh.close()


def test_an_error_entrys_error_is_kept_beside_its_code(client, emulator):
    """PagBank's error table documents ``error`` beside ``code``; production answers e.g.
    ``{"code": "40002", "error": "SELLER_ACCOUNT_REQUIRED"}``, and some answers carry
    ``error`` and no ``code``: a shop may branch on either."""
    from django_orderpay.emulator.serving.http import Response

    with pytest.raises(ProviderError) as caught:
        client.create_order({**order(raw()).to_dict(), "reference_id": ""})
    refused = caught.value
    assert (refused.codes, refused.error_names) == (["40002"], ["invalid_parameter"])
    assert refused.has("40002") and refused.has("invalid_parameter")
    assert not refused.has("40001")

    production = {
        "error_messages": [
            {
                "code": "40002",
                "message": "Seller account required",
                "description": "Receivers must be seller accounts",
                "error": "SELLER_ACCOUNT_REQUIRED",
            },
            {"error": "incomplete_configuration", "description": "Account setup incomplete"},
        ]
    }
    answered, _ = client_for(emulator, {("POST", "/orders"): Response.json(400, production)})
    with pytest.raises(ProviderError) as caught:
        answered.create_order(order(raw()))
    refused = caught.value
    assert refused.codes == ["40002", ""]
    assert refused.error_names == ["SELLER_ACCOUNT_REQUIRED", "incomplete_configuration"]
    assert refused.has("SELLER_ACCOUNT_REQUIRED") and refused.has("incomplete_configuration")
    assert "incomplete_configuration" in str(refused)
    assert refused.error_messages[1].error == "incomplete_configuration"
