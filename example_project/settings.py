"""Settings of the example shop, read from the environment (django-environ) with demo defaults.

With no environment at all the shop runs as ``make demo`` serves it: DEBUG on,
SQLite in ``example_project/db.sqlite3``, and the provider's emulator mounted
at ``/emulator/`` in the same process, so nothing else has to run. Point it at
the provider's sandbox with::

    ORDERPAY_ENVIRONMENT=sandbox ORDERPAY_TOKEN=<sandbox token> \\
    SITE_URL=https://<public address of this shop> DEBUG=false \\
    SECRET_KEY=<secret> ALLOWED_HOSTS=<host> \\
    SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https python manage.py runserver

(the public address being a tunnel or proxy that terminates TLS and sets
``X-Forwarded-Proto``).

Any other ``ORDERPAY_<KEY>`` variable (PUBLIC_KEY, TIMEOUT, ...) is read by
django-orderpay itself (see ``django_orderpay/conf.py``).

With ``DEBUG`` off the shop is served as a deployment must be, and
``manage.py check --deploy`` has nothing to say: HTTPS only (redirect,
HSTS for a year, secure cookies), the sandbox unless ``ORDERPAY_ENVIRONMENT``
says otherwise. Each of those can be changed from the environment
(``SECURE_SSL_REDIRECT``, ``SECURE_HSTS_SECONDS``, ``SECURE_HSTS_INCLUDE_SUBDOMAINS``,
``SECURE_HSTS_PRELOAD``, ``SESSION_COOKIE_SECURE``, ``CSRF_COOKIE_SECURE``,
``SECURE_PROXY_SSL_HEADER`` as ``HTTP_X_FORWARDED_PROTO,https`` behind a proxy
that sets it, ``CACHE_URL`` for a cache shared by several processes).
"""

from __future__ import annotations

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env")  # optional; a missing file is fine

# The demo serves the emulator, which the orderpay.E002 check refuses with DEBUG off.
DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str(
    "SECRET_KEY", default="example-shop-not-secret" if DEBUG else environ.Env.NOTSET
)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
#: Where shoppers (and the provider's notifications) reach this shop.
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

# Served over HTTPS only once DEBUG is off (``check --deploy``); each overridable.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
# Behind a proxy that terminates TLS and says so (never trust a header nobody strips).
if env.str("SECURE_PROXY_SSL_HEADER", default=""):
    SECURE_PROXY_SSL_HEADER = tuple(env.list("SECURE_PROXY_SSL_HEADER"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_orderpay",
    "example_project.shop",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "example_project.urls"
WSGI_APPLICATION = "example_project.wsgi.application"

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

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # runserver is threaded and the emulator's notifications arrive while a
    # checkout request may still be writing: wait for the lock instead of
    # failing, and let readers (the status page's polling) read meanwhile.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # django-orderpay's hot statements bind on the server: with a threshold,
    # psycopg prepares them and PostgreSQL plans each once per connection.
    # Direct connections, or PgBouncer >= 1.21 with max_prepared_statements
    # (docs/notifications.md, "Prepared statements").
    DATABASES["default"].setdefault("CONN_MAX_AGE", 600)
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-orderpay's card-testing limits count in the cache: one process's memory
# by default; with several processes or servers, a shared one (CACHE_URL=redis://...).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "shop:login"
LOGIN_REDIRECT_URL = "shop:products"
LOGOUT_REDIRECT_URL = "shop:products"

LANGUAGE_CODE = env.str("LANGUAGE_CODE", default="en")
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)")]
TIME_ZONE = "America/Sao_Paulo"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")

# The demo's provider is the emulator; with DEBUG off, the sandbox unless told otherwise.
ORDERPAY_ENVIRONMENT = env.str("ORDERPAY_ENVIRONMENT", default="emulator" if DEBUG else "sandbox")
# The ORDERPAY dict wins over ORDERPAY_* variables, so only keys that have a
# demo default (or depend on SITE_URL) are set here; the rest come from the
# environment through django-orderpay's own fallbacks.
ORDERPAY = {
    "ENVIRONMENT": ORDERPAY_ENVIRONMENT,
    # The emulator accepts the configured token; a sandbox needs a real one.
    "TOKEN": env.str(
        "ORDERPAY_TOKEN", default="demo-token" if ORDERPAY_ENVIRONMENT == "emulator" else None
    ),
    "EMULATOR_URL": env.str("ORDERPAY_EMULATOR_URL", default=SITE_URL + "/emulator"),
    "NOTIFICATION_URL": env.str(
        "ORDERPAY_NOTIFICATION_URL", default=SITE_URL + "/orderpay/notifications/"
    ),
    # The demo authenticates every card payment with 3-D Secure (the emulator's
    # bank asks some cards for a code: docs/3ds.md has the test cards).
    "THREEDS": env.str("ORDERPAY_THREEDS", default="always"),
    # The demo's own pages resolve a payment in analysis through the mounted
    # emulator's control plane, with this secret (a new one each start).
    "EMULATOR_CONTROL_SECRET": env.str(
        "ORDERPAY_EMULATOR_CONTROL_SECRET", default=secrets.token_urlsafe(32)
    ),
}
#: The card checkout's installments come from the provider's fee plans (the
#: buyer pays the interest past SHOP_INSTALLMENTS_NO_INTEREST installments).
SHOP_FEE_PLANS = env.bool("SHOP_FEE_PLANS", default=True)
SHOP_INSTALLMENTS_NO_INTEREST = env.int("SHOP_INSTALLMENTS_NO_INTEREST", default=3)
#: The payment page offers debit cards (always with 3-D Secure).
SHOP_DEBIT_CARDS = env.bool("SHOP_DEBIT_CARDS", default=True)
#: The shop mounts the emulator only where it is the configured provider.
SHOP_SERVE_EMULATOR = ORDERPAY_ENVIRONMENT == "emulator"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django_orderpay": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "INFO")},
        "example_project": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "INFO")},
    },
}
