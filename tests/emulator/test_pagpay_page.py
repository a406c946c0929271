"""The deeplink opened in a browser: the emulator's stand-in for the PagBank app.

A browser (``Accept: text/html``) gets a page with the amount, the state and
two buttons; paying or refusing there makes the charge as the balance
simulator does, notifies the order, and sends the payer back to a web
``redirect_url``. An API client still gets the JSON.
"""

from __future__ import annotations

import pytest

from django_orderpay.testing import samples

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def browse(api, method: str, url: str):
    """As a browser: asks for HTML, no token, redirects not followed."""
    return api.session.request(method, api.url(url), headers=HTML, allow_redirects=False)


@pytest.fixture
def deeplink(api):
    def make(redirect_url="https://shop.example.com/orders/1/"):
        body = samples.order_request(
            charges=samples.OMIT,
            deep_links=[{"amount": {"value": 1500}, "redirect_url": redirect_url}],
        )
        order = api.post("/orders", body).json()
        url = order["deep_links"][0]["url"]
        return order, url, url.split("r=")[1]

    return make


def test_a_browser_gets_a_page_with_the_amount_and_two_buttons(api, deeplink):
    _order, url, _id = deeplink()

    page = browse(api, "GET", url)

    assert page.status_code == 200
    assert page.headers["Content-Type"].startswith("text/html")
    assert "R$ 15.00" in page.text and "waiting for payment" in page.text
    assert "data-app-pay" in page.text and "data-app-decline" in page.text


def test_an_api_client_still_gets_the_json(api, deeplink):
    _order, url, _id = deeplink()

    answer = api.get(url, token=None).json()

    assert answer["status"] == "OPEN"


def test_paying_on_the_page_pays_and_goes_back_to_the_shop(api, deeplink):
    order, url, deeplink_id = deeplink()

    paid = browse(api, "POST", f"/pagpay/app/{deeplink_id}/pay")

    assert paid.status_code == 303
    assert paid.headers["Location"] == "https://shop.example.com/orders/1/"
    charge = api.get(f"/orders/{order['id']}").json()["charges"][0]
    assert (charge["status"], charge["payment_method"]["type"]) == ("PAID", "ACCOUNT_BALANCE")
    after = browse(api, "GET", url).text
    assert ">paid<" in after and "data-app-pay" not in after


def test_refusing_on_the_page_declines_and_the_app_may_pay_later(api, deeplink):
    order, url, deeplink_id = deeplink("myshop://orders/1")

    refused = browse(api, "POST", f"/pagpay/app/{deeplink_id}/decline")

    # Not a web address: back to the app's page, which still offers to pay.
    assert refused.status_code == 303
    assert refused.headers["Location"].endswith(f"/pagpay/download?f=order&r={deeplink_id}")
    charges = api.get(f"/orders/{order['id']}").json()["charges"]
    assert [c["status"] for c in charges] == ["DECLINED"]
    assert "data-app-pay" in browse(api, "GET", url).text


def test_an_unknown_deeplink_is_404(api):
    missing = "/pagpay/app/00000000-0000-0000-0000-000000000000/pay"
    assert browse(api, "POST", missing).status_code == 404
