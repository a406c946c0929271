"""The changelist's actions as buttons on one object's own page (a charge's capture, refund...).

A button opens the same confirmation page as the action on the changelist,
with that one object selected, guarded by the same permission; confirming
acts through the same :class:`~.confirm.ConfirmedAction`, then staff are
back on the object's page with the outcome. A button is shown only to staff
who may run the action, and only when the action would do something to the
object (no "capture" on a paid charge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse

from .confirm import ConfirmedAction
from .display import admin_url

if TYPE_CHECKING:
    from django.template.response import _TemplateForResponseT  # the stubs' own alias


class ObjectActionsMixin:
    """Adds ``<pk>/actions/<name>/`` and the buttons to a ModelAdmin's change page."""

    #: The confirmed actions offered on the object's page, in button order.
    object_actions: Sequence[ConfirmedAction] = ()
    change_form_template: ClassVar[_TemplateForResponseT | None] = (
        "admin/django_orderpay/change_form.html"
    )

    def get_urls(self) -> list[URLPattern]:
        modeladmin: admin.ModelAdmin = self  # type: ignore[assignment]
        opts = modeladmin.model._meta
        view = modeladmin.admin_site.admin_view(self.object_action_view)
        name = f"{opts.app_label}_{opts.model_name}_object_action"
        own = [path("<path:object_id>/actions/<str:action>/", view, name=name)]
        return own + super().get_urls()  # type: ignore[misc]

    def _object_action(self, name: str) -> ConfirmedAction:
        for spec in self.object_actions:
            if spec.name == name:
                return spec
        raise Http404("no such action")

    def _may_run(self, request: HttpRequest, spec: ConfirmedAction) -> bool:
        return bool(getattr(self, f"has_{spec.permission}_permission")(request))

    def _would_act(self, spec: ConfirmedAction, queryset: models.QuerySet) -> bool:
        return any(not spec.plan(target).skipped for target in spec.targets(queryset))

    def object_action_view(self, request: HttpRequest, object_id: str, action: str) -> HttpResponse:
        """The confirmation page of ``action`` for one object; after it, the object's page."""
        modeladmin: admin.ModelAdmin = self  # type: ignore[assignment]
        spec = self._object_action(action)
        obj = modeladmin.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404("no such object")
        if not modeladmin.has_view_permission(request, obj) or not self._may_run(request, spec):
            raise PermissionDenied
        queryset = modeladmin.get_queryset(request).filter(pk=obj.pk)
        response = spec.run(modeladmin, request, queryset, original=obj)
        return response if response is not None else HttpResponseRedirect(admin_url(obj))

    def object_action_buttons(
        self, request: HttpRequest, obj: models.Model
    ) -> list[dict[str, Any]]:
        """``[{"label", "url"}]`` of the actions this user may run and that would act on ``obj``."""
        modeladmin: admin.ModelAdmin = self  # type: ignore[assignment]
        opts = modeladmin.model._meta
        queryset = modeladmin.get_queryset(request).filter(pk=obj.pk)
        name = f"admin:{opts.app_label}_{opts.model_name}_object_action"
        return [
            {"label": spec.button_label, "url": reverse(name, args=[obj.pk, spec.name])}
            for spec in self.object_actions
            if self._may_run(request, spec) and self._would_act(spec, queryset)
        ]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: models.Model | None = None,
    ) -> HttpResponse:
        buttons = self.object_action_buttons(request, obj) if obj is not None else []
        context["orderpay_object_actions"] = buttons
        return super().render_change_form(  # type: ignore[misc]
            request, context, add, change, form_url, obj
        )
