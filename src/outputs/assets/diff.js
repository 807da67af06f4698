// diff.js - a self test of diff.html, for the headless-browser test: the
// page needs no script to be read. It measures every pair of bars and
// records, per row, the drawn widths next to the values they stand for,
// and the numerics table's rows (key, SNR cell, status) as drawn.
(function () {
  "use strict";
  var errors = [];
  var rows = [];
  var numerics = [];
  try {
    var trs = document.querySelectorAll("tr[data-key]");
    for (var i = 0; i < trs.length; i++) {
      var tr = trs[i];
      var b = tr.querySelector(".bar.base"), n = tr.querySelector(".bar.new");
      rows.push({
        section: tr.getAttribute("data-section"),
        key: tr.getAttribute("data-key"),
        base: tr.hasAttribute("data-base") ? Number(tr.getAttribute("data-base")) : null,
        "new": tr.hasAttribute("data-new") ? Number(tr.getAttribute("data-new")) : null,
        wb: b ? b.getBoundingClientRect().width : null,
        wn: n ? n.getBoundingClientRect().width : null,
        track: tr.querySelector("td.track").getBoundingClientRect().width
      });
    }
    var nrs = document.querySelectorAll("tr[data-numeric-key]");
    for (var j = 0; j < nrs.length; j++) {
      var cells = nrs[j].querySelectorAll("td");
      numerics.push({
        key: nrs[j].getAttribute("data-numeric-key"),
        snr: cells.length > 3 ? cells[3].textContent : null,
        diverged: nrs[j].classList.contains("diverged"),
        first: nrs[j].classList.contains("first"),
        height: nrs[j].getBoundingClientRect().height
      });
    }
  } catch (e) {
    errors.push(String(e));
  }
  var pre = document.createElement("pre");
  pre.id = "etp-selftest";
  pre.style.display = "none";
  pre.textContent = JSON.stringify({ errors: errors, rows: rows, numerics: numerics });
  document.body.appendChild(pre);
  document.body.setAttribute("data-etprof-ready", "1");
})();
