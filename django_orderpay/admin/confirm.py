"""Admin actions that show what will happen per object, ask, then act and report per object.

An action is a :class:`ConfirmedAction`: ``plan`` says for each object what
will be done (or why it is skipped), ``perform`` does it through the
services. The first POST from the changelist shows the confirmation page;
the page posts back with ``post=yes`` and its form, and only then does
anything reach the provider. Each object gets its own message: success,
skipped, or the provider's error in words.

Each page carries the intent of whoever confirms it: a random id minted when
it is shown, from which each call's idempotency key derives. The same page
confirmed twice (a double click, a resend) is one operation, and the second
confirmation says "already ... by the same request"; two pages are two
operations, even for the same charge and amount at the same moment (two
staff meaning two refunds), except that a page meeting an earlier operation
whose outcome is unknown continues it with its key, and says so.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from ..exceptions import OrderPayError
from ..models import Operation
from ..services import operations
from .display import ADMIN_CSS
from .errors import describe_error
from .forms import ConfirmationForm

#: Idempotency keys of admin calls live in their own uuid5 namespace.
KEY_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/django-orderpay/admin")


@dataclass(frozen=True)
class Step:
    """What an action will do to one object, or why it leaves it alone."""

    obj: models.Model
    text: str
    skipped: bool = False
    badge: SafeString | str = ""
    #: Who or what the object is to staff (the order's reference and customer).
    detail: str = ""


@dataclass(frozen=True)
class Outcome:
    """What happened to one object: a message level and the words for staff."""

    text: str
    level: int = messages.SUCCESS


class ConfirmedAction:
    """Base of the confirmation-page actions; subclasses set the class attributes."""

    #: The action's name in the changelist's select (a function name).
    name: str = ""
    #: The changelist's label for it.
    description: Any = ""
    #: Its button on one object's page (:mod:`.object_actions`).
    button_label: Any = ""
    #: The ``has_<permission>_permission`` method of the ModelAdmin that guards it.
    permission: str = ""
    #: Whether ``perform`` can change state at the provider (capture, cancel).
    changes_state: bool = True
    form_class: type[ConfirmationForm] = ConfirmationForm
    submit_label: Any = ""
    #: What a second confirmation of the same page says happened (state-changing actions).
    already_done: Any = ""

    def targets(self, queryset: models.QuerySet) -> list[models.Model]:
        """The objects acted on (a refresh of charges acts on their orders)."""
        return list(queryset)

    def plan(self, obj: Any) -> Step:
        raise NotImplementedError

    def form_kwargs(self, todo: Sequence[Step]) -> dict[str, Any]:
        return {}

    def perform(self, obj: Any, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        raise NotImplementedError

    def intent(self, obj: Any, cleaned_data: dict[str, Any]) -> operations.Intent | None:
        """The operation ``perform`` would record for ``obj`` (None: it records none)."""
        return None

    def intro(self, todo: Sequence[Step], skipped: Sequence[Step]) -> str:
        return _("Check what will happen to each selected object before confirming.")

    def summary(self, todo: Sequence[Step]) -> str:
        """One line about everything that will be done (a total), or ``""``."""
        return ""

    def as_admin_action(self) -> Callable[..., TemplateResponse | None]:
        """The function to list in a ModelAdmin's ``actions``."""
        spec = self

        def action(
            modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: models.QuerySet
        ) -> TemplateResponse | None:
            return spec.run(modeladmin, request, queryset)

        action.__name__ = self.name
        return admin.action(description=self.description, permissions=[self.permission])(action)

    def run(
        self,
        modeladmin: admin.ModelAdmin,
        request: HttpRequest,
        queryset: models.QuerySet,
        *,
        original: models.Model | None = None,
    ) -> TemplateResponse | None:
        """The confirmation page, or (confirmed) act and answer None for the caller's redirect.

        ``original`` is the object whose own page the action was started from.
        """
        # Django filters actions by permission already; checking again here
        # keeps the guard even if someone calls the action another way.
        if not getattr(modeladmin, f"has_{self.permission}_permission")(request):
            raise PermissionDenied
        steps = [self.plan(obj) for obj in self.targets(queryset)]
        todo = [step for step in steps if not step.skipped]
        skipped = [step for step in steps if step.skipped]
        kwargs = self.form_kwargs(todo)
        if request.POST.get("post") == "yes":
            form = self.form_class(request.POST, **kwargs)
            if not todo:
                self._report_skipped(modeladmin, request, skipped)
                modeladmin.message_user(request, _("Nothing was done."), messages.WARNING)
                return None
            if form.is_valid():
                self._report_skipped(modeladmin, request, skipped)
                self._perform_all(modeladmin, request, todo, form.cleaned_data)
                return None
        else:
            form = self.form_class(initial={"confirmation": uuid.uuid4().hex}, **kwargs)
        return self._confirmation_page(modeladmin, request, queryset, form, todo, skipped, original)

    def idempotency_key(self, confirmation: str, obj: Any) -> str:
        """The same page confirmed twice gives the same key, so the provider acts once."""
        ident = getattr(obj, "provider_id", None) or obj.pk
        return str(uuid.uuid5(KEY_NAMESPACE, f"{confirmation}:{self.name}:{ident}"))

    def _perform_all(
        self,
        modeladmin: admin.ModelAdmin,
        request: HttpRequest,
        todo: Sequence[Step],
        cleaned_data: dict[str, Any],
    ) -> None:
        for step in todo:
            # Named as the confirmation page named it, before acting changes it.
            label = str(step.obj)
            key = self.idempotency_key(cleaned_data["confirmation"], step.obj)
            same_page = self._confirmed_before(key)
            earlier = None if same_page else self._continued(step.obj, cleaned_data, key)
            try:
                outcome = self.perform(step.obj, cleaned_data, key)
            except OrderPayError as error:
                outcome = Outcome(
                    describe_error(error, changes_state=self.changes_state), messages.ERROR
                )
            outcome = self._which_happened(outcome, same_page, earlier)
            modeladmin.message_user(request, f"{label}: {outcome.text}", outcome.level)
            if outcome.level == messages.SUCCESS:
                # The object's admin history says who refunded or captured what.
                modeladmin.log_change(request, step.obj, f"{self.description}: {outcome.text}")

    def _confirmed_before(self, key: str) -> bool:
        """Whether this page's call for an object was made already (its key is recorded)."""
        return self.changes_state and Operation.objects.filter(idempotency_key=key).exists()

    def _continued(self, obj: Any, cleaned_data: dict[str, Any], key: str) -> Operation | None:
        """The earlier operation (outcome unknown) this page's call will continue, if any."""
        try:
            intent = self.intent(obj, cleaned_data)
        except OrderPayError:
            return None  # perform will say what is wrong
        return operations.continued_by(intent.scope, key) if intent is not None else None

    def _which_happened(
        self, outcome: Outcome, same_page: bool, earlier: Operation | None
    ) -> Outcome:
        """Say whether this confirmation acted, repeated its own page, or continued another."""
        if outcome.level != messages.SUCCESS:
            return outcome
        if same_page:
            text = _("%(already)s (this page was confirmed before; nothing more was done): %(now)s")
            return Outcome(
                text % {"already": self.already_done, "now": outcome.text}, messages.INFO
            )
        if earlier is not None:
            text = _(
                "%(outcome)s, by continuing operation %(operation)s (its outcome was unknown), "
                "with its idempotency key: done once"
            )
            return Outcome(text % {"outcome": outcome.text, "operation": earlier.pk}, outcome.level)
        return outcome

    def _report_skipped(
        self, modeladmin: admin.ModelAdmin, request: HttpRequest, skipped: Sequence[Step]
    ) -> None:
        for step in skipped:
            text = _("%(object)s: skipped, %(reason)s") % {"object": step.obj, "reason": step.text}
            modeladmin.message_user(request, text, messages.WARNING)

    def _confirmation_page(
        self,
        modeladmin: admin.ModelAdmin,
        request: HttpRequest,
        queryset: models.QuerySet,
        form: forms.Form,
        todo: Sequence[Step],
        skipped: Sequence[Step],
        original: models.Model | None = None,
    ) -> TemplateResponse:
        opts = modeladmin.model._meta
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": self.description,
            "subtitle": None,
            "opts": opts,
            "app_label": opts.app_label,
            "original": original,
            "media": modeladmin.media + form.media + forms.Media(css={"all": [ADMIN_CSS]}),
            "action_name": self.name,
            "intro": self.intro(todo, skipped),
            "summary": self.summary(todo),
            "todo": todo,
            "skipped": skipped,
            "form": form,
            "selected": [obj.pk for obj in queryset],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "submit_label": self.submit_label or _("Yes, I’m sure"),  # noqa: RUF001 (Django's own msgid and translation)
        }
        request.current_app = modeladmin.admin_site.name
        templates = [
            f"admin/{opts.app_label}/{opts.model_name}/action_confirmation.html",
            "admin/django_orderpay/action_confirmation.html",
        ]
        return TemplateResponse(request, templates, context)
