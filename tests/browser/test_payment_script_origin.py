"""``payment.js`` follows and polls only URLs of the page's own origin, in headless Chromium.

The template tags refuse another origin when rendering (tests/test_security_urls.py);
the script checks again, for markup a shop writes by hand. The page is served
by Playwright's router at a made-up origin, with the package's own script.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Route

pytestmark = pytest.mark.browser

ORIGIN = "https://shop.test"
SCRIPT = (
    Path(__file__).resolve().parents[2] / "django_orderpay/static/django_orderpay/payment.js"
).read_text()


def serve(page: Page, next_url: str, poll_url: str = "/status.json") -> list[str]:
    """Serve a waiting payment whose status endpoint already says PAID; the URLs asked."""
    asked: list[str] = []
    markup = (
        f'<div data-orderpay-poll="{poll_url}" data-orderpay-status="WAITING" '
        f'data-orderpay-next="{next_url}"></div><script src="/payment.js"></script>'
    )

    def answer(route: Route) -> None:
        url = route.request.url
        asked.append(url)
        if url.endswith("/payment.js"):
            route.fulfill(body=SCRIPT, content_type="text/javascript")
        elif url == ORIGIN + "/pay/":
            route.fulfill(body=markup, content_type="text/html")
        elif url.endswith("/status.json"):
            route.fulfill(json={"status": "PAID"})
        else:
            route.fulfill(body="<p>elsewhere</p>", content_type="text/html")

    page.route("**/*", answer)
    page.goto(ORIGIN + "/pay/")
    return asked


def test_a_same_origin_next_url_is_followed(page: Page):
    serve(page, "/done/")
    page.wait_for_url(ORIGIN + "/done/", timeout=10_000)


@pytest.mark.parametrize("next_url", ["javascript:window.hacked=1", "https://evil.test/phish"])
def test_another_origin_or_a_script_is_never_followed(page: Page, next_url: str):
    asked = serve(page, next_url)
    page.wait_for_timeout(5_000)  # two polls: each saw PAID, and the script reloads instead
    assert page.evaluate("window.hacked") is None
    assert not any(url.startswith("https://evil.test") for url in asked)


def test_a_poll_url_of_another_origin_is_not_fetched(page: Page):
    asked = serve(page, "/done/", poll_url="https://evil.test/status.json")
    page.wait_for_timeout(3_000)
    assert not any(url.startswith("https://evil.test") for url in asked)
    assert page.url == ORIGIN + "/pay/"
