/* etprof report: etprof's own script. No libraries, no network: it reads the
 * JSON blocks of this page, draws the graphs into their SVG frames and drives
 * them and the tables. Big graphs stay fast: in detail only the nodes and
 * edges in sight exist as elements (made once, kept for reuse); zoomed far
 * out the whole drawing is a few paths, one per colour. Entities (details,
 * search) are parsed on first use. */
(function () {
  'use strict';
  var errors = [], t0 = performance.now();
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });

  var el = etpPage.el, sv = etpPage.sv, take = etpPage.take; /* page_util.js */
  var D = take('etp-data');
  var ENTS = null;
  var panel = document.getElementById('panel');
  var tip = document.getElementById('tip');
  var legend = document.getElementById('legend');
  var views = [];
  var cur = 0, metric = 0, sel = null, hits = [], hitAt = -1, drag = null;
  var CELL = 600;          /* grid cell of the spatial index, drawing units */
  var DETAIL_SCALE = 0.2;  /* below this scale: the overview */
  var DETAIL_MAX = 2500;   /* more nodes in sight than this: the overview */
  var LABEL_MAX = 44;

  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return '\u2013';
    if (Math.abs(v) >= 1e4) return v.toFixed(0);
    return String(+v.toPrecision(4));
  }
  function ents() {
    if (!ENTS) ENTS = take('etp-ents');
    return ENTS;
  }
  function ent(n) { return n.e === undefined ? null : ents()[n.e]; }
  function linkText(n) { return D.links[n.ln]; }
  function unitOf(m) { return D.metrics[m].unit; }

  /* ---- views: geometry, drawing what is in sight, pan, zoom, colours ---- */
  function prepare(o) {
    var V = o.V, n = V.nodes.length, nh = V.nh / 10;
    o.bx = new Float64Array(n); o.by = new Float64Array(n); o.bw = new Float64Array(n); o.nh = nh;
    o.cells = Object.create(null); o.ecells = Object.create(null); o.ewide = [];
    o.placed = 0;
    for (var i = 0; i < n; i++) {
      var x = V.x[i] / 10, y = V.y[i] / 10, w = V.bw[i] / 10;
      o.bx[i] = x; o.by[i] = y; o.bw[i] = w;
      o.pos[i] = [x + w / 2, y + nh / 2];
      if (isFinite(x) && isFinite(y) && w > 0 && x >= 0 && y >= 0 && x + w <= V.w + 0.1 && y + nh <= V.h + 0.1) o.placed++;
      var k = Math.floor((x + w / 2) / CELL) + ',' + Math.floor((y + nh / 2) / CELL);
      (o.cells[k] || (o.cells[k] = [])).push(i);
    }
    o.edgeD = [];
    V.edges.forEach(function (p, e) {
      var d = 'M' + p[0] / 10 + ',' + p[1] / 10, x0 = p[0], x1 = p[0], y0 = p[1], y1 = p[1];
      for (var q = 2; q < p.length; q += 2) {
        d += 'L' + p[q] / 10 + ',' + p[q + 1] / 10;
        x0 = Math.min(x0, p[q]); x1 = Math.max(x1, p[q]); y0 = Math.min(y0, p[q + 1]); y1 = Math.max(y1, p[q + 1]);
      }
      o.edgeD[e] = d;
      index(o, e, x0 / 10, y0 / 10, x1 / 10, y1 / 10);
    });
    /* The delegated-region outlines C wrote into the frame: culled like the
     * edges (items after them), as their labels cost a relayout per zoom step. */
    o.E = V.edges.length;
    o.svg.querySelectorAll('g.grp').forEach(function (g, k) {
      var xs = [], ys = [];
      g.querySelectorAll('path').forEach(function (p) {
        var c = p.getAttribute('d').match(/-?[\d.]+/g) || [];
        for (var q = 0; q + 1 < c.length; q += 2) { xs.push(+c[q]); ys.push(+c[q + 1]); }
      });
      var t = g.querySelector('text');
      if (t) { xs.push(+t.getAttribute('x')); ys.push(+t.getAttribute('y') - 12); }
      o.eg[o.E + k] = g;
      g.parentNode.removeChild(g);
      if (xs.length) index(o, o.E + k, Math.min.apply(null, xs), Math.min.apply(null, ys), Math.max.apply(null, xs), Math.max.apply(null, ys));
    });
  }
  /* Item @id (an edge, or a region after the edges) in the cells its box meets. */
  function index(o, id, x0, y0, x1, y1) {
    var cx0 = Math.floor(x0 / CELL), cx1 = Math.floor(x1 / CELL), cy0 = Math.floor(y0 / CELL), cy1 = Math.floor(y1 / CELL);
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > 64) { o.ewide.push(id); return; }
    for (var cx = cx0; cx <= cx1; cx++) for (var cy = cy0; cy <= cy1; cy++) {
      var kk = cx + ',' + cy;
      (o.ecells[kk] || (o.ecells[kk] = [])).push(id);
    }
  }
  function nodeClass(o, i) {
    var V = o.V, c = 'n ' + V.kinds[+V.k.charAt(i)];
    if (V.nodes[i].unl) c += ' unl';
    if (V.metrics[metric].v[i] === null) c += ' nv';
    ['hit', 'sel', 'rel', 'fnd'].forEach(function (m) { if (o.mk[m].has(i)) c += ' ' + m; });
    return c;
  }
  function paintNode(o, i) {
    var g = o.g[i], M = o.V.metrics[metric], v = M.v[i];
    var fg = M.fg.charAt(i) === '1' ? '#ffffff' : '#1f1f1f';
    g.setAttribute('class', nodeClass(o, i));
    g.firstChild.setAttribute('fill', '#' + M.bg.substr(6 * i, 6));
    g.childNodes[1].setAttribute('fill', fg);
    g.childNodes[2].setAttribute('fill', fg);
    g.childNodes[2].textContent = v === null ? '' : fmt(v) + (o.V.na.charAt(i) === '1' ? '*' : '');
  }
  function makeNode(o, i) {
    var w = o.bw[i];
    var g = sv('g', {'data-i': i, transform: 'translate(' + o.bx[i] + ',' + o.by[i] + ')'});
    g.appendChild(sv('rect', {width: w, height: o.nh, rx: 5}));
    var l = sv('text', {'class': 'l', x: w / 2, y: 14});
    l.textContent = etpPage.shortLabel(o.V.nodes[i].label, LABEL_MAX);
    g.appendChild(l);
    g.appendChild(sv('text', {'class': 'v', x: w / 2, y: 28}));
    o.g[i] = g;
    paintNode(o, i);
    return g;
  }
  /* The frame's size, kept until the window is resized or the view shown:
   * reading it after drawing would force a layout on every pan step. */
  function size(o) {
    if (!o.size) {
      var r = o.svg.getBoundingClientRect();
      if (!r.width) return [800, 500]; /* hidden */
      o.size = [r.width, r.height];
    }
    return o.size;
  }
  /* Nodes and edges whose cells meet the visible rectangle (plus a margin). */
  function inSight(o) {
    var WH = size(o), m = 200;
    var x0 = Math.floor((-o.tx / o.s - m) / CELL), x1 = Math.floor(((WH[0] - o.tx) / o.s + m) / CELL);
    var y0 = Math.floor((-o.ty / o.s - m) / CELL), y1 = Math.floor(((WH[1] - o.ty) / o.s + m) / CELL);
    var ns = [], es = new Set(o.ewide);
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > 4 * o.V.nodes.length + 64) return null;
    for (var cx = x0; cx <= x1; cx++) for (var cy = y0; cy <= y1; cy++) {
      var c = o.cells[cx + ',' + cy];
      if (c) { for (var k = 0; k < c.length; k++) ns.push(c[k]); if (ns.length > DETAIL_MAX) return null; }
      var ec = o.ecells[cx + ',' + cy];
      if (ec) for (var q = 0; q < ec.length; q++) es.add(ec[q]);
    }
    return {nodes: ns, edges: es};
  }
  function overview(o) {
    if (o.ov && o.ovMetric === metric) return o.ov;
    var M = o.V.metrics[metric], by = Object.create(null), n = o.V.nodes.length, drawn = 0;
    var g = sv('g', {'class': 'ov'});
    for (var i = 0; i < n; i++) {
      var c = M.bg.substr(6 * i, 6);
      (by[c] || (by[c] = [])).push('M' + o.bx[i] + ',' + o.by[i] + 'h' + o.bw[i] + 'v' + o.nh + 'h' + (-o.bw[i]) + 'z');
      drawn++;
    }
    if (o.edgeD.length) g.appendChild(sv('path', {'class': 'ove', d: o.edgeD.join('')}));
    Object.keys(by).sort().forEach(function (c) { g.appendChild(sv('path', {fill: '#' + c, d: by[c].join('')})); });
    if (o.ov && o.ov.parentNode) o.ov.parentNode.replaceChild(g, o.ov);
    o.ov = g; o.ovMetric = metric; o.ovDrawn = drawn;
    return g;
  }
  function render(o) {
    if (o.view.hidden) return;
    var vis = o.s < DETAIL_SCALE ? null : inSight(o);
    if (!vis) {
      var ov = overview(o);
      if (ov.parentNode !== o.vp) o.vp.appendChild(ov);
      o.gN.style.display = o.gE.style.display = o.gG.style.display = 'none';
      o.mode = 'overview';
      return;
    }
    if (o.ov && o.ov.parentNode) o.ov.parentNode.removeChild(o.ov);
    o.gN.style.display = o.gE.style.display = o.gG.style.display = '';
    var want = new Set(vis.nodes);
    o.shown.forEach(function (i) { if (!want.has(i)) o.gN.removeChild(o.g[i]); });
    var frag = document.createDocumentFragment();
    want.forEach(function (i) {
      var g = o.g[i] || makeNode(o, i);
      if (o.painted[i] !== metric) { paintNode(o, i); o.painted[i] = metric; }
      if (!o.shown.has(i)) frag.appendChild(g);
    });
    o.gN.appendChild(frag);
    o.shown = want;
    o.eShown.forEach(function (e) { if (!vis.edges.has(e)) o.eg[e].parentNode.removeChild(o.eg[e]); });
    var ef = document.createDocumentFragment(), gf = document.createDocumentFragment();
    vis.edges.forEach(function (e) {
      if (o.eShown.has(e)) return;
      if (e >= o.E) gf.appendChild(o.eg[e]);
      else ef.appendChild(o.eg[e] || (o.eg[e] = sv('path', {d: o.edgeD[e]})));
    });
    o.gE.appendChild(ef);
    o.gG.appendChild(gf);
    o.eShown = vis.edges;
    o.mode = 'detail';
  }
  function apply(o, later) {
    o.vp.setAttribute('transform', 'translate(' + o.tx.toFixed(1) + ',' + o.ty.toFixed(1) + ') scale(' + o.s.toFixed(5) + ')');
    if (!later) { render(o); return; }
    if (o.pending) return;
    o.pending = true;
    requestAnimationFrame(function () { o.pending = false; render(o); });
  }
  function fit(o) {
    var WH = size(o), W = WH[0], H = WH[1];
    var s = Math.min(W / o.V.w, H / o.V.h, 1.2);
    if (s >= 0.35) {
      o.s = s; o.tx = (W - o.V.w * s) / 2; o.ty = (H - o.V.h * s) / 2;
    } else {
      /* A long graph: readable scale, top of the drawing. */
      o.s = Math.max(Math.min(W / o.V.w, 1), 0.35);
      o.tx = Math.max((W - o.V.w * o.s) / 2, 0); o.ty = 0;
    }
    o.fitted = true;
    apply(o);
  }
  /* The whole drawing in the frame, however small. */
  function fitAll(o) {
    var WH = size(o), s = Math.min(WH[0] / o.V.w, WH[1] / o.V.h, 1.2);
    o.s = s; o.tx = (WH[0] - o.V.w * s) / 2; o.ty = (WH[1] - o.V.h * s) / 2;
    apply(o);
  }
  function center(o, i) {
    var WH = size(o);
    var p = o.pos[i];
    if (o.s < 0.6) o.s = 0.9;
    o.tx = WH[0] / 2 - p[0] * o.s;
    o.ty = WH[1] / 2 - p[1] * o.s;
    apply(o);
  }
  function nodeAt(t) { return t && t.closest ? t.closest('g.n') : null; }

  function colour(m) {
    views.forEach(function (o) {
      o.g.forEach(function (g, i) { if (g) { paintNode(o, i); o.painted[i] = m; } });
      render(o);
    });
    drawLegend();
  }

  function drawLegend() {
    legend.textContent = '';
    if (!views.length) return;
    var o = views[cur], M = o.V.metrics[metric];
    if (M.min !== undefined) {
      legend.appendChild(el('span', '', fmt(M.min)));
      var bar = el('span', 'bar');
      bar.style.background = 'linear-gradient(to right,' + D.stops.map(function (s) { return s[1] + ' ' + (s[0] * 100) + '%'; }).join(',') + ')';
      legend.appendChild(bar);
      legend.appendChild(el('span', '', fmt(M.max) + ' ' + unitOf(metric)));
    } else {
      legend.appendChild(el('span', '', 'no values for this metric in this view'));
    }
    if (M.noSum) legend.appendChild(el('span', 'key', 'not additive: never sum these'));
    var keys = [['nv', 'no value'], ['unl', 'unlinked'], ['grp', 'delegated region']];
    keys.forEach(function (k) {
      if (k[0] === 'grp' && !(o.V.groups && o.V.groups.length)) return;
      var s = el('span', 'key'); s.appendChild(el('span', 'sw ' + k[0])); s.appendChild(document.createTextNode(k[1]));
      legend.appendChild(s);
    });
    legend.appendChild(el('span', 'key', '* shared / non-additive'));
  }

  function setView(v) {
    cur = v;
    views.forEach(function (o, k) { o.view.hidden = k !== v; });
    views[v].size = null;
    document.querySelectorAll('.tabs button').forEach(function (b) { b.classList.toggle('on', +b.getAttribute('data-view') === v); });
    if (!views[v].fitted) fit(views[v]); else render(views[v]);
    runSearch();
    drawLegend();
  }

  /* ---- selection and the details panel ---- */
  /* Marks live in per-view sets, so nodes drawn later get them too. */
  function mark(o, i, cls) {
    o.mk[cls].add(i);
    if (o.g[i]) o.g[i].classList.add(cls);
  }
  function clearMarks(cls) {
    views.forEach(function (o) {
      o.mk[cls].forEach(function (i) { if (o.g[i]) o.g[i].classList.remove(cls); });
      o.mk[cls].clear();
    });
  }
  function link(text, v, i) {
    var a = el('a', '', text);
    a.href = '#';
    a.addEventListener('click', function (ev) { ev.preventDefault(); go(v, i); });
    return a;
  }
  function row(tb, k, v, cls) {
    var tr = el('tr'); tr.appendChild(el('th', '', k));
    var td = el('td', cls);
    if (v instanceof Node) td.appendChild(v); else td.textContent = v;
    tr.appendChild(td); tb.appendChild(tr);
  }
  function statsTable(s, unit) {
    var t = el('table'), names = ['avg', 'p10', 'p50', 'p90', 'min', 'max'];
    names.forEach(function (k, j) { row(t, k + ' (' + unit + ')', fmt(s[j]), 'num'); });
    return t;
  }
  function list(items) {
    var d = el('div');
    items.forEach(function (x) { d.appendChild(x instanceof Node ? x : el('span', 'tag', x)); d.appendChild(document.createTextNode(' ')); });
    return d;
  }

  function select(v, i) {
    clearMarks('sel'); clearMarks('rel');
    var o = views[v], n = o.V.nodes[i], e = ent(n);
    sel = {v: v, i: i};
    mark(o, i, 'sel');
    var other = v === 0 ? 1 : 0;
    if (n.to && views[other]) n.to.forEach(function (j) { mark(views[other], j, 'rel'); });
    panel.textContent = '';
    panel.appendChild(el('h3', '', n.label));
    panel.appendChild(el('div', 'mono', n.id + '  \u00b7  ' + o.V.title.toLowerCase()));
    var t = el('table');
    row(t, 'link', linkText(n), n.unl ? 'bad' : 'ok');
    if (e) {
      if (e.op) row(t, 'type', e.op);
      if (e.ik) row(t, 'instruction', e.ik);
      if (e.be) row(t, 'backend', e.be);
      if (e.h) row(t, 'debug handles', e.h.join(', '));
      if (e.u) row(t, 'unresolved handles', e.u.join(', '), 'bad');
      row(t, 'executions', e.x + ' of ' + D.executions + (e.ev ? ' (' + e.ev + ' events)' : ''));
      if (e.src) row(t, 'timing from', e.src);
      if (e.s) row(t, 'additivity', e.add ? 'additive' : (e.sh ? 'shared timing: not additive' : 'not additive'), e.add ? 'ok' : 'bad');
    } else {
      row(t, 'timing', 'none measured');
    }
    if (n.g !== undefined && o.V.groups) row(t, 'delegated region', o.V.groups[n.g]);
    panel.appendChild(t);
    if (window.etpVgfDetail) window.etpVgfDetail(n, panel); /* report_vgf.js */
    if (e && e.s) {
      panel.appendChild(el('h4', '', 'Time per execution'));
      panel.appendChild(statsTable(e.s, D.unit));
      if (D.execAvg > 0) panel.appendChild(el('div', '', 'share of Method::execute avg: ' + fmt(100 * e.s[0] / D.execAvg) + ' %'));
    }
    if (e && e.npu) {
      /* The Ethos-U split of this delegate call (report_view.c npu_json). */
      panel.appendChild(el('h4', '', 'Ethos-U delegate call (per execution)'));
      var nt = el('table'), x = e.npu[0];
      row(nt, 'execute() avg (' + D.unit + ')', fmt(x), 'num');
      ['NPU', 'input copy (CPU)', 'output copy (CPU)', 'rest of the call (CPU)'].forEach(function (k, j) {
        var v = e.npu[j + 1];
        if (v !== null) row(nt, k, fmt(v) + ' ' + D.unit + (x > 0 ? ' \u00b7 ' + fmt(100 * v / x) + ' %' : ''), 'num');
      });
      panel.appendChild(nt);
      panel.appendChild(el('div', 'npu-verdict', e.npuv));
    }
    if (e && e.k !== undefined) {
      panel.appendChild(el('h4', '', 'Kernel (native_call) and dispatch'));
      var kt = el('table');
      row(kt, 'kernel avg (' + D.unit + ')', fmt(e.k), 'num');
      if (e.d !== undefined) row(kt, 'dispatch avg (' + D.unit + ')', fmt(e.d), 'num');
      panel.appendChild(kt);
    }
    if (e && e.co) {
      panel.appendChild(el('h4', '', 'Co-attributed (same event, full time each)'));
      panel.appendChild(list(e.co.map(function (id) {
        var j = o.byId[id];
        return j === undefined ? id : link(id, v, j);
      })));
    }
    if (n.dev && n.dev.length) {
      panel.appendChild(el('h4', '', 'Delegate events'));
      var dt = el('table');
      n.dev.forEach(function (k) {
        var de = ents()[k];
        row(dt, de.name || de.op || de.id, de.s ? fmt(de.s[0]) + ' ' + D.unit + ' avg' : 'not timed', 'num');
      });
      panel.appendChild(dt);
    }
    if (views[other] && n.to) {
      panel.appendChild(el('h4', '', v === 0 && views.length > 1 ? 'Runs source operators' : 'Run by instructions'));
      panel.appendChild(n.to.length ? list(n.to.map(function (j) { return link(views[other].V.nodes[j].label + ' (' + views[other].V.nodes[j].id + ')', other, j); }))
        : el('div', 'bad', 'none (' + linkText(n) + ')'));
    }
    if (e && (e.mp || e.mt || e.fn)) {
      var mt = el('table');
      if (e.mp !== undefined) row(mt, 'module', e.mp || '(root)');
      if (e.mt) row(mt, 'module type', e.mt);
      if (e.fn) row(mt, 'source fn', e.fn);
      panel.appendChild(mt);
    }
    if (n['in']) {
      panel.appendChild(el('h4', '', 'Inputs'));
      panel.appendChild(list(n['in']));
    }
    if (e && e.st) {
      panel.appendChild(el('h4', '', 'Stack trace'));
      panel.appendChild(el('pre', '', e.st));
    }
  }

  function go(v, i) {
    if (v !== cur) setView(v);
    select(v, i);
    center(views[v], i);
  }

  /* ---- search ---- */
  var search = document.getElementById('search');
  var info = document.getElementById('search-info');
  function runSearch() {
    clearMarks('hit');
    hits = []; hitAt = -1;
    if (!search || !views.length) return;
    var q = search.value.trim().toLowerCase();
    if (!q) { info.textContent = ''; return; }
    var o = views[cur];
    o.V.nodes.forEach(function (n, i) {
      var e = ent(n);
      var hay = (n.label + ' ' + n.id + ' ' + (e ? (e.op || '') + ' ' + (e.name || '') + ' ' + (e.mp || '') : '')).toLowerCase();
      if (hay.indexOf(q) >= 0) { hits.push(i); mark(o, i, 'hit'); }
    });
    info.textContent = hits.length + (hits.length === 1 ? ' match' : ' matches');
  }
  if (search) {
    search.addEventListener('input', runSearch);
    search.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter' || !hits.length) return;
      hitAt = (hitAt + 1) % hits.length;
      go(cur, hits[hitAt]);
      info.textContent = (hitAt + 1) + ' of ' + hits.length;
    });
  }

  /* ---- wiring ---- */
  D.views.forEach(function (V, vi) {
    var svg = document.getElementById('svg' + vi);
    var o = {V: V, svg: svg, view: document.getElementById('view' + vi), vp: svg.querySelector('g.vp'),
             gN: svg.querySelector('g.nodes'), gE: svg.querySelector('g.edges'), gG: svg.querySelector('g.grps'),
             g: [], eg: [], pos: [], painted: [], shown: new Set(), eShown: new Set(),
             mk: {sel: new Set(), rel: new Set(), hit: new Set(), fnd: new Set()}, ov: null, mode: '',
             s: 1, tx: 0, ty: 0, byId: Object.create(null), fitted: false};
    prepare(o);
    V.nodes.forEach(function (n, j) { o.byId[n.id] = j; });
    views.push(o);

    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var b = svg.getBoundingClientRect(), mx = ev.clientX - b.left, my = ev.clientY - b.top;
      var ns = Math.min(8, Math.max(0.003, o.s * Math.exp(-ev.deltaY * 0.0015))), f = ns / o.s;
      o.tx = mx - (mx - o.tx) * f; o.ty = my - (my - o.ty) * f; o.s = ns;
      apply(o, true);
    }, {passive: false});
    svg.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      drag = {o: o, x: ev.clientX, y: ev.clientY, tx: o.tx, ty: o.ty, moved: false};
      svg.classList.add('drag');
    });
    svg.addEventListener('mousemove', function (ev) {
      if (drag) return;
      var g = nodeAt(ev.target);
      if (!g) { tip.hidden = true; return; }
      var n = V.nodes[+g.getAttribute('data-i')], v = V.metrics[metric].v[+g.getAttribute('data-i')];
      tip.textContent = n.label + ' \u2014 ' + D.metrics[metric].name + ': ' + (v === null ? 'no value' : fmt(v) + ' ' + unitOf(metric)) + (n.unl ? ' \u2014 ' + linkText(n) : '');
      tip.style.left = (ev.clientX + 14) + 'px'; tip.style.top = (ev.clientY + 12) + 'px';
      tip.hidden = false;
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; });
  });
  window.addEventListener('resize', function () {
    views.forEach(function (o) { o.size = null; });
    if (views.length) apply(views[cur], true);
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    drag.o.tx = drag.tx + dx; drag.o.ty = drag.ty + dy;
    apply(drag.o, true);
  });
  window.addEventListener('mouseup', function (ev) {
    if (!drag) return;
    var d = drag; drag = null;
    d.o.svg.classList.remove('drag');
    if (d.moved) return;
    var g = nodeAt(ev.target);
    if (g) { select(views.indexOf(d.o), +g.getAttribute('data-i')); return; }
    if (d.o.mode === 'overview') {
      /* A click on the overview zooms in to readable detail there. */
      var b = d.o.svg.getBoundingClientRect(), mx = ev.clientX - b.left, my = ev.clientY - b.top;
      var ns = 0.9, f = ns / d.o.s;
      d.o.tx = mx - (mx - d.o.tx) * f; d.o.ty = my - (my - d.o.ty) * f; d.o.s = ns;
      apply(d.o);
    }
  });
  document.querySelectorAll('.tabs button').forEach(function (b) {
    b.addEventListener('click', function () { setView(+b.getAttribute('data-view')); });
  });
  var msel = document.getElementById('metric');
  if (msel) msel.addEventListener('change', function () { metric = +msel.value; colour(metric); });
  var fitb = document.getElementById('fit');
  if (fitb) fitb.addEventListener('click', function () { fit(views[cur]); });

  /* Sortable tables: numbers by their exact data-v, text otherwise. */
  document.querySelectorAll('table.sortable').forEach(function (t) {
    var ths = t.querySelectorAll('thead th');
    ths.forEach(function (th, col) {
      th.addEventListener('click', function () {
        var num = th.getAttribute('data-t') === 'n';
        var desc = !th.classList.contains('desc');
        ths.forEach(function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(desc ? 'desc' : 'asc');
        var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col], r;
          if (num) {
            var p = x.getAttribute('data-v'), q = y.getAttribute('data-v');
            p = p === '' || p === null ? -Infinity : +p; q = q === '' || q === null ? -Infinity : +q;
            r = p < q ? -1 : p > q ? 1 : 0;
          } else {
            r = x.textContent.localeCompare(y.textContent);
          }
          return desc ? -r : r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll('#tables a[data-view]').forEach(function (a) {
    a.addEventListener('click', function (ev) {
      ev.preventDefault();
      document.getElementById('graphs').scrollIntoView();
      go(+a.getAttribute('data-view'), +a.getAttribute('data-node'));
    });
  });

  /* ---- findings (the "etp-findings" block: findings_json.c's form) ---- */
  /* Each finding as a list item; a click highlights what it names: the
   * table rows with that entity id (data-id) and the drawn nodes of those
   * entities (a delegate call also for its delegate events). A second
   * click, or another finding, clears or moves the highlight. */
  var FND = take('etp-findings') || [], fndOn = -1, fndItems = [], fndLast = null, FND_NAMED = 6;
  function num(v, unit) {
    return fmt(v) + (unit === '%' ? ' %' : unit ? ' ' + unit : '');
  }
  function drawFindings() {
    var ol = document.getElementById('findings-list');
    if (!ol) return;
    FND.forEach(function (f, k) {
      var d = f.details || {}, li = el('li', 'fsev-' + f.severity + ' fst-' + f.status);
      li.tabIndex = 0;
      li.setAttribute('data-k', k);
      var head = el('div', 'fnd-head');
      head.appendChild(el('span', 'fnd-badge', f.status === 'withheld' ? 'withheld' : f.severity));
      head.appendChild(el('code', '', f.code));
      head.appendChild(el('span', 'fnd-cat', f.category));
      if (d.title) head.appendChild(el('span', 'fnd-title', d.title));
      li.appendChild(head);
      li.appendChild(el('div', 'fnd-msg', (f.status === 'withheld' ? 'withheld: ' : '') + f.message));
      if (d.evidence && d.evidence.length) {
        var ev = el('div', 'fnd-ev');
        d.evidence.forEach(function (v) {
          var s = el('span', 'tag', v.name + ' ' + num(v.value, v.unit) + (v.additive ? '' : ' (not additive)'));
          s.title = 'from ' + v.source;
          ev.appendChild(s); ev.appendChild(document.createTextNode(' '));
        });
        li.appendChild(ev);
      }
      if (d.thresholds && d.thresholds.length)
        li.appendChild(el('div', 'fnd-thr', 'thresholds: ' + d.thresholds.map(function (t) {
          return t.key + ' = ' + num(t.value, t.unit) + (t.given ? ' (set)' : '');
        }).join(', ')));
      var ae = f.affected_entities || [];
      if (ae.length) /* the first few by name: a click shows them all */
        li.appendChild(el('div', 'fnd-ents', ae.length + ' affected: ' + ae.slice(0, FND_NAMED).map(function (e) {
          return (e.name || e.id) + (e.role ? ' (' + e.role + ')' : '') +
                 (e.share_pct !== undefined ? ' ' + fmt(e.share_pct) + ' %' : '');
        }).join(', ') + (ae.length > FND_NAMED ? ', \u2026 and ' + (ae.length - FND_NAMED) + ' more' : '')));
      if (d.next_step) li.appendChild(el('div', 'fnd-next', '\u2192 ' + d.next_step));
      li.addEventListener('click', function () { showFinding(k); });
      li.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') showFinding(k); });
      ol.appendChild(li);
      fndItems.push(li);
    });
  }
  function showFinding(k) {
    clearMarks('fnd');
    document.querySelectorAll('#tables tr.fnd').forEach(function (r) { r.classList.remove('fnd'); });
    fndItems.forEach(function (li) { li.classList.remove('on'); });
    var info = document.getElementById('findings-info');
    if (info) info.parentNode.removeChild(info);
    if (k === fndOn || !FND[k]) { fndOn = -1; fndLast = {finding: -1, rows: [], nodes: 0}; return; }
    fndOn = k;
    var ids = new Set((FND[k].affected_entities || []).map(function (e) { return e.id; }));
    var rows = [], nodes = 0, found = new Set();
    document.querySelectorAll('#tables tr[data-id]').forEach(function (r) {
      var id = r.getAttribute('data-id');
      if (ids.has(id)) { r.classList.add('fnd'); rows.push(id); found.add(id); }
    });
    var inView = [];
    views.forEach(function (o, v) {
      inView[v] = 0;
      o.V.nodes.forEach(function (n, i) {
        var e = ent(n), hit = ids.has(n.id) || (e && ids.has(e.id));
        if (e && ids.has(e.id)) found.add(e.id);
        if (n.dev) n.dev.forEach(function (q) { if (ids.has(ents()[q].id)) { hit = true; found.add(ents()[q].id); } });
        if (hit) { mark(o, i, 'fnd'); nodes++; inView[v]++; }
      });
    });
    /* Nothing to see in the view shown: show the one that has it. */
    if (views.length && !inView[cur]) {
      var other = inView.findIndex(function (c) { return c > 0; });
      if (other >= 0) setView(other);
    }
    if (views.length && inView[cur]) center(views[cur], views[cur].mk.fnd.values().next().value);
    var li = fndItems[k];
    li.classList.add('on');
    var box = li.parentNode; /* the list scrolls: the selected finding in sight */
    var top = li.offsetTop - box.offsetTop, bottom = top + li.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, bottom - box.clientHeight);
    if (ids.size) {
      var p = el('div', 'fnd-info', found.size + ' of ' + ids.size + ' affected entities highlighted (' + nodes +
                 ' node' + (nodes === 1 ? '' : 's') + ', ' + rows.length + ' table row' + (rows.length === 1 ? '' : 's') +
                 '); the tables list the top ' + 'entities only: every entity is in operators.csv.');
      p.id = 'findings-info';
      li.appendChild(p);
    }
    fndLast = {finding: k, rows: rows, nodes: nodes};
  }
  drawFindings();

  /* #exercise: drive every control once (tests run it in a headless
   * browser; any script error turns the ready marker into "error"). */
  var exercised = null;
  function exercise() {
    var done = {metrics: 0, selected: 0, sorted: 0, searched: 0};
    for (var m = 0; m < D.metrics.length; m++) { msel.value = String(m); msel.dispatchEvent(new Event('change')); done.metrics++; }
    views.forEach(function (o, v) {
      setView(v);
      o.V.nodes.forEach(function (n, i) { if (i < 200 || n.unl || i % 97 === 0) { select(v, i); done.selected++; } });
      var first = o.V.nodes.findIndex(function (n) { return n.to && n.to.length; });
      if (first >= 0) go(v, first);
      search.value = o.V.nodes[0].label.slice(0, 4);
      search.dispatchEvent(new Event('input'));
      search.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
      done.searched += hits.length;
      search.value = ''; search.dispatchEvent(new Event('input'));
    });
    /* The whole of each view zoomed out (the overview), then back. */
    done.overview = [];
    views.forEach(function (o, v) {
      setView(v); fitAll(o);
      done.overview.push({graph: o.V.graph, mode: o.mode, drawn: o.mode === 'overview' ? o.ovDrawn : o.shown.size,
                          paths: o.mode === 'overview' ? o.ov.childNodes.length : o.gN.childNodes.length});
      fit(o);
      /* Interaction cost: 20 pan steps of half a screen, then 20 zoom
       * steps out, each drawn at once; the slowest step in ms. */
      var WH = size(o), worst = 0, t;
      for (var k = 0; k < 40; k++) {
        t = performance.now();
        if (k < 20) o.ty -= WH[1] / 2; else o.s *= 0.85;
        apply(o);
        o.svg.getBoundingClientRect(); /* the layout of what was drawn, too */
        worst = Math.max(worst, performance.now() - t);
      }
      done.overview[v].stepMs = Math.round(worst);
      fit(o);
    });
    document.querySelectorAll('table.sortable thead th').forEach(function (th) { th.click(); th.click(); done.sorted++; });
    done.findings = 0;
    fndItems.forEach(function (li) { li.click(); li.click(); done.findings += fndOn === -1; });
    var a = document.querySelector('#tables a[data-view]');
    if (a) a.click();
    fitb.click();
    setView(0);
    exercised = done;
  }

  if (views.length) {
    /* Start on the first metric with values in the first view. */
    for (var m0 = 0; m0 < D.metrics.length; m0++) if (views[0].V.metrics[m0].min !== undefined) break;
    metric = m0 < D.metrics.length ? m0 : 0;
    if (msel) msel.value = String(metric);
    colour(metric);
    setView(0);
    /* Deep links: #view=1&metric=2&node=<id> */
    var h = etpPage.hashParams();
    if (h.metric !== undefined && D.metrics[+h.metric]) { metric = +h.metric; if (msel) msel.value = h.metric; colour(metric); }
    if (h.view !== undefined && views[+h.view]) setView(+h.view);
    if (h.node !== undefined && views[cur].byId[h.node] !== undefined) go(cur, views[cur].byId[h.node]);
    if (h.exercise !== undefined) exercise();
  }
  /* Deep link to a finding: #finding=K clicks the K-th (from 0) as a user would. */
  var hf = etpPage.hashParams().finding;
  if (hf !== undefined && fndItems[+hf]) fndItems[+hf].click();
  /* What the test reads: every node placed inside the drawing, how many are
   * drawn in detail now, and when the first view reached the screen (the
   * frame after this script, in ms since navigation start). */
  function area() {
    var f = document.querySelector('.views');
    if (!f) return null;
    var r = f.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
  }
  function selftest(paint) {
    document.getElementById('etp-selftest').textContent = JSON.stringify({
      views: views.map(function (o) { return {graph: o.V.graph, nodes: o.V.nodes.length, placed: o.placed, shown: o.shown.size, mode: o.mode}; }),
      metric: metric, tables: document.querySelectorAll('table.sortable').length, errors: errors, exercised: exercised,
      findings: {listed: fndItems.length, on: fndOn, last: fndLast},
      area: area(),
      ms: {parsed: Math.round(t0), script: Math.round(performance.now() - t0), paint: paint}
    });
  }
  selftest(null);
  document.body.setAttribute('data-etprof-ready', errors.length ? 'error' : '1');
  requestAnimationFrame(function () {
    setTimeout(function () {
      var ms = Math.round(performance.now());
      document.body.setAttribute('data-etprof-paint-ms', String(ms));
      selftest(ms);
      /* The entities, when the first view is on screen, so a click or
       * search later does not wait for them. */
      setTimeout(ents, 0);
    }, 0);
  });
})();
