"""What the docs promise a new integrator, checked: every model field and every error is
documented, history rows' source is what the docs say, EMULATOR_URL reaches the CLI emulator."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.test import override_settings

from django_orderpay import cardcrypto, exceptions, services
from django_orderpay.client import reset_client
from django_orderpay.models import ChargeStatusChange
from django_orderpay.sync import sync_order
from django_orderpay.testing.provider_json import charge_json, order_json
from django_orderpay.testing.samples import order_request
from tests.emulator.cli_support import listening

DOCS = Path(__file__).resolve().parent.parent / "docs"
README = DOCS.parent / "README.md"


def _sections(text: str) -> dict[str, str]:
    """``## Title`` -> the text under it."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_the_models_page_lists_every_field_of_every_model():
    sections = _sections((DOCS / "models.md").read_text())
    # The intro names the fields every mirror has (provider_id, data, synced_at).
    intro = (DOCS / "models.md").read_text().split("\n## ", 1)[0]
    missing = []
    for model in apps.get_app_config("django_orderpay").get_models():
        section = sections.get(model.__name__)
        if section is None:
            missing.append(model.__name__)
            continue
        for field in model._meta.get_fields():
            if field.auto_created or field.name == "id":
                continue
            if f"`{field.name}`" not in section and f"`{field.name}`" not in intro:
                missing.append(f"{model.__name__}.{field.name}")
    assert missing == []


def _package_errors() -> set[type[BaseException]]:
    found = {
        value
        for value in vars(exceptions).values()
        if inspect.isclass(value)
        and issubclass(value, Exception)
        and value.__module__ == exceptions.__name__
    }
    from django_orderpay.notifications.tasks import DeliveryFailed

    return found | {DeliveryFailed}


def test_the_errors_page_names_every_error():
    page = (DOCS / "errors.md").read_text()
    from django_orderpay.models import AppendOnlyError
    from django_orderpay.sync import SyncError
    from django_orderpay.testing.plugin import ControlPlaneError

    outside = {
        cardcrypto.CardEncryptionError,
        cardcrypto.CardDecryptionError,
        AppendOnlyError,
        SyncError,
        ControlPlaneError,
    }
    missing = [
        cls.__name__ for cls in _package_errors() | outside if f"`{cls.__name__}`" not in page
    ]
    assert missing == []


def test_the_readme_names_every_error_a_caller_catches():
    readme = README.read_text()
    catchable = [cls for cls in _package_errors() if issubclass(cls, exceptions.OrderPayError)]
    missing = [cls.__name__ for cls in catchable if f"`{cls.__name__}`" not in readme]
    assert missing == [] and "`CardEncryptionError`" in readme


@pytest.mark.django_db
def test_a_history_row_names_what_told_the_shop_first():
    """The notification arrived before the call's own answer: the row says notification."""
    charge = charge_json(status="PAID")
    paid = order_json(charges=[charge])

    sync_order(paid, source="notification")  # the notification, first
    sync_order(paid, source="api")  # then the service call's answer: nothing new

    rows = list(ChargeStatusChange.objects.values_list("old_status", "new_status", "source"))
    assert rows == [("", "PAID", "notification")]


@pytest.mark.django_db
def test_emulator_url_points_the_package_at_the_command_line_emulator(settings):
    with listening() as cli:
        configured = {
            "ENVIRONMENT": "emulator",
            "EMULATOR_URL": cli.url,
            "TOKEN": "emulator-token",
            "NOTIFICATION_URL": "http://127.0.0.1:9/orderpay/notifications/",
        }
        with override_settings(ORDERPAY=configured):
            reset_client()
            services.clear_public_key_cache()
            try:
                order = services.create_order(order_request(reference_id="cli-1"))
                public_key = services.get_public_key()
            finally:
                reset_client()
                services.clear_public_key_cache()

    assert order.charges.get().status == "PAID"
    assert order.data["links"][0]["href"].startswith(cli.url + "/orders/")
    assert public_key  # the CLI's own key, fetched from it


def test_the_signals_page_lists_every_signal_the_package_defines():
    package = DOCS.parent / "django_orderpay"
    defined = {
        name
        for path in package.rglob("*.py")
        for name in re.findall(
            r"^(\w+)\s*(?::[^=]+)?=\s*(?:dispatch\.)?Signal\(", path.read_text(), re.M
        )
    }
    assert {"charge_paid", "payment_duplicated", "order_expired"} <= defined
    page = (DOCS / "signals.md").read_text()
    assert [name for name in sorted(defined) if f"`{name}`" not in page] == []
