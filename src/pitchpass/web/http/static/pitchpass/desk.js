// The pages' few behaviours, from a file (the Content-Security-Policy allows no inline
// script). Events are caught on the document, so parts HTMX swaps in behave alike.
//   form[data-confirm]          asks before sending (Decide, Publish, Revoke, Withdraw)
//   button[data-confirm]        asks before sending by that button (Publish together)
//   form[data-once]             sent once: its buttons are disabled as it goes
//   input[data-excludes=NAME]   ticked, unticks the input NAME of the same table row
//   body[data-address]          the address bar set back to the board after an error
"use strict";

document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement)) {
    return;
  }
  var button = event.submitter;
  var question =
    (button && button.getAttribute("data-confirm")) || form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  if (form.hasAttribute("data-once")) {
    form.querySelectorAll("button[type=submit]").forEach(function (button) {
      button.disabled = true;
    });
  }
});

document.addEventListener("change", function (event) {
  var box = event.target;
  var other = box instanceof HTMLInputElement && box.getAttribute("data-excludes");
  if (!other || !box.checked) {
    return;
  }
  var row = box.closest("tr");
  var twin = row && row.querySelector("input[name='" + other + "']");
  if (twin) {
    twin.checked = false;
  }
});

document.addEventListener("DOMContentLoaded", function () {
  var address = document.body.getAttribute("data-address");
  if (address) {
    window.history.replaceState(null, "", address);
  }
});
