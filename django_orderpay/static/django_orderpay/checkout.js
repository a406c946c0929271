/*
 * django-orderpay checkout: encrypt the card in the browser before the form is posted.
 *
 * For every card form rendered by {% orderpay_card_form %} (an element with
 * data-orderpay-card inside a <form>), on submit: read the card inputs (they
 * have no name, so the browser never posts them), call
 * PagSeguro.encryptCard({publicKey, holder, number, expMonth, expYear,
 * securityCode}), put encryptedCard into the hidden [data-orderpay-encrypted]
 * field and let the submit go on. When the SDK answers hasErrors, the submit
 * is blocked and each error is shown next to its field.
 *
 * Events on the <form>: "orderpay:encrypted" before the submit continues,
 * "orderpay:errors" (detail: the SDK's errors) when it is blocked.
 * Plain ES2015, no build step, no framework. Load it after the SDK
 * ({% orderpay_sdk %} renders both, in that order).
 */
(function () {
  "use strict";

  // The SDK's error codes -> the card input they are about ("form": the whole card).
  var FIELD_OF_CODE = {
    INVALID_NUMBER: "number",
    INVALID_SECURITY_CODE: "security_code",
    INVALID_EXPIRATION_MONTH: "exp_month",
    INVALID_EXPIRATION_YEAR: "exp_year",
    INVALID_HOLDER: "holder",
    INVALID_PUBLIC_KEY: "form",
  };

  // English fallbacks; the template passes translated ones in data-orderpay-messages.
  var DEFAULT_MESSAGES = {
    INVALID_NUMBER: "Check the card number: 13 to 19 digits.",
    INVALID_SECURITY_CODE: "Check the security code: 3 or 4 digits.",
    INVALID_EXPIRATION_MONTH: "Check the expiry month: 01 to 12.",
    INVALID_EXPIRATION_YEAR: "Check the expiry year: four digits, such as 2030.",
    INVALID_HOLDER: "Type the name as printed on the card, letters only.",
    INVALID_PUBLIC_KEY: "Card payments are unavailable right now; please try later.",
    SDK_MISSING: "The card encryption script did not load; reload the page.",
    ENCRYPTION_FAILED: "The card could not be encrypted; check the details.",
  };

  function messagesOf(card) {
    var messages = Object.assign({}, DEFAULT_MESSAGES);
    try {
      Object.assign(messages, JSON.parse(card.getAttribute("data-orderpay-messages") || "{}"));
    } catch (error) {
      // Keep the fallbacks: a broken attribute must not break the checkout.
    }
    return messages;
  }

  function input(card, field) {
    return card.querySelector('[data-orderpay-field="' + field + '"]');
  }

  function value(card, field) {
    var element = input(card, field);
    return element ? element.value.trim() : "";
  }

  function errorSlot(card, field) {
    return card.querySelector('[data-orderpay-error-for="' + field + '"]');
  }

  function clearError(card, field) {
    var slot = errorSlot(card, field);
    if (slot) {
      slot.textContent = "";
      slot.hidden = true;
    }
    var element = input(card, field);
    if (element) element.removeAttribute("aria-invalid");
  }

  function clearErrors(card) {
    ["form"].concat(Object.keys(FIELD_OF_CODE).map(function (code) {
      return FIELD_OF_CODE[code];
    })).forEach(function (field) {
      clearError(card, field);
    });
  }

  function showError(card, field, message) {
    var slot = errorSlot(card, field) || errorSlot(card, "form");
    if (slot) {
      slot.textContent = slot.hidden || !slot.textContent ? message : slot.textContent + " " + message;
      slot.hidden = false;
    }
    var element = input(card, field);
    if (element) element.setAttribute("aria-invalid", "true");
    return element;
  }

  function showErrors(card, errors, messages) {
    var first = null;
    errors.forEach(function (error) {
      var code = error && error.code;
      var field = FIELD_OF_CODE[code] || "form";
      var message = messages[code] || (error && error.message) || messages.ENCRYPTION_FAILED;
      var element = showError(card, field, message);
      if (!first && element) first = element;
    });
    if (first) first.focus();
  }

  function announce(form, name, detail) {
    form.dispatchEvent(new CustomEvent(name, { bubbles: true, detail: detail }));
  }

  function onSubmit(card, form, event) {
    // A second click while the first submit is on its way must not pay twice.
    if (form.getAttribute("data-orderpay-submitting") === "true") {
      event.preventDefault();
      return;
    }
    var messages = messagesOf(card);
    var hidden = card.querySelector("[data-orderpay-encrypted]");
    clearErrors(card);
    if (hidden) hidden.value = "";

    var sdk = window.PagSeguro;
    var problem = !sdk || typeof sdk.encryptCard !== "function" ? "SDK_MISSING"
      : !hidden ? "ENCRYPTION_FAILED" : null;
    if (problem) {
      // Without the SDK (or a field to carry its result) nothing safe can be posted.
      event.preventDefault();
      showError(card, "form", messages[problem]);
      announce(form, "orderpay:errors", [{ code: problem }]);
      return;
    }

    var result;
    try {
      result = sdk.encryptCard({
        publicKey: card.getAttribute("data-orderpay-public-key") || "",
        holder: value(card, "holder"),
        // People type card numbers in groups; the SDK wants digits only.
        number: value(card, "number").replace(/[\s.-]/g, ""),
        expMonth: value(card, "exp_month"),
        expYear: value(card, "exp_year"),
        securityCode: value(card, "security_code"),
      });
    } catch (error) {
      result = null;
    }

    if (!result || result.hasErrors || !result.encryptedCard) {
      event.preventDefault();
      var errors = (result && result.errors && result.errors.length) ? result.errors
        : [{ code: "ENCRYPTION_FAILED" }];
      showErrors(card, errors, messages);
      announce(form, "orderpay:errors", errors);
      return;
    }

    hidden.value = result.encryptedCard;
    form.setAttribute("data-orderpay-submitting", "true");
    announce(form, "orderpay:encrypted", {});
  }

  function bind(card) {
    var form = card.closest("form");
    if (!form || card.getAttribute("data-orderpay-bound") === "true") return;
    card.setAttribute("data-orderpay-bound", "true");
    form.addEventListener("submit", function (event) {
      onSubmit(card, form, event);
    });
    // Typing into a field clears the error shown next to it.
    card.addEventListener("input", function (event) {
      var field = event.target && event.target.getAttribute("data-orderpay-field");
      if (field) clearError(card, field);
    });
    // Back to a page kept in the back/forward cache: the submit may be made again.
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) form.removeAttribute("data-orderpay-submitting");
    });
  }

  function bindAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-orderpay-card]"), bind);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bindAll);
  } else {
    bindAll();
  }
  window.OrderPayCheckout = { bind: bind, bindAll: bindAll };
})();
