"""URLs handed to the payment tags and their script: this site's, or refused at render time.

The attack: a page passes a visitor's ``?next=`` to ``{% orderpay_pix ...
next_url=... %}``; ``payment.js`` navigates to it once the payment moves on,
so ``javascript:...`` ran in the shop's origin. Through a scratch view over
HTTP (Django's test client): anything but a relative URL or one on the
request's own host is answered 400 (``UnsafeURL``), and provider links that
are not http(s) are left out.
"""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse
from django.template import Context, Template
from django.test import RequestFactory
from django.urls import path

from django_orderpay.exceptions import SuspiciousOperation, UnsafeURL
from django_orderpay.models import Charge, QrCode
from django_orderpay.templatetags.orderpay import same_origin
from django_orderpay.testing.factories import ChargeFactory, OrderFactory

pytestmark = pytest.mark.django_db

PAGE = Template(
    "{% load orderpay %}{% orderpay_pix qr poll_url=request.GET.poll next_url=request.GET.next %}"
    "{% orderpay_boleto charge poll_url=request.GET.poll next_url=request.GET.next %}"
)


def payment_page(request: HttpRequest) -> HttpResponse:
    """A shop's status page passing the visitor's query string on to the tags."""
    qr = QrCode.objects.get()
    charge = Charge.objects.get()
    return HttpResponse(PAGE.render(Context({"request": request, "qr": qr, "charge": charge})))


urlpatterns = [path("pay/", payment_page)]


@pytest.fixture
def page(settings):
    settings.ROOT_URLCONF = __name__
    order = OrderFactory()
    QrCode.objects.create(
        order=order,
        provider_id="QRCO_1",
        amount_value=500,
        text="000201",
        image_url="javascript:alert(1)",
    )
    ChargeFactory(
        order=order,
        payment_method="BOLETO",
        status="WAITING",
        data={
            "links": [
                {"rel": "SELF", "href": "javascript:alert(2)", "media": "application/pdf"},
                {"rel": "SELF", "href": "https://boleto.example/b.png", "media": "image/png"},
            ]
        },
    )


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        "https://evil.example/phish",
        "//evil.example/phish",
        "data:text/html,<script>alert(1)</script>",
        r"\\evil.example",
    ],
)
@pytest.mark.parametrize("parameter", ["next", "poll"])
def test_another_origin_or_a_script_url_is_refused_with_a_400(client, page, url, parameter):
    response = client.get("/pay/", {parameter: url, "poll": "/status.json"} | {parameter: url})
    assert response.status_code == 400
    assert b"alert" not in response.content


@pytest.mark.parametrize(
    "url", ["/shop/orders/1/", "status.json", "http://testserver/shop/orders/1/"]
)
def test_relative_and_same_host_urls_render(client, page, url):
    response = client.get("/pay/", {"poll": "/status.json", "next": url})
    assert response.status_code == 200
    body = response.content.decode()
    assert f'data-orderpay-next="{url}"' in body


def test_provider_links_that_are_not_http_are_left_out(client, page):
    body = client.get("/pay/").content.decode()
    assert "javascript:" not in body
    assert 'src="https://boleto.example/b.png"' in body  # the boleto's image, http(s): kept


def test_without_a_request_only_relative_urls_pass():
    assert same_origin(Context({}), "/done/", "next_url") == "/done/"
    with pytest.raises(UnsafeURL, match="next_url"):
        same_origin(Context({}), "http://testserver/done/", "next_url")


def test_an_https_page_refuses_an_http_url_of_its_own_host():
    request = RequestFactory().get("/", secure=True)
    context = Context({"request": request})
    assert same_origin(context, "https://testserver/done/", "next_url")
    with pytest.raises(UnsafeURL):
        same_origin(context, "http://testserver/done/", "next_url")
    assert issubclass(UnsafeURL, SuspiciousOperation)
