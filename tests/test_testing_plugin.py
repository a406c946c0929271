"""The ``orderpay_emulator`` fixture as a shop's test would use it.

This module is also the URLconf of its own tests (``pytest.mark.urls``): a
stand-in notification view records what the emulator delivers through the
test client.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.client import get_client
from django_orderpay.conf import get_settings
from django_orderpay.testing import samples
from django_orderpay.testing.plugin import ControlPlaneError, OrderPayEmulator
from django_orderpay.testing.samples import OMIT

SEEN: list[dict] = []
STATUSES: list[int] = []


@csrf_exempt
def shop_notifications(request: HttpRequest) -> HttpResponse:
    SEEN.append(
        {
            "body": request.body,
            "token": request.headers.get("x-authenticity-token"),
            "secure": request.is_secure(),
            "thread": threading.get_ident(),
            "query": request.GET.dict(),
            # A non-transactional test's rows are visible only in its own thread.
            "users": get_user_model().objects.count(),
        }
    )
    return HttpResponse(status=STATUSES.pop(0) if STATUSES else 204)


urlpatterns = [path("shop/notifications/", shop_notifications)]

NOTIFY_URL = "https://shop.example.com/shop/notifications/?src=orderpay"
# The samples' order, lean: no phone, item reference, shipping or charge reference.
ORDER = samples.order_request(
    reference_id="plugin-1",
    customer=samples.customer(phones=OMIT),
    items=[{"name": "Camiseta", "quantity": 1, "unit_amount": 500}],
    shipping=OMIT,
    notification_urls=[NOTIFY_URL],
    charges=[
        samples.charge_request(
            reference_id=OMIT,
            description=OMIT,
            payment_method=samples.payment_method(
                card=samples.card(holder={"name": "Jose da Silva"}, store=OMIT)
            ),
        )
    ],
)


@pytest.fixture(autouse=True)
def _clean():
    SEEN.clear()
    STATUSES.clear()
    yield
    SEEN.clear()
    STATUSES.clear()


def test_the_plugin_is_registered_through_its_entry_point(pytestconfig):
    plugin = pytestconfig.pluginmanager.get_plugin("orderpay")
    assert plugin is not None
    assert plugin.__name__ == "django_orderpay.testing.plugin"


def test_settings_point_at_the_served_emulator(orderpay_emulator):
    conf = get_settings()
    assert orderpay_emulator.base_url.startswith("http://127.0.0.1:")
    assert conf.environment == "emulator"
    assert conf.base_url == orderpay_emulator.base_url
    assert conf.simulation_url == orderpay_emulator.base_url
    assert conf.sdk_url == orderpay_emulator.base_url + "/sdk/pagseguro.js"
    assert conf.token == orderpay_emulator.token
    assert conf.notification_tokens == (orderpay_emulator.token,)
    assert conf.public_key == orderpay_emulator.emulator.public_key
    assert orderpay_emulator.account_id == orderpay_emulator.emulator.accounts[conf.token]


def test_the_emulator_answers_over_real_http(orderpay_emulator):
    script = requests.get(orderpay_emulator.base_url + "/sdk/pagseguro.js", timeout=5)
    assert script.status_code == 200
    assert "encryptCard" in script.text
    answer = get_client().create_order(ORDER)
    assert answer["charges"][0]["status"] == "PAID"
    assert orderpay_emulator.order_ids() == [answer["id"]]


def test_the_control_plane_resets_the_world(orderpay_emulator):
    get_client().create_order(ORDER)
    assert len(orderpay_emulator.order_ids()) == 1
    assert orderpay_emulator.control("POST", "/_emulator/reset") == {"reset": True}
    assert orderpay_emulator.control("GET", "orders") == {"orders": []}


def test_the_control_plane_names_a_refused_call(orderpay_emulator):
    with pytest.raises(ControlPlaneError, match="kind"):
        orderpay_emulator.control("POST", "faults", {"kind": "meteor"})


CLIENTS: list = []


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_gets_a_fresh_client_for_the_emulator(orderpay_emulator, run):
    # The fixture forgets this thread's client (django_orderpay.client.reset_client)
    # before and after each test, so no test reuses another's session.
    client = get_client()
    assert client.base_url == orderpay_emulator.base_url
    assert all(client is not earlier for earlier in CLIENTS)
    CLIENTS.append(client)


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_starts_from_an_empty_emulator(orderpay_emulator, run):
    # Whichever of the two runs second finds the first one's order gone.
    assert orderpay_emulator.order_ids() == []
    get_client().create_order(ORDER)
    assert len(orderpay_emulator.order_ids()) == 1


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_notifications_wait_until_delivered_through_the_test_client(orderpay_emulator, client):
    get_user_model().objects.create_user("buyer")
    answer = get_client().create_order(ORDER)
    assert SEEN == []  # nothing is sent behind the test's back
    [pending] = orderpay_emulator.notifications()
    assert pending["pending"] is True

    deliveries = orderpay_emulator.deliver_notifications(client)

    assert [d.status for d in deliveries] == [204]
    assert deliveries[0].url == NOTIFY_URL
    [seen] = SEEN
    assert seen["thread"] == threading.get_ident()
    assert seen["users"] == 1  # the view saw the test's own row
    assert seen["secure"] is True  # an https notification URL arrives as https
    assert seen["query"] == {"src": "orderpay"}
    assert seen["token"] == authenticity_token(orderpay_emulator.token, seen["body"])
    assert b'"id":"' + answer["id"].encode() in seen["body"]
    [done] = orderpay_emulator.notifications()
    assert done["delivered"] is True
    assert orderpay_emulator.deliver_notifications(client) == []


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_a_refused_delivery_is_retried_as_the_provider_would(orderpay_emulator, client):
    STATUSES.extend([500, 503])
    get_client().create_order(ORDER)

    deliveries = orderpay_emulator.deliver_notifications(client)

    assert [d.status for d in deliveries] == [500, 503, 204]
    assert len({entry["body"] for entry in SEEN}) == 1
    [record] = orderpay_emulator.notifications()
    assert record["delivered"] is True
    assert record["attempts"] == 3


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_deliver_without_a_client_uses_a_fresh_test_client(orderpay_emulator):
    get_client().create_order(ORDER)
    deliveries = orderpay_emulator.deliver_notifications()
    assert [d.status for d in deliveries] == [204]


def test_the_fixture_object_is_the_session_emulator(orderpay_emulator):
    assert isinstance(orderpay_emulator, OrderPayEmulator)
    assert repr(orderpay_emulator) == f"<OrderPayEmulator {orderpay_emulator.base_url}>"


@pytest.mark.urls(__name__)
def test_an_exception_in_the_view_fails_the_test_with_it(orderpay_emulator, client):
    # No django_db mark: the view's query raises, and deliver_notifications says so.
    get_client().create_order(ORDER)
    with pytest.raises(RuntimeError, match="Database access not allowed"):
        orderpay_emulator.deliver_notifications(client)
    assert SEEN == []


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_flush_through_the_control_plane_posts_for_real(orderpay_emulator, live_server):
    # Outside deliver_notifications (here: flushed in the server's thread) a
    # notification is a real HTTP POST, e.g. to pytest-django's live_server.
    order = dict(ORDER, notification_urls=[live_server.url + "/shop/notifications/"])
    get_client().create_order(order)

    answer = orderpay_emulator.control("POST", "notifications/flush")

    assert answer["flushed"] is True
    [record] = answer["deliveries"]
    assert record["delivered"] is True
    assert record["status"] == 204
    [seen] = SEEN
    assert seen["thread"] != threading.get_ident()


@pytest.mark.django_db
def test_a_shop_test_of_the_documented_flow(orderpay_emulator, client):
    # docs/testing.md: an order held for analysis, approved at the provider,
    # and the notification that tells the shop, through the package's own view.
    from django_orderpay.emulator import IN_ANALYSIS_CARD
    from django_orderpay.services import create_order

    body = dict(ORDER, notification_urls=["https://shop.example.com/orderpay/notifications/"])
    body["charges"] = [dict(ORDER["charges"][0])]
    body["charges"][0]["payment_method"] = dict(
        body["charges"][0]["payment_method"],
        card=dict(ORDER["charges"][0]["payment_method"]["card"], number=IN_ANALYSIS_CARD),
    )
    order = create_order(body)
    charge = order.charges.get()
    assert charge.status == "IN_ANALYSIS"

    orderpay_emulator.resolve_charge(charge.provider_id, "PAID")
    deliveries = orderpay_emulator.deliver_notifications(client)

    # One for the create, one for the resolution; the view took both.
    assert len(deliveries) == 2
    assert all(200 <= d.status < 300 for d in deliveries)
    charge.refresh_from_db()
    assert charge.status == "PAID"
    assert list(charge.status_changes.values_list("new_status", "source")) == [
        ("IN_ANALYSIS", "api"),
        ("PAID", "notification"),
    ]


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_deliveries_left_pending_are_reported_not_dropped(orderpay_emulator, client):
    get_client().create_order(ORDER)

    with pytest.raises(AssertionError, match="still pending"):
        orderpay_emulator.deliver_notifications(client, timeout=0)

    assert SEEN == []
    assert [d.status for d in orderpay_emulator.deliver_notifications(client)] == [204]


# --- plugin autoloading off: the recipe of docs/testing.md ---------------------------------

_TESTING_DOC = Path(__file__).resolve().parent.parent / "docs" / "testing.md"


def _fresh_run(tmp_path, *args: str, conftest_line: str = "") -> subprocess.CompletedProcess:
    """The docs' first testing example in a fresh project, plugin autoloading off."""
    from tests.test_docs import fresh_project

    project = fresh_project(tmp_path)
    if conftest_line:
        conftest = project / "conftest.py"
        conftest.write_text(conftest.read_text() + "\n" + conftest_line + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")}
    env |= {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "ORDERPAY_TEST_DATABASE": "test_orderpay_recipe"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "test_docs_module_1.py", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_with_autoloading_off_the_documented_addopts_load_both_plugins(tmp_path):
    recipe = "addopts = -p pytest_django.plugin -p django_orderpay.testing.plugin"
    assert recipe in _TESTING_DOC.read_text()
    result = _fresh_run(
        tmp_path, "-p", "pytest_django.plugin", "-p", "django_orderpay.testing.plugin"
    )
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout + result.stderr


def test_with_autoloading_off_our_plugin_may_come_from_conftest_but_pytest_django_may_not(
    tmp_path,
):
    ours = 'pytest_plugins = ["django_orderpay.testing.plugin"]'
    both = 'pytest_plugins = ["pytest_django.plugin", "django_orderpay.testing.plugin"]'
    assert ours in _TESTING_DOC.read_text()

    works = _fresh_run(tmp_path / "a", "-p", "pytest_django.plugin", conftest_line=ours)
    assert works.returncode == 0 and "1 passed" in works.stdout, works.stdout + works.stderr

    fails = _fresh_run(tmp_path / "b", conftest_line=both)  # what the docs warn against
    assert fails.returncode != 0
    assert "ImproperlyConfigured" in fails.stdout + fails.stderr
