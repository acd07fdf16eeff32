// Small conveniences for the incident page's forms. Every page works without them: a Delete link
// opens its confirmation page, and the add form's "Status posted" keeps the default the server
// chose. Loaded as a file, since the Content-Security-Policy forbids inline script.
(function () {
  "use strict";

  // Deletes: ask in a dialog instead of going to the confirmation page, then post the delete to
  // the same address (GET asks, POST deletes).
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-confirm]");
    if (!link || event.defaultPrevented || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    var token = document.querySelector('input[name="csrf_token"]');
    if (!token || typeof HTMLDialogElement !== "function") {
      return; // the confirmation page asks instead
    }
    event.preventDefault();
    var dialog = confirmDialog();
    var form = dialog.querySelector("form");
    form.action = link.href;
    form.querySelector('input[name="csrf_token"]').value = token.value;
    dialog.querySelector("h2").textContent = link.dataset.confirm;
    dialog.querySelector(".confirm-detail").textContent = link.dataset.confirmDetail || "";
    dialog.querySelector('button[type="submit"].danger').textContent = link.dataset.confirmButton || "Delete";
    dialog.returnFocus = link;
    dialog.showModal();
    dialog.querySelector(".cancel").focus(); // the safe choice has the focus
  });

  function confirmDialog() {
    var dialog = document.getElementById("confirm-dialog");
    if (dialog) {
      return dialog;
    }
    dialog = document.createElement("dialog");
    dialog.id = "confirm-dialog";
    dialog.className = "confirm-dialog";
    dialog.setAttribute("aria-labelledby", "confirm-dialog-title");
    dialog.setAttribute("aria-describedby", "confirm-dialog-detail");
    dialog.innerHTML =
      '<form method="post">' +
      '<h2 id="confirm-dialog-title"></h2>' +
      '<p class="confirm-detail" id="confirm-dialog-detail"></p>' +
      '<input type="hidden" name="csrf_token">' +
      '<div class="form-actions">' +
      '<button type="submit" class="danger"></button>' +
      '<button type="button" class="cancel">Cancel, keep it</button>' +
      "</div></form>";
    dialog.querySelector(".cancel").addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("close", function () {
      if (dialog.returnFocus) {
        dialog.returnFocus.focus();
      }
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  // The add form's "Status posted": the server defaults it to the latest status update's status.
  // Once a time is typed, default it to the status of the latest update at or before that time
  // (models.Incident.StatusBefore), "investigating" when there is none. Only while the zone is
  // the incident's, in which the updates' times are written, and never over a status the user
  // chose.
  document.querySelectorAll("form[data-status-updates]").forEach(function (form) {
    var updates;
    try {
      updates = JSON.parse(form.dataset.statusUpdates);
    } catch (e) {
      return;
    }
    var at = form.querySelector('[name="at"]');
    var zone = form.querySelector('[name="time_zone"]');
    var status = form.querySelector('[name="status"]');
    if (!at || !zone || !status) {
      return;
    }
    var chosen = false;
    status.addEventListener("change", function () { chosen = true; });
    function follow() {
      if (chosen || !at.value || zone.value !== form.dataset.zone) {
        return;
      }
      // The field takes typed text ("16:54", "Mar 12, 2026 4:54 PM"); static/when.js reads it.
      var typed = at.value;
      var read = window.hindsightReadTime && window.hindsightReadTime(typed, at.dataset.day);
      if (read) {
        var two = function (n) { return (n < 10 ? "0" : "") + n; };
        typed = read.y + "-" + two(read.mo) + "-" + two(read.d) + " " + two(read.h) + ":" + two(read.m);
      }
      var before = "investigating";
      updates.forEach(function (u) {
        if (u[0] <= typed) { // both are local "YYYY-MM-DD HH:MM" in the incident's zone (LocalInput)
          before = u[1];
        }
      });
      status.value = before;
    }
    at.addEventListener("input", follow);
    at.addEventListener("change", follow);
    zone.addEventListener("change", follow);
  });
})();

// The add forms on the incident page save through htmx (static/htmx.min.js) and get their section
// back in place with the new row: put the focus in the first field of the form that saved, so the
// next entry can be typed at once. In a text area Enter is a new line; Ctrl+Enter (⌘+Enter) saves.
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function () {
    // An outerHTML swap replaced the target, so the section that came back is looked up anew.
    var section = document.querySelector("section[data-added]");
    if (!section) {
      return;
    }
    section.removeAttribute("data-added");
    var form = section.querySelector("details.add[open] form[data-add-form]");
    var first = form && form.querySelector("input:not([type=hidden]):not([type=checkbox]), select, textarea");
    // Someone who has already gone on to another field keeps it: the swap removed the button
    // that saved, so the focus is on the page's body or in this section unless they moved it.
    var active = document.activeElement;
    var elsewhere = active && active !== document.body && !section.contains(active);
    if (first && !elsewhere) {
      first.focus();
    }
  });
  document.addEventListener("keydown", function (event) {
    var el = event.target;
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || !el.form || el.tagName !== "TEXTAREA") {
      return;
    }
    event.preventDefault();
    if (el.form.requestSubmit) {
      el.form.requestSubmit();
    } else {
      el.form.submit();
    }
  });
}());
