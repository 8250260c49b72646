// profdb report: view switching, table sorting and filtering, and the
// served runs page's filter form. No network.
(function () {
  "use strict";
  function show() {
    var id = (location.hash || "#index").slice(1);
    var views = document.querySelectorAll("section.view");
    var found = false;
    views.forEach(function (v) { if (v.id === "view-" + id) { found = true; } });
    if (!found) { id = views.length ? views[0].id.slice(5) : "index"; }
    views.forEach(function (v) { v.classList.toggle("active", v.id === "view-" + id); });
    document.querySelectorAll("nav a").forEach(function (a) {
      a.classList.toggle("active", a.getAttribute("href") === "#" + id);
    });
  }
  function key(td) {
    var v = td.getAttribute("data-v");
    if (v === null) { v = td.textContent; }
    var n = parseFloat(v);
    return isNaN(n) || td.className.indexOf("n") < 0 ? v.toLowerCase() : n;
  }
  function sortable(table) {
    var ths = table.querySelectorAll("thead th");
    ths.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = !th.classList.contains("asc");
        ths.forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  function filterable(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.style.display = r.textContent.toLowerCase().indexOf(q) < 0 ? "none" : "";
      });
    });
  }
  function compact(form) {
    // The filters left empty are not sent: the address names only those
    // given, and the server takes an empty one for a wrong one.
    form.addEventListener("formdata", function (e) {
      var empty = [];
      e.formData.forEach(function (v, k) { if (v === "") { empty.push(k); } });
      empty.forEach(function (k) { e.formData.delete(k); });
    });
  }
  document.querySelectorAll("table.data").forEach(sortable);
  document.querySelectorAll("form.filters").forEach(compact);
  document.querySelectorAll("input.filter").forEach(filterable);
  window.addEventListener("hashchange", show);
  show();
})();
