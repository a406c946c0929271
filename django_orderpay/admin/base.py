"""What every admin of a provider mirror shares: read-only screens, permissions, the JSON view."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext as _

from .display import ADMIN_CSS, pretty_json


class ActionPermissions:
    """``has_<perm>_permission`` for the permissions named by ``@admin.action``."""

    def _has_orderpay_perm(self, request: HttpRequest, codename: str) -> bool:
        return request.user.has_perm(f"django_orderpay.{codename}")

    def has_cancel_charge_permission(self, request: HttpRequest) -> bool:
        return self._has_orderpay_perm(request, "cancel_charge")

    def has_capture_charge_permission(self, request: HttpRequest) -> bool:
        return self._has_orderpay_perm(request, "capture_charge")

    def has_refresh_order_permission(self, request: HttpRequest) -> bool:
        return self._has_orderpay_perm(request, "refresh_order")


class ReadOnlyAdmin(ActionPermissions, admin.ModelAdmin):
    """Staff look at provider state here but never write it by hand.

    Rows come from the provider through ``sync``; changes to them go through
    the actions (which call the services), so no add or change form exists.
    """

    class Media:
        css = {"all": [ADMIN_CSS]}

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def response_action(  # type: ignore[override]  # Django 6.1 adds a keyword
        self, request: HttpRequest, queryset: models.QuerySet, **kwargs: Any
    ) -> HttpResponse | None:
        # Django 6.1 passes ``action_location`` (5.2 and 6.0 do not): handed on as is.
        # Django filters ``pk__in`` with the posted ids as they are, so a forged
        # "abc" (or an id past the column's range) would be a 500 when the
        # action reads the rows: refuse the selection in words instead.
        pk = self.model._meta.pk
        try:
            for value in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
                pk.clean(value, None)
        except ValidationError:
            self.message_user(
                request,
                _("The selection is not valid: select the objects again."),
                messages.ERROR,
            )
            return None
        return super().response_action(request, queryset, **kwargs)


class ReadOnlyInline:
    """An inline that shows related rows and offers no way to add, change or delete them."""

    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ProviderJSONMixin:
    """Adds ``<pk>/provider-json/``: the mirror's last provider JSON, pretty-printed."""

    def get_urls(self) -> list[URLPattern]:
        opts = self.model._meta  # type: ignore[attr-defined]
        view = self.admin_site.admin_view(self.provider_json_view)  # type: ignore[attr-defined]
        name = f"{opts.app_label}_{opts.model_name}_provider_json"
        own = [path("<path:object_id>/provider-json/", view, name=name)]
        return own + super().get_urls()  # type: ignore[misc]

    def provider_json_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Read-only; ``admin_view`` already requires an active staff user."""
        modeladmin: admin.ModelAdmin = self  # type: ignore[assignment]
        opts = modeladmin.model._meta
        obj: models.Model | None = modeladmin.get_object(request, unquote(object_id))
        if obj is None:
            return modeladmin._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined]
                request, opts, object_id
            )
        if not modeladmin.has_view_permission(request, obj):
            raise PermissionDenied
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": _("Provider JSON of %(object)s") % {"object": obj},
            "subtitle": None,
            "opts": opts,
            "app_label": opts.app_label,
            "original": obj,
            "provider_json": pretty_json(obj.data),  # type: ignore[attr-defined]
            "media": modeladmin.media,
        }
        request.current_app = modeladmin.admin_site.name
        return TemplateResponse(request, "admin/django_orderpay/provider_json.html", context)
