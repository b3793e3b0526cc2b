// llmprober bench report: draws each chart of the embedded data with uPlot.
(() => {
  "use strict";
  const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  const palette = () => ["--s1", "--s2", "--s3", "--s4", "--s5", "--s6", "--s7", "--s8"].map(css);
  const charts = JSON.parse(document.getElementById("bench-charts").textContent);

  // markerRange widens a scale to show the markers on its axis.
  const markerRange = (markers, axis, fixed) => (u, min, max) => {
    if (fixed) return fixed;
    for (const m of markers) if (m.axis === axis) { min = Math.min(min, m.value); max = Math.max(max, m.value); }
    if (min === null || max === null) return [0, 1];
    const pad = (max - min) * 0.05 || Math.abs(max) * 0.05 || 1;
    return [Math.max(0, min - pad), max + pad];
  };

  // drawMarkers draws each marker as a dashed line with its label.
  const drawMarkers = (markers, color) => (u) => {
    const ctx = u.ctx, b = u.bbox;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
    for (const m of markers) {
      const p = u.valToPos(m.value, m.axis, true);
      ctx.beginPath();
      if (m.axis === "x") { ctx.moveTo(p, b.top); ctx.lineTo(p, b.top + b.height); ctx.fillText(m.label, p + 4, b.top + 12 * devicePixelRatio); }
      else {
        ctx.moveTo(b.left, p); ctx.lineTo(b.left + b.width, p);
        ctx.textAlign = "right"; ctx.fillText(m.label, b.left + b.width - 4, p - 4); ctx.textAlign = "left";
      }
      ctx.stroke();
    }
    ctx.restore();
  };

  const options = (c, width) => {
    const fg = css("--fg"), line = css("--line"), colors = palette();
    const axis = (label) => ({ label, stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line } });
    return {
      title: c.title, width, height: 280,
      scales: {
        x: { time: false, range: markerRange(c.markers, "x") },
        y: { range: markerRange(c.markers, "y", c.step ? [0, 100] : null) },
      },
      axes: [axis(c.x_label), Object.assign(axis(c.y_label), { size: 60 })],
      series: [{ label: c.x_label }].concat(c.series.map((label, i) => ({
        label, stroke: colors[i % colors.length], width: 1.75, spanGaps: true,
        paths: c.step ? uPlot.paths.stepped({ align: 1 }) : undefined,
        points: { show: !c.step, size: 6 },
      }))),
      hooks: { draw: [drawMarkers(c.markers, css("--breached"))] },
    };
  };

  const plots = [];
  for (const c of charts) {
    const el = document.getElementById(c.id);
    plots.push(new uPlot(options(c, el.clientWidth || 440), c.data, el));
  }
  window.addEventListener("resize", () => {
    for (const u of plots) u.setSize({ width: u.root.parentElement.clientWidth || 440, height: 280 });
  });
  window.benchPlots = plots;
})();
