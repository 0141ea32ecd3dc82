// Appended to a copy of an HTML report by tests/html_report_test.cpp, after the page's own script:
// measures in the browser what the page drew and works its controls, then writes what it found as
// JSON into <pre id="probe"> for the test to read from chromium's --dump-dom.
(function () {
  var out = {scatters: [], map: {backgrounds: [], outlines: []}, legend: {backgrounds: [], outlines: [], points: []},
             points: [], filters: {}, sort: {}};
  var add = function (list, v) { if (list.indexOf(v) < 0) list.push(v); };
  var outline = function (s) { return s.outlineStyle === "none" ? "" : s.outlineStyle + " " + s.outlineWidth + " " + s.outlineColor; };
  var background = function (s) { return s.backgroundColor + " " + s.backgroundImage; };
  // Every scatter's label boxes, in the SVG's units, as the browser laid the text out.
  document.querySelectorAll("figure.scatter svg").forEach(function (svg) {
    var labels = [];
    svg.querySelectorAll("text.label").forEach(function (t) {
      var b = t.getBBox();
      labels.push({text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height});
    });
    out.scatters.push({architecture: svg.getAttribute("data-architecture"), labels: labels,
                       points: svg.querySelectorAll("circle").length});
    svg.querySelectorAll("circle").forEach(function (c) {
      var s = getComputedStyle(c);
      add(out.points, s.fill + " " + s.stroke);
    });
  });
  // The colours and outlines of every map cell (the groups' copies too), and of the legend's swatches.
  document.querySelectorAll(".policy-map i").forEach(function (c) {
    var s = getComputedStyle(c);
    add(out.map.backgrounds, background(s));
    if (outline(s)) add(out.map.outlines, outline(s));
  });
  document.querySelectorAll("ul.legend i:not(.point)").forEach(function (c) {
    var s = getComputedStyle(c);
    add(out.legend.backgrounds, background(s));
    if (outline(s)) add(out.legend.outlines, outline(s));
  });
  document.querySelectorAll("ul.legend i.point").forEach(function (c) {
    var s = getComputedStyle(c);
    add(out.legend.points, s.backgroundColor + " " + s.borderTopColor);
  });
  // Each filter set alone (then cleared): the rows, maps and scatter points still shown.
  var shownNow = function () {
    var rows = [], maps = 0, points = 0;
    document.querySelectorAll("table.quants tbody tr").forEach(function (tr) {
      if (!tr.hidden && tr.getClientRects().length) rows.push(tr.getAttribute("data-model"));
    });
    document.querySelectorAll("section.model").forEach(function (s) { if (!s.hidden) maps++; });
    document.querySelectorAll(".scatter a").forEach(function (a) { if (a.getClientRects().length) points++; });
    return {rows: rows, maps: maps, points: points, status: document.getElementById("shown").textContent};
  };
  var set = function (id, value) {
    var e = document.getElementById(id);
    e.value = value;
    e.dispatchEvent(new Event("input"));
  };
  var tries = window.modelcatProbeFilters || [];
  tries.forEach(function (t) {
    set(t[0], t[1]);
    out.filters[t[0] + "=" + t[1]] = shownNow();
    set(t[0], "");
  });
  out.filters.none = shownNow();
  // Sorting: what the page says before, after one click on "GiB" and after a second.
  var order = function () {
    var names = [];
    document.querySelectorAll("table.quants tbody tr").forEach(function (tr) { names.push(tr.getAttribute("data-model")); });
    return names;
  };
  var sorted = function () {
    var th = document.querySelector("table.quants th[aria-sort]");
    return {text: document.getElementById("sort-order").textContent, header: th ? th.textContent : "",
            direction: th ? th.getAttribute("aria-sort") : "", rows: order()};
  };
  out.sort.initial = sorted();
  var gib = Array.prototype.filter.call(document.querySelectorAll("table.quants th"), function (th) {
    return th.textContent === "GiB";
  })[0];
  gib.click();
  out.sort.once = sorted();
  gib.click();
  out.sort.twice = sorted();
  // The quant table as shown (by column heading), the page's source line and its groups.
  var heads = Array.prototype.map.call(document.querySelectorAll("table.quants th"), function (th) { return th.textContent; });
  out.table = Array.prototype.map.call(document.querySelectorAll("table.quants tbody tr"), function (tr) {
    var row = {};
    heads.forEach(function (h, i) { row[h] = tr.cells[i].textContent; });
    row["location title"] = tr.cells[heads.indexOf("location")].getAttribute("title");
    return row;
  });
  var source = document.querySelector("p.source"), time = source && source.querySelector("time");
  out.source = {text: source ? source.textContent : "", datetime: time ? time.getAttribute("datetime") : ""};
  out.groups = Array.prototype.map.call(document.querySelectorAll(".policy-group h3"), function (h) { return h.textContent; });
  out.legendMarks = Array.prototype.map.call(document.querySelectorAll("ul.legend li[data-mark]"), function (li) {
    return li.getAttribute("data-mark");
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
