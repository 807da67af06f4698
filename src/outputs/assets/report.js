/* etprof report: etprof's own script. No libraries, no network: it reads the
 * JSON block of this page and drives the inline SVG drawings and tables. */
(function () {
  'use strict';
  var errors = [], t0 = performance.now();
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });

  var D = JSON.parse(document.getElementById('etp-data').textContent);
  var panel = document.getElementById('panel');
  var tip = document.getElementById('tip');
  var legend = document.getElementById('legend');
  var views = [];
  var cur = 0, metric = 0, sel = null, hits = [], hitAt = -1, drag = null;

  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return '\u2013';
    if (Math.abs(v) >= 1e4) return v.toFixed(0);
    return String(+v.toPrecision(4));
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function ent(n) { return n.e === undefined ? null : D.ents[n.e]; }
  function linkText(n) { return D.links[n.ln]; }
  function unitOf(m) { return D.metrics[m].unit; }

  /* ---- views: pan, zoom, colours ---- */
  function apply(o) {
    o.vp.setAttribute('transform', 'translate(' + o.tx.toFixed(1) + ',' + o.ty.toFixed(1) + ') scale(' + o.s.toFixed(5) + ')');
  }
  function fit(o) {
    var r = o.svg.getBoundingClientRect();
    var W = r.width || 800, H = r.height || 500;
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
  function center(o, i) {
    var r = o.svg.getBoundingClientRect();
    var p = o.pos[i];
    if (o.s < 0.6) o.s = 0.9;
    o.tx = (r.width || 800) / 2 - p[0] * o.s;
    o.ty = (r.height || 500) / 2 - p[1] * o.s;
    apply(o);
  }
  function nodeAt(t) { return t && t.closest ? t.closest('g.n') : null; }

  function colour(m) {
    views.forEach(function (o) {
      var M = o.V.metrics[m];
      o.V.nodes.forEach(function (n, i) {
        var g = o.g[i];
        if (!g) return;
        var v = M.v[i], e = ent(n);
        var fg = M.fg.charAt(i) === '1' ? '#ffffff' : '#1f1f1f';
        g.firstChild.setAttribute('fill', '#' + M.bg[i]);
        var t = g.getElementsByTagName('text');
        t[0].setAttribute('fill', fg);
        t[1].setAttribute('fill', fg);
        t[1].textContent = v === null ? '' : fmt(v) + (e && e.add === false ? '*' : '');
        g.classList.toggle('nv', v === null);
      });
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
    views.forEach(function (o, k) { document.getElementById('view' + k).hidden = k !== v; });
    document.querySelectorAll('.tabs button').forEach(function (b) { b.classList.toggle('on', +b.getAttribute('data-view') === v); });
    if (!views[v].fitted) fit(views[v]);
    runSearch();
    drawLegend();
  }

  /* ---- selection and the details panel ---- */
  function clearMarks(cls) {
    views.forEach(function (o) { o.svg.querySelectorAll('g.n.' + cls).forEach(function (g) { g.classList.remove(cls); }); });
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
    if (o.g[i]) o.g[i].classList.add('sel');
    var other = v === 0 ? 1 : 0;
    if (n.to && views[other]) n.to.forEach(function (j) { if (views[other].g[j]) views[other].g[j].classList.add('rel'); });
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
    if (e && e.s) {
      panel.appendChild(el('h4', '', 'Time per execution'));
      panel.appendChild(statsTable(e.s, D.unit));
      if (D.execAvg > 0) panel.appendChild(el('div', '', 'share of Method::execute avg: ' + fmt(100 * e.s[0] / D.execAvg) + ' %'));
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
        var de = D.ents[k];
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
      if (hay.indexOf(q) >= 0) { hits.push(i); if (o.g[i]) o.g[i].classList.add('hit'); }
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
    var o = {V: V, svg: svg, vp: svg.querySelector('g.vp'), g: [], pos: [], s: 1, tx: 0, ty: 0, byId: Object.create(null), fitted: false};
    var gs = svg.querySelectorAll('g.n');
    for (var k = 0; k < gs.length; k++) {
      var i = +gs[k].getAttribute('data-i');
      var m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(gs[k].getAttribute('transform'));
      var r = gs[k].firstChild;
      o.g[i] = gs[k];
      o.pos[i] = [+m[1] + (+r.getAttribute('width')) / 2, +m[2] + (+r.getAttribute('height')) / 2];
    }
    V.nodes.forEach(function (n, j) { o.byId[n.id] = j; });
    views.push(o);

    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var b = svg.getBoundingClientRect(), mx = ev.clientX - b.left, my = ev.clientY - b.top;
      var ns = Math.min(8, Math.max(0.003, o.s * Math.exp(-ev.deltaY * 0.0015))), f = ns / o.s;
      o.tx = mx - (mx - o.tx) * f; o.ty = my - (my - o.ty) * f; o.s = ns;
      apply(o);
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
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    drag.o.tx = drag.tx + dx; drag.o.ty = drag.ty + dy;
    apply(drag.o);
  });
  window.addEventListener('mouseup', function (ev) {
    if (!drag) return;
    var d = drag; drag = null;
    d.o.svg.classList.remove('drag');
    if (d.moved) return;
    var g = nodeAt(ev.target);
    if (g) select(views.indexOf(d.o), +g.getAttribute('data-i'));
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
    document.querySelectorAll('table.sortable thead th').forEach(function (th) { th.click(); th.click(); done.sorted++; });
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
    var h = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var p = kv.split('=');
      if (p[0]) h[p[0]] = p.length > 1 ? decodeURIComponent(p.slice(1).join('=')) : '';
    });
    if (h.metric !== undefined && D.metrics[+h.metric]) { metric = +h.metric; if (msel) msel.value = h.metric; colour(metric); }
    if (h.view !== undefined && views[+h.view]) setView(+h.view);
    if (h.node !== undefined && views[cur].byId[h.node] !== undefined) go(cur, views[cur].byId[h.node]);
    if (h.exercise !== undefined) exercise();
  }
  document.getElementById('etp-selftest').textContent = JSON.stringify({
    views: views.map(function (o) { return {graph: o.V.graph, nodes: o.V.nodes.length, drawn: o.g.filter(Boolean).length}; }),
    metric: metric, tables: document.querySelectorAll('table.sortable').length, errors: errors, exercised: exercised,
    ms: {parsed: Math.round(t0), script: Math.round(performance.now() - t0)}
  });
  document.body.setAttribute('data-etprof-ready', errors.length ? 'error' : '1');
})();
