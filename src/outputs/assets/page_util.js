/* etprof page helpers, shared by the report page's scripts (report.js,
 * report_nx.js, report_vgf.js): embedded once, at the start of the page's
 * first script, as the global etpPage. No libraries, no network. */
var etpPage = (function () {
  'use strict';
  var SVGNS = 'http://www.w3.org/2000/svg';

  /* An HTML element with a class and a text (each optional). */
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  /* An SVG element with the given attributes. */
  function sv(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  /* The value of the JSON data block with this id, or null when the page
   * has none. Its text is dropped once parsed: the DOM need not keep
   * megabytes of JSON next to the objects made from it. */
  function take(id) {
    var b = document.getElementById(id);
    if (!b) return null;
    var v = JSON.parse(b.textContent);
    b.textContent = '';
    return v;
  }
  /* The deep link's parameters: #view=1&node=x as {view: '1', node: 'x'}. */
  function hashParams() {
    var h = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var p = kv.split('=');
      if (p[0]) h[p[0]] = p.length > 1 ? decodeURIComponent(p.slice(1).join('=')) : '';
    });
    return h;
  }
  /* A label cut to at most max characters (code points, not UTF-16 units),
   * an ellipsis ending one that was cut. */
  function shortLabel(s, max) {
    var cp = Array.from(s);
    return cp.length > max ? cp.slice(0, max - 1).join('') + '\u2026' : s;
  }

  return {el: el, sv: sv, take: take, hashParams: hashParams, shortLabel: shortLabel};
})();
