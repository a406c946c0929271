"""Helpers of the admin tests: staff users with chosen permissions, changelist URLs, actions."""

from __future__ import annotations

from typing import Any

from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

PASSWORD = "admin-tests-password"


def make_user(
    username: str, *codenames: str, superuser: bool = False, password: str | None = None
) -> Any:
    """A staff user holding the ``django_orderpay`` permissions named by ``codenames``.

    Without ``password`` the user can only be logged in with ``force_login``
    (which spares the tests the password hasher's deliberate slowness).
    """
    user_model = get_user_model()
    user = user_model(
        username=username,
        email=f"{username}@example.com",
        is_staff=True,
        is_superuser=superuser,
    )
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save()
    permissions = Permission.objects.filter(
        content_type__app_label="django_orderpay", codename__in=codenames
    )
    assert permissions.count() == len(codenames), codenames
    user.user_permissions.add(*permissions)
    return user


def client_for(user: Any, **defaults: Any) -> Client:
    """A test client logged in as ``user``, checking CSRF like a browser would need to."""
    client = Client(enforce_csrf_checks=True, **defaults)
    client.force_login(user)
    return client


def changelist(model_name: str) -> str:
    return reverse(f"admin:django_orderpay_{model_name}_changelist")


def change(model_name: str, pk: Any) -> str:
    return reverse(f"admin:django_orderpay_{model_name}_change", args=[pk])


def csrf_token(client: Client, url: str) -> str:
    """Load ``url`` as the user would, and answer the CSRF token the page carries."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.context["csrf_token"]


def post_action(
    client: Client,
    model_name: str,
    action: str,
    objects: list[Any],
    *,
    confirm: dict[str, str] | None = None,
    follow: bool = False,
) -> Any:
    """POST an action to the changelist, with the CSRF token the changelist page gives.

    Without ``confirm`` this is the first POST (from the changelist's select);
    with it, the confirmation page's POST (``post=yes`` plus its form fields).
    """
    url = changelist(model_name)
    data: dict[str, Any] = {
        "action": action,
        helpers.ACTION_CHECKBOX_NAME: [str(obj.pk) for obj in objects],
        "csrfmiddlewaretoken": csrf_token(client, url),
    }
    if confirm is None:
        data["index"] = "0"
    else:
        data.update({"post": "yes", **confirm})
    return client.post(url, data, follow=follow)


def confirmation_fields(response: Any) -> dict[str, str]:
    """The hidden fields of a confirmation page's form (its ``confirmation`` id)."""
    form = response.context["form"]
    return {"confirmation": form["confirmation"].value()}


def messages_of(response: Any) -> list[tuple[str, str]]:
    """``(level tag, text)`` of every message a response carries."""
    return [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)]


def action_names(client: Client, model_name: str) -> list[str]:
    """The actions the changelist offers this user."""
    response = client.get(changelist(model_name))
    assert response.status_code == 200
    form = response.context["action_form"]  # None when the user may run no action
    return [name for name, _label in form.fields["action"].choices if name] if form else []


APPROVED_VISA = "4111111111111111"
DECLINED_VISA = "4929291898380766"
IN_ANALYSIS_VISA = "4000000000000044"


def card_charge(amount: int, number: str = APPROVED_VISA, *, capture: bool = True) -> dict:
    """One ``charges[]`` entry of a create-order body, paid with a raw test card."""
    return {
        "reference_id": f"charge-{amount}",
        "description": "Pedido de teste",
        "amount": {"value": amount, "currency": "BRL"},
        "payment_method": {
            "type": "CREDIT_CARD",
            "installments": 1,
            "capture": capture,
            "card": {
                "number": number,
                "exp_month": "12",
                "exp_year": "2030",
                "security_code": "123",
                "holder": {"name": "Jose da Silva"},
            },
        },
    }


def order_body(*charges: dict, reference_id: str = "loja-1") -> dict:
    """A create-order body with ``charges`` (one item for their total)."""
    total = sum(c["amount"]["value"] for c in charges) or 500
    return {
        "reference_id": reference_id,
        "customer": {
            "name": "Jose da Silva",
            "email": "jose@example.com",
            "tax_id": "12345678909",
            "phones": [{"country": "55", "area": "11", "number": "999999999", "type": "MOBILE"}],
        },
        "items": [
            {"reference_id": "sku-1", "name": "Camiseta", "quantity": 1, "unit_amount": total}
        ],
        "notification_urls": ["https://shop.example.com/orderpay/notifications/"],
        "charges": list(charges),
    }
