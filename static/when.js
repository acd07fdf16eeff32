// Time fields that take typed text: as the user types, the line under each field says what it
// reads as ("Read as 12 Mar 2026 16:54 UTC"), in the zone its form names. The server reads the
// same forms (models.ParseTyped) and writes the same line on every render, so without this file
// nothing is lost but the line's updates while typing. It also fills an empty account's time zone
// from the browser, once. Loaded as a file: the Content-Security-Policy forbids inline script.
(function () {
  "use strict";

  var MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
  var SHORT = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  function month(name) {
    var m = MONTHS.indexOf(String(name).slice(0, 3).toLowerCase());
    return m < 0 ? -1 : m + 1;
  }

  function clock(h, m, meridiem) {
    h = parseInt(h, 10);
    m = m === undefined || m === "" ? 0 : parseInt(m, 10);
    if (meridiem) {
      meridiem = meridiem.toLowerCase().replace(/\./g, "");
      if (h < 1 || h > 12) { return null; }
      if (meridiem === "pm" && h !== 12) { h += 12; }
      if (meridiem === "am" && h === 12) { h = 0; }
    }
    if (h > 23 || m > 59) { return null; }
    return { h: h, m: m };
  }

  function validDate(y, mo, d) {
    if (mo < 1 || mo > 12 || d < 1) { return false; }
    return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
  }

  var TIME = "(\\d{1,2})(?::(\\d{2}))?(?::\\d{2})?\\s*([ap]\\.?m\\.?)?";
  var ISO = new RegExp("^(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})(?:[T ]" + TIME + ")?$", "i");
  var MDY = new RegExp("^(?:[a-z]{3},?\\s+)?([a-z]+)\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?:,?\\s+" + TIME + ")?$", "i");
  var DMY = new RegExp("^(?:[a-z]{3},?\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\s+([a-z]+)\\.?,?\\s+(\\d{4})(?:,?\\s+" + TIME + ")?$", "i");
  var TFIRST = new RegExp("^" + TIME + "\\s+(?:on\\s+)?(.+)$", "i");
  var TONLY = /^(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*([ap]\.?m\.?)?$/i;
  var ZONE = /\s*(?:\b(UTC|GMT)|(Z)|([+-]\d{2}:?\d{2}))$/i;

  // read returns {y, mo, d, h, m, day, zone} or null; day is true when only the date was given.
  function read(text, dayRef) {
    var s = String(text).replace(/\s+/g, " ").trim().replace(/ at /gi, " ");
    if (!s) { return null; }
    var zone = "";
    var z = s.match(ZONE);
    if (z && (z[1] || z[3] || (z[2] && /\d$/.test(s.slice(0, z.index + z[0].length - 1))))) {
      zone = z[1] || z[2] ? "UTC" : "UTC" + z[3];
      s = s.slice(0, z.index).trim();
    }
    var m, date, t = null, hasTime = false;
    if ((m = s.match(ISO))) {
      date = { y: +m[1], mo: +m[2], d: +m[3] };
      if (m[4] !== undefined) { hasTime = true; t = (m[5] !== undefined || m[6]) ? clock(m[4], m[5], m[6]) : null; if (!t) { return null; } }
    } else if ((m = s.match(MDY)) && month(m[1]) > 0) {
      date = { y: +m[3], mo: month(m[1]), d: +m[2] };
      if (m[4] !== undefined) { hasTime = true; t = clock(m[4], m[5], m[6]); if (!t) { return null; } }
    } else if ((m = s.match(DMY)) && month(m[2]) > 0) {
      date = { y: +m[3], mo: month(m[2]), d: +m[1] };
      if (m[4] !== undefined) { hasTime = true; t = clock(m[4], m[5], m[6]); if (!t) { return null; } }
    } else if ((m = s.match(TFIRST)) && (m[2] !== undefined || m[3])) {
      var rest = read(m[4], null);
      t = clock(m[1], m[2], m[3]);
      if (!rest || !rest.day || !t) { return null; }
      date = { y: rest.y, mo: rest.mo, d: rest.d };
      hasTime = true;
    } else if ((m = s.match(TONLY)) && (m[2] !== undefined || m[3]) && dayRef) {
      var ref = dayRef.match(/^(\d{4})-(\d{2})-(\d{2})/);
      t = clock(m[1], m[2], m[3]);
      if (!ref || !t) { return null; }
      date = { y: +ref[1], mo: +ref[2], d: +ref[3] };
      hasTime = true;
    } else {
      return null;
    }
    if (!validDate(date.y, date.mo, date.d)) { return null; }
    return { y: date.y, mo: date.mo, d: date.d, h: t ? t.h : 0, m: t ? t.m : 0, day: !hasTime, zone: zone };
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function understood(r, zone) {
    var date = r.d + " " + SHORT[r.mo - 1] + " " + r.y;
    if (r.day) { return date + " (the day only)"; }
    return date + " " + pad(r.h) + ":" + pad(r.m) + " " + (r.zone || zone || "UTC");
  }

  function zoneOf(input) {
    var form = input.form;
    var select = form && form.querySelector('[name="time_zone"]');
    return (select && select.value) || input.dataset.zone || "UTC";
  }

  function dayOf(input) {
    var name = input.dataset.dayField;
    if (name && input.form) {
      var other = input.form.querySelector('[name="' + name + '"]');
      if (other && other !== input) {
        var r = read(other.value, input.dataset.day);
        if (r) { return r.y + "-" + pad(r.mo) + "-" + pad(r.d); }
      }
    }
    return input.dataset.day || "";
  }

  function update(input) {
    var line = document.getElementById(input.id + "-understood");
    if (!line) { return; }
    var zone = zoneOf(input);
    var note = input.closest(".field") && input.closest(".field").querySelector("[data-zone-note]");
    if (note) { note.textContent = "(" + zone + ")"; }
    if (!input.value.trim()) { line.textContent = ""; return; }
    var r = read(input.value, dayOf(input));
    line.textContent = r ? "Read as " + understood(r, zone) : "Not read as a time yet";
  }

  function updateForm(form) {
    form.querySelectorAll("input[data-typed-time]").forEach(update);
  }

  document.addEventListener("input", function (event) {
    var el = event.target;
    if (el.matches && el.matches("input[data-typed-time]")) {
      update(el);
      if (el.form) { updateForm(el.form); } // fields whose time of day falls on this one's date
    }
  });
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el.matches && el.matches('select[name="time_zone"]') && el.form) { updateForm(el.form); }
  });

  // The browser's own zone for an account that has none: chosen in the forms on this page, and
  // remembered on the account once (POST /account/time-zone), so the server defaults to it next.
  function browserZone() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  function chooseZone(select, zone) {
    if (!Array.prototype.some.call(select.options, function (o) { return o.value === zone; })) {
      var option = document.createElement("option");
      option.value = option.textContent = zone;
      select.insertBefore(option, select.firstChild);
    }
    select.value = zone;
  }
  function adoptBrowserZone(root) {
    var body = document.body;
    var zone = browserZone();
    if (!body || body.dataset.userZone !== "" || !zone) { return; }
    root.querySelectorAll('select[data-default-zone]').forEach(function (select) {
      if (select.dataset.zoneChosen !== "1") { chooseZone(select, zone); }
      if (select.form) { updateForm(select.form); }
    });
  }
  function rememberZone() {
    var body = document.body;
    var zone = browserZone();
    var token = document.querySelector('input[name="csrf_token"]');
    if (!body || body.dataset.userZone !== "" || !zone || !token || !window.fetch) { return; }
    var data = new URLSearchParams();
    data.set("csrf_token", token.value);
    data.set("time_zone", zone);
    fetch("/account/time-zone", { method: "POST", body: data, credentials: "same-origin" }).then(function (r) {
      if (r.ok) { body.dataset.userZone = zone; }
    }, function () {});
  }
  adoptBrowserZone(document);
  rememberZone();
  document.querySelectorAll("form").forEach(updateForm);

  // htmx swaps in fresh forms: read their fields too.
  document.addEventListener("htmx:afterSwap", function (event) {
    var root = event.detail && event.detail.elt ? event.detail.elt : document;
    root.querySelectorAll("form").forEach(updateForm);
  });

  window.hindsightReadTime = read; // for the browser tests that check the two readers agree
}());
