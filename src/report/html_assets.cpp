#include "report/html_assets.hpp"

namespace modelcat::report {

const std::string_view kHtmlReportCss = R"(:root{--point:#2b6cb0}
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1em;margin:.2em 0}
table.quants{border-collapse:collapse;font-size:13px}
.quants th,.quants td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap}
.quants td:nth-child(n+5):nth-child(-n+7){text-align:right;font-variant-numeric:tabular-nums}
.quants th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}.quants td.location{color:#555}
.quants td.census{white-space:normal;min-width:12em}
.filters{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;margin:.5em 0}.filters input[type=number]{width:5em}
.sort-order{color:#555;margin:.3em 0}
.quants th[aria-sort=ascending]::after{content:" \25B2"}.quants th[aria-sort=descending]::after{content:" \25BC"}
.legend{list-style:none;padding:4px 0;margin:0;display:flex;flex-wrap:wrap;gap:4px 14px;position:sticky;bottom:0;background:#fff;z-index:2;border-top:1px solid #ddd}
.legend li{display:flex;align-items:center;gap:4px}.legend small{color:#666}
.legend i{display:inline-block;width:14px;height:14px}
i.dev,i.mark-dev{outline:2px solid #000;outline-offset:-2px}i.differs,i.mark-differs{outline:2px solid #e00;outline-offset:0}
i.none,i.mark-none{background:repeating-linear-gradient(45deg,#eee 0 2px,#fff 2px 4px)}
circle.point{fill:var(--point);stroke:#fff}.legend i.point{background:var(--point);border:1px solid #fff;border-radius:50%;width:8px;height:8px;margin:2px}
section.model{content-visibility:auto;contain-intrinsic-size:auto 420px;margin:1em 0}
.policy-map{font-size:10px;line-height:1}
.policy-map .r{display:flex;align-items:center;height:11px;margin-bottom:1px}
.policy-map .k{width:150px;flex:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding-right:4px;text-align:right}
.policy-map .r>i,.policy-map .r>b{flex:none;width:10px;height:10px;margin-right:1px;font-style:normal;font-weight:normal}
.policy-map .r>b{font-size:8px;overflow:visible;white-space:nowrap}
.policy-map .flat{height:auto;flex-wrap:wrap;gap:2px}
.policy-map .flat>i{width:auto;height:auto;padding:1px 3px;margin:0}
.policy-group{margin:1em 0;padding:.5em;border:1px solid #ddd}
.policy-group .side{display:flex;flex-wrap:wrap;gap:1em}.policy-group figure{margin:0}
.policy-group .k{width:90px}
.policy-map .r>i.differs{position:relative;z-index:1}
.summary{font-family:ui-monospace,monospace;margin:.2em 0}
.scatter{display:inline-block;margin:0 1em 1em 0}.scatter svg{max-width:100%;height:auto;font-size:11px}
.scatter .axes line{stroke:#e4e4e4}.scatter .label{fill:#333;font:10px monospace}
.scatter a:hover .label{text-decoration:underline}
)";

const std::string_view kHtmlReportErrorHook =
    R"(addEventListener("error",function(e){var b=document.body||document.documentElement;)"
    R"(b.setAttribute("data-js-errors",(b.getAttribute("data-js-errors")||"")+(e.message||"error")+"\n")});)";

const std::string_view kHtmlReportScript = R"(
"use strict";
(function () {
  var t0 = performance.now();
  // Maps are written as one HTML string each (far faster than element-by-element for
  // 300,000 cells); every text from the catalogue goes through esc().
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
    });
  }
  function shortKind(k) { return k.length > 7 && k.slice(-7) === ".weight" ? k.slice(0, -7) : k; }
  function draw(map, d) {
    var v = d.v.map(function (x) {  // per variant: the cell's opening tag up to its name, and its tooltip tail
      return ['<i class="t' + x[3] + (x[4] ? ' dev' : '') + '" data-type="' + esc(x[0]) + '" data-tensor="',
              '&#10;' + esc(x[0] + ' ' + x[1]) + '&#10;' + x[2] + ' bytes"'];
    });
    var h = ['<div class="r"><span class="k">layer</span>'];
    for (var l = 0; l < d.L; l++) h.push(l % 4 ? '<b></b>' : '<b>' + l + '</b>');
    h.push('</div>');
    d.r.forEach(function (row) {
      var pre = esc(row[0]), kind = esc(row[1]);
      h.push('<div class="r"><span class="k" title="' + kind + '">' + esc(shortKind(row[1])) + '</span>');
      for (var l = 0; l < d.L; l++) {
        var c = l < row[2].length ? row[2][l] : -1;
        if (c < 0) { h.push('<i class="none"></i>'); continue; }
        var name = pre + l + '.' + kind;
        h.push(v[c][0] + name + '" title="' + name + v[c][1] + '></i>');
      }
      h.push('</div>');
    });
    if (d.n.length) {
      h.push('<div class="r flat"><span class="k">no layer</span>');
      d.n.forEach(function (t) {
        var name = esc(t[0]), c = v[t[1]];
        h.push(c[0] + name + '" title="' + name + c[1] + '>' + esc(shortKind(t[0])) + '</i>');
      });
      h.push('</div>');
    }
    map.innerHTML = h.join('');
  }
  var maps = document.querySelectorAll(".policy-map");
  var byId = {};
  maps.forEach(function (m) {
    var raw = m.getAttribute("data-map");
    if (raw === null) return;
    var d = JSON.parse(raw);
    byId[m.parentNode.id] = d;
    draw(m, d);
  });
  document.querySelectorAll(".policy-group").forEach(function (g) {
    var differs = {};
    JSON.parse(g.getAttribute("data-differs")).forEach(function (t) { differs[t] = true; });
    g.querySelectorAll(".policy-map[data-copy]").forEach(function (m) {
      var d = byId[m.getAttribute("data-copy")];
      if (d) draw(m, d);
    });
    g.querySelectorAll("[data-tensor]").forEach(function (c) {
      if (differs[c.getAttribute("data-tensor")]) c.classList.add("differs");
    });
  });
  var table = document.querySelector("table.quants");
  if (table) {
    var body = table.tBodies[0], heads = table.querySelectorAll("th"), order = document.getElementById("sort-order");
    var sortBy = function (th, col) {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      order.textContent = "Sorted by " + th.textContent + ", " + (asc ? "ascending" : "descending") +
        ". Click a column heading to sort by it, again to reverse.";
      var key = function (tr) {
        var td = tr.cells[col], v = td.getAttribute("data-v");
        if (v !== null) return Number(v);
        var n = Number(td.textContent);
        return td.textContent !== "" && !isNaN(n) ? n : td.textContent;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), c = x < y ? -1 : x > y ? 1 : 0;
        return asc ? c : -c;
      });
      rows.forEach(function (tr) { body.appendChild(tr); });
    };
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () { sortBy(th, col); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(th, col); } });
    });
    // Filters: a model is shown when it passes every one; its row, map, list entry and scatter point follow.
    var field = function (id) { return document.getElementById(id); };
    var name = field("filter"), arch = field("filter-architecture"), ftype = field("filter-file-type"),
        type = field("filter-type"), lo = field("filter-min-gib"), hi = field("filter-max-gib"), shown = field("shown");
    var apply = function () {
      var q = name.value.toLowerCase(), gib = 1024 * 1024 * 1024, hidden = {}, count = 0;
      var min = lo.value === "" ? null : Number(lo.value) * gib, max = hi.value === "" ? null : Number(hi.value) * gib;
      Array.prototype.forEach.call(body.rows, function (tr) {
        var bytes = tr.getAttribute("data-bytes"), size = bytes === "" ? null : Number(bytes);
        var ok = tr.getAttribute("data-model").toLowerCase().indexOf(q) >= 0 &&
          (arch.value === "" || tr.getAttribute("data-architecture") === arch.value) &&
          (ftype.value === "" || tr.getAttribute("data-file-type") === ftype.value) &&
          (type.value === "" || (" " + tr.getAttribute("data-types") + " ").indexOf(" " + type.value + " ") >= 0) &&
          (min === null || (size !== null && size >= min)) && (max === null || (size !== null && size <= max));
        tr.hidden = !ok;
        if (ok) count++; else hidden[tr.getAttribute("data-id")] = true;
      });
      document.querySelectorAll("section.model, ul.other li").forEach(function (e) { e.hidden = !!hidden[e.id]; });
      document.querySelectorAll(".scatter a").forEach(function (a) {
        a.setAttribute("display", hidden[a.getAttribute("href").slice(1)] ? "none" : "inline");
      });
      shown.textContent = count + " of " + body.rows.length + " models shown";
    };
    [name, arch, ftype, type, lo, hi].forEach(function (e) { e.addEventListener("input", apply); });
  }
  var done = function () { document.body.setAttribute("data-render-ms", String(Math.round(performance.now()))); };
  document.body.setAttribute("data-script-ms", String(Math.round(performance.now() - t0)));
  requestAnimationFrame(function () { setTimeout(done, 0); });
})();
)";

}  // namespace modelcat::report
