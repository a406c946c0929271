"""The hot statements bind on the server; PostgreSQL keeps their plans when the shop allows it.

``sync.cursors`` runs the claim, the locks and a sync's closing writes on
psycopg's server-binding cursor, so psycopg can prepare them when the
connection's ``prepare_threshold`` says so (``DATABASES`` ``OPTIONS``),
and leaves every other statement, and a shop's own cursor class, alone.
Checked through real notifications posted to the view, on PostgreSQL (on
SQLite the connection's own cursor is used, as by the whole suite).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from django_orderpay.models import ChargeStatusChange, Order
from tests.test_notifications_processing import (
    in_analysis_order,
    post_as_provider,
    queued,
    resolve_paid,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's cursors"),
]


class Ran:
    """Each statement's first words and the psycopg cursor it ran on."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, Any]] = []

    def __call__(self, execute, sql, params, many, context):
        self.statements.append((" ".join(sql.split()[:4]), context["cursor"].cursor))
        return execute(sql, params, many, context)

    def classes(self, start: str) -> set[type]:
        return {type(used) for sql, used in self.statements if sql.startswith(start)}

    def cursors(self, start: str) -> list[Any]:
        return [used for sql, used in self.statements if sql.startswith(start)]


def _hot(ran: Ran) -> dict[str, set[type]]:
    """The classes the claim (with the order's lock), the charges' lock and the closing write
    ran on."""
    return {
        "claim": ran.classes("WITH orderpay_new AS (INSERT"),
        "locks": ran.classes('SELECT "id",'),  # the ORM names its table first
        "writes": ran.classes("WITH orderpay_write_0 AS"),
    }


def _pay(emulator: Any, reference_id: str) -> Order:
    order = in_analysis_order(reference_id)
    resolve_paid(emulator, order)
    assert post_as_provider(Client(), queued(emulator)[-1]).status_code == 200
    assert ChargeStatusChange.objects.filter(charge__order=order, new_status="PAID").count() == 1
    return order


def _prepared() -> list[str]:
    """The statements this connection has prepared, as PostgreSQL lists them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [" ".join(row[0].split()) for row in cursor.fetchall()]


@pytest.fixture
def fresh_connection() -> Iterator[Any]:
    """A new connection (none of an earlier test's prepared statements), closed afterwards."""
    connection.close()
    connection.ensure_connection()
    yield connection.connection
    connection.close()


def test_a_notification_s_statements_bind_on_the_server_and_the_orm_s_do_not(
    orderpay_emulator, fresh_connection
):
    import psycopg

    ran = Ran()
    with connection.execute_wrapper(ran):
        _pay(orderpay_emulator, "cursors-bound")
        Order.objects.count()  # the connection's own cursor class again

    for name, classes in _hot(ran).items():
        assert classes, name
        assert all(not issubclass(kind, psycopg.ClientCursor) for kind in classes), name
        assert all(issubclass(kind, psycopg.Cursor) for kind in classes), name
    assert ran.classes("SELECT COUNT(*)") == {fresh_connection.cursor_factory}
    assert issubclass(fresh_connection.cursor_factory, psycopg.ClientCursor)


def test_without_prepare_threshold_nothing_is_prepared(orderpay_emulator, fresh_connection):
    assert fresh_connection.prepare_threshold is None  # Django's default: poolers pass

    _pay(orderpay_emulator, "cursors-unnamed-1")
    _pay(orderpay_emulator, "cursors-unnamed-2")

    assert _prepared() == []


def test_with_prepare_threshold_postgresql_plans_the_hot_statements_once(
    orderpay_emulator, fresh_connection
):
    fresh_connection.prepare_threshold = 0  # what OPTIONS {"prepare_threshold": 0} sets

    _pay(orderpay_emulator, "cursors-prepared-1")
    first = _prepared()
    _pay(orderpay_emulator, "cursors-prepared-2")  # the same statements, reused

    assert _prepared() == first
    claim = 'WITH orderpay_new AS (INSERT INTO "django_orderpay_notificationdelivery"'
    # The order's lock joined to the claim (its parameter's number follows the delivery's
    # columns): FOR NO KEY UPDATE, the lock every sync takes.
    lock = re.compile(
        r'FROM django_orderpay_order WHERE provider_id = \$\d+ AND orderpay_new."id" IS NOT NULL'
        r" FOR NO KEY UPDATE\)"
    )
    assert any(s.startswith(claim) and lock.search(s) for s in first), first
    assert any(s.startswith('SELECT "id", "provider_id"') for s in first)  # the charges' lock
    assert any(s.startswith("WITH orderpay_write_0 AS") for s in first)
    # The ORM's own statements bind on the client: psycopg never prepares them.
    assert not any("COUNT(*)" in s for s in first)


def test_a_shop_s_own_cursor_class_is_kept(orderpay_emulator, fresh_connection):
    from django.db.backends.postgresql.base import Cursor

    class ShopCursor(Cursor):
        """A shop's cursor class (OPTIONS["cursor_factory"]), e.g. one that logs."""

    fresh_connection.cursor_factory = ShopCursor
    ran = Ran()
    with connection.execute_wrapper(ran):
        _pay(orderpay_emulator, "cursors-shop-class")

    assert {name: classes for name, classes in _hot(ran).items()} == {
        "claim": {ShopCursor},
        "locks": {ShopCursor},
        "writes": {ShopCursor},
    }
    assert fresh_connection.cursor_factory is ShopCursor


def test_while_queries_are_logged_they_read_as_django_logs_every_query(
    orderpay_emulator, fresh_connection
):
    fresh_connection.prepare_threshold = 0  # would prepare at once, and log None

    _pay(orderpay_emulator, "cursors-logged-1")  # prepared once, off the log
    with CaptureQueriesContext(connection) as captured:
        order = _pay(orderpay_emulator, "cursors-logged-2")

    logged = [query["sql"] for query in captured.captured_queries]
    assert None not in logged
    lock = f"FROM django_orderpay_order WHERE provider_id = '{order.provider_id}' AND"
    assert [sql for sql in logged if lock in sql], logged  # with its value, as Django logs


def _notified(emulator: Any, *references: str) -> list[dict]:
    """Orders created and paid at the provider; its notifications, not posted yet."""
    orders = [in_analysis_order(reference) for reference in references]
    for order in orders:
        resolve_paid(emulator, order)
    return queued(emulator)[-len(orders) :]


def _post(*notifications: dict) -> None:
    for notification in notifications:
        assert post_as_provider(Client(), notification).status_code == 200


CLAIM, CHARGES, WRITE = "WITH orderpay_new AS (INSERT", 'SELECT "id",', "WITH orderpay_write_0 AS"


def test_each_hot_statement_keeps_its_cursor_on_the_connection(orderpay_emulator, fresh_connection):
    ran = Ran()
    sent: dict[str, list[str]] = {}  # each text -> the objects sent (kept alive)

    def statement_objects(execute, sql, params, many, context):
        sent.setdefault(sql, []).append(sql)
        return execute(sql, params, many, context)

    notifications = _notified(orderpay_emulator, "cursors-kept-1", "cursors-kept-2")
    with connection.execute_wrapper(ran), connection.execute_wrapper(statement_objects):
        _post(*notifications)
        Order.objects.count()

    claims, charges, writes = ran.cursors(CLAIM), ran.cursors(CHARGES), ran.cursors(WRITE)
    assert len(claims) == len(charges) == len(writes) == 2  # two notifications
    for kept in (claims, charges, writes):
        assert kept[0] is kept[1] and not kept[0].closed  # the same cursor, kept open
    assert len({id(claims[0]), id(charges[0]), id(writes[0])}) == 3  # one per statement
    # Each ran as the very same statement object both times (psycopg then keeps
    # the cursor's adapters); the two notifications' writes are the same text.
    for start in (CLAIM, WRITE):
        objects = [objects for sql, objects in sent.items() if sql.startswith(start)]
        assert objects and all(len(each) == 2 for each in objects)
        assert all(each[0] is each[1] for each in objects)
    # The ORM's statements still get a cursor of their own, closed after use.
    count = ran.cursors("SELECT COUNT(*)")[-1]
    assert count.closed


def test_a_new_connection_gets_new_cursors(orderpay_emulator, fresh_connection):
    first, second = _notified(orderpay_emulator, "cursors-reconnect-1", "cursors-reconnect-2")
    ran = Ran()
    with connection.execute_wrapper(ran):
        _post(first)
    # The cursors themselves, kept alive: a freed one's id() could be reused.
    before = [used for start in (CLAIM, CHARGES, WRITE) for used in ran.cursors(start)]

    connection.close()  # what Django does at a request's end past CONN_MAX_AGE
    ran = Ran()
    with connection.execute_wrapper(ran):
        _post(second)

    after = [used for start in (CLAIM, CHARGES, WRITE) for used in ran.cursors(start)]
    assert len(after) == 3
    assert not any(new is old for new in after for old in before)
    assert all(used.connection is connection.connection for used in after)


def test_a_connection_keeps_the_cursors_of_its_latest_statements_only(fresh_connection):
    from django_orderpay.sync import cursors

    wrapper = connections["default"]
    statements = [f"SELECT {n}" for n in range(cursors.KEPT_STATEMENTS + 1)]
    used = []
    for statement in statements:
        with cursors.cursor(wrapper, statement) as cursor:
            cursor.execute(statement)
            assert cursor.fetchone() == (int(statement.split()[1]),)
            used.append(cursor.cursor)

    assert used[0].closed  # the oldest, dropped when the 33rd came
    assert not any(cursor.closed for cursor in used[1:])
    with cursors.cursor(wrapper, statements[1]) as again:
        assert again.cursor is used[1]
    with cursors.cursor(wrapper, statements[0]) as again:
        again.execute(statements[0])
        assert again.cursor is not used[0] and again.fetchone() == (0,)


def test_a_backend_that_makes_its_own_cursors_gets_one_per_statement(
    orderpay_emulator, fresh_connection
):
    made: list[Any] = []
    wrapper = connections["default"]  # `connection` is a proxy of it
    backend = type(wrapper)

    class Instrumented(backend):  # an APM's or a metrics exporter's backend
        def create_cursor(self, name=None):
            made.append(name)
            return super().create_cursor(name)

    notifications = _notified(orderpay_emulator, "cursors-own-1", "cursors-own-2")
    wrapper.__class__ = Instrumented
    try:
        ran = Ran()
        with connection.execute_wrapper(ran):
            _post(*notifications)
    finally:
        wrapper.__class__ = backend

    hot = [used for start in (CLAIM, CHARGES, WRITE) for used in ran.cursors(start)]
    assert len(hot) == 6
    assert len({id(used) for used in hot}) == len(hot)  # none kept
    assert all(used.closed for used in hot)
    assert len(made) >= len(hot)


def test_a_connection_set_to_another_time_zone_gets_a_new_cursor(fresh_connection):
    from django_orderpay.sync import cursors

    wrapper = connections["default"]
    statement = "SELECT now()"
    with cursors.cursor(wrapper, statement) as before:
        before.execute(statement)
        assert before.fetchone()[0].utcoffset().total_seconds() == 0  # UTC, Django's default

    # What Django's setting_changed handler does when DATABASES' TIME_ZONE changes.
    wrapper.settings_dict["TIME_ZONE"] = "America/Sao_Paulo"
    wrapper.__dict__.pop("timezone", None)
    wrapper.__dict__.pop("timezone_name", None)
    try:
        with cursors.cursor(wrapper, statement) as after:
            after.execute(statement)
            offset = after.fetchone()[0].utcoffset().total_seconds()
    finally:
        wrapper.settings_dict["TIME_ZONE"] = None
        wrapper.__dict__.pop("timezone", None)
        wrapper.__dict__.pop("timezone_name", None)

    assert after.cursor is not before.cursor
    assert offset == -3 * 3600  # loaded in the connection's new time zone
