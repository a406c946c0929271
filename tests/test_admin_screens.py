"""The admin's screens: lists, detail pages, badges, money, the provider JSON view, read-only."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from django_orderpay.models import ChargeStatusChange, Order
from django_orderpay.testing.factories import (
    CardTokenFactory,
    ChargeFactory,
    ChargeStatusChangeFactory,
    DeepLinkFactory,
    NotificationDeliveryFactory,
    OrderFactory,
    SplitFactory,
)
from tests.admin_support import change, changelist, client_for, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client():
    return client_for(make_user("boss", superuser=True))


def test_charge_changelist_shows_badges_money_card_and_payment_response(superuser_client):
    ChargeFactory(amount_value=123456)
    ChargeFactory(authorized=True, amount_value=2500)
    ChargeFactory(declined=True, card_brand="mastercard", card_last_digits="3264")
    ChargeFactory(canceled=True)
    ChargeFactory(in_analysis=True)

    html = superuser_client.get(changelist("charge")).content.decode()

    for status in ("paid", "authorized", "declined", "canceled", "in-analysis"):
        assert f'class="orderpay-badge orderpay-badge-{status}"' in html
    assert "R$ 1,234.56" in html
    assert "R$ 25.00" in html
    assert '"orderpay-brand">Mastercard</span>' in html
    assert '"orderpay-digits">&bull;&bull;&bull;&bull;&nbsp;3264</span>' in html
    assert "20003 NAO AUTORIZADA" in html
    assert "django_orderpay/admin.css" in html


def test_order_changelist_shows_totals_paid_and_refunded_as_money(superuser_client):
    order = OrderFactory(reference_id="loja-42")
    ChargeFactory(order=order, amount_value=10000)
    ChargeFactory(order=order, amount_value=2550, amount_refunded=550)
    ChargeFactory(order=order, declined=True, amount_value=99999)

    response = superuser_client.get(changelist("order"))

    row = next(o for o in response.context["cl"].result_list if o.pk == order.pk)
    assert (row.paid_cents, row.refunded_cents) == (12550, 550)
    html = response.content.decode()
    assert "R$ 125.50" in html
    assert "R$ 5.50" in html
    assert 'orderpay-badge-paid"' in html


@pytest.mark.parametrize(
    "term",
    ["loja-77", "Maria Souza", "maria@example.org", "98765432100", "987.654.321-00"],
)
def test_order_search_finds_by_reference_name_email_and_tax_id(superuser_client, term):
    wanted = OrderFactory(
        reference_id="loja-77",
        customer_name="Maria Souza",
        customer_email="maria@example.org",
        customer_tax_id="98765432100",
    )
    OrderFactory()

    response = superuser_client.get(changelist("order"), {"q": term})

    assert [o.pk for o in response.context["cl"].result_list] == [wanted.pk]


def test_order_search_by_provider_id_is_exact(superuser_client):
    wanted, other = OrderFactory(), OrderFactory()

    response = superuser_client.get(changelist("order"), {"q": wanted.provider_id})

    assert [o.pk for o in response.context["cl"].result_list] == [wanted.pk]
    assert other.provider_id not in response.content.decode()


def test_order_filter_by_charge_status_keeps_totals_right(superuser_client):
    declined_then_paid = OrderFactory()
    ChargeFactory(order=declined_then_paid, declined=True, amount_value=700)
    ChargeFactory(order=declined_then_paid, amount_value=700)
    only_paid = OrderFactory()
    ChargeFactory(order=only_paid, amount_value=300)

    response = superuser_client.get(changelist("order"), {"charge_status": "DECLINED"})

    rows = list(response.context["cl"].result_list)
    assert [o.pk for o in rows] == [declined_then_paid.pk]
    assert rows[0].paid_cents == 700  # not doubled by the filter's join


def test_order_filters_by_status_and_date(superuser_client):
    paid = ChargeFactory().order
    OrderFactory()  # CREATED, no charge

    response = superuser_client.get(changelist("order"), {"status__exact": "PAID"})
    assert [o.pk for o in response.context["cl"].result_list] == [paid.pk]

    day = timezone.localtime(paid.created_at)  # date_hierarchy works in the shop's zone
    response = superuser_client.get(
        changelist("order"),
        {"created_at__year": day.year, "created_at__month": day.month, "created_at__day": day.day},
    )
    assert response.status_code == 200
    assert paid.pk in [o.pk for o in response.context["cl"].result_list]


def test_order_detail_shows_charges_deeplink_and_split_read_only(superuser_client):
    order = OrderFactory()
    charge = ChargeFactory(order=order, amount_value=10000, split_method="FIXED")
    split = SplitFactory(charge=charge)
    DeepLinkFactory(order=order, amount_value=1500)

    response = superuser_client.get(change("order", order.pk))

    assert response.status_code == 200
    html = response.content.decode()
    assert charge.provider_id in html
    assert split.provider_id in html
    assert "R$ 100.00" in html
    assert "R$ 15.00" in html
    assert order.data["notification_urls"][0] in html
    # A view page: no save button, no input for any provider field.
    assert 'name="_save"' not in html
    assert 'name="reference_id"' not in html
    assert 'name="charges-0-status"' not in html
    assert reverse("admin:django_orderpay_order_provider_json", args=[order.pk]) in html


def test_charge_detail_shows_response_card_recurrence_split_and_history(superuser_client):
    charge = ChargeFactory(
        declined=True,
        installments=3,
        recurring_type="INITIAL",
        card_brand="elo",
        card_first_digits="451416",
        card_last_digits="3757",
        brand_reference_id="158762300000712",
    )
    ChargeStatusChangeFactory(charge=charge, old_status="", new_status="DECLINED")

    response = superuser_client.get(change("charge", charge.pk))

    html = response.content.decode()
    assert response.status_code == 200
    assert "20003" in html and "NAO AUTORIZADA" in html
    assert "Elo 451416******3757" in html
    assert "158762300000712" in html
    assert "Initial" in html
    assert 'orderpay-badge-declined"' in html
    inline = response.context["inline_admin_formsets"][0]
    assert inline.opts.model is ChargeStatusChange
    assert not inline.has_add_permission
    assert not inline.has_change_permission
    assert not inline.has_delete_permission
    assert 'name="_save"' not in html


def test_provider_json_view_shows_the_data_pretty_printed(superuser_client):
    charge = ChargeFactory()
    url = reverse("admin:django_orderpay_charge_provider_json", args=[charge.pk])

    response = superuser_client.get(url)

    assert response.status_code == 200
    assert response.context["provider_json"] == json.dumps(
        charge.data, indent=2, sort_keys=True, ensure_ascii=False
    )
    assert "&quot;payment_response&quot;" in response.content.decode()


def test_provider_json_view_is_for_staff_who_may_view_the_object(client, django_user_model):
    charge = ChargeFactory()
    url = reverse("admin:django_orderpay_charge_provider_json", args=[charge.pk])

    anonymous = client.get(url)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]

    customer = django_user_model.objects.create_user("customer")
    assert client_for(customer).get(url).status_code == 302

    staff_without_view = make_user("clerk")
    assert client_for(staff_without_view).get(url).status_code == 403

    viewer = make_user("viewer", "view_charge")
    assert client_for(viewer).get(url).status_code == 200


def test_provider_json_of_an_unknown_object_redirects_with_a_message(superuser_client):
    url = reverse("admin:django_orderpay_order_provider_json", args=[987654])

    response = superuser_client.get(url, follow=True)

    assert response.redirect_chain[-1][0] == reverse("admin:index")
    assert "doesn\u2019t exist" in response.content.decode()


@pytest.mark.parametrize("model_name", ["order", "charge", "split", "notificationdelivery"])
def test_provider_mirrors_have_no_add_change_or_delete(superuser_client, model_name):
    assert (
        superuser_client.get(reverse(f"admin:django_orderpay_{model_name}_add")).status_code == 403
    )
    response = superuser_client.get(changelist(model_name))
    assert response.status_code == 200
    form = response.context["action_form"]  # None when no action is offered at all
    offered = [name for name, _ in form.fields["action"].choices] if form else []
    assert "delete_selected" not in offered


def test_posting_a_change_form_is_refused(superuser_client):
    order = OrderFactory(customer_name="Jose da Silva")
    url = change("order", order.pk)
    token = superuser_client.get(url).context["csrf_token"]

    response = superuser_client.post(
        url, {"customer_name": "Someone Else", "csrfmiddlewaretoken": token}
    )

    assert response.status_code == 403
    assert Order.objects.get(pk=order.pk).customer_name == "Jose da Silva"


def test_card_token_admin_shows_only_what_identifies_the_card(superuser_client):
    owner = make_user("cardholder")
    token = CardTokenFactory(
        user=owner,
        brand="mastercard",
        first_digits="524008",
        last_digits="2454",
        exp_month="03",
        exp_year="2031",
        holder_name="Maria Souza",
    )

    html = superuser_client.get(changelist("cardtoken")).content.decode()
    detail = superuser_client.get(change("cardtoken", token.pk)).content.decode()

    for text in ("Mastercard", "524008", "2454", "03/2031", "Maria Souza", "cardholder"):
        assert text in html and text in detail
    # The token's JSON is not shown at all (there is no JSON view for cards).
    assert "provider-json" not in detail
    assert '"exp_month"' not in detail


def test_a_stored_card_can_be_deleted_by_staff_allowed_to(superuser_client):
    token = CardTokenFactory()
    url = reverse("admin:django_orderpay_cardtoken_delete", args=[token.pk])
    page = superuser_client.get(url)
    assert page.status_code == 200

    response = superuser_client.post(
        url, {"post": "yes", "csrfmiddlewaretoken": page.context["csrf_token"]}
    )

    assert response.status_code == 302
    assert not type(token).objects.filter(pk=token.pk).exists()


def test_delivery_log_lists_filters_and_searches(superuser_client):
    order = OrderFactory()
    mine = NotificationDeliveryFactory(
        order=order.data, outcome="failed", valid=False, error="provider unavailable"
    )
    NotificationDeliveryFactory(outcome="processed", valid=True)

    listing = superuser_client.get(changelist("notificationdelivery"))
    html = listing.content.decode()
    assert 'orderpay-outcome-failed"' in html and 'orderpay-outcome-processed"' in html
    assert change("order", order.pk) in html  # links to the local order

    for query in ({"outcome__exact": "failed"}, {"valid__exact": "0"}, {"q": order.provider_id}):
        response = superuser_client.get(changelist("notificationdelivery"), query)
        assert [d.pk for d in response.context["cl"].result_list] == [mine.pk], query

    detail = superuser_client.get(change("notificationdelivery", mine.pk)).content.decode()
    assert "provider unavailable" in detail
    assert "[removed]" in detail
    assert "&quot;notification_urls&quot;" in detail  # the body, pretty-printed


def test_split_admin_lists_receivers_read_only(superuser_client):
    split = SplitFactory()

    listing = superuser_client.get(changelist("split")).content.decode()
    detail = superuser_client.get(change("split", split.pk)).content.decode()

    assert split.provider_id in listing
    for receiver in split.data["receivers"]:
        assert receiver["account"]["id"] in detail
    assert 'class="orderpay-receivers"' in detail
    assert 'name="_save"' not in detail
