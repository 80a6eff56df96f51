/**
 * The script of the HTML report, as text inlined into the page after uPlot: it draws every chart
 * the page's `report` data describes, with the fault markers as labelled dashed lines (red where a
 * fault starts, green where it ends; labels staggered so they do not overlap), and gives each
 * chart a PNG button that composes title, plot (markers included) and legend into one image.
 * It runs in the browser only; it uses no network and no template literals (the text is built in
 * a TypeScript template). `window.zonesimPng(id)` returns a chart's PNG as a data URL (for tests
 * and automation).
 */

/** Browser code; expects `uPlot` and a global `report = { runs, charts }` (see report.ts). */
export const REPORT_CLIENT_JS = String.raw`
(function () {
  var body = document.body;
  var plots = {};
  var dpr = function () { return uPlot.pxRatio || window.devicePixelRatio || 1; };
  var FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';
  function secs(ms) { return (+(ms / 1000).toFixed(3)) + ' s'; }
  function shorten(text, max) { return text.length > max ? text.slice(0, max - 1) + '\u2026' : text; }
  function markerText(m) { return m.kind === 'start' ? m.label : m.label + ' ends'; }

  // Dashed vertical line per marker, with its label in a white box at the top of the plot.
  function markerPlugin(markers, title) {
    return { hooks: { draw: [function (u) {
      var ctx = u.ctx, r = dpr(), top = u.bbox.top, height = u.bbox.height;
      var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
      var lineH = 15 * r, maxRows = Math.max(1, Math.min(6, Math.floor(height / lineH / 2)));
      var rows = [];
      var drawn = [];
      ctx.save();
      ctx.font = (11 * r) + 'px ' + FONT;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      for (var i = 0; i < markers.length; i++) {
        var m = markers[i], xv = m.tMs / 1000;
        if (!(xv >= u.scales.x.min && xv <= u.scales.x.max)) continue;
        var x = Math.round(u.valToPos(xv, 'x', true)) + 0.5;
        var color = m.kind === 'start' ? '#c62828' : '#2e7d32';
        ctx.setLineDash([5 * r, 4 * r]);
        ctx.lineWidth = 1.5 * r;
        ctx.strokeStyle = color;
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
        var text = shorten(markerText(m), 60);
        var w = ctx.measureText(text).width + 8 * r;
        var lx = x + 3 * r;
        if (lx + w > right) lx = Math.max(left, x - 3 * r - w);
        var row = 0;
        for (; row < maxRows; row++) {
          var busy = rows[row] || [], clash = false;
          for (var j = 0; j < busy.length; j++) if (lx < busy[j][1] + 4 * r && lx + w > busy[j][0] - 4 * r) clash = true;
          if (!clash) break;
        }
        if (row === maxRows) row = maxRows - 1;
        (rows[row] = rows[row] || []).push([lx, lx + w]);
        var y = top + 2 * r + row * lineH;
        ctx.setLineDash([]);
        ctx.fillStyle = 'rgba(255,255,255,0.88)';
        ctx.fillRect(lx, y, w, lineH - 2 * r);
        ctx.strokeStyle = color;
        ctx.lineWidth = r;
        ctx.strokeRect(lx, y, w, lineH - 2 * r);
        ctx.fillStyle = color;
        ctx.fillText(text, lx + 4 * r, y + (lineH - 2 * r) / 2);
        drawn.push(secs(m.tMs) + ' ' + markerText(m));
      }
      ctx.restore();
      u.root.dataset.markerLabels = drawn.join(' | ');
      u.ctx.canvas.setAttribute('role', 'img');
      u.ctx.canvas.setAttribute('aria-label', title + (drawn.length > 0 ? '. Fault markers: ' + drawn.join('; ') : ''));
    }] } };
  }

  // Title, the plot's canvas (axes, series and markers) and a legend, on white, as a PNG data URL.
  function png(id) {
    var entry = plots[id];
    if (!entry) return '';
    var u = entry.u, spec = entry.spec, r = dpr(), src = u.ctx.canvas;
    var out = document.createElement('canvas'), c = out.getContext('2d');
    var pad = 10 * r, titleH = 28 * r, lineH = 18 * r;
    c.font = (12 * r) + 'px ' + FONT;
    var pos = [], x = pad, row = 0;
    for (var i = 0; i < spec.series.length; i++) {
      var w = 22 * r + c.measureText(spec.series[i].label).width + 16 * r;
      if (x + w > src.width - pad && x > pad) { row++; x = pad; }
      pos.push([x, row]);
      x += w;
    }
    out.width = src.width;
    out.height = titleH + src.height + (row + 1) * lineH + pad;
    c.fillStyle = '#fff';
    c.fillRect(0, 0, out.width, out.height);
    c.fillStyle = '#222';
    c.textAlign = 'left';
    c.textBaseline = 'middle';
    c.font = 'bold ' + (14 * r) + 'px ' + FONT;
    c.fillText(spec.title, pad, titleH / 2);
    c.drawImage(src, 0, titleH);
    c.font = (12 * r) + 'px ' + FONT;
    for (var k = 0; k < spec.series.length; k++) {
      var s = spec.series[k], lx = pos[k][0], ly = titleH + src.height + pos[k][1] * lineH + lineH / 2;
      c.strokeStyle = s.color;
      c.lineWidth = 2 * r;
      c.setLineDash(s.dash ? [5 * r, 3 * r] : []);
      c.beginPath(); c.moveTo(lx, ly); c.lineTo(lx + 16 * r, ly); c.stroke();
      c.fillStyle = '#222';
      c.fillText(s.label, lx + 22 * r, ly);
    }
    return out.toDataURL('image/png');
  }
  window.zonesimPng = png;

  function download(id) {
    var url = png(id);
    if (!url) return;
    var a = document.createElement('a');
    a.href = url;
    a.download = (report.file + '-' + plots[id].spec.title).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120) + '.png';
    body.appendChild(a);
    a.click();
    a.remove();
  }

  var width = Math.max(480, Math.min(1100, window.innerWidth - 80));
  var made = 0;
  report.charts.forEach(function (spec) {
    var run = report.runs[spec.run];
    var el = document.getElementById(spec.id);
    if (!el || !run) return;
    var bars = spec.kind === 'bars';
    var series = [{ label: 't (s)' }].concat(spec.series.map(function (s) {
      return {
        label: s.label,
        stroke: s.color,
        width: 1.5,
        dash: s.dash ? [6, 4] : undefined,
        fill: bars ? s.color + '99' : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.9, 60], align: 1 }) : uPlot.paths.stepped({ align: 1 }),
        points: { show: false },
        value: function (u, v) { return v == null ? '-' : (+v.toFixed(3)) + (spec.unit ? ' ' + spec.unit : ''); },
      };
    }));
    var data = [run.xs].concat(spec.series.map(function (s) { return s.values; }));
    var u = new uPlot({
      title: spec.title, width: width, height: spec.height || 240, series: series,
      plugins: [markerPlugin(run.faults, spec.title)],
      scales: { x: { time: false }, y: spec.percent ? { range: function (u, min, max) { return [0, Math.max(1, max)]; } } : {} },
      axes: [{ label: 'simulated time (s)' }, { label: spec.y, size: 60 }],
    }, data, el);
    plots[spec.id] = { u: u, spec: spec };
    var button = document.createElement('button');
    button.className = 'png';
    button.type = 'button';
    button.textContent = 'PNG';
    button.title = 'Download this chart as a PNG image (title, markers and legend included)';
    button.addEventListener('click', function () { download(spec.id); });
    el.insertBefore(button, el.firstChild);
    made++;
  });
  body.dataset.charts = String(made);
})();
`;
