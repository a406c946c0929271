/*
 * django-orderpay emulator: the provider's browser SDK, PagSeguro.encryptCard(),
 * PagSeguro.setUp() and PagSeguro.authenticate3DS().
 *
 * PagSeguro.encryptCard({publicKey, holder, number, expMonth, expYear, securityCode})
 *   -> {encryptedCard, hasErrors, errors: [{code, message}]}, synchronously.
 * PagSeguro.setUp({session, env}) keeps the checkout-SDK session (made by the
 * shop's server with its token: POST /checkout-sdk/sessions).
 * PagSeguro.authenticate3DS({data, beforeChallenge}) -> Promise of {status, id,
 * authenticationStatus (AUTHENTICATED or NOT_AUTHENTICATED, once completed)}:
 * it posts {session, data} to this emulator's /checkout-sdk/authentications;
 * on REQUIRE_CHALLENGE it calls beforeChallenge({brand, issuer, open}) (or opens
 * the challenge itself) and resolves once the shopper answers the emulated
 * bank's page, shown in a frame over the page. Failures reject with a
 * PagSeguro.PagSeguroError whose detail is {httpStatus, traceId, message,
 * errorMessages: [{code, description, parameterName}]}, as the real SDK's.
 *
 * The plaintext is "number;securityCode;expMonth(2 digits);expYear;holder;epoch_ms"
 * (holder reduced to ASCII letters and spaces, accents stripped, 30 characters at
 * most), encrypted with RSA PKCS#1 v1.5 under the merchant's public key (base64
 * DER SubjectPublicKeyInfo) and answered as standard base64. WebCrypto has no
 * RSAES-PKCS1-v1_5, so the RSA step is BigInt arithmetic here. Validation and
 * plaintext match django_orderpay.cardcrypto.encrypt_card exactly.
 * Plain ES2020, no build step.
 */
(function (global) {
  "use strict";

  var HOLDER_MAX_LENGTH = 30;
  var RSA_ENCRYPTION_OID = "2a864886f70d010101"; // 1.2.840.113549.1.1.1

  // Codes of the provider's SDK; messages as django_orderpay.cardcrypto words them.
  var MESSAGES = {
    INVALID_PUBLIC_KEY: "invalid public key",
    INVALID_NUMBER: "invalid card number: 13 to 19 digits",
    INVALID_SECURITY_CODE: "invalid security code: 3 or 4 digits",
    INVALID_EXPIRATION_MONTH: "invalid expiration month: 1 to 12",
    INVALID_EXPIRATION_YEAR: "invalid expiration year: 1900 to 2099",
    INVALID_HOLDER: "invalid holder: letters and spaces only",
  };

  function text(value) {
    // Numbers are accepted as the real SDK accepts them; anything absent is "".
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : String(value);
  }

  // --- base64 and DER ------------------------------------------------------

  function base64ToBytes(b64) {
    // As strict as Python's b64decode(validate=True): alphabet, padding, length.
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) {
      return null;
    }
    var binary = atob(b64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function bytesToBase64(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary);
  }

  function hex(bytes) {
    var out = "";
    for (var i = 0; i < bytes.length; i++) out += bytes[i].toString(16).padStart(2, "0");
    return out;
  }

  // One DER element at `offset`: {tag, start (of content), end}; throws on malformed input.
  function readElement(bytes, offset, limit) {
    if (offset + 2 > limit) throw new Error("truncated");
    var tag = bytes[offset];
    var length = bytes[offset + 1];
    var start = offset + 2;
    if (length & 0x80) {
      var count = length & 0x7f;
      if (count === 0 || count > 4 || start + count > limit) throw new Error("bad length");
      length = 0;
      for (var i = 0; i < count; i++) length = length * 256 + bytes[start + i];
      start += count;
    }
    if (start + length > limit) throw new Error("truncated");
    return { tag: tag, start: start, end: start + length };
  }

  function expect(bytes, offset, limit, tag) {
    var element = readElement(bytes, offset, limit);
    if (element.tag !== tag) throw new Error("unexpected tag");
    return element;
  }

  function bigIntOf(bytes) {
    return bytes.length ? BigInt("0x" + hex(bytes)) : 0n;
  }

  // SubjectPublicKeyInfo { AlgorithmIdentifier { rsaEncryption, NULL }, BIT STRING
  // { RSAPublicKey { modulus, publicExponent } } } -> {n, e, size} or null.
  function parsePublicKey(publicKey) {
    if (typeof publicKey !== "string" || !publicKey) return null;
    var der = base64ToBytes(publicKey);
    if (!der) return null;
    try {
      var spki = expect(der, 0, der.length, 0x30);
      if (spki.end !== der.length) return null;
      var algorithm = expect(der, spki.start, spki.end, 0x30);
      var oid = expect(der, algorithm.start, algorithm.end, 0x06);
      if (hex(der.subarray(oid.start, oid.end)) !== RSA_ENCRYPTION_OID) return null;
      var bits = expect(der, algorithm.end, spki.end, 0x03);
      if (bits.end !== spki.end || der[bits.start] !== 0) return null;
      var rsaKey = expect(der, bits.start + 1, bits.end, 0x30);
      if (rsaKey.end !== bits.end) return null;
      var modulus = expect(der, rsaKey.start, rsaKey.end, 0x02);
      var exponent = expect(der, modulus.end, rsaKey.end, 0x02);
      if (exponent.end !== rsaKey.end) return null;
      var n = bigIntOf(der.subarray(modulus.start, modulus.end));
      var e = bigIntOf(der.subarray(exponent.start, exponent.end));
      if (n <= 0n || e <= 1n) return null;
      return { n: n, e: e, size: Math.ceil(n.toString(16).length / 2) };
    } catch (error) {
      return null;
    }
  }

  // --- RSA PKCS#1 v1.5 (RFC 8017, 7.2.1) ----------------------------------

  function modPow(base, exponent, modulus) {
    var result = 1n;
    base %= modulus;
    while (exponent > 0n) {
      if (exponent & 1n) result = (result * base) % modulus;
      base = (base * base) % modulus;
      exponent >>= 1n;
    }
    return result;
  }

  function nonZeroRandomBytes(count) {
    var out = new Uint8Array(count);
    var filled = 0;
    while (filled < count) {
      var batch = global.crypto.getRandomValues(new Uint8Array(count - filled + 16));
      for (var i = 0; i < batch.length && filled < count; i++) {
        if (batch[i] !== 0) out[filled++] = batch[i];
      }
    }
    return out;
  }

  function encryptPkcs1v15(key, message) {
    var k = key.size;
    if (message.length > k - 11) return null;
    // EM = 0x00 || 0x02 || PS (non-zero random, >= 8 bytes) || 0x00 || M
    var em = new Uint8Array(k);
    em[1] = 0x02;
    em.set(nonZeroRandomBytes(k - message.length - 3), 2);
    em.set(message, k - message.length);
    var c = modPow(bigIntOf(em), key.e, key.n).toString(16).padStart(k * 2, "0");
    var out = new Uint8Array(k);
    for (var i = 0; i < k; i++) out[i] = parseInt(c.substr(i * 2, 2), 16);
    return bytesToBase64(out);
  }

  // --- the SDK's validation and plaintext ----------------------------------

  function normalizeHolder(holder) {
    return holder
      .normalize("NFKD")
      .replace(/[^A-Za-z ]/g, "")
      .slice(0, HOLDER_MAX_LENGTH);
  }

  function validate(key, card) {
    var errors = [];
    function fail(code) {
      errors.push({ code: code, message: MESSAGES[code] });
    }
    if (!key) fail("INVALID_PUBLIC_KEY");
    if (!/^[0-9]{13,19}$/.test(card.number)) fail("INVALID_NUMBER");
    if (!/^(?:[0-9]{3,4})?$/.test(card.securityCode)) fail("INVALID_SECURITY_CODE");
    var month = card.expMonth;
    if (!/^[0-9]{1,2}$/.test(month) || +month < 1 || +month > 12) {
      fail("INVALID_EXPIRATION_MONTH");
    }
    var year = card.expYear;
    if (!/^[0-9]{4}$/.test(year) || +year < 1900 || +year > 2099) fail("INVALID_EXPIRATION_YEAR");
    // Any decimal digit, not only ASCII ones, as Python's \d.
    var holder = card.holder;
    if (!holder || /\p{Nd}/u.test(holder) || !normalizeHolder(holder).trim()) {
      fail("INVALID_HOLDER");
    }
    return errors;
  }

  function plaintext(card, epochMs) {
    var month = String(+card.expMonth).padStart(2, "0");
    var fields = [card.number, card.securityCode, month, card.expYear];
    fields.push(normalizeHolder(card.holder), String(epochMs));
    return new TextEncoder().encode(fields.join(";"));
  }

  function encryptCard(options) {
    options = options || {};
    var card = {
      number: text(options.number),
      securityCode: text(options.securityCode),
      expMonth: text(options.expMonth),
      expYear: text(options.expYear),
      holder: text(options.holder),
    };
    var key = parsePublicKey(options.publicKey);
    var errors = validate(key, card);
    var encryptedCard = null;
    if (!errors.length) {
      encryptedCard = encryptPkcs1v15(key, plaintext(card, Date.now()));
      // A key too small for the plaintext is no key to encrypt a card with.
      if (encryptedCard === null) errors.push({ code: "INVALID_PUBLIC_KEY", message: MESSAGES.INVALID_PUBLIC_KEY });
    }
    return { encryptedCard: encryptedCard, hasErrors: errors.length > 0, errors: errors };
  }

  // --- 3-D Secure ------------------------------------------------------------

  // This script's own root (…/sdk/pagseguro.js -> …): where the emulator lives.
  var script = global.document && global.document.currentScript;
  var EMULATOR_ROOT = script && script.src ? script.src.replace(/\/sdk\/pagseguro\.js(?:\?.*)?$/, "") : "";
  var setup = { session: null, env: null };

  function PagSeguroError(message, detail) {
    var error = new Error(message);
    Object.setPrototypeOf(error, PagSeguroError.prototype);
    error.name = "PagSeguroError";
    error.detail = detail;
    return error;
  }
  PagSeguroError.prototype = Object.create(Error.prototype);

  function setUp(parameters) {
    parameters = parameters || {};
    setup = { session: parameters.session || null, env: parameters.env || null };
  }

  function failure(status, body, fallback) {
    var entries = (body && body.error_messages) || [];
    return PagSeguroError(fallback, {
      httpStatus: status,
      traceId: null,
      message: (entries[0] && entries[0].description) || fallback,
      errorMessages: entries.map(function (entry) {
        return {
          code: entry.code,
          description: entry.description,
          parameterName: entry.parameter_name,
        };
      }),
    });
  }

  function postJson(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(
        function (json) { return { status: response.status, body: json }; },
        function () { return { status: response.status, body: null }; }
      );
    });
  }

  // The emulated bank's page in a frame over the checkout; resolves with its answer.
  function runChallenge(challenge, id, request) {
    return new Promise(function (resolve) {
      var doc = global.document;
      var overlay = doc.createElement("div");
      overlay.setAttribute("data-orderpay-3ds-challenge", id);
      overlay.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147483647;" +
        "display:flex;align-items:center;justify-content:center";
      var frame = doc.createElement("iframe");
      frame.title = "3-D Secure";
      frame.src = challenge.url;
      frame.style.cssText = "width:min(420px,94vw);height:min(460px,90vh);border:0;background:#fff;border-radius:8px";
      overlay.appendChild(frame);
      var origin = new URL(challenge.url, global.location.href).origin;
      function onMessage(event) {
        var data = event.data || {};
        if (event.origin !== origin || !data.orderpay3ds || data.challenge !== id) return;
        global.removeEventListener("message", onMessage);
        overlay.remove();
        resolve(data.orderpay3ds);
      }
      global.addEventListener("message", onMessage);
      var opened = false;
      function open() {
        if (opened) return;
        opened = true;
        doc.body.appendChild(overlay);
      }
      if (typeof request.beforeChallenge === "function") {
        request.beforeChallenge({ brand: challenge.brand, issuer: challenge.issuer, open: open });
      } else {
        open();
      }
    });
  }

  function authenticate3DS(request) {
    request = request || {};
    if (!setup.session) {
      return Promise.reject(PagSeguroError("session not set up", {
        httpStatus: 0, traceId: null, message: "call PagSeguro.setUp({session, env}) first",
        errorMessages: [],
      }));
    }
    return postJson(EMULATOR_ROOT + "/checkout-sdk/authentications", {
      session: setup.session,
      data: request.data || {},
    }).then(function (answer) {
      if (answer.status !== 200 || !answer.body) {
        throw failure(answer.status, answer.body, "3DS authentication failed");
      }
      var result = answer.body;
      if (result.status !== "REQUIRE_CHALLENGE") {
        var done = { status: result.status, id: result.id };
        if (result.authenticationStatus) done.authenticationStatus = result.authenticationStatus;
        return done;
      }
      return runChallenge(result.challenge, result.id, request);
    });
  }

  var sdk = global.PagSeguro || {};
  sdk.encryptCard = encryptCard;
  sdk.setUp = setUp;
  sdk.authenticate3DS = authenticate3DS;
  sdk.PagSeguroError = PagSeguroError;
  sdk.env = { PROD: "PROD", SANDBOX: "SANDBOX" };
  global.PagSeguro = sdk;
})(typeof globalThis !== "undefined" ? globalThis : window);
