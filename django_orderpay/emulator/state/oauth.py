"""What the emulator's Connect (OAuth 2) server remembers: applications, codes, tokens.

A platform registers an **application** (``client_id``, its secret, one
``redirect_uri``). A seller who consents on the authorisation page gets the
application a one-use **code** (with the PKCE challenge it was asked with),
which the application exchanges for an **access token** and a **refresh
token**, both bound to the seller's ``ACCO_`` account. Access tokens expire
by the emulator's clock; refreshing rotates both (the refresh token sent
stops working, the old access token lives until it expires); revoking ends
them. Nothing here is thread-safe: the core holds its lock around every call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

#: How long a code may wait to be exchanged. PagBank says only "validade curta".
CODE_TTL = timedelta(minutes=10)
#: Access tokens live this long unless the options say otherwise (PagBank does not
#: document it; the official plugins refresh 30 days ahead, or every 6 months).
DEFAULT_EXPIRES_IN = 365 * 24 * 3600
SELLER_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "urn:django-orderpay:emulator:seller")
#: Which token signs a Connect seller's notifications (undocumented): the seller's
#: access token (Virtuaria verifies with the token Connect gave it), or the
#: application's secret.
SIGNERS = ("account", "application")
#: Which ``redirect_uri`` the authorisation page takes: the application's own (PagBank's
#: reference: "a mesma utilizada na criação da aplicação", "não é dinâmico"), or any http(s)
#: URL, as PagBank's shared applications take each shop's own callback from the official
#: WooCommerce plugin (and Magento's, the PKCE verifier in its path).
REDIRECT_URI_RULES = ("application", "any")


def seller_account(email: str) -> str:
    """The ``ACCO_`` id of the emulator's seller who signs in with ``email`` (stable)."""
    key = email.strip().lower()
    return f"ACCO_{str(uuid.uuid5(SELLER_NAMESPACE, key)).upper()}"


def s256(verifier: str) -> str:
    """The PKCE ``S256`` challenge of ``verifier`` (RFC 7636)."""
    digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass
class Application:
    """A Connect application: who asks sellers for permission, and where they return."""

    client_id: str
    client_secret: str = field(repr=False)
    name: str
    redirect_uri: str
    description: str = ""
    site: str = ""
    logo: str = ""
    #: The merchant account that created it (``POST /oauth2/application``), if any.
    account: str | None = None

    def as_json(self, *, with_secret: bool = False) -> dict[str, str | None]:
        shown: dict[str, str | None] = {
            "client_id": self.client_id,
            "name": self.name,
            "description": self.description,
            "site": self.site,
            "redirect_uri": self.redirect_uri,
            "logo": self.logo,
        }
        if with_secret:
            shown["client_secret"] = self.client_secret
        return shown


@dataclass
class Code:
    """A code a seller's consent produced, waiting for its one exchange."""

    code: str = field(repr=False)
    client_id: str
    account: str
    scope: str
    redirect_uri: str
    challenge: str | None
    expires_at: datetime
    used: bool = False


@dataclass
class Grant:
    """One application's permission over one seller's account, and its current tokens."""

    client_id: str
    account: str
    scope: str
    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_at: datetime
    #: Access tokens a refresh replaced, with when each stops working.
    earlier: dict[str, datetime] = field(default_factory=dict, repr=False)
    refreshes: int = 0
    revoked: bool = False


@dataclass
class OAuthStore:
    """Applications, codes and grants, the tokens' index, and the server's two choices.

    ``expires_in`` (seconds) is what each access token gets; ``signer`` who
    signs a seller's notifications (:data:`SIGNERS`); ``redirect_uri`` which
    URI the authorisation page takes (:data:`REDIRECT_URI_RULES`). They are set
    through the control plane (``POST /_emulator/oauth/settings``); a reset
    puts back the defaults.
    """

    applications: dict[str, Application] = field(default_factory=dict)
    codes: dict[str, Code] = field(default_factory=dict)
    grants: list[Grant] = field(default_factory=list)
    #: Refresh tokens a refresh replaced (their reuse is refused as no longer active).
    spent: set[str] = field(default_factory=set, repr=False)
    expires_in: int = DEFAULT_EXPIRES_IN
    signer: str = "account"
    redirect_uri: str = "application"

    def clear(self) -> None:
        """Forget codes and grants, and the choices; registered applications stay (as
        tokens and accounts do)."""
        self.codes.clear()
        self.grants.clear()
        self.spent.clear()
        self.expires_in = DEFAULT_EXPIRES_IN
        self.signer = "account"
        self.redirect_uri = "application"

    def application(self, client_id: str | None, secret: str | None) -> Application | None:
        """The application whose secret is ``secret`` (and id ``client_id``, when given)."""
        for app in self.applications.values():
            if client_id is not None and app.client_id != client_id:
                continue
            if secret is not None and hmac.compare_digest(app.client_secret, secret):
                return app
        return None

    def new_code(self, **fields: object) -> Code:
        code = Code(code=secrets.token_urlsafe(24), **fields)  # type: ignore[arg-type]
        self.codes[code.code] = code
        return code

    def issue(self, client_id: str, account: str, scope: str, expires_at: datetime) -> Grant:
        """A grant with fresh tokens (an earlier one of the same seller and app is replaced)."""
        for old in self.grants:
            if old.client_id == client_id and old.account == account:
                old.revoked = True
        grant = Grant(
            client_id=client_id,
            account=account,
            scope=scope,
            access_token=_token("at"),
            refresh_token=_token("rt"),
            expires_at=expires_at,
        )
        self.grants.append(grant)
        return grant

    def rotate(self, grant: Grant, expires_at: datetime) -> None:
        """A refresh: new access and refresh tokens; the old refresh token is spent."""
        grant.earlier[grant.access_token] = grant.expires_at
        self.spent.add(grant.refresh_token)
        grant.access_token = _token("at")
        grant.refresh_token = _token("rt")
        grant.expires_at = expires_at
        grant.refreshes += 1

    def by_access_token(self, token: str) -> tuple[Grant, datetime] | None:
        """The grant ``token`` acts under and when that token expires (revoked: None)."""
        for grant in self.grants:
            if grant.revoked:
                continue
            if hmac.compare_digest(grant.access_token, token):
                return grant, grant.expires_at
            if token in grant.earlier:
                return grant, grant.earlier[token]
        return None

    def by_refresh_token(self, token: str) -> Grant | None:
        for grant in self.grants:
            if not grant.revoked and hmac.compare_digest(grant.refresh_token, token):
                return grant
        return None

    def current(self, client_id: str, account: str) -> Grant | None:
        """The grant ``client_id`` holds over ``account`` now (None: none, or revoked)."""
        for grant in reversed(self.grants):
            if grant.client_id == client_id and grant.account == account:
                return None if grant.revoked else grant
        return None


def _token(kind: str) -> str:
    return f"{kind}-{secrets.token_urlsafe(32)}"
