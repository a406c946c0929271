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
 * With data-orderpay-3ds (the card form of a page that runs 3-D Secure: a
 * session made by the shop's server, the payment type, amount and shopper),
 * the submit asks the shop for a fresh session (a session lasts 30 minutes;
 * the page's own is the fallback), then waits for PagSeguro.authenticate3DS: AUTH_FLOW_COMPLETED puts
 * the authentication id in the hidden authentication_id field and submits;
 * AUTH_NOT_SUPPORTED stops (no debit without 3-D Secure; a credit card only
 * submits without one where the shop allows it: allowNotSupported in the
 * config); CHANGE_PAYMENT_METHOD stops and asks
 * for another card or method; a challenge is shown by the SDK in between.
 * With data-orderpay-plans-url, once six digits are typed the installment
 * choices are asked for that BIN and relabelled (with the total when the
 * buyer pays interest); the BIN goes in the hidden card_bin field. A saved
 * card's <form data-orderpay-saved-plans> holds each card's plans: choosing
 * a card offers its installments. In either form, every [data-orderpay-total]
 * element (the pay button's amount) shows the chosen plan's total.
 *
 * A post is remembered in the tab (sessionStorage): when the page says its
 * payment still waits for an answer (data-orderpay-resend, that post's
 * intent), pressing pay sends that very post again (same key, same body).
 *
 * Events on the <form>: "orderpay:encrypted" before the submit continues,
 * "orderpay:resent" when a remembered post is sent again,
 * "orderpay:errors" (detail: the SDK's errors) when it is blocked,
 * "orderpay:3ds" (detail: {status}) when 3-D Secure has answered.
 * Plain ES2015, no build step, no framework. Load it after the SDK
 * ({% orderpay_sdk %} renders both, in that order).
 */
(function () {
  "use strict";

  // The SDK's error codes -> the card input they are about ("form": the whole card).
  var FIELD_OF_CODE = {
    INVALID_NUMBER: "number",
    NUMBER_CHECK_DIGIT: "number",
    CARD_EXPIRED: "exp_year",
    INVALID_SECURITY_CODE: "security_code",
    INVALID_EXPIRATION_MONTH: "exp_month",
    INVALID_EXPIRATION_YEAR: "exp_year",
    INVALID_HOLDER: "holder",
    INVALID_PUBLIC_KEY: "form",
  };

  // English fallbacks; the template passes translated ones in data-orderpay-messages.
  var DEFAULT_MESSAGES = {
    INVALID_NUMBER: "Check the card number: 13 to 19 digits.",
    NUMBER_CHECK_DIGIT: "Check the card number: one of its digits is wrong.",
    CARD_EXPIRED: "This card has expired: check its expiry date, or use another card.",
    INVALID_SECURITY_CODE: "Check the security code: 3 or 4 digits.",
    INVALID_EXPIRATION_MONTH: "Check the expiry month: 01 to 12.",
    INVALID_EXPIRATION_YEAR: "Check the expiry year: four digits, such as 2030.",
    INVALID_HOLDER: "Type the name as printed on the card, letters only.",
    INVALID_PUBLIC_KEY: "Card payments are unavailable right now; please try later.",
    SDK_MISSING: "The card encryption script did not load; reload the page.",
    RESEND: "Your last payment is being confirmed. Pressing pay sends it again exactly as it " +
      "was, with the card you typed then: it is charged at most once.",
    RESEND_OTHER: "Type another card instead",
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

  // Whether digits pass the Luhn check every card number carries (its last digit).
  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var digit = +digits.charAt(digits.length - 1 - i);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    return sum % 10 === 0;
  }

  // What the page itself can tell before any call: a mistyped number (a wrong check
  // digit), a card past its expiry month. The SDK checks the rest (lengths, formats).
  function typedErrors(card) {
    var errors = [];
    // The name as the SDK encrypts it: letters (accents dropped) and spaces; the few
    // marks it strips or drops harmlessly aside, anything else (a digit, an emoji) is
    // not the name as printed.
    var holder = value(card, "holder").normalize("NFD").replace(/[\u0300-\u036f]/g, "");
    if (holder && !/^[A-Za-z\s'\/.\-]+$/.test(holder)) errors.push({ code: "INVALID_HOLDER" });
    var digits = value(card, "number").replace(/[\s.-]/g, "");
    if (/^[0-9]{13,19}$/.test(digits) && !luhn(digits)) errors.push({ code: "NUMBER_CHECK_DIGIT" });
    var month = +value(card, "exp_month"), year = value(card, "exp_year");
    if (month >= 1 && month <= 12 && /^[0-9]{4}$/.test(year)) {
      var now = new Date();
      if (+year < now.getFullYear() || (+year === now.getFullYear() && month < now.getMonth() + 1)) {
        errors.push({ code: "CARD_EXPIRED" });
      }
    }
    return errors;
  }

  // --- the same post again, after a lost answer ------------------------------------
  //
  // Every post is remembered in this tab (sessionStorage, by the form's action): the
  // encrypted card, as the SDK made it for PagBank's key alone, and the other fields.
  // When the page says its payment is still waiting for an answer
  // (data-orderpay-resend: that attempt's intent), pressing pay sends the very same
  // post again: the same key and the same body, which the provider answers with the
  // first one's outcome instead of refusing a new ciphertext under the old key.
  // Otherwise the remembered post is forgotten.

  function storageKey(form) {
    return "orderpay:attempt:" + form.action;
  }

  function storage() {
    try {
      return window.sessionStorage;
    } catch (error) {
      return null; // storage off: nothing is remembered, a retry is a new attempt
    }
  }

  function remember(form) {
    var store = storage();
    if (!store) return;
    var fields = {};
    Array.prototype.forEach.call(form.elements, function (element) {
      if (!element.name || element.name === "csrfmiddlewaretoken" || element.disabled) return;
      if ((element.type === "checkbox" || element.type === "radio") && !element.checked) return;
      fields[element.name] = element.value;
    });
    try {
      store.setItem(storageKey(form), JSON.stringify({ fields: fields }));
    } catch (error) {
      // full or refused: a retry is then a new attempt, as without this
    }
  }

  function remembered(form) {
    var store = storage();
    if (!store) return null;
    try {
      return JSON.parse(store.getItem(storageKey(form)) || "null");
    } catch (error) {
      return null;
    }
  }

  function forget(form) {
    var store = storage();
    if (store) store.removeItem(storageKey(form));
  }

  // The page's payment awaiting its answer, if this tab sent it: offer it again.
  function offerResend(card, form, messages) {
    var intent = card.getAttribute("data-orderpay-resend");
    var sent = remembered(form);
    if (!intent || !sent || !sent.fields || sent.fields[intentField(form)] !== intent) {
      forget(form);
      return;
    }
    card.setAttribute("data-orderpay-resending", "true");
    var notice = card.querySelector("[data-orderpay-resend-notice]");
    var inputs = card.querySelectorAll("[data-orderpay-input]");
    Array.prototype.forEach.call(inputs, function (element) { element.hidden = true; });
    if (notice) {
      notice.textContent = messages.RESEND;
      var other = document.createElement("button");
      other.type = "button";
      other.className = "orderpay-resend-other";
      other.textContent = messages.RESEND_OTHER;
      other.addEventListener("click", function () {
        card.removeAttribute("data-orderpay-resending");
        forget(form);
        notice.hidden = true;
        Array.prototype.forEach.call(inputs, function (element) { element.hidden = false; });
      });
      notice.appendChild(document.createTextNode(" "));
      notice.appendChild(other);
      notice.hidden = false;
    }
  }

  function intentField(form) {
    var field = form.querySelector('input[type=hidden][name$="intent"]');
    return field ? field.name : "intent";
  }

  // Put the remembered post back into the form's fields, to be sent as it was.
  function restore(form) {
    var sent = remembered(form);
    if (!sent || !sent.fields) return false;
    Object.keys(sent.fields).forEach(function (name) {
      Array.prototype.forEach.call(form.querySelectorAll('[name="' + name + '"]'), function (element) {
        if (element.type === "checkbox" || element.type === "radio") {
          element.checked = element.value === sent.fields[name];
        } else {
          if (element.tagName === "SELECT" && !element.querySelector('option[value="' + sent.fields[name] + '"]')) {
            var option = document.createElement("option");
            option.value = sent.fields[name];
            element.appendChild(option);
          }
          element.value = sent.fields[name];
        }
      });
    });
    return true;
  }

  function announce(form, name, detail) {
    form.dispatchEvent(new CustomEvent(name, { bubbles: true, detail: detail }));
  }

  function hiddenField(form, name) {
    return form.querySelector('input[type=hidden][name$="' + name + '"]');
  }

  function setHidden(form, name, text) {
    var field = hiddenField(form, name);
    if (field) field.value = text || "";
  }

  function threedsConfig(card) {
    var raw = card.getAttribute("data-orderpay-3ds");
    if (!raw) return null;
    try {
      return JSON.parse(raw);
    } catch (error) {
      return {};
    }
  }

  function chosenPlan(form) {
    var select = form.querySelector('select[name$="installments"]');
    var option = select && select.options[select.selectedIndex];
    return {
      installments: select ? +select.value || 1 : 1,
      total: option && option.getAttribute("data-total") ? +option.getAttribute("data-total") : null,
    };
  }

  // 3-D Secure before the (already encrypted) card is posted; resolves with what to do.
  function authenticate(card, form, config, messages) {
    var sdk = window.PagSeguro;
    var stop = function (key) {
      showError(card, "form", (config.messages || {})[key] || messages.ENCRYPTION_FAILED);
      form.removeAttribute("data-orderpay-submitting");
      announce(form, "orderpay:3ds", { status: key });
    };
    if (!sdk || typeof sdk.authenticate3DS !== "function") {
      stop("THREEDS_UNAVAILABLE");
      return;
    }
    freshSession(form, config).then(function (session) {
      if (!session.session) {
        stop("THREEDS_UNAVAILABLE");
        return;
      }
      sdk.setUp({ session: session.session, env: session.env });
      authenticateWith(sdk, card, form, config, stop);
    }).catch(function () {
      stop("THREEDS_FAILED");
    });
  }

  // A session lasts 30 minutes: ask the shop for a new one before each authentication (as
  // the official plugin does), else use the one the page was rendered with.
  function freshSession(form, config) {
    var rendered = { session: config.session, env: config.env };
    if (!config.sessionUrl || typeof fetch !== "function") return Promise.resolve(rendered);
    var csrf = form.querySelector("input[name=csrfmiddlewaretoken]");
    var body = new URLSearchParams();
    body.set("token", config.sessionToken || "");
    return fetch(config.sessionUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: csrf ? { "X-CSRFToken": csrf.value } : {},
      body: body,
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (answer) {
      return answer && answer.session ? answer : rendered;
    }, function () {
      return rendered;
    });
  }

  function authenticateWith(sdk, card, form, config, stop) {
    var plan = chosenPlan(form);
    var month = value(card, "exp_month");
    sdk.authenticate3DS({
      data: {
        customer: config.customer,
        paymentMethod: {
          type: config.type,
          installments: config.type === "DEBIT_CARD" ? 1 : plan.installments,
          card: {
            number: value(card, "number").replace(/[\s.-]/g, ""),
            expMonth: month.length === 1 ? "0" + month : month,
            expYear: value(card, "exp_year"),
            holder: { name: value(card, "holder") },
          },
        },
        amount: { value: plan.total || config.amount, currency: "BRL" },
        billingAddress: config.billingAddress,
        dataOnly: false,
      },
      beforeChallenge: function (challenge) {
        challenge.open();
      },
    }).then(function (result) {
      var status = result && result.status;
      announce(form, "orderpay:3ds", { status: status });
      if (status === "AUTH_FLOW_COMPLETED" && result.id) {
        setHidden(form, "authentication_id", result.id);
        setHidden(form, "authentication_status", status);
        resubmit(card, form);
      } else if (status === "AUTH_NOT_SUPPORTED" && config.type !== "DEBIT_CARD" && config.allowNotSupported) {
        // The issuer takes no part in 3-D Secure and the shop lets such a credit
        // card pay without it (THREEDS_ALLOW_NOT_SUPPORTED).
        setHidden(form, "authentication_id", "");
        setHidden(form, "authentication_status", status);
        resubmit(card, form);
      } else if (status === "AUTH_NOT_SUPPORTED") {
        stop(config.type === "DEBIT_CARD" ? "AUTH_NOT_SUPPORTED_DEBIT" : "AUTH_NOT_SUPPORTED");
      } else {
        stop(status === "CHANGE_PAYMENT_METHOD" ? "CHANGE_PAYMENT_METHOD" : "THREEDS_FAILED");
      }
    }, function () {
      stop("THREEDS_FAILED");
    });
  }

  function resubmit(card, form) {
    card.setAttribute("data-orderpay-authenticated", "true");
    form.removeAttribute("data-orderpay-submitting");
    var submitter = card.orderpaySubmitter;
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
    } else {
      form.submit();
    }
  }

  function onSubmit(card, form, event) {
    if (card.getAttribute("data-orderpay-authenticated") === "true") {
      // 3-D Secure has answered: this is the submit it let through.
      card.removeAttribute("data-orderpay-authenticated");
      form.setAttribute("data-orderpay-submitting", "true");
      remember(form);
      return;
    }
    // A second click while the first submit is on its way must not pay twice.
    if (form.getAttribute("data-orderpay-submitting") === "true") {
      event.preventDefault();
      return;
    }
    if (card.getAttribute("data-orderpay-resending") === "true" && restore(form)) {
      // The post whose answer was lost, sent again as it was: no new encryption.
      form.setAttribute("data-orderpay-submitting", "true");
      announce(form, "orderpay:resent", {});
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

    var typed = typedErrors(card);
    if (typed.length) {
      event.preventDefault();
      showErrors(card, typed, messages);
      announce(form, "orderpay:errors", typed);
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
    var config = threedsConfig(card);
    if (config) {
      event.preventDefault();
      card.orderpaySubmitter = event.submitter || null;
      setHidden(form, "authentication_id", "");
      setHidden(form, "authentication_status", "");
      authenticate(card, form, config, messages);
      return;
    }
    remember(form);
  }

  // The installments select's options, from plans as the server words them.
  function offerPlans(form, select, plans) {
    var chosen = select.value;
    select.innerHTML = "";
    plans.forEach(function (plan) {
      var option = document.createElement("option");
      option.value = String(plan.installments);
      option.textContent = plan.label;
      option.setAttribute("data-total", String(plan.total));
      if (plan.total_display) option.setAttribute("data-total-display", plan.total_display);
      select.appendChild(option);
    });
    if (select.querySelector('option[value="' + chosen + '"]')) select.value = chosen;
    showTotal(form, select);
  }

  // Every [data-orderpay-total] of the form (the pay button's amount) says what the
  // chosen installments charge: the plan's total, the buyer's interest included.
  function showTotal(form, select) {
    var option = select && select.options[select.selectedIndex];
    var text = option && option.getAttribute("data-total-display");
    Array.prototype.forEach.call(form.querySelectorAll("[data-orderpay-total]"), function (element) {
      if (!element.hasAttribute("data-orderpay-amount")) {
        element.setAttribute("data-orderpay-amount", element.textContent);
      }
      element.textContent = text || element.getAttribute("data-orderpay-amount");
    });
  }

  // A saved card's form: each card has its own plans (by its BIN); choosing another card
  // offers its installments, and the total follows.
  function bindSavedCards(form) {
    if (form.getAttribute("data-orderpay-bound") === "true") return;
    var select = form.querySelector('select[name$="installments"]');
    var plans;
    try {
      plans = JSON.parse(form.getAttribute("data-orderpay-saved-plans") || "{}");
    } catch (error) {
      return;
    }
    if (!select) return;
    form.setAttribute("data-orderpay-bound", "true");
    var offer = function () {
      var card = form.querySelector('input[name$="card_token"]:checked');
      if (card && plans[card.value]) offerPlans(form, select, plans[card.value]);
    };
    form.addEventListener("change", function (event) {
      var name = (event.target && event.target.getAttribute("name")) || "";
      if (/card_token$/.test(name)) offer();
      if (/installments$/.test(name)) showTotal(form, select);
    });
    offer();
  }

  // Installment choices for the typed card's BIN, from the shop's plans view.
  function watchPlans(card, form) {
    var url = card.getAttribute("data-orderpay-plans-url");
    var select = form.querySelector('select[name$="installments"]');
    if (!url || !select) return;
    var asked = "";
    function lookUp() {
      var bin = value(card, "number").replace(/[\s.-]/g, "").slice(0, 6);
      if (bin.length < 6 || bin === asked) return;
      asked = bin;
      var query = "?bin=" + bin + "&plans=" + encodeURIComponent(card.getAttribute("data-orderpay-plans"));
      fetch(url + query, { headers: { Accept: "application/json" } }).then(function (response) {
        return response.ok ? response.json() : null;
      }).then(function (answer) {
        if (!answer || !answer.plans || asked !== bin) return;
        offerPlans(form, select, answer.plans);
        setHidden(form, "card_bin", bin);
        announce(form, "orderpay:plans", answer.plans);
      }, function () {});
    }
    card.addEventListener("input", function (event) {
      if (event.target && event.target.getAttribute("data-orderpay-field") === "number") lookUp();
    });
    // A number already there when this script binds (typed or autofilled while the page
    // was still loading) gets its plans too: no input event will come for it.
    lookUp();
  }

  function bind(card) {
    var form = card.closest("form");
    if (!form || card.getAttribute("data-orderpay-bound") === "true") return;
    card.setAttribute("data-orderpay-bound", "true");
    form.addEventListener("submit", function (event) {
      onSubmit(card, form, event);
    });
    watchPlans(card, form);
    offerResend(card, form, messagesOf(card));
    form.addEventListener("change", function (event) {
      var name = (event.target && event.target.getAttribute("name")) || "";
      if (/installments$/.test(name)) showTotal(form, event.target);
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
    Array.prototype.forEach.call(
      document.querySelectorAll("form[data-orderpay-saved-plans]"), bindSavedCards
    );
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bindAll);
  } else {
    bindAll();
  }
  window.OrderPayCheckout = { bind: bind, bindAll: bindAll, bindSavedCards: bindSavedCards };
})();
