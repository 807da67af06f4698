// history.js - draws the trend page (etp_history_trend_html): one SVG chart per
// metric, a line per series, hover details, regression marks. Every text from
// the data goes into the page as text (textContent), never as markup. A self
// test (pre#etp-selftest) records what was drawn for the headless-browser test;
// the fragment #exercise also moves the pointer over points and records the
// tooltip.
(function () {
  "use strict";
  var t0 = Date.now();
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22"];
  var W = 1000, H = 300, M = { l: 70, r: 16, t: 12, b: 34 };
  var CIRCLES_UP_TO = 4000; // points per chart drawn as dots; above, the line alone
  var stats = { charts: 0, series: 0, points: 0, circles: 0, vertices: 0, marks: 0 };
  var charts = [];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function iso(ms) {
    var d = new Date(ms);
    return isNaN(d.getTime()) ? String(ms) : d.toISOString();
  }
  function fmt(v) {
    if (v === null || v === undefined) return "\u2013";
    var a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : String(+v.toPrecision(6));
  }
  // Axis labels: short, with k/M/G for large values.
  function axisLabel(v) {
    var a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(4) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(4) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(4) + "k";
    return fmt(v);
  }
  // Round tick steps: 1, 2 or 5 times a power of ten.
  function ticks(lo, hi, n) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log(span / n) / Math.LN10));
    var err = span / n / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
    return out;
  }
  // Time ticks at round UTC steps (a minute, an hour, six hours, a day, ...).
  var STEPS = [1e3, 5e3, 15e3, 3e4, 6e4, 3e5, 9e5, 18e5, 36e5, 108e5, 216e5, 432e5, 864e5, 1728e5,
               6048e5, 2592e6, 31536e6];
  function timeTicks(lo, hi, n) {
    var step = STEPS[STEPS.length - 1];
    for (var i = 0; i < STEPS.length; i++) if ((hi - lo) / STEPS[i] <= n) { step = STEPS[i]; break; }
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
    return out;
  }
  function extent(list, pick) {
    var lo = Infinity, hi = -Infinity;
    list.forEach(function (s) {
      pick(s).forEach(function (v) {
        if (v !== null && isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
      });
    });
    if (lo === Infinity) { lo = 0; hi = 1; }
    if (lo === hi) { var pad = Math.abs(lo) * 0.05 || 1; lo -= pad; hi += pad; }
    return [lo, hi];
  }

  // A label value on one tooltip line: long ones are cut (the whole value is
  // in the data and the exports).
  function shortText(v) {
    return v.length > 160 ? v.slice(0, 160) + "\u2026 (" + v.length + " characters)" : v;
  }
  function labelText(s, i) {
    var lines = [];
    for (var f in s.fixed_labels)
      if (f !== "commit") lines.push(f + "=" + shortText(s.fixed_labels[f]));
    for (var k = 0; k < s.label_keys.length; k++) {
      var v = s.labels[k][i];
      if (v !== null && s.label_keys[k] !== "commit") lines.push(s.label_keys[k] + "=" + shortText(v));
    }
    return lines;
  }
  function commitOf(s, i) {
    if ("commit" in s.fixed_labels) return s.fixed_labels.commit;
    var k = s.label_keys.indexOf("commit");
    return k < 0 ? null : s.labels[k][i];
  }
  function tipText(s, i) {
    var lines = ["run " + s.run_id[i] + " (#" + s.run[i] + ")",
                 fmt(s.y[i]) + " " + (s.unit || "") + "   " + s.metric + (s.entity ? " " + s.entity : ""),
                 iso(s.t[i])];
    var c = commitOf(s, i);
    if (c !== null) lines.push("commit " + shortText(c));
    lines = lines.concat(labelText(s, i));
    lines.push("series " + s.series);
    var v = s.verdict;
    if (v && v.change && v.change.index === i)
      lines.push(v.verdict + " begins here: " + (v.change_pct >= 0 ? "+" : "") + fmt(v.change_pct) +
                 "% (confidence " + fmt(v.confidence) + ")");
    return lines.join("\n");
  }

  function drawChart(data, c, host) {
    var list = c.series.map(function (i) { return data.series[i]; });
    list.forEach(function (s) { if (!s.x) s.x = s.t; });
    var xr = extent(list, function (s) { return s.x; });
    var yr = extent(list, function (s) { return s.y; });
    var ypad = (yr[1] - yr[0]) * 0.06; yr = [yr[0] - ypad, yr[1] + ypad];
    var time = list.every(function (s) { return s.time_order; });
    function X(v) { return M.l + (v - xr[0]) / (xr[1] - xr[0]) * (W - M.l - M.r); }
    function Y(v) { return H - M.b - (v - yr[0]) / (yr[1] - yr[0]) * (H - M.t - M.b); }
    var sec = el("section", "chart");
    sec.appendChild(el("h2", null, c.metric + (c.entity ? " \u2014 " + c.entity : "") + " (" + c.unit + ")"));
    var root = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    var grid = svg("g", { "class": "grid" }), axis = svg("g", { "class": "axis" });
    ticks(yr[0], yr[1], 5).forEach(function (v) {
      grid.appendChild(svg("line", { x1: M.l, x2: W - M.r, y1: Y(v), y2: Y(v) }));
      var t = svg("text", { x: M.l - 6, y: Y(v) + 4, "text-anchor": "end" });
      t.textContent = axisLabel(v);
      axis.appendChild(t);
    });
    (time ? timeTicks(xr[0], xr[1], 6) : ticks(xr[0], xr[1], 6)).forEach(function (v) {
      var t = svg("text", { x: X(v), y: H - M.b + 16, "text-anchor": "middle" });
      t.textContent = time ? iso(v).slice(0, 16).replace("T", " ") : fmt(v);
      axis.appendChild(t);
    });
    root.appendChild(grid);
    root.appendChild(axis);
    var total = 0;
    list.forEach(function (s) { total += s.y.length; });
    var dots = total <= CIRCLES_UP_TO;
    var legend = el("ul", "legend");
    var screen = [];
    list.forEach(function (s, n) {
      var color = COLORS[n % COLORS.length], d = [], sx = [], sy = [], idx = [];
      for (var i = 0; i < s.y.length; i++) {
        if (s.y[i] === null || s.x[i] === null) continue;
        var px = X(s.x[i]), py = Y(s.y[i]);
        d.push((d.length ? "L" : "M") + px.toFixed(1) + " " + py.toFixed(1));
        sx.push(px); sy.push(py); idx.push(i);
      }
      stats.vertices += d.length;
      stats.points += s.y.length;
      var g = svg("g", { "data-series": s.series });
      g.appendChild(svg("path", { "class": "line", d: d.join(""), stroke: color }));
      if (dots)
        for (var k = 0; k < sx.length; k++) {
          g.appendChild(svg("circle", { "class": "pt", cx: sx[k], cy: sy[k], r: 3, fill: color }));
          stats.circles++;
        }
      var v = s.verdict;
      if (v && (v.verdict === "regression" || v.verdict === "suspicious") && v.change) {
        var ci = v.change.index, at = idx.indexOf(ci);
        if (at >= 0) {
          g.appendChild(svg("line", { "class": "mark " + v.verdict, x1: sx[at], x2: sx[at], y1: M.t, y2: H - M.b }));
          g.appendChild(svg("circle", { "class": "ring " + v.verdict, cx: sx[at], cy: sy[at], r: 7 }));
          g.appendChild(svg("line", { "class": "baseline", x1: M.l, x2: sx[at], y1: Y(v.baseline_value),
                                      y2: Y(v.baseline_value), stroke: color }));
          stats.marks++;
        }
      }
      root.appendChild(g);
      screen.push({ s: s, x: sx, y: sy, idx: idx });
      var li = el("li");
      var sw = el("span", "swatch");
      sw.style.background = color;
      li.appendChild(sw);
      li.appendChild(document.createTextNode(s.series));
      if (v) {
        var b = el("span", "badge " + v.verdict, v.verdict.replace("_", " ") +
                   (v.verdict === "regression" || v.verdict === "suspicious"
                    ? " " + (v.change_pct >= 0 ? "+" : "") + v.change_pct.toFixed(1) + "%" : ""));
        b.title = v.reason;
        li.appendChild(b);
      }
      legend.appendChild(li);
      stats.series++;
    });
    var hover = svg("circle", { "class": "hover", r: 5, cx: -10, cy: -10 });
    root.appendChild(hover);
    // Nearest point to the pointer: per series a binary search on x (points
    // are in order), then the neighbours around it.
    function nearest(px, py) {
      var best = null, bd = 400; // within 20 px
      screen.forEach(function (e) {
        var lo = 0, hi = e.x.length - 1;
        if (hi < 0) return;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (e.x[mid] < px) lo = mid + 1; else hi = mid; }
        for (var k = Math.max(0, lo - 3); k <= Math.min(e.x.length - 1, lo + 3); k++) {
          var dd = (e.x[k] - px) * (e.x[k] - px) + (e.y[k] - py) * (e.y[k] - py);
          if (dd < bd) { bd = dd; best = { e: e, k: k }; }
        }
      });
      return best;
    }
    function move(ev) {
      var r = root.getBoundingClientRect();
      var px = (ev.clientX - r.left) * W / r.width, py = (ev.clientY - r.top) * H / r.height;
      var b = nearest(px, py), tip = document.getElementById("tip");
      if (!b) { tip.style.display = "none"; hover.setAttribute("cx", -10); return; }
      hover.setAttribute("cx", b.e.x[b.k]);
      hover.setAttribute("cy", b.e.y[b.k]);
      tip.textContent = tipText(b.e.s, b.e.idx[b.k]);
      tip.style.display = "block";
      tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 300) + "px";
      tip.style.top = ev.clientY + 14 + "px";
    }
    root.addEventListener("mousemove", move);
    root.addEventListener("mouseleave", function () { document.getElementById("tip").style.display = "none"; });
    sec.appendChild(root);
    sec.appendChild(legend);
    host.appendChild(sec);
    stats.charts++;
    charts.push({ svg: root, screen: screen, W: W, H: H });
  }

  // #exercise: the pointer over the first point of the first chart and over
  // the change point of the first marked series; the tooltips are recorded.
  function exercise() {
    var out = { tips: [] };
    function point(c, e, k) {
      var r = c.svg.getBoundingClientRect();
      var ev = new MouseEvent("mousemove", { clientX: r.left + e.x[k] * r.width / c.W,
                                             clientY: r.top + e.y[k] * r.height / c.H, bubbles: true });
      c.svg.dispatchEvent(ev);
      var tip = document.getElementById("tip");
      out.tips.push({ shown: tip.style.display === "block", text: tip.textContent });
    }
    if (charts.length && charts[0].screen.length && charts[0].screen[0].x.length) point(charts[0], charts[0].screen[0], 0);
    charts.forEach(function (c) {
      c.screen.forEach(function (e) {
        var v = e.s.verdict;
        if (out.marked || !v || !v.change || (v.verdict !== "regression" && v.verdict !== "suspicious")) return;
        var at = e.idx.indexOf(v.change.index);
        if (at >= 0) { point(c, e, at); out.marked = true; }
      });
    });
    return out;
  }

  var result = { errors: errors, stats: stats, ms: {} };
  try {
    var data = JSON.parse(document.getElementById("etp-data").textContent);
    document.title = data.title;
    document.getElementById("title").textContent = data.title;
    var counts = {};
    data.series.forEach(function (s) { if (s.verdict) counts[s.verdict.verdict] = (counts[s.verdict.verdict] || 0) + 1; });
    var host = document.getElementById("charts");
    data.charts.forEach(function (c) { drawChart(data, c, host); });
    var parts = [stats.series + " series", stats.points + " points", stats.charts + (stats.charts === 1 ? " chart" : " charts")];
    for (var k in counts) parts.push(counts[k] + " " + k.replace("_", " "));
    document.getElementById("summary").textContent = parts.join(" \u00b7 ");
    if (location.hash === "#exercise") result.exercised = exercise();
  } catch (e) {
    errors.push(String(e && e.stack || e));
  }
  result.ms.script = Date.now() - t0;
  // ms since navigation start: the script done, and the frame after it
  // (null until that frame; the test takes the page again if it is).
  result.ms.drawn = Math.round(performance.now());
  result.ms.paint = null;
  var pre = document.createElement("pre");
  pre.id = "etp-selftest";
  pre.style.display = "none";
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
  document.body.setAttribute("data-etprof-ready", "1");
  requestAnimationFrame(function () {
    requestAnimationFrame(function () {
      result.ms.paint = Math.round(performance.now());
      pre.textContent = JSON.stringify(result);
    });
  });
})();
