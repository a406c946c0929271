"""Garbage posted or typed into the admin: a message or a 4xx, never a 500."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.test import Client
from django.urls import reverse

from django_orderpay.testing.factories import (
    CardTokenFactory,
    ChargeFactory,
    NotificationDeliveryFactory,
    SplitFactory,
)
from tests.admin_support import changelist, client_for, csrf_token, make_user, messages_of

pytestmark = pytest.mark.django_db

ACTIONS = {
    "charge": ["cancel_charges", "refund_charges_partially", "capture_charges"],
    "order": ["refresh_orders"],
    "notificationdelivery": ["replay_deliveries"],
    "cardtoken": ["delete_selected"],
}
BAD_IDS = ["abc", "", "1e5", "99999999999999999999999", "-"]


@pytest.fixture
def boss() -> Client:
    client = client_for(make_user("boss", superuser=True))
    client.raise_request_exception = True  # a 500 would fail the test with its traceback
    return client


@pytest.fixture
def rows() -> None:
    ChargeFactory()
    SplitFactory()
    NotificationDeliveryFactory()
    CardTokenFactory()


@pytest.mark.parametrize(
    ("model_name", "action"), [(m, a) for m, actions in ACTIONS.items() for a in actions]
)
@pytest.mark.parametrize("bad_id", BAD_IDS)
@pytest.mark.parametrize("confirmed", [False, True], ids=["changelist", "confirmation"])
def test_a_forged_selection_is_refused_in_words(boss, rows, model_name, action, bad_id, confirmed):
    url = changelist(model_name)
    data = {
        "action": action,
        helpers.ACTION_CHECKBOX_NAME: [bad_id],
        "csrfmiddlewaretoken": csrf_token(boss, url),
    }
    data.update({"post": "yes", "confirmation": "a" * 32} if confirmed else {"index": "0"})

    response = boss.post(url, data)

    assert response.status_code == 302
    assert messages_of(response) == [
        ("error", "The selection is not valid: select the objects again.")
    ]


def test_a_good_id_next_to_a_forged_one_is_not_acted_on(boss):
    charge = ChargeFactory(amount_value=1000)
    url = changelist("charge")
    data = {
        "action": "cancel_charges",
        helpers.ACTION_CHECKBOX_NAME: [str(charge.pk), "abc"],
        "post": "yes",
        "confirmation": "b" * 32,
        "csrfmiddlewaretoken": csrf_token(boss, url),
    }

    response = boss.post(url, data)

    assert [level for level, _ in messages_of(response)] == ["error"]
    charge.refresh_from_db()
    assert (charge.status, charge.amount_refunded) == ("PAID", 0)


@pytest.mark.parametrize("model_name", ["order", "charge", "split", "notificationdelivery"])
@pytest.mark.parametrize(
    "query",
    [
        "charge_status=NOT_A_STATUS",
        "status__exact=NOT_A_STATUS",
        "created_at__year=abc",
        "created_at__year=2024&created_at__month=13",
        "received_at__year=x",
        "valid__exact=maybe",
        "capture__exact=maybe",
        "o=abc",
        "o=99",
        "p=abc",
        "p=99999",
        "q=%00",
        "q=" + "x" * 3000,
        "q=123.456.789-09",
    ],
)
def test_garbage_in_a_changelist_query_is_not_a_500(boss, rows, model_name, query):
    response = boss.get(f"{changelist(model_name)}?{query}")

    # Django answers an unknown filter by redirecting with ?e=1, a page past the end with 404.
    assert response.status_code in (200, 302, 404)


@pytest.mark.parametrize("model_name", ["order", "charge", "split"])
@pytest.mark.parametrize("object_id", ["abc", "99999999999999999999999", "1%2F2", "%00"])
def test_provider_json_of_a_garbage_id_redirects_with_a_message(boss, model_name, object_id):
    url = reverse(f"admin:django_orderpay_{model_name}_changelist") + f"{object_id}/provider-json/"

    response = boss.get(url)

    assert response.status_code == 302
    assert response["Location"] == reverse("admin:index")


def test_a_refund_amount_of_garbage_is_a_message_on_the_page(boss):
    charge = ChargeFactory(amount_value=1000)
    url = changelist("charge")
    for amount in ["9" * 40, "\x00", "1,00" + "0" * 5000, "R$ R$ 1", "١٢,٣٤"]:
        data = {
            "action": "refund_charges_partially",
            helpers.ACTION_CHECKBOX_NAME: [str(charge.pk)],
            "post": "yes",
            "confirmation": "c" * 32,
            "amount": amount,
            "csrfmiddlewaretoken": csrf_token(boss, url),
        }

        response = boss.post(url, data)

        assert response.status_code == 200, amount
        assert response.context["form"].errors["amount"], amount
    charge.refresh_from_db()
    assert charge.amount_refunded == 0
