/*
 * django-orderpay: a payment the shopper is waiting on (Pix, boleto, an app
 * payment, a card in analysis). Three behaviours, each switched on by a data
 * attribute, so a page uses what it renders:
 *
 * - [data-orderpay-copy="#id"] on a button copies the text of the input #id
 *   (the Pix "copia e cola" code, the boleto's typeable line) and shows the
 *   element [data-orderpay-copied] beside it for a moment.
 * - [data-orderpay-countdown="<ISO 8601>"] shows the time left (mm:ss, or
 *   h:mm:ss) in its [data-orderpay-left] child; at zero it shows its
 *   data-expired-text, hides the [data-orderpay-expiring-part] elements of its
 *   [data-orderpay-expiring] container (a QR code, its code to copy) and stops.
 * - [data-orderpay-poll="<url>"] with data-orderpay-status="<status>" asks the
 *   url (JSON with a "status") every few seconds and, once the status differs,
 *   goes to data-orderpay-next (or reloads the page). It stops when
 *   data-orderpay-settled="true". Both URLs must be this page's origin (the
 *   template tags refuse others when rendering; this checks again): any
 *   other (a javascript: URL, another site) is neither fetched nor followed.
 */
(function () {
  "use strict";
  if (window.orderpayPayment) return; // included twice: once is enough
  window.orderpayPayment = true;
  var POLL_MS = 2000;
  var COPIED_MS = 2500;

  function copy(button) {
    var input = document.querySelector(button.getAttribute("data-orderpay-copy"));
    if (!input) return;
    var text = input.value || input.textContent;
    var done = function () {
      var note = button.parentNode.querySelector("[data-orderpay-copied]");
      if (!note) return;
      note.hidden = false;
      window.setTimeout(function () { note.hidden = true; }, COPIED_MS);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(input, done); });
    } else {
      fallback(input, done);
    }
  }

  function fallback(input, done) {
    // Pages served over plain http (not localhost) have no clipboard API.
    input.focus();
    input.select();
    try {
      if (document.execCommand("copy")) done();
    } catch (error) {
      /* the text stays selected for the shopper to copy */
    }
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  // The URL resolved against this page, if it is on this page's origin; else null.
  function sameOrigin(url) {
    if (!url) return null;
    try {
      var resolved = new URL(url, window.location.href);
      return resolved.origin === window.location.origin ? resolved.href : null;
    } catch (error) {
      return null;
    }
  }

  function countdown(box) {
    var end = Date.parse(box.getAttribute("data-orderpay-countdown"));
    var left = box.querySelector("[data-orderpay-left]");
    if (isNaN(end) || !left) return;
    var tick = function () {
      var seconds = Math.max(0, Math.round((end - Date.now()) / 1000));
      if (seconds === 0) {
        box.textContent = box.getAttribute("data-expired-text") || "";
        box.setAttribute("data-orderpay-expired", "true");
        // What could be paid goes with it: the QR image, the code to copy.
        var expiring = box.closest && box.closest("[data-orderpay-expiring]");
        if (expiring) {
          Array.prototype.forEach.call(expiring.querySelectorAll("[data-orderpay-expiring-part]"), function (part) {
            part.hidden = true;
          });
        }
        return;
      }
      var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
      left.textContent = (h ? h + ":" + pad(m) : String(m)) + ":" + pad(s);
      window.setTimeout(tick, 1000);
    };
    tick();
  }

  function follow(box) {
    if (box.getAttribute("data-orderpay-settled") === "true") return;
    var url = sameOrigin(box.getAttribute("data-orderpay-poll"));
    var shown = box.getAttribute("data-orderpay-status");
    var next = sameOrigin(box.getAttribute("data-orderpay-next"));
    if (!url) return;
    var again = function () { window.setTimeout(poll, POLL_MS); };
    var poll = function () {
      fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (payment) {
          if (payment && payment.status && payment.status !== shown) {
            if (next) window.location.assign(next); else window.location.reload();
          } else {
            again();
          }
        })
        .catch(again);
    };
    again();
  }

  function start() {
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest("[data-orderpay-copy]");
      if (button) {
        event.preventDefault();
        copy(button);
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-orderpay-countdown]"), countdown);
    var polled = document.querySelector("[data-orderpay-poll]"); // one poller per page
    if (polled) follow(polled);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
