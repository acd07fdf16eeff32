// Images in the incident's texts: an image pasted or dropped into an editor, or chosen in the
// file input beside it, is uploaded and its Markdown, ![alt](/images/ID), goes in at the cursor.
// Without this script the file input's own form uploads it and opens a page with the Markdown to
// paste. The server checks every file's bytes; the type checks here only spare a round trip.
(function () {
  "use strict";

  var accepted = ["image/png", "image/jpeg", "image/gif", "image/webp"];

  // attachFor is the image control of an editor: the .image-attach naming the editor's id.
  function attachFor(textarea) {
    if (!textarea || !textarea.id) {
      return null;
    }
    return document.querySelector('.image-attach[data-for="' + textarea.id + '"]');
  }

  function imageFiles(list) {
    var out = [];
    for (var n = 0; list && n < list.length; n++) {
      if (list[n] && accepted.indexOf(list[n].type) >= 0) {
        out.push(list[n]);
      }
    }
    return out;
  }

  function say(attach, text) {
    var status = attach.querySelector(".image-status");
    if (status) {
      status.textContent = text;
    }
  }

  // insertAtCursor puts text in place of the editor's selection, on a line of its own, and
  // leaves the cursor after it; an input event tells the preview and the other scripts.
  function insertAtCursor(textarea, text) {
    var start = textarea.selectionStart, end = textarea.selectionEnd;
    var before = textarea.value.slice(0, start), after = textarea.value.slice(end);
    if (before !== "" && !/\n$/.test(before)) {
      text = "\n" + text;
    }
    if (after !== "" && !/^\n/.test(after)) {
      text = text + "\n";
    }
    textarea.value = before + text + after;
    var at = before.length + text.length;
    textarea.setSelectionRange(at, at);
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function upload(textarea, attach, files) {
    var token = document.querySelector('input[name="csrf_token"]');
    if (!token) {
      return;
    }
    files.forEach(function (file) {
      var data = new FormData();
      data.set("csrf_token", token.value);
      data.set("image", file, file.name || "image");
      say(attach, "Uploading " + (file.name || "the image") + "…");
      fetch(attach.dataset.action, {
        method: "POST", body: data, credentials: "same-origin",
        headers: { "Accept": "application/json", "X-CSRF-Token": token.value }
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (!response.ok) {
            throw new Error(body.error || "The image could not be uploaded.");
          }
          insertAtCursor(textarea, body.markdown);
          say(attach, "Image added: describe it in the brackets for readers who cannot see it.");
        });
      }).catch(function (err) {
        say(attach, err.message || "The image could not be uploaded.");
      });
    });
  }

  document.addEventListener("paste", function (event) {
    var textarea = event.target;
    var attach = attachFor(textarea);
    if (!attach || !event.clipboardData) {
      return;
    }
    var files = imageFiles(event.clipboardData.files);
    if (files.length === 0) {
      return; // text pastes as text
    }
    event.preventDefault();
    upload(textarea, attach, files);
  });

  document.addEventListener("dragover", function (event) {
    if (attachFor(event.target) && event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, "Files") >= 0) {
      event.preventDefault();
    }
  });

  document.addEventListener("drop", function (event) {
    var textarea = event.target;
    var attach = attachFor(textarea);
    if (!attach || !event.dataTransfer) {
      return;
    }
    var files = imageFiles(event.dataTransfer.files);
    if (files.length === 0) {
      return;
    }
    event.preventDefault();
    textarea.focus();
    upload(textarea, attach, files);
  });

  // The button beside the editor: upload the file chosen there, in place.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest('.image-attach [type="submit"][form="image-upload"]');
    if (!button) {
      return;
    }
    var attach = button.closest(".image-attach");
    var input = attach.querySelector('input[type="file"]');
    var textarea = document.getElementById(attach.dataset.for);
    if (!textarea || !input) {
      return;
    }
    event.preventDefault();
    var files = imageFiles(input.files);
    if (files.length === 0) {
      say(attach, input.files && input.files.length ? "Choose a PNG, JPEG, GIF or WebP image." : "Choose an image file first.");
      return;
    }
    upload(textarea, attach, files);
    input.value = "";
  });
})();
