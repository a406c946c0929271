"""The emulator mounted in a shop's URLconf refuses to serve where a deployment would.

The attack: ``ENVIRONMENT="emulator"`` left on with ``DEBUG=False``, and a
WSGI server (which runs no system checks) served reset, faults, accounts and
every delivery to anyone. Now the view itself refuses: 404 while ``DEBUG`` is
off (unless ``EMULATOR_SERVE_WITHOUT_DEBUG``), and its control plane wants an
active staff user of the shop (with Django's CSRF check for a browser's
unsafe request) or ``EMULATOR_CONTROL_SECRET`` in ``X-Emulator-Secret``.
Over real HTTP (the test project under the emulator's own WSGI server) and
through the test client.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core.wsgi import get_wsgi_application
from django.test import Client

from django_orderpay.emulator.serving.django_view import discard_emulator
from django_orderpay.emulator.serving.wsgi import serving

pytestmark = pytest.mark.django_db

SECRET = "a-long-control-plane-secret"
CONTROL_PATHS = [
    ("post", "/emulator/_emulator/reset"),
    ("post", "/emulator/_emulator/faults"),
    ("get", "/emulator/_emulator/accounts"),
    ("get", "/emulator/_emulator/notifications"),
    ("get", "/emulator/_emulator/orders"),
]
TOKEN = {"Authorization": "Bearer test-token-merchant-a"}


@pytest.fixture(autouse=True)
def fresh_emulator() -> Iterator[None]:
    discard_emulator()
    yield
    discard_emulator()


@pytest.fixture
def served() -> Iterator[str]:
    """The test project over real HTTP, as a WSGI server runs it (no system checks)."""
    with serving(get_wsgi_application()) as server:
        yield server.url


def call(url: str, method: str, **headers: str) -> requests.Response:
    return requests.request(method, url, json={"kind": "timeout"}, headers=headers, timeout=10)


@pytest.mark.parametrize(
    ("method", "path"), [*CONTROL_PATHS, ("get", "/emulator/public-keys/card")]
)
def test_with_debug_off_the_mounted_emulator_answers_nobody(settings, served, method, path):
    settings.DEBUG = False
    answer = call(served + path, method, **TOKEN, **{"X-Emulator-Secret": SECRET})
    assert answer.status_code == 404
    assert "test-token" not in answer.text


@pytest.mark.parametrize(("method", "path"), CONTROL_PATHS)
def test_a_staging_demo_serves_the_api_but_its_control_plane_needs_the_secret(
    settings, orderpay, served, method, path
):
    settings.DEBUG = False
    orderpay(EMULATOR_SERVE_WITHOUT_DEBUG=True, EMULATOR_CONTROL_SECRET=SECRET)
    assert call(served + "/emulator/public-keys/card", "get", **TOKEN).status_code == 200
    refused = call(served + path, method)
    assert refused.status_code == 403
    assert "X-Emulator-Secret" in refused.json()["detail"]
    assert call(served + path, method, **{"X-Emulator-Secret": "wrong"}).status_code == 403
    assert call(served + path, method, **{"X-Emulator-Secret": SECRET}).status_code < 300


def test_with_debug_on_the_control_plane_still_needs_staff_or_the_secret(settings, orderpay):
    settings.DEBUG = True
    client = Client()
    assert client.get("/emulator/_emulator/accounts").status_code == 403
    # No secret configured: an empty header is no secret.
    empty = client.get("/emulator/_emulator/accounts", headers={"X-Emulator-Secret": ""})
    assert empty.status_code == 403
    orderpay(EMULATOR_CONTROL_SECRET=SECRET)
    secret = {"X-Emulator-Secret": SECRET}
    assert client.get("/emulator/_emulator/accounts", headers=secret).status_code == 200


def test_a_staff_session_may_use_it_with_the_csrf_check_of_a_browser(settings):
    settings.DEBUG = True
    user = get_user_model().objects.create_user("ops", password="pw", is_staff=True)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.get("/emulator/_emulator/accounts").status_code == 200
    # A page elsewhere posting with the staff's cookie carries no CSRF token.
    reset = "/emulator/_emulator/reset"
    assert browser.post(reset, content_type="application/json").status_code == 403
    browser.get("/admin/")  # sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    reset = browser.post(reset, content_type="application/json", headers={"X-CSRFToken": token})
    assert reset.status_code < 300
    user.is_active = False
    user.save()
    customer = get_user_model().objects.create_user("shopper", password="pw")
    browser.force_login(customer)
    assert browser.get("/emulator/_emulator/accounts").status_code == 403
