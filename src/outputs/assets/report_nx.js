/* etprof report: the VGF NX cycles tree (model -> segment -> cascade ->
 * chain) from the "etp-nx" block. Each row: mean total and op cycles,
 * min / median / max of the total, executions, share of its parent (only
 * when both were measured in the same executions) with a bar, stripes, and
 * for a chain the TOSA / SPIR-V ops it covers. Cycles are group
 * measurements: nothing here is an operator's own cost. Click a row's
 * triangle to open or close it; deep link #nx=<group id> opens the path to
 * it and selects it. The parsed data is left in window.etpNx for
 * report_vgf.js. State for tests: body[data-etprof-nx]. */
(function () {
  'use strict';
  var P = etpPage; /* page_util.js */
  var host = document.getElementById('nx-tree');
  if (!host) return;
  var state = {rows: 0, visible: 0, selected: null, errors: []};
  function report() {
    var v = 0;
    rows.forEach(function (tr) { if (tr && !tr.hidden) v++; });
    state.visible = v;
    /* Where the section is on the page (CSS pixels), for screenshot checks. */
    var sec = document.getElementById('t-nx');
    if (sec) {
      var b = sec.getBoundingClientRect();
      state.area = [Math.round(b.left + window.scrollX), Math.round(b.top + window.scrollY),
                    Math.round(b.width), Math.round(b.height)];
    }
    document.body.setAttribute('data-etprof-nx', JSON.stringify(state));
  }
  var rows = [];
  var X;
  try {
    X = P.take('etp-nx');
  } catch (e) {
    state.errors.push('etp-nx: ' + String(e && e.message));
    report();
    return;
  }
  if (!X) return;
  window.etpNx = X;
  var N = X.nodes, kids = N.map(function () { return []; });
  var byId = Object.create(null);
  N.forEach(function (n, i) {
    byId[n.id] = i;
    if (n.p >= 0 && n.p < N.length) kids[n.p].push(i);
  });
  X.byId = byId;

  var el = P.el;
  function fmt(v) {
    if (v === undefined || v === null) return '\u2014';
    var r = Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 10) / 10;
    return r.toLocaleString('en-US');
  }
  function num(tr, v, title) {
    var td = el('td', 'num', fmt(v));
    td.setAttribute('data-v', v === undefined || v === null ? '' : String(v));
    if (title) td.title = title;
    tr.appendChild(td);
    return td;
  }
  /* Share of the parent's mean: only for the same executions. */
  function share(n) {
    if (n.p < 0 || !n.avail) return {v: null, why: 'no parent row'};
    var p = N[n.p];
    if (!p.avail) return {v: null, why: 'the parent\u2019s summary is unavailable (different execution coverage)'};
    /* A group is measured only in executions its parent was: equal counts, equal sets. */
    if (p.n !== n.n)
      return {v: null, why: 'measured in different executions than its parent: means do not compare'};
    if (!(p.avg > 0)) return {v: null, why: 'the parent has no cycles'};
    return {v: 100 * n.avg / p.avg, why: null};
  }
  function opsText(n) {
    if (!n.ops) return n.nops !== undefined ? n.nops + ' TOSA op(s)' : '';
    if (!n.ops.length) return '';
    return n.ops.map(function (o) {
      return (o.ty || '?') + (o.sid !== undefined ? ' %' + o.sid : ' (no SPIR-V link)');
    }).join(', ');
  }

  var table = el('table', 'nx');
  var head = el('tr');
  ['group', 'mean total cycles', 'mean op cycles', 'min', 'median', 'max', 'executions',
   'share of parent', '', 'stripes', 'TOSA / SPIR-V ops covered',
   'source operators (links)'].forEach(function (h, k) {
    var th = el('th', k >= 1 && k <= 7 || k === 9 ? 'num' : '', h);
    head.appendChild(th);
  });
  var thead = el('thead');
  thead.appendChild(head);
  table.appendChild(thead);
  var tbody = el('tbody');
  table.appendChild(tbody);
  var open = N.map(function (n) { return n.kind === 'model' || n.kind === 'segment'; });
  var depth = N.map(function () { return 0; });

  function add(i, d) {
    var n = N[i];
    depth[i] = d;
    var tr = el('tr', 'nx-' + n.kind);
    tr.setAttribute('data-nx-id', n.id);
    tr.setAttribute('data-nx', String(i));
    var first = el('td', 'nx-name');
    first.style.paddingLeft = (4 + 18 * d) + 'px';
    var tog = el('button', 'nx-tog', kids[i].length ? (open[i] ? '\u25be' : '\u25b8') : '\u00b7');
    tog.type = 'button';
    tog.disabled = !kids[i].length;
    tog.setAttribute('aria-label', 'open or close');
    tog.addEventListener('click', function (ev) { ev.stopPropagation(); toggle(i); });
    first.appendChild(tog);
    first.appendChild(el('span', 'nx-kind', n.kind));
    first.appendChild(document.createTextNode(' ' + n.name));
    if (n.filled) first.appendChild(el('span', 'nx-fill', ' fill-in'));
    tr.appendChild(first);
    if (n.avail) {
      num(tr, n.avg, 'mean over ' + n.n + ' execution(s)' + (n.full ? '' : '; not measured in every execution'));
      num(tr, n.op);
      num(tr, n.min);
      num(tr, n.med);
      num(tr, n.max);
      num(tr, n.n);
    } else {
      for (var k = 0; k < 6; k++)
        num(tr, null, 'unavailable: VGF instructions or segments were measured in different executions');
    }
    var s = share(n);
    num(tr, s.v === null ? null : Math.round(s.v * 10) / 10, s.why).classList.add('nx-share');
    var bt = el('td', 'nx-bar');
    if (s.v !== null) {
      var b = el('div');
      b.style.width = Math.max(0, Math.min(100, s.v)) + '%';
      bt.appendChild(b);
    }
    tr.appendChild(bt);
    num(tr, n.stripes);
    var ot = el('td', 'nx-ops', opsText(n));
    if (n.ops && n.ops.length) ot.title = 'group measurement: these ops share the chain\u2019s cycles; ' +
      'none has a cost of its own here';
    tr.appendChild(ot);
    var st = el('td', 'nx-ops', n.src ? n.src.join(', ') : '');
    if (n.src) st.title = 'named by the ETRecord\u2019s delegate map: links, not costs';
    tr.appendChild(st);
    tr.addEventListener('click', function () { select(i); });
    tbody.appendChild(tr);
    rows[i] = tr;
    kids[i].forEach(function (c) { add(c, d + 1); });
  }
  function visible(i) {
    for (var p = N[i].p; p >= 0; p = N[p].p) if (!open[p]) return false;
    return true;
  }
  function refresh() {
    N.forEach(function (n, i) {
      if (!rows[i]) return;
      rows[i].hidden = !visible(i);
      var t = rows[i].querySelector('.nx-tog');
      if (kids[i].length) t.textContent = open[i] ? '\u25be' : '\u25b8';
    });
    report();
  }
  function toggle(i) {
    open[i] = !open[i];
    refresh();
  }
  function select(i) {
    rows.forEach(function (tr) { if (tr) tr.classList.remove('sel'); });
    for (var p = N[i].p; p >= 0; p = N[p].p) open[p] = true;
    refresh();
    rows[i].classList.add('sel');
    state.selected = N[i].id;
    report();
  }

  try {
    N.forEach(function (n, i) { if (n.p < 0) add(i, 0); });
    host.textContent = '';
    var sum = el('p', 'note nx-sum');
    sum.textContent = X.events + ' VGF statistics record(s), ' + X.executions + ' execution(s)' +
      (X.decoder ? ', decoded as ' + X.decoder : '') + '; ' +
      N.filter(function (n) { return n.kind === 'chain'; }).length + ' chains, ' +
      N.filter(function (n) { return n.kind === 'cascade'; }).length + ' cascades, ' +
      N.filter(function (n) { return n.kind === 'segment'; }).length + ' segment(s). Unit: cycles.';
    host.appendChild(sum);
    host.appendChild(table);
    state.rows = rows.filter(function (r) { return r; }).length;
    refresh();
    var h = P.hashParams();
    if (h.nx !== undefined && byId[h.nx] !== undefined) {
      select(byId[h.nx]);
      var box = rows[byId[h.nx]].getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) rows[byId[h.nx]].scrollIntoView({block: 'center'});
    }
  } catch (e) {
    state.errors.push(String(e && e.message));
  }
  report();
})();
