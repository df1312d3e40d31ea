"""The HTML report's only style sheet and script, and the Content-Security-Policy that
allows exactly them (by their SHA-256) and images inlined as ``data:`` URLs: nothing
else loads or runs, whatever an input holds.

The script makes each long table sortable (a button in each column heading: numbers
by value, missing last; text in natural order) and filterable (a search box above
it). Without it the tables read the same, in the order kprofile printed them.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1400px;
  padding: 0 1rem; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 1rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
th, td { border: 1px solid #ccc; padding: 0.15rem 0.45rem; vertical-align: top; }
thead th { background: #eef1f5; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { font-weight: 700; background: #f3f8e9; }
th button { all: inherit; cursor: pointer; padding: 0; border: 0; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
input[type=search] { display: block; margin: 0.5rem 0 0; padding: 0.2rem; }
figure { margin: 1rem 0 2rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-style: italic; margin-top: 0.3rem; }
.scroll { overflow-x: auto; }
p.note { margin: 0.2rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
nav ul { columns: 2; }
"""

SCRIPT = """
"use strict";
document.querySelectorAll("table.long").forEach(function (table) {
  var body = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var filter = document.createElement("input");
  filter.type = "search";
  filter.placeholder = "filter the rows";
  filter.setAttribute("aria-label", "filter the rows of " + table.caption.textContent);
  filter.addEventListener("input", function () {
    var words = filter.value.toLowerCase();
    Array.prototype.forEach.call(body.rows, function (row) {
      row.hidden = words !== "" && row.textContent.toLowerCase().indexOf(words) < 0;
    });
  });
  table.parentNode.insertBefore(filter, table);
  heads.forEach(function (th, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      var numeric = th.classList.contains("num");
      heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var key = function (row) {
        var text = row.cells[column].textContent;
        return numeric ? parseFloat(text) : text;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (numeric) {
          if (isNaN(x) || isNaN(y)) { return isNaN(x) - isNaN(y); }
          return up ? x - y : y - x;
        }
        var order = x.localeCompare(y, undefined, {numeric: true});
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


POLICY = (
    "default-src 'none'; img-src data:; "
    f"style-src 'sha256-{_digest(STYLE)}'; script-src 'sha256-{_digest(SCRIPT)}'; "
    "base-uri 'none'; form-action 'none'"
)
