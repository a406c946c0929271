/*
 * django-orderpay emulator: the hosted checkout page's script (GET /pagamento?code=...).
 *
 * A card is encrypted here with the emulator's SDK (PagSeguro.encryptCard) and
 * authenticated with its 3-D Secure (PagSeguro.authenticate3DS: debit always,
 * credit whenever the card takes part), as PagBank's own page does; only the
 * encrypted card, the holder's name and the authentication id are posted. Pix
 * shows its QR code and a button standing in for the shopper's bank app;
 * boleto its typeable line. Once paid, the shopper goes where the answer says
 * (the checkout's redirect_url). Plain ES2020, no build step.
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("checkout-config").textContent);
  var words = config.words;
  var form = document.getElementById("pay");
  var problem = document.getElementById("problem");
  var submit = document.getElementById("submit");
  var installments = document.getElementById("f-installments");
  var CARD_METHODS = ["CREDIT_CARD", "DEBIT_CARD"];

  function value(name) {
    var field = form.elements[name];
    return field ? String(field.value || "").trim() : "";
  }

  function digits(text) {
    return text.replace(/[^0-9]/g, "");
  }

  function money(cents) {
    var reais = Math.floor(cents / 100).toString();
    var centavos = ("0" + (cents % 100)).slice(-2);
    if (config.language === "pt-BR") {
      return "R$ " + reais.replace(/\B(?=(\d{3})+(?!\d))/g, ".") + "," + centavos;
    }
    return "R$ " + reais.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + "." + centavos;
  }

  function method() {
    var checked = form.querySelector("input[name=method]:checked");
    return checked ? checked.value : "";
  }

  function service() {
    var keys = Object.keys(config.services);
    var chosen = value("shipping_service");
    return keys.indexOf(chosen) >= 0 ? chosen : keys[0];
  }

  function priced() {
    return config.services[service()];
  }

  function plans() {
    return priced().plans[method()] || [];
  }

  function chosenPlan() {
    var count = method() === "CREDIT_CARD" ? parseInt(installments.value || "1", 10) : 1;
    var list = plans();
    for (var i = 0; i < list.length; i++) {
      if (list[i].installments === count) return list[i];
    }
    return list[0];
  }

  function say(message) {
    problem.textContent = message || "";
  }

  function refresh() {
    var current = method();
    var card = CARD_METHODS.indexOf(current) >= 0;
    document.getElementById("card").hidden = !card;
    document.getElementById("installments-row").hidden = current !== "CREDIT_CARD";
    var address = document.getElementById("address");
    if (address) {
      var needed = address.getAttribute("data-required-for");
      address.hidden = !(needed === "ALL" || current === "BOLETO");
    }
    if (current === "CREDIT_CARD") {
      var kept = installments.value;
      installments.innerHTML = "";
      plans().forEach(function (plan) {
        var option = document.createElement("option");
        option.value = String(plan.installments);
        var template = plan.interest_free ? words.plan_free : words.plan_interest;
        option.textContent = template
          .replace("{count}", plan.installments)
          .replace("{share}", money(plan.share))
          .replace("{total}", money(plan.total));
        installments.appendChild(option);
      });
      if (kept) installments.value = kept;
      if (!installments.value && installments.options.length) installments.selectedIndex = 0;
    }
    var amount = card && chosenPlan() ? chosenPlan().total : priced().amount;
    submit.textContent = words.pay.replace("{amount}", money(amount));
  }

  function customer() {
    var given = config.customer || {};
    return {
      name: value("name") || given.name || "",
      email: value("email") || given.email || "",
      tax_id: digits(value("tax_id") || given.tax_id || ""),
    };
  }

  function address() {
    var fields = ["postal_code", "street", "number", "complement", "locality", "city", "region_code"];
    var answer = {};
    fields.forEach(function (name) {
      var typed = value(name);
      if (typed) answer[name] = name === "postal_code" ? digits(typed) : typed;
    });
    return answer;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) {
        return { ok: response.ok, body: json };
      });
    });
  }

  function cardPayment(payload) {
    var holder = value("holder");
    var number = digits(value("card_number"));
    var expMonth = digits(value("exp_month"));
    var expYear = digits(value("exp_year"));
    var encrypted = PagSeguro.encryptCard({
      publicKey: config.publicKey,
      holder: holder,
      number: number,
      expMonth: expMonth,
      expYear: expYear,
      securityCode: digits(value("security_code")),
    });
    if (encrypted.hasErrors) {
      return Promise.reject(new Error(words.card_invalid));
    }
    var plan = chosenPlan();
    var buyer = customer();
    PagSeguro.setUp({ session: config.session, env: PagSeguro.env.SANDBOX });
    var billing = Object.assign({}, config.address || {}, address());
    return PagSeguro.authenticate3DS({
      data: {
        customer: { name: buyer.name || holder, email: buyer.email || "comprador@example.com" },
        paymentMethod: {
          type: payload.method,
          installments: plan.installments,
          card: { number: number, expMonth: expMonth, expYear: expYear, holder: holder },
        },
        amount: { value: plan.total, currency: "BRL" },
        billingAddress: billing,
        dataOnly: false,
      },
    }).then(function (result) {
      if (result.status === "AUTH_FLOW_COMPLETED") {
        payload.authentication_id = result.id;
      } else if (result.status === "AUTH_NOT_SUPPORTED" && payload.method === "CREDIT_CARD") {
        payload.authentication_id = null;
      } else if (result.status === "AUTH_NOT_SUPPORTED") {
        throw new Error(words.debit_needs_3ds);
      } else {
        throw new Error(words.not_authenticated);
      }
      payload.card = { encrypted: encrypted.encryptedCard, holder: { name: holder } };
      payload.installments = plan.installments;
      return payload;
    });
  }

  function showPix(answer) {
    form.hidden = true;
    document.getElementById("pix").hidden = false;
    document.getElementById("pix-image").src = answer.qr_code.image;
    document.getElementById("pix-text").value = answer.qr_code.text;
    document.getElementById("pix-pay").addEventListener("click", function () {
      post(answer.pay, {}).then(function (paid) {
        if (paid.ok) window.location.assign(paid.body.next);
        else say(paid.body.message);
      }, function () { say(words.unreachable); });
    });
  }

  function showBoleto(answer) {
    form.hidden = true;
    document.getElementById("boleto").hidden = false;
    document.getElementById("boleto-line").textContent = answer.boleto.line;
    document.getElementById("boleto-pdf").href = answer.boleto.pdf;
    document.getElementById("boleto-back").href = answer.next;
  }

  function settle(answer) {
    if (answer.qr_code) return showPix(answer);
    if (answer.boleto) return showBoleto(answer);
    if (answer.status === "DECLINED") {
      say(answer.message || words.declined);
      return undefined;
    }
    window.location.assign(answer.next);
    return undefined;
  }

  form.addEventListener("change", refresh);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    say("");
    var payload = {
      method: method(),
      language: config.language,
      customer: customer(),
      address: address(),
      shipping_service: value("shipping_service"),
    };
    var ready = CARD_METHODS.indexOf(payload.method) >= 0
      ? cardPayment(payload)
      : Promise.resolve(payload);
    submit.disabled = true;
    var label = submit.textContent;
    submit.textContent = words.paying;
    ready.then(function (body) {
      return post(config.payUrl, body);
    }).then(function (answer) {
      if (!answer.ok) throw new Error(answer.body.message);
      settle(answer.body);
    }).catch(function (error) {
      say(error && error.message ? error.message : words.unreachable);
    }).finally(function () {
      submit.disabled = false;
      submit.textContent = label;
    });
  });
  refresh();
})();
