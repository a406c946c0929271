"""The two views of Connect Authorization: start (to PagBank) and the callback (back here).

``orderpay:connect_start`` (``GET``, a logged-in user; ``?account=<pk>`` to
authorise an existing account again, ``?next=<local URL>``) sends the user
to PagBank's page; ``orderpay:connect_callback`` is the ``redirect_uri``
PagBank sends them back to (register its absolute URL with the application,
or set ``ORDERPAY['CONNECT_REDIRECT_URI']``).

Who may connect: by default staff with the ``add_connectedaccount``
permission (a new account) or ``change_connectedaccount`` (again), and an
account's own user for their account. Subclass :class:`ConnectStartView`
and override :meth:`~ConnectStartView.may_connect` (a marketplace lets its
sellers) and :meth:`~ConnectStartView.get_owner` (the shop's object the
account belongs to), then route your subclass instead.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import View

from django_orderpay.conf import get_settings
from django_orderpay.models import ConnectedAccount

from . import flow

TEMPLATE = "django_orderpay/connect/result.html"


def callback_uri(request: HttpRequest) -> str:
    """The ``redirect_uri``: ``CONNECT_REDIRECT_URI``, else the callback's absolute URL."""
    configured = get_settings().connect_redirect_uri
    return configured or request.build_absolute_uri(reverse("orderpay:connect_callback"))


def _local(request: HttpRequest, url: str) -> str:
    """``url`` when it stays on this site, else ""."""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if url and allowed else ""


class ConnectStartView(LoginRequiredMixin, View):
    """Start an authorisation for the logged-in user and send them to PagBank."""

    http_method_names = ["get"]

    def may_connect(self, request: HttpRequest, account: ConnectedAccount | None) -> bool:
        """Whether ``request.user`` may connect a new account (``account`` None) or this one."""
        user = request.user
        if account is not None and account.user_id == user.pk:
            return True
        permission = "add_connectedaccount" if account is None else "change_connectedaccount"
        return bool(user.is_staff and user.has_perm(f"django_orderpay.{permission}"))

    def get_owner(
        self, request: HttpRequest, account: ConnectedAccount | None
    ) -> models.Model | None:
        """The shop's object the account belongs to (a seller, a store); None: none."""
        return account.owner if account is not None else None

    def get(self, request: HttpRequest) -> HttpResponse:
        account = None
        wanted = request.GET.get("account", "")
        if wanted:
            if not wanted.isdigit():
                raise PermissionDenied("account must be a connected account's id")
            account = get_object_or_404(ConnectedAccount, pk=int(wanted))
        if not self.may_connect(request, account):
            raise PermissionDenied("you may not connect this PagBank account")
        url = flow.start(
            request.user,
            redirect_uri=callback_uri(request),
            account=account,
            owner=self.get_owner(request, account),
            next_url=_local(request, request.GET.get("next", "")),
        )
        return HttpResponseRedirect(url)


class ConnectCallbackView(LoginRequiredMixin, View):
    """Where PagBank sends the user back: store the account's tokens, then go on."""

    http_method_names = ["get"]

    def get(self, request: HttpRequest) -> HttpResponse:
        try:
            next_url, account = flow.finish(
                request.user,
                state=request.GET.get("state", ""),
                code=request.GET.get("code", ""),
                error=request.GET.get("error", ""),
            )
        except flow.ConnectFlowError as exc:
            refused = {"ok": False, "message": exc.user_message, "code": exc.code}
            return render(request, TEMPLATE, refused, status=400)
        if next_url:
            messages.success(
                request,
                _("PagBank account %(account)s connected.") % {"account": account.account_id},
                fail_silently=True,
            )
            return HttpResponseRedirect(next_url)
        context: dict[str, Any] = {"ok": True, "account": account}
        return render(request, TEMPLATE, context)
