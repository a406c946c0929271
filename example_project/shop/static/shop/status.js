/*
 * The order status page: ask the shop every two seconds whether the payment
 * changed (a notification from the provider arrived) and reload when it did.
 * Stops once the status is settled (paid, declined, canceled).
 */
(function () {
  "use strict";
  var INTERVAL_MS = 2000;
  var box = document.querySelector("[data-payment-status]");
  if (!box || box.getAttribute("data-settled") === "true") return;
  var url = box.getAttribute("data-status-url");
  var shown = box.getAttribute("data-payment-status");

  function again() {
    window.setTimeout(poll, INTERVAL_MS);
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (payment) {
        if (payment && payment.status !== shown) {
          window.location.reload();
        } else {
          again();
        }
      })
      .catch(again);
  }

  again();
})();
