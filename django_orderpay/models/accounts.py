"""Connected PagBank accounts (Connect, OAuth 2) and the authorisations under way.

The settings' ``TOKEN`` is the default account: rows whose ``account`` is
empty (orders, card tokens, operations, deliveries) are that account's. A
:class:`ConnectedAccount` is a seller's account the platform acts for with
the token PagBank issued when the seller authorised it. Its tokens are kept
only encrypted (:mod:`django_orderpay.connect.cipher`): the columns hold
Fernet tokens, and nothing here prints, logs or serialises a plain one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class AccountState(models.TextChoices):
    """Whether the platform may act for an account."""

    ACTIVE = "active", _("Active")
    #: PagBank refused the account's tokens (expired, or revoked by the seller):
    #: the seller must authorise the platform again.
    NEEDS_AUTHORIZATION = "needs_authorization", _("Needs re-authorisation")
    #: The platform disconnected it (its tokens revoked at PagBank).
    REVOKED = "revoked", _("Revoked")


class ConnectedAccount(models.Model):
    """A seller's PagBank account the platform acts for (``account_id``, ``ACCO_...``).

    ``owner`` is the shop's own object the account belongs to (a seller, a
    store), ``user`` who authorised it. ``scopes`` are what PagBank granted
    (space-separated, as answered). The tokens are read with
    :meth:`access_token` and :meth:`refresh_token`, decrypted on demand;
    the columns hold only their encryption.
    """

    account_id = models.CharField(_("PagBank account"), max_length=64, db_index=True)
    environment = models.CharField(_("environment"), max_length=16)
    client_id = models.CharField(_("application"), max_length=64)
    name = models.CharField(_("name"), max_length=120, blank=True)
    scopes = models.CharField(_("scopes"), max_length=500, blank=True)
    state = models.CharField(
        pgettext_lazy("account", "state"),
        max_length=24,
        choices=AccountState.choices,
        default=AccountState.ACTIVE,
        db_index=True,
    )
    access_token_encrypted = models.TextField(_("access token (encrypted)"), editable=False)
    refresh_token_encrypted = models.TextField(_("refresh token (encrypted)"), editable=False)
    #: The access token a refresh replaced: notifications signed with it still verify.
    previous_access_token_encrypted = models.TextField(
        _("previous access token (encrypted)"), blank=True, editable=False
    )
    token_issued_at = models.DateTimeField(_("token issued at"), null=True, blank=True)
    token_expires_at = models.DateTimeField(_("token expires at"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("authorised by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="orderpay_connected_accounts",
    )
    content_type = models.ForeignKey(
        ContentType,
        verbose_name=_("owner type"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    object_id = models.CharField(_("owner id"), max_length=64, blank=True)
    owner = GenericForeignKey("content_type", "object_id")
    connected_at = models.DateTimeField(_("connected at"), default=timezone.now)
    refreshed_at = models.DateTimeField(_("last refreshed at"), null=True, blank=True)
    state_changed_at = models.DateTimeField(_("state changed at"), default=timezone.now)
    last_error = models.TextField(_("last error"), blank=True)

    class Meta:
        verbose_name = _("connected account")
        verbose_name_plural = _("connected accounts")
        ordering = ("-connected_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=["account_id", "environment"], name="orderpay_account_environment"
            ),
        ]

    def __str__(self) -> str:
        return self.name or self.account_id

    # Not the default repr either: nothing derived from a token in it.
    def __repr__(self) -> str:
        return f"<ConnectedAccount {self.account_id} ({self.state})>"

    @property
    def is_active(self) -> bool:
        return self.state == AccountState.ACTIVE

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    def _decrypt(self, stored: str) -> str:
        from django_orderpay.connect.cipher import InvalidToken, decrypt
        from django_orderpay.exceptions import ConfigurationError

        try:
            return decrypt(stored)
        except InvalidToken:
            raise ConfigurationError(
                f"connected account {self.account_id}: its tokens open with none of "
                "ORDERPAY['CONNECT_KEYS'] (was a key dropped before orderpay_rotate_keys ran?)"
            ) from None

    def access_token(self) -> str:
        """The access token, decrypted (never store or log it)."""
        return self._decrypt(self.access_token_encrypted)

    def refresh_token(self) -> str:
        """The refresh token, decrypted (never store or log it)."""
        return self._decrypt(self.refresh_token_encrypted)

    def notification_tokens(self) -> tuple[str, ...]:
        """The access tokens a notification of this account may be signed with: the
        current one and the one its last refresh replaced."""
        stored = (self.access_token_encrypted, self.previous_access_token_encrypted)
        return tuple(self._decrypt(value) for value in stored if value)

    def set_tokens(
        self,
        *,
        access_token: str,
        refresh_token: str,
        expires_in: int | None,
        scope: str | None = None,
        now: dt.datetime | None = None,
    ) -> None:
        """Keep new tokens (encrypted); the replaced access token is kept as the previous one."""
        from django_orderpay.connect.cipher import encrypt

        now = now or timezone.now()
        if self.access_token_encrypted:
            self.previous_access_token_encrypted = self.access_token_encrypted
        self.access_token_encrypted = encrypt(access_token)
        self.refresh_token_encrypted = encrypt(refresh_token)
        self.token_issued_at = now
        self.token_expires_at = now + dt.timedelta(seconds=expires_in) if expires_in else None
        if scope is not None:
            self.scopes = scope

    def refresh_due(self, margin: int, now: dt.datetime | None = None) -> bool:
        """Whether the access token should be refreshed now (see :func:`refresh_due`)."""
        return refresh_due(self.token_expires_at, self.token_issued_at, margin, now)


def refresh_due(
    expires_at: dt.datetime | None,
    issued_at: dt.datetime | None,
    margin: int,
    now: dt.datetime | None = None,
) -> bool:
    """Whether a token issued at ``issued_at`` and expiring at ``expires_at`` is due for a
    refresh: within ``margin`` seconds of its expiry, or of a quarter of its lifetime
    when that is shorter (a token living an hour is refreshed 15 minutes ahead)."""
    if expires_at is None:
        return False
    now = now or timezone.now()
    lifetime = expires_at - (issued_at or now)
    lead = min(dt.timedelta(seconds=margin), lifetime / 4)
    return now >= expires_at - lead


def account_foreign_key(related_name: str = "+", **options: Any) -> models.ForeignKey:
    """The ``account`` column of a row that belongs to an account: nullable (empty: the
    settings' ``TOKEN``), and protected (an account with rows is never deleted under them)."""
    return models.ForeignKey(
        ConnectedAccount,
        verbose_name=_("connected account"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name=related_name,
        **options,
    )


class ConnectAuthorization(models.Model):
    """An authorisation under way: the ``state`` and PKCE verifier of one visit to PagBank.

    Kept on the server, bound to the user who started it: the callback is
    accepted only with this ``state``, from that user, once, within
    ``connect.flow.AUTHORIZATION_TTL``. ``account`` is the account being
    authorised again (else a new one is connected); ``content_type`` and
    ``object_id`` the shop object the account will belong to.
    """

    state = models.CharField(pgettext_lazy("oauth", "state"), max_length=64, unique=True)
    code_verifier_encrypted = models.TextField(_("code verifier (encrypted)"), editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    account = models.ForeignKey(
        ConnectedAccount,
        verbose_name=_("connected account"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    redirect_uri = models.CharField(_("redirect URI"), max_length=350)
    next_url = models.CharField(_("next URL"), max_length=1000, blank=True)
    content_type = models.ForeignKey(
        ContentType,
        verbose_name=_("owner type"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    object_id = models.CharField(_("owner id"), max_length=64, blank=True)
    owner = GenericForeignKey("content_type", "object_id")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("Connect authorisation")
        verbose_name_plural = _("Connect authorisations")

    def __str__(self) -> str:
        return f"authorisation {self.pk}"

    def __repr__(self) -> str:
        return f"<ConnectAuthorization {self.pk}>"
