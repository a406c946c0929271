"""A shop's settings as `django-admin startproject` writes them, plus django-orderpay.

The docs' examples run here (tests/test_docs.py), outside the repository's
layout: nothing of this repository (its tests, the example shop) is importable,
only the installed package and this project's own `shop` app, standing for the
reader's models.
"""

from pathlib import Path

import environ

env = environ.Env()
BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = "fresh-project-tests-only"
DEBUG = True
ALLOWED_HOSTS = ["*"]
USE_TZ = True
TIME_ZONE = "America/Sao_Paulo"
LANGUAGE_CODE = "en-us"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_orderpay",
    "shop",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "shopsite.urls"
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

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

DATABASES = {"default": env.db("DATABASE_URL", default="sqlite:///:memory:")}
# On a server, a test database of its own: the parent run is using the default name.
if "sqlite" not in DATABASES["default"]["ENGINE"]:
    DATABASES["default"]["TEST"] = {"NAME": env.str("ORDERPAY_TEST_DATABASE")}

ORDERPAY = {
    "TOKEN": env("ORDERPAY_TOKEN", default="fresh-project-token"),
    "NOTIFICATION_URL": "https://shop.example.com/orderpay/notifications/",
}
