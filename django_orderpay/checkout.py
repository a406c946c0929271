"""The card checkout with 3-D Secure, debit cards and installment plans with interest.

:class:`CardCheckoutForm` is the :class:`~django_orderpay.forms.CardPaymentForm`
plus what ``checkout.js`` posts after ``PagSeguro.authenticate3DS``: the
authentication's ``3DS_`` id (``authentication_id``) and the card's first six
digits (``card_bin``, not a secret: printed on receipts) for the installment
plans of ``GET /charges/fees/calculate``. :class:`DebitCardForm` pays by debit:
3-D Secure always, one installment, never stored.

When 3-D Secure runs is ``ORDERPAY['THREEDS']`` (:func:`threeds_required`):
``always`` (the default), ``never``, or ``after_decline``: only once the
issuer declined a card of the order with a code that asks for authentication
(20159, "tente novamente usando autenticação"), as the partner plugin's retry
does. A card whose issuer takes no part (``AUTH_NOT_SUPPORTED``) is charged
without it only where ``ORDERPAY['THREEDS_ALLOW_NOT_SUPPORTED']`` says so.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, cast

from django import forms
from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext_lazy as _

from django_orderpay import payloads, rules
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import OrderPayError
from django_orderpay.forms import CARD_FORM_FIELDS, CardPaymentForm, add_payment_error
from django_orderpay.installments import offered_plans, plan_choices, plan_for, plan_label
from django_orderpay.models import ChargeStatus, ConnectedAccount, Order
from django_orderpay.payloads.authentication import THREEDS_ID_PATTERN
from django_orderpay.services._common import check_account
from django_orderpay.services.fees import InstallmentPlan

__all__ = [
    "CardCheckoutForm",
    "DebitCardForm",
    "PlansToken",
    "plan_choices",  # at home in django_orderpay.installments; here for older imports
    "plan_label",
    "read_plans_token",
    "sign_plans",
    "threeds_required",
    "unsign_plans",
]

logger = logging.getLogger("django_orderpay.checkout")

#: Issuer decline codes that ask the merchant to retry with 3-D Secure.
AUTHENTICATION_REQUIRED_CODES = frozenset({"20159"})
#: Said when a card can't be authenticated for debit (the form, and checkout.js before posting).
DEBIT_NOT_AUTHENTICATED = _(
    "This card cannot be authenticated for debit: choose another card or method."
)
#: Said when a credit card's issuer takes no part in 3-D Secure and the shop requires it.
CREDIT_NOT_AUTHENTICATED = _(
    "Your bank does not authenticate this card (3-D Secure): choose another card or "
    "another way to pay."
)
#: The status ``authenticate3DS`` ends with for a card whose issuer takes no part.
AUTH_NOT_SUPPORTED = "AUTH_NOT_SUPPORTED"
#: Salt of the signed plans parameters the page carries (amount and limits).
PLANS_SALT = "django_orderpay.installment_plans"
#: How long a page's plans token is good for (seconds): a checkout left open
#: longer still pays (the form prices the plan itself), its choices just stay
#: unlabelled until it is reloaded.
PLANS_TOKEN_MAX_AGE = 60 * 60

#: A refused authentication is said above the card (its id is in a hidden field).
CHECKOUT_FORM_FIELDS = {
    **CARD_FORM_FIELDS,
    "amount.fees.buyer.interest": "installments",
    "amount.fees.buyer.interest.installments": "installments",
}


def declined_for_authentication(order: Order | None) -> bool:
    """Whether a charge of ``order`` was declined with a code asking for 3-D Secure."""
    if order is None or order.pk is None:
        return False
    return order.charges.filter(
        status=ChargeStatus.DECLINED, payment_response_code__in=AUTHENTICATION_REQUIRED_CODES
    ).exists()


def threeds_required(order: Order | None = None, *, mode: str | None = None) -> bool:
    """Whether the credit-card checkout of ``order`` runs 3-D Secure (``ORDERPAY['THREEDS']``)."""
    mode = mode or get_settings(strict=False).threeds
    if mode == "always":
        return True
    return mode == "after_decline" and declined_for_authentication(order)


#: Salt of the signed token with which a checkout page asks for a fresh 3-D Secure session.
THREEDS_SESSION_SALT = "django_orderpay.threeds_session"
#: How long a rendered page may ask for fresh sessions (a checkout left open a working day).
THREEDS_SESSION_TOKEN_MAX_AGE = 12 * 60 * 60


#: What a token for the settings' own account signs (a connected account's: ``account:<pk>``).
_DEFAULT_ACCOUNT_SESSION = "session"


def sign_threeds_session(account: ConnectedAccount | None = None) -> str:
    """What a checkout page carries to ask for a fresh 3-D Secure session (signed, dated).

    ``account``: the connected account the page pays (None: the settings'
    ``TOKEN``). PagBank's session says which merchant the SDK's
    authentications are for, so a page of a connected account's must be
    given sessions made with that account's token: the token names it, and
    the signature keeps a shopper from naming another.
    """
    account = check_account(account)
    value = _DEFAULT_ACCOUNT_SESSION if account is None else f"account:{account.pk}"
    return signing.TimestampSigner(salt=THREEDS_SESSION_SALT).sign(value)


def check_threeds_session_token(token: str) -> int | None:
    """The primary key of the connected account ``token`` was made for (None: the settings'
    ``TOKEN``); ``signing.BadSignature`` (or ``SignatureExpired``) unless this shop made
    ``token`` within :data:`THREEDS_SESSION_TOKEN_MAX_AGE`."""
    signer = signing.TimestampSigner(salt=THREEDS_SESSION_SALT)
    value = signer.unsign(token, max_age=THREEDS_SESSION_TOKEN_MAX_AGE)
    if value == _DEFAULT_ACCOUNT_SESSION:
        return None
    kind, _colon, pk = value.partition(":")
    if kind != "account" or not pk.isdigit():
        raise signing.BadSignature("the 3-D Secure session token names no account")
    return int(pk)


def session_binding(request: Any, *, create: bool = False) -> str:
    """What ties a plans token to the visitor's session: a digest of its key ("" without one).

    ``create``: give a visitor without a session one (the page that carries the
    token), so the token is good only with the cookie it was rendered for.
    """
    session = getattr(request, "session", None)
    if session is None:
        return ""
    if session.session_key is None and create:
        session.save()  # a new key, sent as the session cookie with this page
    key = session.session_key
    if not key:
        return ""
    # SHA-1 named, not left to Django's default (which Django 6.1 says will change): a
    # plans token rendered before an upgrade must still match its session afterwards.
    return salted_hmac(PLANS_SALT, key, algorithm="sha1").hexdigest()[:24]


@dataclasses.dataclass(frozen=True)
class PlansToken:
    """What a page's plans token says: the amount and limits, and the primary key of the
    connected account whose plans they are (None: the settings' ``TOKEN``'s)."""

    amount: int
    max_installments: int
    no_interest: int
    account_pk: int | None = None


def sign_plans(
    amount: int,
    max_installments: int,
    no_interest: int,
    session: str = "",
    account: ConnectedAccount | None = None,
) -> str:
    """What the page carries to ask for plans: the amount, the limits and the account
    (``account``: a connected account's plans; None: the settings' ``TOKEN``'s), signed
    (not editable), with its time and the session it was rendered for
    (:func:`session_binding`)."""
    account = check_account(account)
    values: list[Any] = [amount, max_installments, no_interest, session]
    if account is not None:
        values.append(account.pk)
    return signing.dumps(values, salt=PLANS_SALT)


def read_plans_token(
    token: str, session: str = "", max_age: int = PLANS_TOKEN_MAX_AGE
) -> PlansToken:
    """The signed amount, limits and account: ``signing.BadSignature`` when tampered with,
    older than ``max_age`` seconds (``SignatureExpired``), or made for another session."""
    amount, max_installments, no_interest, bound, *account = signing.loads(
        token, salt=PLANS_SALT, max_age=max_age
    )
    if not constant_time_compare(str(bound), session):
        raise signing.BadSignature("the plans token was made for another session")
    # A token without an account is the settings' own (so were all before Connect's).
    account_pk = int(account[0]) if account else None
    return PlansToken(int(amount), int(max_installments), int(no_interest), account_pk)


def unsign_plans(
    token: str, session: str = "", max_age: int = PLANS_TOKEN_MAX_AGE
) -> tuple[int, int, int]:
    """:func:`read_plans_token`'s amount and limits (for older imports: the account is
    left out)."""
    read = read_plans_token(token, session, max_age)
    return read.amount, read.max_installments, read.no_interest


class CardCheckoutForm(CardPaymentForm):
    """A credit card, with 3-D Secure's ``authentication_id`` and fee plans by ``card_bin``.

    ``threeds``: the page runs 3-D Secure (None: as ``ORDERPAY['THREEDS']``
    says, :func:`threeds_required`); then an ``authentication_id`` is
    required. A card whose issuer takes no part in 3-D Secure comes back with
    none (``AUTH_NOT_SUPPORTED``): that status is the browser's word, which a
    card tester can type, so it pays without authentication only when
    ``allow_not_supported`` is True (None: ``ORDERPAY['THREEDS_ALLOW_NOT_SUPPORTED']``,
    False by default, as the official plugin's default). ``fee_plans``: installments
    are priced by ``services.installment_plans`` (the charge's amount then
    includes the buyer's interest); ``max_installments_no_interest`` is how
    many the shop absorbs. ``account``: the connected account (PagBank Connect)
    the payment is for, whose plans the page shows and the form charges (None:
    the settings' ``TOKEN``'s); ``{% orderpay_card_form %}`` then encrypts and
    authenticates the card for it too.
    """

    payment_type = "CREDIT_CARD"
    error_fields = CHECKOUT_FORM_FIELDS

    authentication_id = forms.RegexField(
        regex=rf"^{THREEDS_ID_PATTERN}$", required=False, widget=forms.HiddenInput
    )
    #: The authenticate3DS status the page ended with (AUTH_NOT_SUPPORTED: none).
    authentication_status = forms.CharField(required=False, max_length=32, widget=forms.HiddenInput)
    card_bin = forms.RegexField(regex=r"^[0-9]{6}$", required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        threeds: bool | None = None,
        allow_not_supported: bool | None = None,
        fee_plans: bool = False,
        max_installments_no_interest: int = 0,
        account: ConnectedAccount | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.account = check_account(account)
        conf = get_settings(strict=False)
        self.threeds = threeds_required(mode=conf.threeds) if threeds is None else threeds
        self.allow_not_supported = (
            conf.threeds_allow_not_supported if allow_not_supported is None else allow_not_supported
        )
        self.fee_plans = fee_plans
        self.max_installments_no_interest = max_installments_no_interest
        self.amount = kwargs.get("amount")
        self.plan: InstallmentPlan | None = None
        self.max_installments = kwargs.get("max_installments", rules.MAX_INSTALLMENTS)
        if fee_plans and "installments" in self.fields:
            # Any count up to the limit may come back: the plans of the card's BIN
            # decide in clean(). Until the page knows the BIN, it offers one.
            field = cast(forms.ChoiceField, self.fields["installments"])
            field.choices = [(n, f"{n}x") for n in range(1, self.max_installments + 1)]

    def plans_token(self, request: Any = None) -> str:
        """The signed parameters ``checkout.js`` sends to the plans view, for ``request``'s
        session (one is made if it has none) and the form's account."""
        return sign_plans(
            self.amount or 0,
            self.max_installments,
            self.max_installments_no_interest,
            session_binding(request, create=True),
            self.account,
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.threeds and not data.get("authentication_id"):
            self._unauthenticated(data.get("authentication_status") == AUTH_NOT_SUPPORTED)
        installments = data.get("installments") or 1
        if self.fee_plans and self.amount and installments > 1:
            self.plan = self._plan(data.get("card_bin") or "", installments)
        return data

    def _unauthenticated(self, not_supported: bool) -> None:
        """A page that ran 3-D Secure posted no authentication: refused unless the shop
        lets a card its issuer does not authenticate pay without (credit only)."""
        if not not_supported:
            self.add_error(None, _("The card was not authenticated by its bank: please try again."))
        elif self.payment_type != "CREDIT_CARD":
            return  # a debit card: DebitCardForm says why it can't pay
        elif self.allow_not_supported:
            # The shop opted in: the charge goes without authentication (the admin
            # shows it "not authenticated"); the log says why.
            logger.info(
                "a card is charged without 3-D Secure: its page said %s", AUTH_NOT_SUPPORTED
            )
        else:
            self.add_error(None, CREDIT_NOT_AUTHENTICATED)

    def _plan(self, card_bin: str, installments: int) -> InstallmentPlan | None:
        if not card_bin:
            self.add_error("installments", _("Type the card number to see its installments."))
            return None
        try:
            plans = offered_plans(
                self.amount or 0,
                card_bin=card_bin,
                fee_plans=True,
                max_installments=self.max_installments,
                max_installments_no_interest=self.max_installments_no_interest,
                account=self.account,
            )
        except OrderPayError as error:
            add_payment_error(self, error, CHECKOUT_FORM_FIELDS)
            return None
        plan = plan_for(plans, installments)
        if plan is None:
            self.add_error("installments", _("This card does not offer that many installments."))
        return plan

    def authentication(self) -> payloads.AuthenticationMethod | None:
        auth_id = self.cleaned_data.get("authentication_id")
        return payloads.AuthenticationMethod.threeds(auth_id) if auth_id else None

    def charge(self, amount: int, **options: Any) -> payloads.ChargeRequest:
        """The card form's charge, with the plan's total (interest included) and the
        authentication, if any."""
        charge = super().charge(amount, **options)
        method = charge.payment_method
        assert isinstance(method, payloads.PaymentMethod)
        return dataclasses.replace(
            charge,
            amount=self.plan.amount() if self.plan is not None else charge.amount,
            payment_method=dataclasses.replace(
                method, type=self.payment_type, authentication_method=self.authentication()
            ),
        )


class DebitCardForm(CardCheckoutForm):
    """A debit card: authenticated with 3-D Secure, one installment, captured, never stored."""

    payment_type = "DEBIT_CARD"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.update(threeds=True, fee_plans=False)
        super().__init__(*args, **kwargs)
        del self.fields["installments"]
        self.fields.pop("save_card", None)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("authentication_id") and not self.errors:
            # AUTH_NOT_SUPPORTED ends a debit payment: there is no debit without 3-D Secure.
            self.add_error(None, DEBIT_NOT_AUTHENTICATED)
        data["installments"] = 1
        return data

    @property
    def stores_card(self) -> bool:
        return False
