"""Admin confirmation pages carry their intent: two pages are two refunds, one page twice is one.

The attack (issue 26, a mistake as much as an attack): two staff refunding
the same amount of one charge at the same moment, from two confirmation
pages, were merged into one refund, and both were told "refunded". Each page
carries a key of its own (minted when it is shown), and the operations record
uses it: the same page posted twice is one refund ("already refunded by the
same request"), two pages at once are two. Through the admin over HTTP (two
test clients, the second posting while the first one's refund is on its way
to the provider, which answers after a delay).
"""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import OperationalError, connections
from django.utils import timezone

from django_orderpay.models import Operation
from django_orderpay.services import operations
from django_orderpay.services.charges import cancel_intent
from tests.admin_support import client_for, confirmation_fields, make_user, messages_of, post_action
from tests.test_admin_actions import at_provider, paid_charge

pytestmark = pytest.mark.django_db(transaction=True)


def refund_page(client, charge):
    """A confirmation page of "refund part" for ``charge``, and the fields it posts back."""
    page = post_action(client, "charge", "refund_charges_partially", [charge])
    return {**confirmation_fields(page), "amount": "3,00"}


def confirm(client, fields, charge):
    return post_action(client, "charge", "refund_charges_partially", [charge], confirm=fields)


def at_once(provider, charge, first: tuple, second: tuple) -> tuple:
    """Confirm ``first`` (client, fields), and ``second`` while the first's refund is
    recorded and on its way (the provider answers after a second): both answers."""
    provider.control("POST", "latency", {"seconds": 1.0})
    answers: dict[str, object] = {}

    def first_staff() -> None:
        try:
            answers["first"] = confirm(*first, charge=charge)
        finally:
            connections.close_all()  # this thread's own connection

    thread = threading.Thread(target=first_staff)
    thread.start()
    try:
        for _ in range(200):
            try:
                if Operation.objects.filter(charge=charge, state="sending").exists():
                    break
            except OperationalError:
                pass  # SQLite's shared memory database: the first request is writing
            threading.Event().wait(0.02)
        answers["second"] = confirm(*second, charge=charge)
    finally:
        thread.join(timeout=30)
        provider.control("POST", "latency", {"seconds": 0})
    return answers["first"], answers["second"]


def test_two_staff_at_the_same_moment_make_two_refunds(orderpay_emulator):
    charge = paid_charge(1000)
    ana = client_for(make_user("ana", superuser=True))
    bia = client_for(make_user("bia", superuser=True))
    ana_page, bia_page = refund_page(ana, charge), refund_page(bia, charge)
    answers = dict(
        zip(
            ("ana", "bia"),
            at_once(orderpay_emulator, charge, (ana, ana_page), (bia, bia_page)),
            strict=True,
        )
    )

    assert at_provider(charge)["amount"]["summary"]["refunded"] == 600  # two refunds
    assert Operation.objects.filter(charge=charge, kind="cancel").count() == 2
    for name in ("ana", "bia"):
        [(level, text)] = messages_of(answers[name])
        assert level == "success", (name, text)
        assert "refunded R$ 3.00" in text and "same request" not in text


def test_one_page_confirmed_twice_at_once_refunds_once_and_says_so(orderpay_emulator):
    charge = paid_charge(1000)
    ana = client_for(make_user("ana", superuser=True))
    page = refund_page(ana, charge)
    first, second = at_once(orderpay_emulator, charge, (ana, page), (ana, page))  # a double click
    answers = {"first": first, "second": second}

    assert at_provider(charge)["amount"]["summary"]["refunded"] == 300
    assert Operation.objects.filter(charge=charge, kind="cancel").count() == 1
    [(level, text)] = messages_of(answers["second"])
    assert level == "info"
    assert "already refunded by the same request" in text
    [(level, _)] = messages_of(answers["first"])
    assert level == "success"


def test_a_key_of_its_own_joins_only_what_is_not_on_its_way(orderpay_emulator):
    charge = paid_charge(1000)
    intent = cancel_intent(charge, 300)
    page_a, _ = operations._begin(intent, "page-a")  # recorded, on its way
    page_b, _ = operations._begin(intent, "page-b")  # another page meanwhile: its own
    assert page_b.pk != page_a.pk and page_b.sequence == page_a.sequence + 1
    assert operations._begin(intent, "page-b")[0].pk == page_b.pk  # the same page again
    assert operations._begin(intent, None)[0].pk == page_b.pk  # no key of its own: joins
    assert operations.continued_by(intent.scope, "page-c") is None

    # On its way for longer than GRACE: its process may be gone; continued, not doubled.
    stale = timezone.now() - operations.GRACE - dt.timedelta(seconds=1)
    Operation.objects.filter(pk=page_b.pk).update(updated_at=stale)
    assert operations.continued_by(intent.scope, "page-c").pk == page_b.pk
    assert operations._begin(intent, "page-c")[0].pk == page_b.pk
    # Just inside GRACE, it is still another request's.
    fresh = timezone.now() - operations.GRACE + dt.timedelta(seconds=5)
    Operation.objects.filter(pk=page_b.pk).update(updated_at=fresh)
    assert operations._begin(intent, "page-d")[0].pk != page_b.pk


def test_an_outcome_unknown_is_continued_by_a_new_page(orderpay_emulator):
    charge = paid_charge(1000)
    intent = cancel_intent(charge, 300)
    page_a, _ = operations._begin(intent, "page-a")
    Operation.objects.filter(pk=page_a.pk).update(state="unknown")
    assert operations.continued_by(intent.scope, "page-b").pk == page_a.pk
    assert operations._begin(intent, "page-b")[0].pk == page_a.pk
