/* etprof report: the VGF delegate graphs. A VgfBackend delegate node's
 * details panel gets a button that opens its TOSA graph (laid out by etprof
 * like the other views) over the page: pan by dragging, zoom with the wheel,
 * click an operation for its TOSA name, SPIR-V result id and tensor shapes.
 * Deep link: #vgf=<delegate node id>[&vgfnode=<graph node id>]. */
(function () {
  'use strict';
  var P = etpPage; /* page_util.js */
  var G = P.take('etp-vgf');
  if (!G) return;
  var sv = P.sv;
  var byCall = Object.create(null);
  G.graphs.forEach(function (g) { byCall[g.call] = g; });
  var state = {opened: null, nodes: 0, placed: 0, selected: null, errors: []};

  /* An element styled inline: this view brings no stylesheet of its own. */
  function styled(tag, style, text) {
    var e = P.el(tag, null, text);
    if (style) e.setAttribute('style', style);
    return e;
  }
  function report() {
    document.body.setAttribute('data-etprof-vgf', JSON.stringify(state));
  }
  /* VGF NX cycles (report_nx.js, window.etpNx): the chain a TOSA node is
   * linked to, whose mean total cycles colour it. A group measurement: all
   * the chain's nodes share one figure; it is no operation's own cost. */
  function chainOf(n) {
    var X = window.etpNx;
    if (!n.nx || !X || !X.byId || X.byId[n.nx] === undefined) return null;
    return X.nodes[X.byId[n.nx]];
  }
  function heat(v, max) {
    var t = max > 0 ? Math.max(0, Math.min(1, v / max)) : 0;
    /* light yellow -> orange (dark text stays readable) */
    var r = Math.round(255 - 20 * t), g = Math.round(240 - 125 * t), b = Math.round(200 - 135 * t);
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }
  function colourOf(n, max) {
    var ch = chainOf(n);
    if (ch && ch.avg !== undefined) return heat(ch.avg, max);
    if (n.sid !== undefined) return n.tosa ? '#dbe9f6' : '#f6dcdc';
    if (n.id.indexOf('mrt_') === 0) return '#e3f1df';
    return '#eeeeee';
  }

  function details(side, n) {
    side.textContent = '';
    side.appendChild(styled('h3', 'margin:2px 0 4px;font-size:15px;word-break:break-all', n.label));
    side.appendChild(styled('div', 'font-family:monospace;color:#555', 'node ' + n.id + (n.ns ? '  \u00b7  ' + n.ns : '')));
    var t = styled('table', 'border-collapse:collapse;width:100%;margin:6px 0');
    function row(k, v) {
      var tr = styled('tr');
      tr.appendChild(styled('th', 'text-align:left;padding:1px 4px;border-bottom:1px solid #eee;vertical-align:top', k));
      tr.appendChild(styled('td', 'padding:1px 4px;border-bottom:1px solid #eee;font-family:monospace;word-break:break-all', v));
      t.appendChild(tr);
    }
    if (n.sid !== undefined) {
      row('op type', n.tosa || ('unknown TOSA opcode ' + n.opcode));
      row('SPIR-V result id', '%' + n.sid);
    }
    var ch = chainOf(n);
    if (ch) {
      row('VGF chain', ch.id);
      if (ch.avg !== undefined) {
        row('chain mean total cycles', Math.round(ch.avg).toLocaleString('en-US') + ' cycles over ' + ch.n +
            ' execution(s)');
        row('chain mean op cycles', Math.round(ch.op).toLocaleString('en-US') + ' cycles');
      }
      side.appendChild(t);
      t = styled('table', 'border-collapse:collapse;width:100%;margin:6px 0');
      side.appendChild(styled('p', 'color:#8a5300;margin:4px 0', 'Group measurement: the chain\u2019s cycles (' +
        (ch.ops ? ch.ops.length : '?') + ' TOSA ops share them), from accelerator activity counters; ' +
        'not this operation\u2019s own cost, and not elapsed time.'));
    }
    if (n.out) row('result', n.out);
    n.ins.forEach(function (p, k) { row('operand ' + k + (p[0] ? ' (' + p[0] + ')' : ''), p[1]); });
    n.attrs.forEach(function (a) { row(a[0], a[1]); });
    side.appendChild(t);
  }

  function open(g, nodeId) {
    close();
    var nh = g.nh / 10, W = g.w / 10, H = g.h / 10;
    var box = styled('div', 'position:fixed;inset:24px;z-index:50;background:#fff;border:1px solid #999;' +
      'border-radius:6px;box-shadow:0 4px 24px rgba(0,0,0,.3);display:flex;flex-direction:column');
    box.id = 'etp-vgf-view';
    var bar = styled('div', 'display:flex;gap:12px;align-items:center;padding:6px 10px;border-bottom:1px solid #ddd');
    bar.appendChild(styled('b', '', 'VGF graph of ' + g.call));
    bar.appendChild(styled('span', 'color:#555', g.ops + ' TOSA ops, ' + g.nodes.length + ' nodes (as Arm\u2019s VGF adapter draws them)'));
    var maxc = 0, nxNodes = 0;
    g.nodes.forEach(function (n) {
      var ch = chainOf(n);
      if (ch && ch.avg !== undefined) { nxNodes++; if (ch.avg > maxc) maxc = ch.avg; }
    });
    if (nxNodes) {
      var key = styled('span', 'color:#8a5300', '');
      key.id = 'etp-vgf-nx-key';
      key.appendChild(styled('span', 'display:inline-block;width:70px;height:10px;margin-right:4px;vertical-align:middle;' +
        'background:linear-gradient(to right,' + heat(0, 1) + ',' + heat(1, 1) + ')'));
      key.appendChild(document.createTextNode(nxNodes + ' ops coloured by their VGF chain\u2019s mean total cycles (0 \u2013 ' +
        Math.round(maxc).toLocaleString('en-US') + '; a group measurement shared by the chain\u2019s ops)'));
      bar.appendChild(key);
    }
    var closeb = styled('button', 'margin-left:auto', 'Close');
    closeb.type = 'button';
    closeb.addEventListener('click', close);
    bar.appendChild(closeb);
    box.appendChild(bar);
    var body = styled('div', 'flex:1;display:flex;min-height:0');
    var frame = styled('div', 'flex:1;position:relative;overflow:hidden;background:#fafbfc;cursor:grab');
    var side = styled('aside', 'width:340px;overflow:auto;border-left:1px solid #ddd;padding:8px 12px');
    side.appendChild(styled('p', 'color:#666', 'Click an operation for its SPIR-V result id and tensor shapes; drag to pan, wheel to zoom.'));
    body.appendChild(frame);
    body.appendChild(side);
    box.appendChild(body);
    document.body.appendChild(box);

    var svg = sv('svg', {width: '100%', height: '100%'});
    var root = sv('g', {});
    svg.appendChild(root);
    frame.appendChild(svg);
    g.edges.forEach(function (p) {
      var d = 'M' + p[0] / 10 + ',' + p[1] / 10;
      for (var q = 2; q < p.length; q += 2) d += 'L' + p[q] / 10 + ',' + p[q + 1] / 10;
      root.appendChild(sv('path', {d: d, fill: 'none', stroke: '#8a94a6', 'stroke-width': '1.2'}));
    });
    var rects = [], placed = 0;
    g.nodes.forEach(function (n, i) {
      var x = n.x / 10, y = n.y / 10, w = n.bw / 10;
      if (x >= 0 && y >= 0 && x + w <= W + 0.1 && y + nh <= H + 0.1) placed++;
      var gr = sv('g', {transform: 'translate(' + x + ',' + y + ')', cursor: 'pointer'});
      var r = sv('rect', {width: w, height: nh, rx: 5, fill: colourOf(n, maxc), stroke: '#44546a', 'stroke-width': '1'});
      var ch = chainOf(n);
      if (ch) {
        var tip = sv('title', {});
        tip.textContent = ch.id + ': ' + (ch.avg !== undefined ? Math.round(ch.avg) + ' cycles avg ' : '') +
          '(group measurement of the chain, not this op)';
        gr.appendChild(tip);
      }
      gr.appendChild(r);
      var t1 = sv('text', {x: 8, y: 14, 'font-size': '12', 'font-family': 'DejaVu Sans Mono, monospace', fill: '#1f1f1f'});
      t1.textContent = P.shortLabel(n.label, 44);
      gr.appendChild(t1);
      var t2 = sv('text', {x: 8, y: 28, 'font-size': '10', 'font-family': 'DejaVu Sans Mono, monospace', fill: '#555'});
      t2.textContent = n.sid !== undefined ? '%' + n.sid + '  #' + n.id : n.id;
      gr.appendChild(t2);
      gr.addEventListener('click', function (ev) { ev.stopPropagation(); pick(i); });
      root.appendChild(gr);
      rects.push(r);
    });
    function pick(i) {
      rects.forEach(function (r, k) { r.setAttribute('stroke-width', k === i ? '3' : '1'); });
      details(side, g.nodes[i]);
      state.selected = g.nodes[i].id;
      report();
    }
    /* View: fit the drawing's width (a long graph scrolls down). */
    var fw = frame.clientWidth || 800, fh = frame.clientHeight || 600;
    var s = Math.min(fw / Math.max(W, 1), 1.2), tx = (fw - W * s) / 2, ty = 10;
    if (H * s < fh) ty = (fh - H * s) / 2;
    function apply() { root.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + s + ')'); }
    apply();
    frame.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var r = frame.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
      var k = Math.exp(-ev.deltaY * 0.0015);
      tx = mx - (mx - tx) * k; ty = my - (my - ty) * k; s *= k;
      apply();
    }, {passive: false});
    var drag = null;
    frame.addEventListener('mousedown', function (ev) { drag = [ev.clientX - tx, ev.clientY - ty]; });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      tx = ev.clientX - drag[0]; ty = ev.clientY - drag[1];
      apply();
    });
    window.addEventListener('mouseup', function () { drag = null; });
    state.opened = g.call;
    state.nx_nodes = nxNodes;
    state.nodes = g.nodes.length;
    state.placed = placed;
    state.selected = null;
    if (nodeId !== undefined) {
      for (var i = 0; i < g.nodes.length; i++) if (g.nodes[i].id === nodeId) { pick(i); break; }
    }
    report();
  }

  function close() {
    var old = document.getElementById('etp-vgf-view');
    if (old) old.parentNode.removeChild(old);
    state.opened = null;
    report();
  }

  /* Called by report.js when a node's details are shown. */
  window.etpVgfDetail = function (n, panel) {
    var g = byCall[n.id];
    if (!g) return;
    var b = styled('button', 'margin:4px 0 8px', 'Open the VGF graph (' + g.ops + ' TOSA ops)');
    b.type = 'button';
    b.className = 'vgf-open';
    b.addEventListener('click', function () { open(g); });
    panel.appendChild(b);
    state.button = n.id;
    report();
  };

  try {
    var h = P.hashParams();
    /* #node=<id> selected the node before this script ran: add its button now. */
    var panel = document.getElementById('panel');
    if (h.node !== undefined && byCall[h.node] && panel) window.etpVgfDetail({id: h.node}, panel);
    if (h.vgf !== undefined && byCall[h.vgf]) open(byCall[h.vgf], h.vgfnode);
  } catch (e) {
    state.errors.push(String(e && e.message));
  }
  state.graphs = G.graphs.map(function (g) { return g.call; });
  report();
})();
