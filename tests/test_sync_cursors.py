"""The hot statements bind on the server; PostgreSQL keeps their plans when the shop allows it.

``sync.cursors`` runs the claim, the locks and a sync's closing writes on
psycopg's server-binding cursor, so psycopg can prepare them when the
connection's ``prepare_threshold`` says so (``DATABASES`` ``OPTIONS``),
and leaves every other statement, and a shop's own cursor class, alone.
Checked through real notifications posted to the view, on PostgreSQL (on
SQLite the connection's own cursor is used, as by the whole suite).
"""

from __future__ import annotations

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
    lock = 'FROM django_orderpay_order WHERE provider_id = $15 AND orderpay_new."id" IS NOT NULL'
    assert any(s.startswith(claim) and f"{lock} FOR UPDATE" in s for s in first), first
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


def _hot_cursors(ran: Ran) -> list[Any]:
    return [
        *ran.cursors("WITH orderpay_new AS (INSERT"),
        *ran.cursors('SELECT "id",'),
        *ran.cursors("WITH orderpay_write_0 AS"),
    ]


def test_the_server_binding_cursor_is_made_once_per_connection(orderpay_emulator, fresh_connection):
    ran = Ran()
    with connection.execute_wrapper(ran):
        _pay(orderpay_emulator, "cursors-kept-1")
        _pay(orderpay_emulator, "cursors-kept-2")
        Order.objects.count()

    hot = _hot_cursors(ran)
    assert len(hot) >= 6  # two orders created, two notifications of three statements
    assert len({id(used) for used in hot}) == 1
    assert not hot[0].closed  # kept open for the next statement
    # The ORM's statements still get a cursor of their own, closed after use.
    count = ran.cursors("SELECT COUNT(*)")[-1]
    assert count is not hot[0] and count.closed


def test_a_new_connection_gets_a_new_cursor(orderpay_emulator, fresh_connection):
    ran = Ran()
    with connection.execute_wrapper(ran):
        _pay(orderpay_emulator, "cursors-reconnect-1")
    [before] = {id(used): used for used in _hot_cursors(ran)}.values()

    connection.close()  # what Django does at a request's end past CONN_MAX_AGE
    ran = Ran()
    with connection.execute_wrapper(ran):
        _pay(orderpay_emulator, "cursors-reconnect-2")

    [after] = {id(used): used for used in _hot_cursors(ran)}.values()
    assert after is not before
    assert after.connection is connection.connection


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

    wrapper.__class__ = Instrumented
    try:
        ran = Ran()
        with connection.execute_wrapper(ran):
            _pay(orderpay_emulator, "cursors-instrumented")
    finally:
        wrapper.__class__ = backend

    hot = _hot_cursors(ran)
    assert len(hot) >= 3
    assert len({id(used) for used in hot}) == len(hot)  # none kept
    assert len(made) >= len(hot)


def test_a_connection_set_to_another_time_zone_gets_a_new_cursor(fresh_connection):
    from django_orderpay.sync import cursors

    wrapper = connections["default"]
    with cursors.cursor(wrapper) as before:
        before.execute("SELECT now()")
        assert before.fetchone()[0].utcoffset().total_seconds() == 0  # UTC, Django's default

    # What Django's setting_changed handler does when DATABASES' TIME_ZONE changes.
    wrapper.settings_dict["TIME_ZONE"] = "America/Sao_Paulo"
    wrapper.__dict__.pop("timezone", None)
    wrapper.__dict__.pop("timezone_name", None)
    try:
        with cursors.cursor(wrapper) as after:
            after.execute("SELECT now()")
            offset = after.fetchone()[0].utcoffset().total_seconds()
    finally:
        wrapper.settings_dict["TIME_ZONE"] = None
        wrapper.__dict__.pop("timezone", None)
        wrapper.__dict__.pop("timezone_name", None)

    assert after.cursor is not before.cursor
    assert offset == -3 * 3600  # loaded in the connection's new time zone
