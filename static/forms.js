// Small conveniences for the incident page's forms. Every page works without them: the add
// form's "Status posted" keeps the default the server chose. Loaded as a file, since the
// Content-Security-Policy forbids inline script.
(function () {
  "use strict";

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
      var before = "investigating";
      updates.forEach(function (u) {
        if (u[0] <= at.value) { // both are local "YYYY-MM-DDTHH:MM" in the incident's zone
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
