"""The example shop as it runs in production, for the benchmark's gunicorn and workers.

The example project's settings, with: DEBUG off, the database from
``DATABASE_URL`` (PostgreSQL) with persistent connections, the provider at
``ORDERPAY_BENCH_PROVIDER`` (the emulator the benchmark serves), the database
queue for background notifications, a URLconf that adds the bare view, and
``ORDERPAY_BENCH_MODE`` choosing how notifications are processed: ``refetch``
(the default settings), ``trusted`` (``NOTIFICATION_TRUST_BODY``) or
``background`` (``NOTIFICATION_BACKGROUND``). Connections keep prepared
statements unless ``ORDERPAY_BENCH_UNPREPARED`` is set.
"""

from __future__ import annotations

import os

import environ

from example_project.settings import *  # noqa: F403
from example_project.settings import DATABASES as EXAMPLE_DATABASES
from example_project.settings import INSTALLED_APPS
from tests.benchmarks.bodies import TOKEN

MODE = os.environ.get("ORDERPAY_BENCH_MODE", "refetch")
if MODE not in ("refetch", "trusted", "background"):
    raise ValueError("ORDERPAY_BENCH_MODE must be refetch, trusted or background")

DEBUG = False
SECRET_KEY = "benchmark-only-not-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DATABASES = {"default": environ.Env().db("DATABASE_URL")}
DATABASES["default"]["CONN_MAX_AGE"] = 600
# The example's connection options on PostgreSQL (prepared statements, as
# docs/notifications.md recommends); ``--unprepared`` measures Django's default.
if not os.environ.get("ORDERPAY_BENCH_UNPREPARED"):
    DATABASES["default"]["OPTIONS"] = dict(EXAMPLE_DATABASES["default"].get("OPTIONS", {}))
INSTALLED_APPS = [*INSTALLED_APPS, "django_tasks_db"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
ROOT_URLCONF = "tests.benchmarks.production.urls"
SHOP_SERVE_EMULATOR = False

ORDERPAY = {
    "ENVIRONMENT": "emulator",
    "TOKEN": TOKEN,
    "BASE_URL": os.environ.get("ORDERPAY_BENCH_PROVIDER", "http://127.0.0.1:9"),
    "EMULATOR_URL": os.environ.get("ORDERPAY_BENCH_PROVIDER", "http://127.0.0.1:9"),
    "NOTIFICATION_URL": "http://127.0.0.1:8000/orderpay/notifications/",
    "NOTIFICATION_TRUST_BODY": MODE == "trusted",
    "NOTIFICATION_BACKGROUND": MODE == "background",
}
# The emulator is the provider here (a benchmark), as orderpay.E002's hint allows.
SILENCED_SYSTEM_CHECKS = ["orderpay.E002"]
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    # The load generator's idle connections GET the endpoints (405) at a run's end.
    "loggers": {"django.request": {"level": "ERROR"}},
}
