"""The checkout forms: a card encrypted in the browser, or a stored card, handed to the services.

:class:`CardPaymentForm` receives only what ``checkout.js`` posts: the SDK's
``encryptedCard`` (hidden field ``encrypted_card``), ``installments`` and
``save_card``. The card's number, expiry, security code and holder are typed
into inputs without a ``name`` (``{% orderpay_card_form %}``), so the browser
never posts them. :class:`SavedCardForm` pays with one of the user's stored
cards. Both have ``pay(order, amount)``, which calls the services and turns
a refusal (bad input, provider error, provider unreachable, the card-testing
limits) into form errors naming the field, so a view never shows a 500 for a
customer's mistake. Both take the view's ``request=`` and count the shopper's
session and address against the card-testing limits
(:mod:`django_orderpay.card_testing`), refusing in ``is_valid()`` once one is
reached, before the view makes an order. ``request`` left out is a mistake
(refused in DEBUG, logged in production); ``request=None`` counts only the
purchase and the user.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Mapping
from typing import Any, cast

from django import forms
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.translation import gettext_lazy as _

from django_orderpay import card_testing, payloads, rules, services
from django_orderpay.card_testing import Shopper
from django_orderpay.conf import misconfigured
from django_orderpay.exceptions import (
    CardTokenNotOwned,
    FieldError,
    OrderPayError,
    OutcomeUnknown,
    PayloadError,
    PaymentInProgress,
    ProviderError,
    ProviderUnavailable,
    TooManyCardAttempts,
)
from django_orderpay.installments import (
    InstallmentPlan,
    interest_free_plans,
    plan_choices,
    plan_for,
    plan_label,
    plans_or_one,
)
from django_orderpay.intents import IntentField, intent_of, is_intent
from django_orderpay.intents import operation_key as intent_operation_key
from django_orderpay.models import CardToken, ConnectedAccount, Order
from django_orderpay.services._common import check_account
from django_orderpay.shopper_messages import IN_PROGRESS, is_shop_side, refusal_message
from django_orderpay.widgets import EncryptedCardInput

logger = logging.getLogger("django_orderpay.forms")

#: Each form's HTML ids: both forms have ``installments``, and a checkout shows them on
#: one page (pay by card, or with a saved card), where ids must be unique. The posted
#: names stay the fields' own; a shop's ``auto_id`` or ``prefix`` still wins.
CARD_FORM_AUTO_ID = "id_orderpay_card_%s"
SAVED_CARD_FORM_AUTO_ID = "id_orderpay_saved_card_%s"

#: An RSA ciphertext is as long as the key: 1024 to 4096 bits (the provider's is 2048).
_CIPHERTEXT_BYTES = range(128, 513)

#: The last part of a provider/builder field path -> the form field it came from.
CARD_FORM_FIELDS: Mapping[str, str] = {
    "card.encrypted": "encrypted_card",
    "card.security_code": "encrypted_card",
    "card.holder": "encrypted_card",
    "card.holder.name": "encrypted_card",
    "installments": "installments",
    "store": "save_card",
    "card.store": "save_card",
}
SAVED_CARD_FORM_FIELDS: Mapping[str, str] = {
    "card.id": "card_token",
    "installments": "installments",
}

#: A stored card that is not one the form may charge (another user's, another account's,
#: removed): said on the ``card_token`` field, never with the card's ``CARD_`` id.
NOT_A_SAVED_CARD = _("Choose one of your saved cards.")
UNAVAILABLE_MESSAGE = _(
    "The payment service did not answer. Nothing was confirmed; please try again in a moment."
)
#: A payment whose answer never came: it may have gone through.
OUTCOME_UNKNOWN_MESSAGE = _(
    "The payment service did not answer in time, so your payment may have gone through. "
    "Please don't pay again yet: this page shows the payment once it is confirmed."
)


def installment_choices(max_installments: int, amount: int | None = None) -> list[tuple[int, str]]:
    """``[(1, "1x R$ 100,00 (no interest)"), ...]`` (labels without amounts if none given).

    With an ``amount``, only counts whose installment is at least R$ 5,00
    (``rules.MIN_INSTALLMENT``) are offered: PagBank refuses smaller ones.
    Each label's shares add up to the amount (see :mod:`django_orderpay.installments`).
    """
    if amount is None:
        return [(count, f"{count}x") for count in range(1, max_installments + 1)]
    return _choices(interest_free_plans(amount, max_installments))


def _choices(plans: list[InstallmentPlan]) -> list[tuple[int, str]]:
    return [(plan.installments, plan_label(plan)) for plan in plans]


def pending_intent(operation: Any) -> str:
    """The intent of a card payment still waiting for its answer (an open ``pay``
    operation of an intent, as ``services.in_flight_for`` answers it), or "": what a
    card form's ``resend`` takes, so the browser sends the very same post again."""
    if operation is None or not operation.is_open or operation.kind != "pay":
        return ""
    return intent_of(operation.idempotency_key, "pay") or ""


def _may_have_charged(error: OutcomeUnknown) -> bool:
    """Whether the unanswered call could have charged (an order made without charges can't)."""
    operation = error.operation
    body = getattr(operation, "body", None) or {}
    return getattr(operation, "kind", "") != "create" or bool(body.get("charges"))


def _offer_installments(form: forms.Form, max_installments: int, amount: int | None) -> None:
    """Set ``form``'s ``installments`` choices (see :func:`installment_choices`)."""
    field = cast(forms.ChoiceField, form.fields["installments"])
    field.choices = installment_choices(max_installments, amount)


def _field_for(path: str, fields: Mapping[str, str]) -> str | None:
    """The form field of a path such as ``charges[0].payment_method.card.encrypted``."""
    for suffix in sorted(fields, key=len, reverse=True):
        if path == suffix or path.endswith("." + suffix):
            return fields[suffix]
    return None


def add_payment_error(form: forms.Form, error: OrderPayError, fields: Mapping[str, str]) -> None:
    """Record a refused payment on ``form``: on the field the error names, else on the form.

    Messages name the field and say what to do; they carry nothing of the card
    (the exceptions never do: see ``django_orderpay.exceptions``).
    """
    if isinstance(error, OutcomeUnknown) and _may_have_charged(error):
        # Not a refusal: the provider may have charged. Paying again is safe (the
        # operation keeps its key), but the shopper should wait and see.
        logger.warning(
            "payment outcome unknown (operation %s)", getattr(error.operation, "pk", None)
        )
        form.outcome_unknown = error  # type: ignore[attr-defined]
        form.add_error(None, OUTCOME_UNKNOWN_MESSAGE)
        return
    if isinstance(error, PaymentInProgress):
        # Nothing was sent: another payment of the same purchase has no outcome yet.
        logger.info(
            "payment not sent: operation %s in flight", getattr(error.operation, "pk", None)
        )
        form.in_progress = error  # type: ignore[attr-defined]
        form.add_error(None, IN_PROGRESS)
        return
    if isinstance(error, CardTokenNotOwned):
        # Its message names the CARD_ id, which never reaches a page: the field says it.
        field = _field_for("card.id", fields)
        form.add_error(field if field in form.fields else None, NOT_A_SAVED_CARD)
        return
    if isinstance(error, TooManyCardAttempts) or is_shop_side(error):
        # The card-testing limits, or the token, the account or the settings: the
        # shopper reads what to do (refusal_message logs a shop-side error for staff).
        form.add_error(None, str(refusal_message(error)))
        return
    if isinstance(error, PayloadError):
        problems = [(e.path, e.message) for e in error.errors] or [("", str(error))]
    elif isinstance(error, ProviderUnavailable):
        logger.warning("payment not sent: provider unavailable (%s)", error.reason or error)
        form.add_error(None, UNAVAILABLE_MESSAGE)
        return
    elif isinstance(error, ProviderError):
        # The codes are for staff (the log, the admin); the shopper reads what to do.
        logger.warning("payment refused: %s", error)
        entry = error.error_messages[0] if error.error_messages else None
        field = _field_for(entry.parameter_name or "", fields) if entry else None
        shown = str(refusal_message(error))
        if field is not None and field in form.fields:
            form.add_error(field, _field_message(form, field, shown))
        else:
            form.add_error(None, shown)
        return
    else:  # our own errors say what is wrong and never carry card data
        problems = [("", str(error))]
    for path, message in problems:
        field = _field_for(path, fields)
        if field is not None and field in form.fields:
            form.add_error(field, _field_message(form, field, message))
        else:
            detail = f"{path}: {message}" if path else message
            form.add_error(None, _("The payment was refused: %(detail)s") % {"detail": detail})


class _NotGiven:
    """``request=`` left out of a card form (None, given, says there is no request)."""

    def __repr__(self) -> str:
        return "<request not given>"


NOT_GIVEN: Any = _NotGiven()


def _shopper(form: forms.Form, request: Any, user: Any) -> Shopper:
    """Who the card-testing limits count: the request's shopper, else ``user`` alone.

    A form built without ``request=`` would lose the session and address limits
    unnoticed (an anonymous bot making a new purchase per card would then be
    counted by nothing): refused in DEBUG, an error logged in production.
    ``request=None``, given, opts out: the purchase and the user are counted.
    """
    if request is NOT_GIVEN:
        misconfigured(
            f"{type(form).__name__} was built without request=: the card-testing limits "
            "would count only the purchase and the user, not the shopper's session and "
            "address. Pass request=request (the view's), or request=None where there is "
            "no request.",
            logger=logger,
        )
        request = None
    return Shopper.from_request(request) if request is not None else Shopper.of_user(user)


#: The field a card form asks for a CAPTCHA in, once the shopper's cards were declined.
CAPTCHA_FIELD = "captcha"


def _ask_for_captcha(form: forms.Form, shopper: Shopper) -> None:
    """Add the CAPTCHA field when the shopper's declines call for it (``card_testing``)."""
    if card_testing.captcha_required(shopper):
        field = card_testing.captcha_field()
        field.label = _("Security check")
        field.error_messages["required"] = _(
            "Some cards were declined: answer the security check to go on."
        )
        form.fields[CAPTCHA_FIELD] = field


def _refuse_if_limited(form: forms.Form, shopper: Shopper) -> None:
    """The card-testing limits' early check: refused now, before the view makes an order."""
    try:
        card_testing.check(shopper)
    except TooManyCardAttempts as error:
        add_payment_error(form, error, {})


def _field_message(form: forms.Form, field: str, detail: str) -> str:
    label = form.fields[field].label or field
    return _("%(label)s: %(detail)s") % {"label": label, "detail": detail}


class IntentMixin:
    """A form carrying its page's intent (:mod:`django_orderpay.intents`)."""

    cleaned_data: dict[str, Any]

    def operation_key(self, step: str) -> str | None:
        """The idempotency key of ``step`` of this page's attempt (call after ``is_valid()``);
        None when the post carried no intent (the operation's key is then derived)."""
        intent = self.cleaned_data.get("intent")
        return intent_operation_key(intent, step) if intent else None


class CardPaymentForm(IntentMixin, forms.Form):
    """The encrypted card, its holder's name, the installments and "save this card".

    The holder's name is posted as typed (it is not a secret, and PagBank asks
    for ``card.holder.name`` beside an encrypted card); the number, expiry and
    security code never are: only the SDK's encryption of them.

    ``user`` (the paying user) decides whether ``save_card`` is offered: a
    stored card belongs to a user, so an anonymous buyer is not offered one.
    ``amount`` (cents) only labels the installment choices. ``request`` (the
    view's) names the shopper for the card-testing limits: its session and
    address are counted too; ``request=None`` counts only the purchase and the
    user (leaving it out is a mistake, see :func:`_shopper`).
    """

    encrypted_card = forms.CharField(
        label=_("Card"),
        widget=EncryptedCardInput,
        error_messages={
            "required": _(
                "The card was not encrypted: type the card details again "
                "(this page needs JavaScript to protect them)."
            )
        },
    )
    holder_name = forms.CharField(label=_("Name on the card"), max_length=30)
    #: Which of this form's fields a refused request's ``parameter_name`` lands on.
    error_fields: Mapping[str, str] = CARD_FORM_FIELDS
    installments = forms.TypedChoiceField(label=_("Installments"), coerce=int, initial=1)
    save_card = forms.BooleanField(label=_("Save this card for my next purchases"), required=False)
    #: The page's attempt: a post sent twice pays once (see ``pay``).
    intent = IntentField()

    def __init__(
        self,
        *args: Any,
        user: AbstractBaseUser | AnonymousUser | None = None,
        amount: int | None = None,
        max_installments: int = rules.MAX_INSTALLMENTS,
        resend: str = "",
        request: Any = NOT_GIVEN,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("auto_id", CARD_FORM_AUTO_ID)
        super().__init__(*args, **kwargs)
        if not 1 <= max_installments <= rules.MAX_INSTALLMENTS:
            raise ValueError(f"max_installments must be 1 to {rules.MAX_INSTALLMENTS}")
        self.user = user
        #: The intent of this page's payment still waiting for its answer (see
        #: ``pending_intent``): ``checkout.js`` sends that very post again if it has it.
        self.resend = resend if is_intent(resend) else ""
        self.shopper = _shopper(self, request, user)
        _offer_installments(self, max_installments, amount)
        if user is None or not user.is_authenticated:
            del self.fields["save_card"]
        _ask_for_captcha(self, self.shopper)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        _refuse_if_limited(self, self.shopper)
        return data

    def clean_holder_name(self) -> str:
        name = " ".join(self.cleaned_data["holder_name"].split())
        refused = rules.forbidden_name_characters(name) or rules.holder_name_refused_characters(
            name
        )
        if not name or refused:
            raise forms.ValidationError(
                _("Type the name as printed on the card, letters only."), code="invalid"
            )
        return name

    def clean_encrypted_card(self) -> str:
        value = "".join(self.cleaned_data["encrypted_card"].split())
        try:
            size = len(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            size = 0
        if size not in _CIPHERTEXT_BYTES:
            raise forms.ValidationError(
                _("The card was not encrypted correctly: type the card details again."),
                code="invalid",
            )
        return value

    @property
    def stores_card(self) -> bool:
        return bool(self.cleaned_data.get("save_card"))

    def charge(
        self,
        amount: int,
        *,
        reference_id: str | None = None,
        description: str | None = None,
        capture: bool = True,
        soft_descriptor: str | None = None,
        splits: payloads.Splits | None = None,
    ) -> payloads.ChargeRequest:
        """The ``charges[]`` entry for this card (call after ``is_valid()``); ``splits``
        divides it between accounts (``services.platform_splits``)."""
        card = payloads.Card.from_encrypted(
            self.cleaned_data["encrypted_card"],
            holder=self.cleaned_data["holder_name"],
            store=True if self.stores_card else None,
        )
        method = payloads.PaymentMethod(
            card=card,
            installments=self.cleaned_data["installments"],
            capture=capture,
            soft_descriptor=soft_descriptor,
        )
        return payloads.ChargeRequest(
            amount=payloads.Amount(amount),
            payment_method=method,
            reference_id=reference_id,
            description=description,
            splits=splits,
        )

    def pay(self, order: Order, amount: int, **charge_options: Any) -> Order | None:
        """Pay ``order`` with this card (``services.pay_order``); None if refused.

        A refusal before any charge existed (invalid field, provider error,
        provider unreachable) is added to the form's errors. A *declined*
        charge is not a refusal: the order comes back with the charge DECLINED.
        """
        try:
            return services.pay_order(
                order,
                [self.charge(amount, **charge_options)],
                idempotency_key=self.operation_key("pay"),
                shopper=self.shopper,
            )
        except OrderPayError as error:
            add_payment_error(self, error, self.error_fields)
            return None


class CardTokenChoiceField(forms.ModelChoiceField):
    """A stored card, shown as its brand, last digits and expiry (never its token)."""

    def label_from_instance(self, obj: CardToken) -> str:
        return obj.label


class SavedCardForm(IntentMixin, forms.Form):
    """Pay with one of ``user``'s stored cards; no card data is typed or posted.

    The choices are the user's own tokens stored with ``account`` only (a
    token can be used only by its owner, and charged only by the account that
    stored it: a connected account, PagBank Connect; None: the settings'
    ``TOKEN``), listed by their row id, so the ``CARD_`` id never reaches the
    page. The installments are priced as a typed card's are
    (:mod:`django_orderpay.installments`): with ``fee_plans``, ``account``'s
    plans for each card's BIN (the buyer's interest past
    ``max_installments_no_interest``); the chosen plan's total is charged,
    through ``account``. ``plans_json`` holds each card's choices for
    ``checkout.js``, which relabels the installments when another card is
    chosen.
    """

    card_token = CardTokenChoiceField(
        label=_("Saved card"),
        queryset=CardToken.objects.none(),
        widget=forms.RadioSelect,
        empty_label=None,
        error_messages={"invalid_choice": NOT_A_SAVED_CARD},
    )
    installments = forms.TypedChoiceField(label=_("Installments"), coerce=int, initial=1)
    intent = IntentField()

    def __init__(
        self,
        *args: Any,
        user: AbstractBaseUser | AnonymousUser,
        amount: int | None = None,
        max_installments: int = rules.MAX_INSTALLMENTS,
        fee_plans: bool = False,
        max_installments_no_interest: int = 0,
        request: Any = NOT_GIVEN,
        account: ConnectedAccount | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("auto_id", SAVED_CARD_FORM_AUTO_ID)
        super().__init__(*args, **kwargs)
        self.user = user
        self.account = check_account(account)
        self.amount = amount
        self.plan: InstallmentPlan | None = None
        self.shopper = _shopper(self, request, user)
        _ask_for_captcha(self, self.shopper)
        tokens = CardToken.objects.none()
        if user.is_authenticated:
            tokens = CardToken.objects.payable(owner_id=user.pk, account=self.account).order_by(
                "-created_at", "-pk"
            )
        self._token_field.queryset = tokens
        cards = list(tokens)
        if cards:
            self.initial.setdefault("card_token", cards[0].pk)  # the card used last, chosen
        #: Each card's plans (row id -> plans); by BIN, so a card's brand prices it.
        self.plans: dict[int, list[InstallmentPlan]] = {}
        if amount is not None:
            by_bin: dict[str, list[InstallmentPlan]] = {}
            for card in cards:
                card_bin = card.first_digits or ""
                if card_bin not in by_bin:
                    by_bin[card_bin] = plans_or_one(
                        amount,
                        card_bin=card_bin,
                        fee_plans=fee_plans and rules.is_digits(card_bin, (6, 8)),
                        max_installments=max_installments,
                        max_installments_no_interest=max_installments_no_interest,
                        account=self.account,
                    )
                self.plans[card.pk] = by_bin[card_bin]
        field = cast(forms.ChoiceField, self.fields["installments"])
        if self.plans:
            # Every count some card offers may be posted; clean() checks the chosen card's.
            shown = self.plans[cards[0].pk]
            counts = sorted({plan.installments for plans in self.plans.values() for plan in plans})
            labels = {plan.installments: plan_label(plan) for plan in shown}
            field.choices = [(count, labels.get(count, f"{count}x")) for count in counts]
        else:
            field.choices = installment_choices(max_installments, amount)

    @property
    def _token_field(self) -> CardTokenChoiceField:
        return cast(CardTokenChoiceField, self.fields["card_token"])

    @property
    def has_cards(self) -> bool:
        tokens = self._token_field.queryset
        return tokens is not None and tokens.exists()

    @property
    def plans_json(self) -> str:
        """Each card's choices as ``checkout.js`` reads them (row id -> ``plan_choices``)."""
        return json.dumps({str(pk): plan_choices(plans) for pk, plans in self.plans.items()})

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        _refuse_if_limited(self, self.shopper)
        token, installments = data.get("card_token"), data.get("installments")
        if token is not None and installments and token.pk in self.plans:
            self.plan = plan_for(self.plans[token.pk], installments)
            if self.plan is None:
                self.add_error(
                    "installments", _("This card does not offer that many installments.")
                )
        return data

    def pay(self, order: Order, amount: int, *, capture: bool = True) -> Order | None:
        """Pay ``order`` with the chosen card (``services.pay_with_card_token``): ``amount``,
        or the chosen plan's total with the buyer's interest, through the form's account.

        None when refused, with the reason added to the form's errors. ``order``
        must be the form's account's: its cards and plans are that account's.
        """
        try:
            self._check_order_account(order)
            return services.pay_with_card_token(
                order,
                self.cleaned_data["card_token"],
                user=self.user,
                amount=self.plan.amount() if self.plan is not None else amount,
                installments=self.cleaned_data["installments"],
                capture=capture,
                idempotency_key=self.operation_key("pay"),
                shopper=self.shopper,
                account=self.account,
            )
        except OrderPayError as error:
            add_payment_error(self, error, SAVED_CARD_FORM_FIELDS)
            return None

    def _check_order_account(self, order: Order) -> None:
        """A form of the settings' own account given a connected account's order: refused as
        the service refuses a named account that is not the order's (``account=None`` there
        means the order's own, so the service can't tell)."""
        if self.account is None and order.account_id is not None:
            message = f"{order.provider_id} belongs to a connected account, not the settings' TOKEN"
            raise PayloadError([FieldError("account", message)])
