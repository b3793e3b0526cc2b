// llmprober status pages: every 10 s the page fetches the JSON status API
// and redraws its figures and its uPlot charts, without reloading. Text is
// only ever set with textContent, never parsed as HTML.
"use strict";
(function () {
  // The refresh period: 10 s, or ?refresh=N seconds (at least 1).
  const REFRESH_MS = 1000 * Math.max(1, Number(new URLSearchParams(location.search).get("refresh")) || 10);
  const ABSENT = "—";
  const TRAILING_POINTS = 30; // attainment over the 5 minutes up to a point
  const state = { refreshes: 0, charts: {}, sparks: {}, paused: false, history: null, failures: 0 };
  window.llmprober = state; // read by the browser test

  const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  const palette = () => ["--s1", "--s2", "--s3", "--s4", "--s5", "--s6", "--s7", "--s8"].map(css);
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };

  // Formatting, as the server formats the first rendering.
  const ms = (s) => (s * 1000).toFixed(1);
  const pct = (x) => (100 * x).toFixed(1);
  const rateText = (v) => (v == null ? ABSENT : v.toFixed(3) + "/s");
  const numberText = (v, d) => (v == null ? ABSENT : v.toFixed(d));
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const droppedSum = (p) => sum(Object.values(p.dropped));

  function meanText(s) {
    if (!s || s.mean == null) return ABSENT;
    if (!s.mean_ci) return ms(s.mean) + " ms";
    return ms(s.mean) + " ± " + ms((s.mean_ci.upper - s.mean_ci.lower) / 2) + " ms";
  }

  function percentileText(s, key, confidence) {
    const p = s && s.percentiles && s.percentiles[key];
    if (!p || p.value == null) return ABSENT;
    const t = ms(p.value) + " ms";
    if (s.approximate) return "≈" + t;
    if (p.ci) return t + " [" + ms(p.ci.lower) + ", " + ms(p.ci.upper) + "]";
    if (confidence != null && !s.weighted) return t + "*";
    return t;
  }

  function attainmentText(o) {
    if (!o) return ABSENT;
    if (o.attainment == null) return "inconclusive: no evaluated request";
    let t = "attainment " + pct(o.attainment) + "%";
    if (o.attainment_ci) t += " [" + pct(o.attainment_ci.lower) + ", " + pct(o.attainment_ci.upper) + "]";
    t += " of " + String(100 * o.target_attainment) + "%: " + verdict(o);
    if (o.goodput_requests_per_second != null) t += ", goodput " + rateText(o.goodput_requests_per_second);
    return t;
  }

  // verdict is the API's verdict (slo.Judge); before measuring, when the
  // API has none, inconclusive.
  function verdict(o) {
    return o.verdict || "inconclusive";
  }
  const verdictText = { met: "met", breached: "breaching", inconclusive: "not enough data" };

  async function getJSON(url) {
    const r = await fetch(url, { cache: "no-store" });
    if (!r.ok) throw new Error(url + ": HTTP " + r.status);
    return r.json();
  }

  function stamp(ok, msg) {
    const p = document.getElementById("refresh");
    if (!p) return;
    const now = new Date().toLocaleTimeString();
    p.textContent = ok ? "Updated " + now + ", every " + REFRESH_MS / 1000 + " s" + (state.paused ? " (paused)" : "") : "Refresh failed at " + now + ": " + msg;
  }

  // Charts.
  function axisOptions(unit) {
    const fg = css("--fg"), line = css("--line");
    return [
      { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line } },
      { label: unit, stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line }, size: 64 },
    ];
  }

  function chartWidth(box) {
    return Math.max(120, Math.floor(box.clientWidth) - 8);
  }

  // drawChart creates or updates the chart id inside box with series
  // [{label, values}] over times (seconds).
  function drawChart(id, box, unit, times, series, extra) {
    const data = [times].concat(series.map((s) => s.values));
    const old = state.charts[id];
    if (old && old.series.length === data.length && !extra.rebuild) {
      old.setData(data);
      return;
    }
    if (old) old.destroy();
    const colors = palette();
    const opts = {
      width: chartWidth(box), height: 220, scales: { x: { time: true } }, axes: axisOptions(unit),
      series: [{}].concat(series.map((s, i) => ({
        label: s.label, stroke: s.color || colors[i % colors.length], width: s.width || 1.5,
        dash: s.dash, value: (u, v) => (v == null ? ABSENT : v.toFixed(s.decimals == null ? 2 : s.decimals) + " " + unit),
      }))),
      bands: extra.bands,
    };
    state.charts[id] = new uPlot(opts, data, box);
  }

  function chartBox(container, id, title) {
    let box = document.getElementById("chart-" + id);
    if (box) return box;
    const wrap = el("section", undefined, "chart");
    wrap.appendChild(el("h4", title));
    box = el("div");
    box.id = "chart-" + id;
    box.dataset.chart = id;
    wrap.appendChild(box);
    wrap.addEventListener("mouseenter", () => { state.paused = true; stamp(true); });
    wrap.addEventListener("mouseleave", () => { state.paused = false; stamp(true); });
    container.appendChild(wrap);
    return box;
  }

  const quantityTitles = {
    request_latency: "Request latency", time_to_first_token: "Time to first token (TTFT)",
    time_to_first_output_token: "Time to first output token (TTFOT)", inter_token_latency: "Inter-token latency (ITL)",
    time_per_output_token: "Time per output token (TPOT)", dispatch_delay: "Dispatch delay",
  };

  const perSecond = (h, xs) => xs.map((v) => v / h.interval_seconds);
  const toMs = (xs) => xs.map((v) => (v == null ? null : v * 1000));

  // trailing returns, per point, 100 × Σ conforming ÷ Σ evaluated over the
  // TRAILING_POINTS points up to it; null where nothing was evaluated.
  function trailing(evaluated, conforming) {
    const out = [];
    let e = 0, c = 0;
    for (let i = 0; i < evaluated.length; i++) {
      e += evaluated[i]; c += conforming[i];
      if (i >= TRAILING_POINTS) { e -= evaluated[i - TRAILING_POINTS]; c -= conforming[i - TRAILING_POINTS]; }
      out.push(e > 0 ? (100 * c) / e : null);
    }
    return out;
  }

  // targetCharts lists the charts of a history document.
  function targetCharts(h) {
    const charts = [];
    const colors = palette();
    for (const [q, cols] of Object.entries(h.quantities)) {
      charts.push({ id: q, title: quantityTitles[q] || q, unit: "ms", series: [
        { label: "p50", values: toMs(cols.p50), width: 2 },
        { label: "p90", values: toMs(cols.p90) },
        { label: "p99", values: toMs(cols.p99) },
      ], bands: [{ series: [3, 1], fill: colors[0] + "22" }] });
    }
    const req = h.requests;
    charts.push({ id: "requests", title: "Request rate by outcome", unit: "req/s", series: Object.keys(req).map((k) => ({ label: k, values: perSecond(h, req[k]), decimals: 3 })) });
    let errs = Object.keys(h.errors).filter((k) => sum(h.errors[k]) > 0).map((k) => ({ label: k, values: perSecond(h, h.errors[k]), decimals: 3 }));
    if (errs.length === 0) errs = [{ label: "errors (none)", values: h.times.map(() => 0) }];
    charts.push({ id: "errors", title: "Errors by type", unit: "req/s", series: errs });
    const pr = h.probes;
    charts.push({ id: "probes", title: "Probes due, sent and dropped", unit: "req/s", series: [
      { label: "due", values: perSecond(h, pr.scheduled), decimals: 3 },
      { label: "sent", values: perSecond(h, pr.sent), decimals: 3 },
    ].concat(Object.keys(pr.dropped).map((k) => ({ label: "dropped " + k, values: perSecond(h, pr.dropped[k]), decimals: 3 }))) });
    const objs = Object.entries(h.objectives);
    if (objs.length > 0) {
      const att = [], good = [];
      objs.forEach(([name, o], i) => {
        att.push({ label: name, values: trailing(o.evaluated, o.conforming), color: colors[i], width: 2 });
        att.push({ label: name + " target", values: h.times.map(() => 100 * o.target_attainment), color: colors[i], dash: [6, 4], width: 1 });
        good.push({ label: "goodput " + name, values: perSecond(h, o.conforming), decimals: 3 });
      });
      charts.push({ id: "attainment", title: "SLO attainment (last 5 minutes at each point)", unit: "%", series: att });
      const finished = h.times.map((_, i) => (req.successful[i] + req.errored[i]) / h.interval_seconds);
      charts.push({ id: "goodput", title: "Goodput and request rate", unit: "req/s", series: [{ label: "finished requests", values: finished, decimals: 3 }].concat(good) });
    }
    charts.push({ id: "concurrency", title: "Concurrency (mean requests in flight)", unit: "requests", series: [{ label: "concurrency", values: h.concurrency }] });
    charts.push({ id: "tokens", title: "Output tokens", unit: "tokens/s", series: [{ label: "output tokens", values: perSecond(h, h.output_tokens), decimals: 1 }] });
    return charts;
  }

  function drawTargetCharts(h, rebuild) {
    const container = document.getElementById("charts");
    if (!container) return;
    for (const c of targetCharts(h)) {
      drawChart(c.id, chartBox(container, c.id, c.title), c.unit, h.times, c.series, { bands: c.bands, rebuild });
    }
  }

  // Sparklines of the overview: a latency's p50 and p99, and the error ratio.
  function drawSpark(key, box, times, series, unit) {
    const data = [times].concat(series.map((s) => s.values));
    const old = state.sparks[key];
    if (old) { old.setData(data); return; }
    const colors = palette();
    const opts = {
      width: Math.max(100, box.clientWidth), height: 48, legend: { show: false }, cursor: { show: false },
      scales: { x: { time: true } }, axes: [{ show: false }, { show: false }],
      series: [{}].concat(series.map((s, i) => ({ label: s.label, stroke: colors[i], width: 1.25 }))),
    };
    state.sparks[key] = new uPlot(opts, data, box);
    box.title = series.map((s) => s.label).join(", ") + " (" + unit + "), last hour";
  }

  function drawSparks(row, h) {
    const lat = row.querySelector('[data-spark="latency"]');
    const q = h.quantities[lat.dataset.quantity] || h.quantities.request_latency;
    if (q) drawSpark(row.dataset.target + "/latency", lat, h.times, [{ label: "p50", values: toMs(q.p50) }, { label: "p99", values: toMs(q.p99) }], "ms");
    lat.toggleAttribute("data-empty", !q || !q.p50.some((v) => v != null));
    const ratio = h.times.map((_, i) => {
      const n = h.requests.successful[i] + h.requests.errored[i];
      return n > 0 ? (100 * h.requests.errored[i]) / n : null;
    });
    drawSpark(row.dataset.target + "/errors", row.querySelector('[data-spark="errors"]'), h.times, [{ label: "error ratio", values: ratio }], "%");
  }

  // The overview's rows.
  function fillObjectives(cell, t, windowName) {
    const shown = t.windows.find((w) => w.window === windowName) || t.windows[t.windows.length - 1];
    cell.replaceChildren();
    const names = shown ? Object.keys(shown.objectives) : [];
    if (names.length === 0) { cell.appendChild(el("span", "no objective set", "muted")); return; }
    for (const name of names) {
      const o = shown.objectives[name];
      const v = verdict(o);
      const div = el("div", undefined, "objective");
      div.dataset.objective = name;
      const badge = el("span", name + ": " + verdictText[v], "verdict v-" + v);
      badge.dataset.verdict = v;
      div.appendChild(badge);
      div.appendChild(document.createTextNode(" "));
      div.appendChild(el("span", objectiveWindows(t, name), "attainment"));
      cell.appendChild(div);
    }
  }

  // objectiveWindows is "1m 100.0% [72.2, 100.0] · 5m … of 99%".
  function objectiveWindows(t, name) {
    let target = null;
    const parts = t.windows.map((w) => {
      const o = w.objectives[name];
      if (!o) return w.window + " " + ABSENT;
      target = o.target_attainment;
      if (o.attainment == null) return w.window + " " + ABSENT;
      let s = w.window + " " + pct(o.attainment) + "%";
      if (o.attainment_ci) s += " [" + pct(o.attainment_ci.lower) + ", " + pct(o.attainment_ci.upper) + "]";
      return s;
    });
    return parts.join(" · ") + (target == null ? "" : " of " + String(100 * target) + "%");
  }

  function windowFigures(w) {
    const r = w.requests;
    const failed = r ? r.successful + r.errored : 0;
    return {
      rate: rateText(w.requests_per_second.all),
      errors: r && failed > 0 ? pct(r.errored / failed) + "% of " + failed : ABSENT,
      drops: w.probes ? droppedSum(w.probes) + " of " + w.probes.scheduled + " due" : ABSENT,
    };
  }

  async function refreshOverview() {
    const doc = await getJSON("/api/v1/targets");
    const windowName = document.body.dataset.window;
    const rows = new Map([...document.querySelectorAll("tr[data-target]")].map((r) => [r.dataset.target, r]));
    const histories = await Promise.all(doc.targets.map((t) => rows.has(t.name) ? getJSON("/api/v1/targets/" + encodeURIComponent(t.name) + "/history?span=1h") : null));
    doc.targets.forEach((t, i) => {
      const row = rows.get(t.name);
      if (!row) return;
      const st = row.querySelector('[data-field="state"]');
      st.textContent = t.state;
      st.className = "state state-" + t.state;
      fillObjectives(row.querySelector('[data-field="slo"]'), t, windowName);
      const w = t.windows.find((x) => x.window === windowName) || t.windows[t.windows.length - 1];
      if (w) {
        const f = windowFigures(w);
        row.querySelector('[data-field="rate"]').textContent = f.rate;
        row.querySelector('[data-field="errors"]').textContent = f.errors;
        row.querySelector('[data-field="drops"]').textContent = f.drops;
      }
      if (histories[i]) drawSparks(row, histories[i]);
    });
  }

  // The target page.
  function droppedText(p) {
    const total = droppedSum(p);
    if (total === 0) return "0";
    const reasons = Object.entries(p.dropped).filter(([, n]) => n > 0).map(([r, n]) => r + " " + n).join(", ");
    const detail = p.scheduled > 0 ? pct(total / p.scheduled) + "%; " + reasons : reasons;
    return total + " (" + detail + ")";
  }

  function fillSummary(t) {
    const row = document.querySelector('[data-field="summary"] tr');
    if (!row || !t.probes) return;
    const cells = row.children;
    cells[5].textContent = t.state === "ready" || t.waited_seconds == null ? t.state : t.state + " (" + t.waited_seconds.toFixed(1) + " s)";
    cells[6].textContent = String(t.probes.scheduled);
    cells[7].textContent = String(t.probes.sent);
    cells[8].textContent = droppedText(t.probes);
    if (t.requests) {
      cells[9].textContent = String(t.requests.successful);
      cells[10].textContent = String(t.requests.errored);
      cells[11].textContent = String(t.requests.incomplete);
    }
  }

  function windowRow(w, columns, confidence) {
    let name = w.window, probes = ABSENT, requests = ABSENT;
    if (!w.measuring) name += " (not measuring yet)";
    else {
      if (w.approximate) name += " ≈ (from " + new Date(w.start).toISOString().slice(11, 19) + ")";
      probes = w.probes.scheduled + " / " + w.probes.sent + " / " + droppedSum(w.probes);
      requests = w.requests.successful + " / " + w.requests.errored + " / " + w.requests.incomplete;
    }
    const cells = [name, probes, requests, rateText(w.requests_per_second.successful),
      rateText(w.output_tokens_per_second.successful), numberText(w.concurrency, 2)];
    for (const c of columns) {
      if (c.objective) cells.push(attainmentText(w.objectives[c.objective]));
      else {
        const s = w.summaries[c.metric] && w.summaries[c.metric].successful;
        cells.push(c.level === "mean" ? meanText(s) : percentileText(s, c.level, confidence));
      }
    }
    const tr = el("tr");
    for (const c of cells) tr.appendChild(el("td", c));
    return tr;
  }

  function fillWindows(t, confidence) {
    const table = document.getElementById("windows");
    if (!table) return;
    const columns = [...table.querySelectorAll("th[data-metric]")].map((th) => th.dataset);
    table.tBodies[0].replaceChildren(...t.windows.map((w) => windowRow(w, columns, confidence)));
  }

  const recentTime = (s) => (s == null ? ABSENT : new Date(s).toISOString().replace("T", " "));
  const dur = (v) => (v == null ? ABSENT : ms(v) + " ms");
  function codeText(c) {
    if (c == null) return ABSENT;
    return typeof c === "string" ? JSON.stringify(c) : String(c);
  }
  function usageText(p) {
    if (p.usage_inconsistent && p.tokens_clamped) return "inconsistent, clamped";
    if (p.usage_inconsistent) return "inconsistent";
    if (p.tokens_clamped) return "clamped";
    return ABSENT;
  }

  function fillRecent(doc) {
    const table = document.getElementById("recent");
    if (!table) return;
    const rows = doc.recent.map((p) => {
      const cells = [recentTime(p.time), String(p.seq), p.outcome, p.error_type || ABSENT, codeText(p.error_code),
        p.error || ABSENT, p.http_status == null ? ABSENT : String(p.http_status), dur(p.request_latency),
        dur(p.time_to_first_token), dur(p.time_to_first_output_token), dur(p.inter_token_latency),
        dur(p.time_per_output_token), p.output_tokens == null ? ABSENT : p.output_tokens + " (" + p.output_tokens_from + ")", usageText(p)];
      const tr = el("tr");
      cells.forEach((c, i) => tr.appendChild(el("td", c, i === 5 ? "error" : undefined)));
      return tr;
    });
    if (rows.length === 0) {
      const td = el("td", "No finished requests yet.");
      td.colSpan = 14;
      rows.push(el("tr"));
      rows[0].appendChild(td);
    }
    table.tBodies[0].replaceChildren(...rows);
  }

  async function refreshTarget() {
    const name = document.body.dataset.target;
    const base = "/api/v1/targets/" + encodeURIComponent(name);
    const [doc, hist, recent] = await Promise.all([getJSON("/api/v1/targets"), getJSON(base + "/history"), getJSON(base + "/recent")]);
    const t = doc.targets.find((x) => x.name === name);
    if (t) {
      fillSummary(t);
      fillWindows(t, doc.confidence);
    }
    fillRecent(recent);
    state.history = hist;
    drawTargetCharts(hist, false);
  }

  async function refresh() {
    if (state.paused) { stamp(true); return; }
    try {
      if (document.body.dataset.page === "overview") await refreshOverview();
      else if (document.body.dataset.page === "target") await refreshTarget();
      state.refreshes++;
      stamp(true);
    } catch (e) {
      state.failures++;
      stamp(false, e.message);
    }
  }

  function resize() {
    for (const u of Object.values(state.charts)) u.setSize({ width: chartWidth(u.root.parentElement), height: 220 });
    for (const u of Object.values(state.sparks)) u.setSize({ width: Math.max(100, u.root.parentElement.clientWidth), height: 48 });
  }

  function rebuild() {
    for (const u of Object.values(state.sparks)) u.destroy();
    state.sparks = {};
    if (state.history) drawTargetCharts(state.history, true);
    refresh();
  }

  function start() {
    refresh();
    setInterval(refresh, REFRESH_MS);
    let pending = 0;
    window.addEventListener("resize", () => { clearTimeout(pending); pending = setTimeout(resize, 150); });
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", rebuild);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
