"""Settings for the test suite: SQLite by default, PostgreSQL when DATABASE_URL says so."""

from __future__ import annotations

from pathlib import Path

import environ

env = environ.Env()
BASE_DIR = Path(__file__).resolve().parent

SECRET_KEY = "tests-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
USE_TZ = True
TIME_ZONE = "America/Sao_Paulo"
LANGUAGE_CODE = "en"

DATABASES = {"default": env.db("DATABASE_URL", default="sqlite:///:memory:")}
DATABASES["default"].setdefault("TEST", {})
# A pytest run started by a test (tests/test_docs.py) needs a test database of its
# own on a server: the default name is the one its parent run is using.
if env.str("ORDERPAY_TEST_DATABASE", default="") and "sqlite" not in DATABASES["default"]["ENGINE"]:
    DATABASES["default"]["TEST"]["NAME"] = env.str("ORDERPAY_TEST_DATABASE")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_orderpay",
    "example_project.shop",  # the example shop, tested in test_example_shop and tests/browser
    "django_tasks_db",  # the queue of background notifications (test_notifications_workers)
    "captcha",  # the card forms' CAPTCHA after declines (test_security_card_testing)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "tests.urls"
STATIC_URL = "/static/"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

ORDERPAY = {
    "ENVIRONMENT": "emulator",
    "TOKEN": "test-token-merchant-a",
    # The package authenticates every credit card by default ("always"); most card
    # tests post without 3-D Secure, and those that test it say so.
    "THREEDS": "never",
    # Tests that mount the emulator turn DEBUG on, where it would keep its state in
    # a file for a server database (PostgreSQL): each test starts from a fresh one.
    "EMULATOR_STATE_FILE": False,
}
