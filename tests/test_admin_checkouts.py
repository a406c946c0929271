"""The checkout admin on the emulator: the list, a checkout with its orders, inactivate and
activate behind confirmation and permission, and staff's payment link for a shop object."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from django_orderpay import payloads
from django_orderpay.models import Checkout, CheckoutStatus
from django_orderpay.services import create_checkout, refresh_checkout
from tests.admin_support import change, changelist, client_for, make_user
from tests.test_admin_object_actions import button_url, buttons, confirm_on_page
from tests.test_example_shop import guest_purchase

pytestmark = pytest.mark.django_db

PAYMENT_LINK = "admin:django_orderpay_checkout_payment_link"


def checkout(**kwargs) -> Checkout:
    item = payloads.CheckoutItem(quantity=1, unit_amount=4990, name="Caneca")
    return create_checkout(payloads.CheckoutRequest(items=(item,), reference_id="shop-9"), **kwargs)


@pytest.fixture
def staff():
    return client_for(
        make_user("checkout-staff", "view_checkout", "view_order", "inactivate_checkout")
    )


def test_the_list_and_a_checkout_with_the_orders_of_its_page(orderpay_emulator, staff):
    made = checkout()
    orderpay_emulator.control("POST", f"checkouts/{made.provider_id}/pay", {"method": "PIX"})
    refresh_checkout(made)

    listing = staff.get(changelist("checkout")).content.decode()
    assert made.provider_id in listing and "R$" in listing
    page = staff.get(change("checkout", made.pk)).content.decode()
    order = made.orders.get()
    assert order.provider_id in page
    assert made.pay_url in page
    assert reverse("orderpay:checkout-pay", args=["x"]).split("x")[0] in page  # the shop's link
    assert "Paid" in page


def test_inactivate_then_activate_from_its_page(orderpay_emulator, staff):
    made = checkout()
    assert set(buttons(staff, "checkout", made)) == {"Inactivate"}

    page, done = confirm_on_page(staff, button_url("checkout", made, "inactivate_checkouts"))
    assert "its page stops taking payments" in page.content.decode()
    assert done.status_code == 302
    made.refresh_from_db()
    assert made.status == CheckoutStatus.INACTIVE
    assert set(buttons(staff, "checkout", made)) == {"Activate"}

    confirm_on_page(staff, button_url("checkout", made, "activate_checkouts"))
    made.refresh_from_db()
    assert made.status == CheckoutStatus.ACTIVE


def test_without_the_permission_there_is_no_button_and_no_way(orderpay_emulator):
    made = checkout()
    viewer = client_for(make_user("viewer", "view_checkout"))
    assert buttons(viewer, "checkout", made) == {}
    assert viewer.get(button_url("checkout", made, "inactivate_checkouts")).status_code == 403
    assert viewer.get(reverse(PAYMENT_LINK)).status_code == 403


def test_staff_create_a_payment_link_for_a_shop_object(orderpay_emulator, django_user_model):
    customer = django_user_model.objects.create_user("customer-1")
    boss = client_for(make_user("boss", "view_checkout", "add_checkout"))
    content_type = ContentType.objects.get_for_model(customer)
    assert boss.get(changelist("checkout") + "add/").status_code == 302

    form = boss.get(reverse(PAYMENT_LINK), {"object_id": customer.pk})
    data = {
        "csrfmiddlewaretoken": form.context["csrf_token"],
        "content_type": content_type.pk,
        "object_id": customer.pk,
        "description": "Encomenda 12",
        "amount": "1.234,50",
        "hours": "72",
        "payment_methods": ["PIX", "BOLETO"],
    }
    answer = boss.post(reverse(PAYMENT_LINK), data)

    assert answer.status_code == 200
    made = Checkout.objects.get()
    assert made.shop_object == customer
    assert made.amount_value == 123_450
    assert [m["type"] for m in made.data["payment_methods"]] == ["PIX", "BOLETO"]
    assert (made.expires_at - made.created_at).total_seconds() == pytest.approx(72 * 3600, abs=5)
    link = answer.context["shop_url"]
    assert link.startswith("http://testserver/orderpay/checkouts/")
    assert boss.get(link).status_code == 302

    wrong = boss.post(reverse(PAYMENT_LINK), {**data, "object_id": "999999", "amount": "0"})
    assert wrong.status_code == 200
    assert set(wrong.context["form"].errors) == {"object_id", "amount"}
    assert Checkout.objects.count() == 1


def test_the_shops_own_admin_starts_a_link_from_a_purchase(orderpay_emulator, admin_client):
    purchase = guest_purchase()
    url = reverse("admin:shop_purchase_changelist")
    answer = admin_client.post(
        url, {"action": "create_payment_link", "_selected_action": [purchase.pk]}
    )
    assert answer.status_code == 302
    form = admin_client.get(answer["Location"])
    assert form.context["form"].initial["amount"] == "94,80"
    assert form.context["form"].initial["object_id"] == str(purchase.pk)
