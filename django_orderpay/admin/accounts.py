"""Connected PagBank accounts (Connect) in the admin: their state, and what staff may do.

Staff see each account's state, scopes and token dates, never a token (the
columns hold only their encryption, and are not shown at all). Accounts come
from the authorisation, never from a form: the list links to it ("Connect a
PagBank account"), each account to its own "re-authorise" link, which its
seller (or staff with the permission) follows to authorise the platform again.
The actions refresh an account's token now (also one marked as needing
re-authorisation: PagBank may take its refresh token again), or disconnect
it (revoked at PagBank), behind a confirmation page and
``change_connectedaccount``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ..conf import get_settings
from ..connect import accounts as connect_accounts
from ..models import AccountState, ConnectedAccount
from .base import ReadOnlyAdmin
from .confirm import ConfirmedAction, Outcome, Step
from .display import short_datetime

#: How each state looks: the colours of the charges' badges (green, red, grey).
STATE_BADGES = {
    AccountState.ACTIVE: "paid",
    AccountState.NEEDS_AUTHORIZATION: "declined",
    AccountState.REVOKED: "canceled",
}


def authorize_url(account: ConnectedAccount | None = None, next_url: str = "") -> str:
    """The start view's URL (for ``account``, again), or "" when it is not routed."""
    try:
        base = reverse("orderpay:connect_start")
    except NoReverseMatch:
        return ""
    query: dict[str, str] = {"account": str(account.pk)} if account is not None else {}
    if next_url:
        query["next"] = next_url
    return f"{base}?{urlencode(query)}" if query else base


class RefreshAccountTokens(ConfirmedAction):
    """Refresh the selected accounts' tokens now (a new access and refresh token each)."""

    name = "refresh_account_tokens"
    description = gettext_lazy("Refresh the tokens of selected accounts now")
    button_label = gettext_lazy("Refresh token now")
    permission = "manage_account"
    submit_label = gettext_lazy("Yes, refresh them")
    changes_state = False

    def plan(self, obj: ConnectedAccount) -> Step:
        if obj.state == AccountState.REVOKED:
            disconnected = _("it was disconnected: its seller must authorise again")
            return Step(obj, disconnected, skipped=True)
        if obj.state == AccountState.NEEDS_AUTHORIZATION:
            # The mark may not be the seller's doing (the application's settings were
            # wrong then): PagBank says whether it takes the refresh token again.
            return Step(
                obj,
                _(
                    "try its refresh token again: active again if PagBank takes it; if "
                    "PagBank still refuses it, its seller must authorise again"
                ),
                detail=obj.name,
            )
        return Step(obj, _("ask PagBank for new tokens"), detail=obj.name)

    def perform(self, obj: ConnectedAccount, cleaned_data: dict[str, Any], key: str) -> Outcome:
        was_active = obj.is_active
        account = connect_accounts.refresh_now(obj)
        when = {"when": short_datetime(account.token_expires_at)}
        if not was_active:
            return Outcome(_("active again: refreshed; the token expires %(when)s") % when)
        return Outcome(_("refreshed; the token expires %(when)s") % when)


class DisconnectAccounts(ConfirmedAction):
    """Revoke the platform's access to the selected accounts at PagBank."""

    name = "disconnect_accounts"
    description = gettext_lazy("Disconnect selected accounts (revoke at PagBank)")
    button_label = gettext_lazy("Disconnect")
    permission = "manage_account"
    submit_label = gettext_lazy("Yes, disconnect them")

    def plan(self, obj: ConnectedAccount) -> Step:
        if obj.state == AccountState.REVOKED:
            return Step(obj, _("it is already disconnected"), skipped=True)
        return Step(
            obj,
            _("revoke its tokens at PagBank: nothing is paid for it until it is authorised again"),
            detail=obj.name,
        )

    def perform(self, obj: ConnectedAccount, cleaned_data: dict[str, Any], key: str) -> Outcome:
        connect_accounts.disconnect(obj)
        return Outcome(_("disconnected"))


class AccountColumn:
    """With Connect on: the row's connected account as a column, a filter and a detail field.

    Off (a shop with one ``TOKEN``), the screens are as they were, query for query.
    """

    account_fields: tuple[str, ...] = ("account",)

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = super().get_list_display(request)  # type: ignore[misc]
        return (*shown, "account") if get_settings().connect_enabled else shown

    def get_list_filter(self, request: HttpRequest) -> Any:
        filters = super().get_list_filter(request)  # type: ignore[misc]
        if not get_settings().connect_enabled:
            return filters
        return (*filters, ("account", admin.RelatedOnlyFieldListFilter))

    def get_list_select_related(self, request: HttpRequest) -> Any:
        related = super().get_list_select_related(request)  # type: ignore[misc]
        if not get_settings().connect_enabled or related is True:
            return related
        return (*(related or ()), "account")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_readonly_fields(request, obj)  # type: ignore[misc]
        return (*fields, *self.account_fields) if get_settings().connect_enabled else fields

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_fields(request, obj)  # type: ignore[misc]
        if not get_settings().connect_enabled or "account" in fields:
            return fields
        return (*fields, *self.account_fields)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)  # type: ignore[misc]
        if not get_settings().connect_enabled or any(
            "account" in options.get("fields", ()) for _, options in fieldsets
        ):
            return fieldsets
        return [*fieldsets, (gettext_lazy("Connected account"), {"fields": self.account_fields})]


REFRESH_ACCOUNT_TOKENS = RefreshAccountTokens()
DISCONNECT_ACCOUNTS = DisconnectAccounts()


@admin.register(ConnectedAccount)
class ConnectedAccountAdmin(ReadOnlyAdmin):
    list_display = (
        "account_id",
        "name",
        "state_badge",
        "environment",
        "owner_link",
        "user",
        "token_expires_at",
        "refreshed_at",
        "reauthorize",
    )
    list_filter = ("state", "environment")
    list_select_related = ("user",)
    search_fields = ("account_id", "name")
    fields = (
        "account_id",
        "name",
        "state_badge",
        "environment",
        "client_id",
        "scopes",
        "owner_link",
        "user",
        "connected_at",
        "token_issued_at",
        "token_expires_at",
        "refreshed_at",
        "state_changed_at",
        "last_error",
        "reauthorize",
    )
    readonly_fields = fields
    actions = [REFRESH_ACCOUNT_TOKENS.as_admin_action(), DISCONNECT_ACCOUNTS.as_admin_action()]

    def has_manage_account_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("django_orderpay.change_connectedaccount")

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        context = {"connect_url": authorize_url(next_url=request.path)}
        return super().changelist_view(request, {**(extra_context or {}), **context})

    @admin.display(description=pgettext_lazy("account", "state"), ordering="state")
    def state_badge(self, obj: ConnectedAccount) -> SafeString:
        return format_html(
            '<span class="orderpay-badge orderpay-badge-{}" title="{}">{}</span>',
            STATE_BADGES.get(AccountState(obj.state), "unknown"),
            obj.state,
            obj.get_state_display(),
        )

    @admin.display(description=gettext_lazy("owner"))
    def owner_link(self, obj: ConnectedAccount) -> str:
        return str(obj.owner) if obj.content_type_id else ""

    @admin.display(description=gettext_lazy("re-authorise"))
    def reauthorize(self, obj: ConnectedAccount) -> SafeString | str:
        url = authorize_url(obj, next_url=self._change_url(obj))
        if not url:
            return ""
        label = _("Re-authorise") if obj.state != AccountState.ACTIVE else _("Authorise again")
        return format_html('<a href="{}" data-reauthorize="{}">{}</a>', url, obj.pk, label)

    def _change_url(self, obj: ConnectedAccount) -> str:
        opts = self.model._meta
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
