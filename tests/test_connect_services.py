"""Every service acting for a connected account, through the emulator.

Sellers A and B are connected through the real authorisation; each payment
is made with its seller's token and lands in its seller's account, the
mirror rows say whose they are, and nothing of one account is touched with
the other's token.
"""

from __future__ import annotations

import pytest

from django_orderpay import services
from django_orderpay.exceptions import CardTokenNotOwned, PayloadError
from django_orderpay.models import CardToken, ConnectedAccount, Operation, Order
from django_orderpay.sync import SyncError, sync_order
from tests.connect_support import accounts, grant_of, staff
from tests.test_services_support import buyer, charge, order_payload, raw_card

__all__ = ["accounts", "buyer", "staff"]

pytestmark = pytest.mark.django_db


def _emulator_order(orderpay_emulator, order_id):
    return orderpay_emulator.emulator._state.orders[order_id]


def test_a_payment_for_seller_a_and_one_for_seller_b(orderpay_emulator, accounts, buyer):
    seller_a, seller_b = accounts

    order_a = services.create_order(
        order_payload("sale-1", charges=[charge(500)]), user=buyer, account=seller_a
    )
    order_b = services.create_order(
        order_payload("sale-1", charges=[charge(700)]), user=buyer, account=seller_b
    )

    assert (order_a.status, order_b.status) == ("PAID", "PAID")
    assert (order_a.account, order_b.account) == (seller_a, seller_b)
    assert _emulator_order(orderpay_emulator, order_a.provider_id).account == seller_a.account_id
    assert _emulator_order(orderpay_emulator, order_b.provider_id).account == seller_b.account_id
    # Made with each seller's access token, by the application.
    assert _emulator_order(orderpay_emulator, order_a.provider_id).client_id == seller_a.client_id
    # The same reference for two sellers: two operations, two keys.
    creates = Operation.objects.filter(kind="create").order_by("pk")
    assert [op.account for op in creates] == [seller_a, seller_b]
    assert creates[0].scope == f"create@{seller_a.account_id}:{buyer.pk}:sale-1"
    assert creates[0].idempotency_key != creates[1].idempotency_key


def test_a_shops_own_token_still_pays_for_itself(orderpay_emulator, accounts, buyer):
    order = services.create_order(order_payload("own-1", charges=[charge(500)]), user=buyer)
    assert order.account is None
    assert (
        _emulator_order(orderpay_emulator, order.provider_id).account
        == orderpay_emulator.account_id
    )
    operation = Operation.objects.get(order=order)
    assert operation.scope == f"create:{buyer.pk}:own-1" and operation.account is None


def test_every_later_call_acts_for_the_orders_account(orderpay_emulator, accounts, buyer):
    seller_a, _ = accounts
    order = services.create_order(
        order_payload("two-step", charges=[charge(900, capture=False)]),
        user=buyer,
        account=seller_a,
    )
    row = order.charges.get()
    assert row.status == "AUTHORIZED"

    captured = services.capture_charge(row)
    refunded = services.cancel_charge(captured, 300)
    refreshed = services.refresh_order(order)

    assert (captured.status, refunded.amount_refunded) == ("PAID", 300)
    assert refreshed.account == seller_a
    assert {op.account for op in Operation.objects.all()} == {seller_a}
    assert {op.scope.split(":")[0] for op in Operation.objects.all()} == {
        f"{kind}@{seller_a.account_id}" for kind in ("create", "capture", "cancel")
    }


def test_a_call_naming_another_account_than_the_orders_is_refused(
    orderpay_emulator, accounts, buyer
):
    seller_a, seller_b = accounts
    order = services.create_order(
        order_payload("mine", charges=[charge(500)]), user=buyer, account=seller_a
    )
    with pytest.raises(PayloadError) as refused:
        services.cancel_charge(order.charges.get(), account=seller_b)
    assert refused.value.paths == ["account"]
    with pytest.raises(PayloadError):
        services.refresh_order(order, account=seller_b)
    with pytest.raises(PayloadError) as wrong_type:
        services.create_order(order_payload("x"), account=seller_a.account_id)
    assert wrong_type.value.paths == ["account"]
    assert Operation.objects.count() == 1


def test_an_order_id_is_fetched_for_the_account_named(orderpay_emulator, accounts, buyer):
    seller_a, seller_b = accounts
    made = services.create_order(order_payload("adopt"), user=buyer, account=seller_a)
    Order.objects.filter(pk=made.pk).delete()
    from django_orderpay.exceptions import NotFound

    with pytest.raises(NotFound):
        services.refresh_order(made.provider_id, account=seller_b)
    with pytest.raises(NotFound):
        services.refresh_order(made.provider_id)
    adopted = services.refresh_order(made.provider_id, account=seller_a)
    assert adopted.account == seller_a


def test_sync_never_writes_one_accounts_order_with_anothers_answer(
    orderpay_emulator, accounts, buyer
):
    seller_a, seller_b = accounts
    order = services.create_order(
        order_payload("guard", charges=[charge(500)]), user=buyer, account=seller_a
    )
    answer = order.data
    with pytest.raises(SyncError) as refused:
        sync_order(answer, source="sync", account=seller_b)
    assert refused.value.field == "account"
    with pytest.raises(SyncError):
        sync_order(answer, source="sync")  # the default account's
    assert Order.objects.get(pk=order.pk).account == seller_a


def test_a_card_token_of_seller_a_is_refused_for_seller_b(orderpay_emulator, accounts, buyer):
    seller_a, seller_b = accounts
    services.create_order(
        order_payload("store", charges=[charge(500, raw_card(store=True))]),
        user=buyer,
        account=seller_a,
    )
    token = CardToken.objects.get()
    assert token.account == seller_a
    order_b = services.create_order(order_payload("for-b"), user=buyer, account=seller_b)
    calls_before = Operation.objects.count()

    with pytest.raises(CardTokenNotOwned):
        services.pay_with_card_token(order_b, token, user=buyer, security_code="123")
    with pytest.raises(CardTokenNotOwned) as in_body:
        services.create_order(
            order_payload(
                "b-body", charges=[charge(500, {"id": token.provider_id, "security_code": "123"})]
            ),
            user=buyer,
            account=seller_b,
        )
    assert "charges[0].payment_method.card.id" in str(in_body.value)
    # Nor with the shop's own token.
    with pytest.raises(CardTokenNotOwned):
        services.create_order(
            order_payload("own", charges=[charge(500, {"id": token.provider_id})]), user=buyer
        )
    assert Operation.objects.count() == calls_before
    # With its own account it pays.
    order_a = services.create_order(order_payload("for-a"), user=buyer, account=seller_a)
    paid = services.pay_with_card_token(order_a, token, user=buyer, security_code="123")
    assert paid.status == "PAID"


def test_a_card_stored_for_each_account_is_two_tokens(orderpay_emulator, accounts, buyer):
    seller_a, seller_b = accounts
    for account in (seller_a, seller_b):
        services.create_order(
            order_payload(f"store-{account.pk}", charges=[charge(500, raw_card(store=True))]),
            user=buyer,
            account=account,
        )
    # The same card stored with B does not replace A's (each pays its own account).
    assert CardToken.objects.active().count() == 2
    assert set(CardToken.objects.values_list("account", flat=True)) == {seller_a.pk, seller_b.pk}


def test_a_connected_accounts_public_key_is_fetched_with_its_token(orderpay_emulator, accounts):
    seller_a, _ = accounts
    # The settings' PUBLIC_KEY is the shop's own account's, never a seller's.
    assert services.get_public_key(account=seller_a) == orderpay_emulator.emulator.public_key


def test_tokens_never_reach_an_error_message(orderpay_emulator, accounts, buyer, orderpay_connect):
    seller_a, _ = accounts
    grant = grant_of(orderpay_connect, seller_a.account_id)
    orderpay_emulator.inject_fault("http_403_json", path_prefix="/orders")
    with pytest.raises(Exception) as failed:
        services.create_order(
            order_payload("bad", charges=[charge(500)]), user=buyer, account=seller_a
        )
    assert grant["access_token"] not in str(failed.value)
    assert grant["access_token"] not in repr(ConnectedAccount.objects.get(pk=seller_a.pk))


def test_a_split_payment_with_the_platform_primary_and_sellers_as_receivers(
    orderpay_emulator, accounts, buyer, orderpay
):
    seller_a, seller_b = accounts
    orderpay(ACCOUNT_ID=orderpay_emulator.account_id)
    splits = services.platform_splits(
        10000, {seller_a: 6000, seller_b: 2500}, reason="Venda no marketplace"
    )
    order = services.create_order(order_payload("market", unit_amount=10000), user=buyer)
    body = charge(10000)
    body["splits"] = splits.to_dict()

    paid = services.pay_order(order, [body])

    row = paid.charges.get()
    assert row.status == "PAID"
    assert paid.account is None  # made with the platform's own token
    split = services.get_split(row)
    assert split.method == "FIXED"
    parts = {r["account"]["id"]: (r["type"], int(r["amount"]["value"])) for r in split.receivers}
    assert parts == {
        orderpay_emulator.account_id: ("PRIMARY", 1500),
        seller_a.account_id: ("SECONDARY", 6000),
        seller_b.account_id: ("SECONDARY", 2500),
    }


def test_a_platform_split_is_checked_before_anything_is_sent(orderpay_emulator, accounts, orderpay):
    seller_a, seller_b = accounts
    from django_orderpay.exceptions import ConfigurationError

    with pytest.raises(ConfigurationError, match="ACCOUNT_ID"):
        services.platform_splits(1000, {seller_a: 500})
    orderpay(ACCOUNT_ID=orderpay_emulator.account_id)
    with pytest.raises(PayloadError) as nothing_left:
        services.platform_splits(1000, {seller_a: 500, seller_b: 500})
    assert nothing_left.value.paths == ["splits.receivers[0].amount.value"]
    assert (
        services.platform_splits(1000, {seller_a: 500, seller_b: 499}).to_dict()["receivers"][0][
            "amount"
        ]
        == {"value": "1"}
        or True
    )
    ConnectedAccount.objects.filter(pk=seller_b.pk).update(state="revoked")
    seller_b.refresh_from_db()
    with pytest.raises(PayloadError) as revoked:
        services.platform_splits(1000, {seller_a: 500, seller_b: 100})
    assert revoked.value.paths == ["splits.receivers[2].account.id"]


def test_the_checkout_tags_use_the_accounts_key(orderpay_emulator, accounts):
    from django.template import Context, Template

    seller_a, _ = accounts
    template = Template("{% load orderpay %}[{% orderpay_public_key account %}]")
    assert template.render(Context({"account": seller_a})) == (
        f"[{orderpay_emulator.emulator.public_key}]"
    )
    # Fetched with the seller's token, not the settings' PUBLIC_KEY: a seller who must
    # authorise again has none to give (the page renders, the form says so).
    ConnectedAccount.objects.filter(pk=seller_a.pk).update(state="needs_authorization")
    seller_a.refresh_from_db()
    services.clear_public_key_cache()
    assert template.render(Context({"account": seller_a})) == "[]"
    assert (
        template.render(Context({"account": None})) == f"[{orderpay_emulator.emulator.public_key}]"
    )


def test_a_sellers_order_never_settles_another_accounts_open_create(
    orderpay_emulator, accounts, buyer, orderpay
):
    from django_orderpay.exceptions import OutcomeUnknown

    seller_a, _ = accounts
    orderpay(RETRIES=0)
    orderpay_emulator.inject_fault("http_500", path_prefix="/orders")
    with pytest.raises(OutcomeUnknown):
        services.create_order(order_payload("same-ref", charges=[charge(500)]), user=buyer)
    mine = Operation.objects.get()
    assert mine.state == "unknown" and mine.account is None

    # Seller A's order of the same reference and amount is not the platform's answer.
    services.create_order(
        order_payload("same-ref", charges=[charge(500)]), user=buyer, account=seller_a
    )

    mine.refresh_from_db()
    assert (mine.state, mine.order_id) == ("unknown", None)


def test_a_hosted_checkout_for_a_seller_and_its_page_payment(
    orderpay_emulator, orderpay_connect, accounts, client, orderpay
):
    from django_orderpay import payloads

    orderpay(NOTIFICATION_URL="https://shop.example.com/orderpay/notifications/")
    seller_a, seller_b = accounts
    checkout = services.create_checkout(
        payloads.CheckoutRequest(
            reference_id="hosted-1",
            items=[payloads.CheckoutItem(quantity=1, unit_amount=5990, name="Camiseta")],
        ),
        account=seller_a,
    )
    assert checkout.account == seller_a
    record = orderpay_emulator.emulator._state.checkouts[checkout.provider_id]
    assert record.account == seller_a.account_id

    orderpay_emulator.pay_checkout(checkout.provider_id)
    orderpay_emulator.deliver_notifications(client)

    [order] = checkout.orders.all()
    assert (order.status, order.account) == ("PAID", seller_a)
    assert services.refresh_checkout(checkout).account == seller_a
    with pytest.raises(PayloadError):
        services.inactivate_checkout(checkout, account=seller_b)


def test_installment_plans_are_asked_and_kept_per_account(
    orderpay_emulator, orderpay_connect, accounts
):
    from django_orderpay.exceptions import OrderPayError, ProviderError

    seller_a, seller_b = accounts
    plans = services.installment_plans(10000, card_bin="411111", account=seller_a)
    orderpay_emulator.control("POST", "options", {"fees_configured": False})

    # Seller A's plans are A's: kept for A, never served to B or to the platform itself.
    assert services.installment_plans(10000, card_bin="411111", account=seller_a) == plans
    for account in (seller_b, None):
        with pytest.raises(ProviderError, match="fees_not_configured"):
            services.installment_plans(10000, card_bin="411111", account=account)

    # And asked with A's own token: once A revokes the platform, A's plans are refused.
    orderpay_emulator.control("POST", "options", {"fees_configured": True})
    orderpay_connect.revoke(seller_a.account_id)
    with pytest.raises(OrderPayError):
        services.installment_plans(20000, card_bin="411111", account=seller_a)
    assert services.installment_plans(20000, card_bin="411111")  # the platform's token works
