/* Filters for the results site: show and hide rows by level, section, outcome and text.
   Works from the file system, needs no network, and never writes report data as markup:
   rows are only shown or hidden, and the counter is set with textContent. */
(function () {
  "use strict";

  function inSection(sections, wanted) {
    return sections.split(" ").some(function (section) {
      return section === wanted || section.indexOf(wanted + ".") === 0;
    });
  }

  function value(form, name) {
    var field = form.elements.namedItem(name);
    return field ? field.value.trim() : "";
  }

  function apply(form) {
    var container = document.getElementById(form.getAttribute("data-target"));
    if (!container) {
      return;
    }
    var level = value(form, "level");
    var section = value(form, "section");
    var outcome = value(form, "outcome");
    var text = value(form, "q").toLowerCase();
    var rows = container.querySelectorAll("[data-row]");
    var shown = 0;
    rows.forEach(function (row) {
      var keep = (!level || row.getAttribute("data-level") === level) &&
        (!section || inSection(row.getAttribute("data-sections") || "", section)) &&
        (!outcome || (" " + row.getAttribute("data-outcomes") + " ").indexOf(" " + outcome + " ") >= 0) &&
        (!text || (row.getAttribute("data-text") || "").indexOf(text) >= 0);
      row.hidden = !keep;
      if (keep) {
        shown += 1;
      }
    });
    container.querySelectorAll("[data-group]").forEach(function (head) {
      var group = head.getAttribute("data-group");
      var visible = Array.prototype.some.call(rows, function (row) {
        return row.getAttribute("data-in") === group && !row.hidden;
      });
      head.hidden = !visible;
    });
    var counter = form.querySelector("[data-count]");
    if (counter) {
      counter.textContent = shown + " of " + rows.length + " shown";
    }
  }

  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") {
      target.open = true;
      target.hidden = false;
      target.scrollIntoView();
    }
  }

  document.querySelectorAll("form[data-filters]").forEach(function (form) {
    form.addEventListener("input", function () { apply(form); });
    form.addEventListener("change", function () { apply(form); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    apply(form);
  });
  window.addEventListener("hashchange", openTarget);
  openTarget();
}());
