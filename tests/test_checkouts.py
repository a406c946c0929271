"""PagBank's hosted Checkout end to end, on the emulator over HTTP (no browser here).

Created through ``services.create_checkout``; paid by the emulator's control
plane (the same code its page runs); the provider's notifications (the
checkout's own, and each payment's order's) posted through the Django test
client to the shop's view, in either order, twice; expiry by the emulator's
clock; inactivate/activate; a purchase paid twice through one checkout.
The page itself, in Chromium, is ``tests/browser/test_hosted_checkout.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from django_orderpay import payloads, signals
from django_orderpay.client import get_client
from django_orderpay.exceptions import NotFound, PayloadError, ProviderError
from django_orderpay.models import (
    ChangeSource,
    ChargeStatus,
    Checkout,
    CheckoutStatus,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
    OrderStatus,
)
from django_orderpay.services import (
    activate_checkout,
    cancel_charge,
    create_checkout,
    create_order,
    inactivate_checkout,
    payable_checkout,
    refresh_checkout,
)
from django_orderpay.sync import sync_checkout
from django_orderpay.testing import checkout_samples
from django_orderpay.testing.plugin import ControlPlaneError
from tests.test_services_support import APPROVED_VISA, charge, order_payload, raw_card

pytestmark = pytest.mark.django_db

NOTIFY = "https://shop.example.com/orderpay/notifications/"
BACK = "https://shop.example.com/orders/1/"


@pytest.fixture(autouse=True)
def notified_here(orderpay):
    orderpay(NOTIFICATION_URL=NOTIFY)


@pytest.fixture
def purchase(django_user_model):
    """Any saved model stands for the shop's purchase (here a user row)."""
    return django_user_model.objects.create_user("purchase-1")


@pytest.fixture
def heard() -> Iterator[dict[str, list[Any]]]:
    """What the checkout and payment signals said, by signal."""
    calls: dict[str, list[Any]] = {"paid": [], "expired": [], "duplicated": [], "charge_paid": []}

    def paid(sender, checkout, order, source, **kwargs):
        calls["paid"].append((checkout.provider_id, order.provider_id))

    def expired(sender, checkout, source, **kwargs):
        calls["expired"].append(checkout.provider_id)

    def duplicated(sender, charge, others, **kwargs):
        calls["duplicated"].append((charge.provider_id, [other.provider_id for other in others]))

    def charge_paid(sender, charge, **kwargs):
        calls["charge_paid"].append(charge.provider_id)

    pairs = [
        (signals.checkout_paid, paid),
        (signals.checkout_expired, expired),
        (signals.payment_duplicated, duplicated),
        (signals.charge_paid, charge_paid),
    ]
    for signal, receiver in pairs:
        signal.connect(receiver)
    yield calls
    for signal, receiver in pairs:
        signal.disconnect(receiver)


def request(**overrides: Any) -> payloads.CheckoutRequest:
    fields: dict[str, Any] = {
        "reference_id": "shop-1",
        "items": (payloads.CheckoutItem(quantity=2, unit_amount=5990, name="Camiseta"),),
        "redirect_url": BACK,
    }
    fields.update(overrides)
    return payloads.CheckoutRequest(**fields)


def pay(orderpay_emulator, checkout: Checkout, method: str = "CREDIT_CARD", **body: Any) -> dict:
    """A shopper pays ``checkout`` (the emulator's page code, without a browser): its order."""
    return orderpay_emulator.pay_checkout(checkout.provider_id, method, **body)


def pending(orderpay_emulator) -> list[dict[str, Any]]:
    return [d for d in orderpay_emulator.notifications() if d["pending"]]


def post(client: Client, delivery: dict[str, Any]):
    """POST one of the provider's queued notifications, as the provider would."""
    return client.post(
        "/orderpay/notifications/",
        delivery["body"].encode(),
        content_type="application/json",
        headers={k: v for k, v in delivery["headers"].items() if k.lower() != "content-type"},
    )


def deliver(orderpay_emulator, capture) -> None:
    with capture(execute=True):
        orderpay_emulator.deliver_notifications(Client())


# --- creating ---------------------------------------------------------------------------


def test_a_checkout_is_created_for_a_purchase_and_mirrored(orderpay_emulator, purchase, admin_user):
    checkout = create_checkout(request(), shop_object=purchase, user=admin_user)

    assert checkout.provider_id.startswith("CHEC_")
    assert checkout.status == CheckoutStatus.ACTIVE
    assert checkout.shop_object == purchase
    assert checkout.user == admin_user
    assert checkout.amount_value == 11_980
    assert checkout.pay_url.startswith(orderpay_emulator.base_url + "/pagamento?code=")
    assert checkout.expires_at - checkout.created_at == timedelta(hours=2)
    assert checkout.is_payable()
    # The shop's notification URL went out as both of the checkout's lists.
    assert checkout.data["notification_urls"] == [NOTIFY]
    assert checkout.data["payment_notification_urls"] == [NOTIFY]
    assert payable_checkout(purchase) == checkout


def test_the_documented_example_is_accepted_by_the_builder_and_the_emulator(orderpay_emulator):
    orderpay_emulator.control("POST", "clock", {"now": checkout_samples.CREATED_AT})
    documented = checkout_samples.create_request()
    built = payloads.checkout_from_dict(documented)

    checkout = create_checkout(built)

    documented_answer = checkout_samples.create_response()
    for key in ("payment_methods", "payment_methods_configs", "shipping", "items"):
        assert checkout.data[key] == documented_answer[key], key
    assert checkout.expires_at.isoformat() == "2023-08-14T19:09:10-03:00"
    assert create_checkout(documented).provider_id != checkout.provider_id  # the dict form too


def test_a_create_repeated_with_its_key_is_the_same_checkout(orderpay_emulator):
    first = create_checkout(request(), idempotency_key="my-key-1")
    assert create_checkout(request(), idempotency_key="my-key-1") == first
    assert create_checkout(request()) != create_checkout(request())  # no key, no shop object


def test_a_bad_checkout_names_its_fields_before_any_call(orderpay_emulator):
    with pytest.raises(PayloadError) as raised:
        create_checkout(
            request(
                items=(payloads.CheckoutItem(quantity=0, unit_amount=500),),
                soft_descriptor="s" * 18,
                customer_modifiable=False,
            )
        )
    assert {error.path for error in raised.value.errors} == {
        "items[0].quantity",
        "soft_descriptor",
        "customer",
    }
    with pytest.raises(PayloadError) as raised:
        create_checkout({"items": [{"quantity": 1, "unit_amount": 5, "colour": "red"}]})
    assert [error.path for error in raised.value.errors] == ["items[0].colour"]
    assert orderpay_emulator.control("GET", "checkouts") == {"checkouts": []}


def test_a_create_whose_answer_was_lost_is_sent_again_with_its_key(orderpay_emulator, purchase):
    orderpay_emulator.control(
        "POST", "faults", {"kind": "lost_response", "path_prefix": "/checkouts"}
    )

    checkout = create_checkout(request(), shop_object=purchase)

    assert orderpay_emulator.control("GET", "checkouts") == {"checkouts": [checkout.provider_id]}
    # Once it is mirrored, another checkout for the purchase is a new one.
    assert create_checkout(request(), shop_object=purchase) != checkout


# --- paying: both notifications, any order, once ------------------------------------------


@pytest.mark.parametrize("checkout_first", [True, False])
def test_both_notifications_are_applied_once_in_either_order(
    orderpay_emulator, purchase, heard, checkout_first, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    paid = pay(orderpay_emulator, checkout)
    deliveries = pending(orderpay_emulator)
    assert sorted(json.loads(d["body"])["id"][:5] for d in deliveries) == ["CHEC_", "ORDE_"]
    assert {d["headers"]["x-product-id"] for d in deliveries} == {checkout.provider_id}
    deliveries.sort(key=lambda d: d["body"].startswith('{"id":"CHEC_') != checkout_first)

    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        answers = [post(client, delivery) for delivery in deliveries]
        # The provider delivers each again: copies change nothing.
        answers += [post(client, delivery) for delivery in deliveries]
        orderpay_emulator.deliver_notifications(client)

    assert [a.json()["outcome"] for a in answers] == ["processed"] * 2 + ["duplicate"] * 2
    order = Order.objects.get()
    assert order.provider_id == paid["id"]
    assert order.checkout == Checkout.objects.get() == checkout
    assert order.shop_object == purchase
    assert order.status == OrderStatus.PAID
    checkout.refresh_from_db()
    assert checkout.is_paid
    assert heard["paid"] == [(checkout.provider_id, order.provider_id)]
    assert heard["charge_paid"] == [order.charges.get().provider_id]
    assert heard["duplicated"] == []


@pytest.mark.parametrize("status", [404, 400])
def test_a_checkout_notification_of_another_account_is_ignored(orderpay_emulator, status):
    # checkout_not_found's status is undocumented (the get page lists only 200 and 400):
    # the client knows it by its name in either.
    orderpay_emulator.control("POST", "options", {"checkout_not_found_status": status})
    body = json.dumps(checkout_samples.notification()).encode()
    answer = Client().post("/orderpay/notifications/", body, content_type="application/json")
    assert answer.status_code == 200
    assert answer.json()["outcome"] == DeliveryOutcome.IGNORED
    delivery = NotificationDelivery.objects.get()
    assert delivery.order_provider_id == "CHEC_120301FA-8B8B-4C25-B07D-A4541EB78EB5"
    assert "is not known to this account" in delivery.error
    assert not Checkout.objects.exists()


def test_a_checkout_notification_with_a_wrong_token_is_refused(orderpay_emulator):
    body = json.dumps(checkout_samples.notification()).encode()
    answer = Client().post(
        "/orderpay/notifications/",
        body,
        content_type="application/json",
        headers={"x-authenticity-token": "0" * 64},
    )
    assert answer.status_code == 401


def test_a_trusted_checkout_notification_is_applied_as_it_is(
    orderpay_emulator, trusting, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request())
    orderpay_emulator.expire_checkout(checkout.provider_id)
    (expiry,) = pending(orderpay_emulator)
    orderpay_emulator.control("POST", "faults", {"kind": "http_500", "count": 5})  # no fetch needed

    with django_capture_on_commit_callbacks(execute=True):
        assert post(Client(), expiry).json()["outcome"] == "processed"

    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.EXPIRED
    assert heard["expired"] == [checkout.provider_id]


def test_an_orders_checkout_is_asked_about_only_when_it_is_this_shops(
    orderpay_emulator, django_capture_on_commit_callbacks
):
    # A checkout this shop never mirrored (made in PagBank's panel, say).
    body = {"items": [{"quantity": 1, "unit_amount": 990}], "payment_notification_urls": [NOTIFY]}
    foreign = get_client().create_checkout(body)
    paid = orderpay_emulator.control(
        "POST", f"checkouts/{foreign['id']}/pay", {"method": "CREDIT_CARD"}
    )
    orderpay_emulator.control("POST", "faults", {"kind": "http_500", "path_prefix": "/checkouts"})
    (order_notice,) = pending(orderpay_emulator)
    assert order_notice["headers"]["x-product-id"] == foreign["id"]

    with django_capture_on_commit_callbacks(execute=True):
        assert post(Client(), order_notice).json()["outcome"] == "processed"

    order = Order.objects.get(provider_id=paid["id"])  # adopted as any order
    assert order.checkout is None
    assert not Checkout.objects.exists()


def test_an_orders_checkout_the_provider_says_is_not_this_accounts_is_not_linked(
    orderpay_emulator, purchase, django_capture_on_commit_callbacks
):
    orderpay_emulator.control("POST", "options", {"checkout_not_found_status": 400})
    checkout = create_checkout(request(), shop_object=purchase)
    stranger = {**checkout.data, "id": "CHEC_00000000-0000-0000-0000-000000000001"}
    sync_checkout(stranger, source=ChangeSource.NOTIFICATION)  # mirrored here, not ours there
    paid = pay(orderpay_emulator, checkout)
    order_notice = next(d for d in pending(orderpay_emulator) if '"id":"ORDE_' in d["body"])
    order_notice["headers"] = {**order_notice["headers"], "x-product-id": stranger["id"]}

    with django_capture_on_commit_callbacks(execute=True):
        assert post(Client(), order_notice).json()["outcome"] == "processed"

    order = Order.objects.get(provider_id=paid["id"])  # adopted, without that checkout
    assert order.checkout is None
    with pytest.raises(NotFound) as raised:
        refresh_checkout(stranger["id"])
    assert raised.value.status == 400


def test_a_late_copy_never_revives_an_expired_checkout(orderpay_emulator):
    checkout = create_checkout(request())
    active = dict(checkout.data)
    inactive = inactivate_checkout(checkout)
    sync_checkout(active, source=ChangeSource.NOTIFICATION)  # ACTIVE and INACTIVE may swap...
    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.ACTIVE
    sync_checkout(inactive.data, source=ChangeSource.NOTIFICATION)
    orderpay_emulator.expire_checkout(checkout.provider_id)
    refresh_checkout(checkout)

    sync_checkout(active, source=ChangeSource.NOTIFICATION)  # ...but EXPIRED is for good

    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.EXPIRED


# --- expiry ------------------------------------------------------------------------


def test_expiry_without_a_payment_is_announced_once(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    orderpay_emulator.advance_clock(2 * 3600)
    orderpay_emulator.control("GET", "orders")  # any call: the emulator looks at its clock

    deliver(orderpay_emulator, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        refresh_checkout(checkout)  # a later look changes nothing more

    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.EXPIRED
    assert not checkout.is_payable()
    assert heard["expired"] == [checkout.provider_id]
    assert heard["paid"] == []


def test_expiry_after_a_payment_cancels_nothing_and_is_not_announced(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    pay(orderpay_emulator, checkout)
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)
    orderpay_emulator.expire_checkout(checkout.provider_id)
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)

    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.EXPIRED
    order = checkout.orders.get()
    assert order.status == OrderStatus.PAID
    assert order.charges.get().status == ChargeStatus.PAID
    assert heard["expired"] == []
    assert len(heard["paid"]) == 1


def test_a_boleto_pending_at_expiry_is_waited_for(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    pay(orderpay_emulator, checkout, "BOLETO")
    orderpay_emulator.expire_checkout(checkout.provider_id)
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)
    checkout.refresh_from_db()
    assert checkout.status == CheckoutStatus.EXPIRED
    assert heard["expired"] == []  # the boleto may still be paid

    orderpay_emulator.advance_clock(5 * 86_400)  # past its due date: cancelled unpaid
    orderpay_emulator.control("GET", "orders")
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)

    assert checkout.orders.get().status == OrderStatus.CANCELED
    assert heard["expired"] == [checkout.provider_id]


def test_orderpay_expire_asks_about_checkouts_past_their_time(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    unpaid = create_checkout(request(reference_id="unpaid"), shop_object=purchase)
    paid = create_checkout(request(reference_id="paid"))
    pay(orderpay_emulator, paid)
    orderpay_emulator.emulator.notifier.drop_next(10)  # every notification lost
    orderpay_emulator.advance_clock(3 * 3600)
    Checkout.objects.update(expires_at=timezone.now() - timedelta(minutes=1))

    with django_capture_on_commit_callbacks(execute=True):
        call_command("orderpay_expire", stdout=_Sink(), stderr=_Sink())

    assert set(Checkout.objects.values_list("status", flat=True)) == {CheckoutStatus.EXPIRED}
    assert heard["expired"] == [unpaid.provider_id]
    assert paid.orders.get().status == OrderStatus.PAID  # adopted, and never cancelled


# --- switching off and on ------------------------------------------------------------


def test_inactivate_and_activate(orderpay_emulator, django_capture_on_commit_callbacks):
    checkout = create_checkout(request())

    off = inactivate_checkout(checkout)
    assert off.status == CheckoutStatus.INACTIVE and not off.is_payable()
    with pytest.raises(ControlPlaneError, match="checkout_inactive"):
        pay(orderpay_emulator, checkout, "PIX")
    on = activate_checkout(checkout)
    assert on.status == CheckoutStatus.ACTIVE and on.is_payable()
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)
    assert NotificationDelivery.objects.filter(outcome="processed").count() == 2

    orderpay_emulator.expire_checkout(checkout.provider_id)
    with pytest.raises(ProviderError) as raised:
        activate_checkout(checkout)
    assert raised.value.status == 400
    assert "The checkout has expired" in str(raised.value)
    with pytest.raises(NotFound):
        refresh_checkout("CHEC_00000000-0000-0000-0000-000000000000")


# --- a purchase paid twice ---------------------------------------------------------


def test_a_second_payment_through_a_checkout_is_a_duplicate(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    first = pay(orderpay_emulator, checkout)
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)
    second = pay(orderpay_emulator, checkout, "PIX")
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)

    (duplicate,) = heard["duplicated"]
    assert duplicate == (second["charges"][0]["id"], [first["charges"][0]["id"]])
    assert heard["paid"] == [(checkout.provider_id, first["id"])]  # still once
    # The shop refunds it, as the example shop does.
    refunded = cancel_charge(Order.objects.get(provider_id=second["id"]).charges.get())
    assert refunded.status == ChargeStatus.CANCELED


def test_a_payment_seen_before_its_checkout_is_still_a_duplicate(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        own = create_order(
            order_payload("shop-own", charges=[charge(11_980, raw_card(APPROVED_VISA))]),
            shop_object=purchase,
        )
    checkout = create_checkout(request(), shop_object=purchase)
    paid = pay(orderpay_emulator, checkout)
    order_notice = next(d for d in pending(orderpay_emulator) if '"id":"ORDE_' in d["body"])
    order_notice = {
        **order_notice,
        "headers": {k: v for k, v in order_notice["headers"].items() if k != "x-product-id"},
    }
    with django_capture_on_commit_callbacks(execute=True):
        # Without x-product-id the order is adopted alone, not knowing its purchase...
        assert post(Client(), order_notice).json()["outcome"] == "processed"
    assert heard["duplicated"] == []
    deliver(orderpay_emulator, django_capture_on_commit_callbacks)  # ...then its checkout's

    assert Order.objects.get(provider_id=paid["id"]).shop_object == purchase
    assert heard["duplicated"] == [(paid["charges"][0]["id"], [own.charges.get().provider_id])]


# --- recovering what was never notified ---------------------------------------------------


def test_orderpay_sync_finds_a_payment_whose_notifications_were_lost(
    orderpay_emulator, purchase, heard, django_capture_on_commit_callbacks
):
    checkout = create_checkout(request(), shop_object=purchase)
    orderpay_emulator.emulator.notifier.drop_next(10)
    paid = pay(orderpay_emulator, checkout)

    with django_capture_on_commit_callbacks(execute=True):
        call_command("orderpay_sync", stdout=_Sink(), stderr=_Sink())

    order = Order.objects.get(provider_id=paid["id"])
    assert order.checkout == checkout and order.shop_object == purchase
    assert heard["paid"] == [(checkout.provider_id, paid["id"])]
    with django_capture_on_commit_callbacks(execute=True):
        call_command("orderpay_sync", checkout.provider_id, stdout=_Sink(), stderr=_Sink())
    assert len(heard["paid"]) == 1


# --- sending the shopper there ------------------------------------------------------


def test_the_shops_link_redirects_while_payable_and_says_why_not_after(
    orderpay_emulator, client, django_capture_on_commit_callbacks
):
    from django_orderpay.hosted_checkout import checkout_link

    checkout = create_checkout(request())
    link = checkout_link(checkout)
    assert link.startswith("/orderpay/checkouts/") and link.endswith("/pay/")

    answer = client.get(link)
    assert answer.status_code == 302
    assert answer["Location"] == checkout.pay_url

    inactivate_checkout(checkout)
    gone = client.get(link, headers={"Accept-Language": "pt-BR"})
    assert gone.status_code == 410
    assert "Este link de pagamento não está disponível" in gone.text
    orderpay_emulator.expire_checkout(checkout.provider_id)
    refresh_checkout(checkout)
    assert "This payment link has expired" in client.get(link).text
    assert client.get(link.replace("/pay/", "x/pay/")).status_code == 404


class _Sink:
    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass
