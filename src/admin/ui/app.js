// hookinbox admin UI: hand-written, no framework, no build step. Embedded in the binary
// (src/admin/ui_assets.cpp) and served at /admin/ by the admin listener.
//
// Rules kept throughout:
// - Every value from the server is rendered with textContent (through el()/text()),
//   never parsed as HTML, so an event id or error text cannot inject markup.
// - The admin token lives in sessionStorage (this tab only) and is sent as
//   `Authorization: Bearer`; a 401 forgets it and returns to the login.
// - Views are chosen by the URL hash (#/, #/events?…, #/event/ID), so Back works
//   and a filtered list can be bookmarked without the token in it.
'use strict';

(function () {
  const API = 'api';  // relative to /admin/, so the UI works behind a path prefix too
  const TOKEN_KEY = 'hookinbox.adminToken';
  const PAGE_SIZE = 50;
  // What the store allows (store/sql_replay.cpp Replay, store/sql_work_queue.cpp Resolve).
  const STATUSES_REPLAYABLE = ['completed', 'dead_lettered', 'unknown'];
  const STATUSES_RESOLVABLE = ['unknown'];

  const $ = (id) => document.getElementById(id);

  // ---- rendering helpers (text only) ----

  // el('td', {class: 'x', 'data-field': 'received'}, 'text', childNode, ...)
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function show(node, visible) {
    node.hidden = !visible;
  }

  // Times arrive as ms since the epoch or as ISO-8601 strings; both become ms.
  function toMs(v) {
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'number') return v;
    const n = Date.parse(v);
    return Number.isNaN(n) ? null : n;
  }

  function fmtTime(v) {
    const ms = toMs(v);
    if (ms === null) return '—';
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  }

  function fmtAge(seconds) {
    if (seconds === undefined || seconds === null) return '—';
    let s = Math.max(0, Math.round(Number(seconds)));
    if (!Number.isFinite(s)) return '—';
    if (s < 60) return s + ' s';
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    if (d > 0) return d + ' d ' + h + ' h';
    if (h > 0) return h + ' h ' + m + ' min';
    return m + ' min ' + s + ' s';
  }

  function dash(v) {
    return v === undefined || v === null || v === '' ? '—' : v;
  }

  function say(text, kind) {
    const m = $('message');
    m.textContent = text || '';
    m.className = 'message' + (kind ? ' ' + kind : '');
    show(m, Boolean(text));
  }

  // ---- API ----

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  async function errorText(res) {
    try {
      const body = await res.json();
      if (body && typeof body.error === 'string') return body.error;
    } catch (e) {
      // not JSON: fall through to the status line
    }
    return 'HTTP ' + res.status;
  }

  // One request to the admin API with the bearer token. 401 ends the session,
  // 429 tells the person to wait; both throw so callers stop.
  async function api(path, options) {
    const opts = Object.assign({ method: 'GET' }, options || {});
    const headers = { Authorization: 'Bearer ' + (opts.token !== undefined ? opts.token : token()) };
    if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(API + path, {
        method: opts.method,
        headers: headers,
        body: opts.json !== undefined ? JSON.stringify(opts.json) : undefined,
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (e) {
      throw new ApiError(0, 'The server did not answer (' + e.message + ').');
    }
    if (res.status === 401) {
      throw new ApiError(401, 'The admin token was not accepted.');
    }
    if (res.status === 429) {
      throw new ApiError(429, 'Too many failed logins from this address: wait a minute, then try again.');
    }
    if (!res.ok) throw new ApiError(res.status, await errorText(res));
    return res;
  }

  async function apiJson(path, options) {
    const res = await api(path, options);
    return res.json();
  }

  // Shows an API failure where the person is; a 401 goes back to the login.
  function fail(err) {
    if (err instanceof ApiError && err.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin('Your session ended or the token changed: log in again.');
      return;
    }
    say(err.message || String(err), 'error');
  }

  // ---- views ----

  const VIEWS = ['login', 'dashboard', 'events', 'detail', 'attention'];

  function showView(name) {
    for (const v of VIEWS) show($(v), v === name);
    show($('nav'), name !== 'login');
    $('nav-dashboard').classList.toggle('current', name === 'dashboard');
    $('nav-events').classList.toggle('current', name === 'events' || name === 'detail');
    $('nav-attention').classList.toggle('current', name === 'attention');
  }

  function showLogin(why) {
    showView('login');
    const e = $('login-error');
    e.textContent = why || '';
    show(e, Boolean(why));
    $('token').focus();
  }

  async function onLogin(ev) {
    ev.preventDefault();
    const candidate = $('token').value.trim();
    if (!candidate) return;
    $('login-submit').disabled = true;
    try {
      // The stats route needs the token like every other: a cheap check that it works.
      await api('/stats', { token: candidate });
      sessionStorage.setItem(TOKEN_KEY, candidate);
      $('token').value = '';
      show($('login-error'), false);
      say('');
      route();
    } catch (err) {
      const e = $('login-error');
      e.textContent = err.status === 401 ? 'Wrong token.' : err.message;
      show(e, true);
    } finally {
      $('login-submit').disabled = false;
    }
  }

  function onLogout() {
    stopLive();
    sessionStorage.removeItem(TOKEN_KEY);
    say('');
    location.hash = '#/';
    showLogin('');
  }

  // -- dashboard --

  // The figures of GET /admin/api/stats (admin/metrics.cpp RenderStatsJson), per
  // endpoint and provider, in the table's column order.
  const STAT_COLUMNS = [
    ['received', 'Received'],            // authenticated deliveries: accepted + duplicate + conflict
    ['duplicates', 'Duplicates'],
    ['conflicts', 'Conflicts'],
    ['backlog', 'Backlog'],              // received + retryable_failed + processing, now; endpoints with an action
    ['oldest_pending_age_seconds', 'Oldest waiting'],
    ['dead_lettered', 'Dead letters'],
    ['unknown', 'Unknown'],
    ['completed', 'Completed'],
    ['rejected', 'Rejected'],
  ];
  // Non-zero figures that lead to the events behind them.
  const STAT_LINKS = { dead_lettered: 'dead_lettered', unknown: 'unknown', backlog: null, completed: 'completed' };

  async function loadDashboard() {
    showView('dashboard');
    try {
      const stats = await apiJson('/stats');
      const body = $('stats').tBodies[0];
      clear(body);
      const rows = Array.isArray(stats.endpoints) ? stats.endpoints : [];
      for (const e of rows) {
        const name = e.endpoint || '';
        // Stored events of an endpoint since removed from the config: history,
        // kept and listed, but nothing processes them until it comes back.
        const removed = Boolean(name) && e.configured === false;
        const tr = el('tr', { 'data-endpoint': name, 'data-provider': e.provider || '',
          'data-configured': removed ? 'no' : 'yes' });
        const title = name
          ? el('a', { href: '#/events?endpoint=' + encodeURIComponent(name) }, name)
          : el('span', { class: 'hint' }, '(no endpoint: rejected requests)');
        tr.append(el('th', { scope: 'row', 'data-label': 'Endpoint' }, el('span', {}, title,
          e.provider ? el('span', { class: 'hint provider' }, ' ' + e.provider) : null,
          removed ? el('span', { class: 'hint removed', 'data-field': 'configured' }, ' removed from the config') : null)));
        for (const [key, label] of STAT_COLUMNS) {
          const raw = e[key];
          // An endpoint without an action keeps its events as received: they
          // wait for nothing, so it has no backlog to show.
          const waiting = key === 'backlog' || key === 'oldest_pending_age_seconds';
          let value;
          if (waiting && removed) value = el('span', { class: 'hint', title: 'not in the config in force: nothing processes its events' }, 'removed from the config');
          else if (waiting && e.has_action === false) value = el('span', { class: 'hint', title: 'no action: events are kept as received' }, 'no action');
          else if (key === 'oldest_pending_age_seconds') value = Number(e.backlog) > 0 ? fmtAge(raw) : '—';
          else value = dash(raw);
          const td = el('td', { 'data-field': key, 'data-label': label });
          const status = STAT_LINKS[key];
          if (status && name && Number(raw) > 0) {
            td.append(el('a', { href: '#/events?status=' + status + '&endpoint=' + encodeURIComponent(name) }, value));
          } else {
            td.append(value);
          }
          if ((key === 'dead_lettered' || key === 'unknown') && Number(raw) > 0) td.classList.add('attention');
          tr.append(td);
        }
        body.append(tr);
      }
      show($('stats-empty'), rows.length === 0);
      show($('stats'), rows.length > 0);
      $('stats-time').textContent = 'As of ' + fmtTime(toMs(stats.now_ms) || Date.now()) +
        '. Received, duplicates, conflicts and rejected count HTTP deliveries; the others count events.';
      await loadEndpoints();
      await loadActivity();
    } catch (err) {
      fail(err);
    }
  }

  // -- activity charts (GET /admin/api/activity, admin/activity.h) --
  //
  // Per endpoint, two stacked-bar charts over the chosen range: deliveries
  // (accepted, duplicate, rejected) and the action's attempts (completed,
  // failed), with incidents (GET /admin/api/incidents?all=1) drawn as bands
  // from their opening to their end (or now). Plain SVG, no library: each
  // bar segment is a <rect> carrying its series and count (data-series,
  // data-count) and a <title> a screen reader or a hover shows; each chart is
  // role="img" with a title and a one-sentence summary. Times are the
  // browser's local time.

  const SVG_NS = 'http://www.w3.org/2000/svg';
  const CHART_W = 640, CHART_H = 150;
  const PLOT = { left: 44, right: 8, top: 10, bottom: 26 };
  const CHART_PANELS = [
    { key: 'deliveries', title: 'Deliveries', series: [['accepted', 'Accepted'], ['duplicate', 'Duplicate'], ['rejected', 'Rejected']] },
    { key: 'outcomes', title: 'Action outcomes', series: [['completed', 'Completed'], ['failed', 'Failed']] },
  ];
  let activityRange = '24h';

  function svgEl(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  // "14:00" within a day, "Tue 18:00" across a week: local time.
  function fmtBucket(ms, range) {
    const d = new Date(ms);
    const hm = String(d.getHours()).padStart(2, '0') + ':' + String(d.getMinutes()).padStart(2, '0');
    return range === '7d' ? d.toLocaleDateString(undefined, { weekday: 'short' }) + ' ' + hm : hm;
  }

  function fmtSpan(startMs, bucketMs) {
    const from = new Date(startMs), to = new Date(startMs + bucketMs);
    return from.toLocaleString() + ' – ' + to.toLocaleTimeString();
  }

  // The smallest "nice" number (1, 2, 5 × 10^n) at or above max, for the y axis.
  function niceMax(max) {
    if (max <= 0) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(max)));
    for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
    return 10 * p;
  }

  function chartLegend(panel) {
    const ul = el('ul', { class: 'legend', 'aria-hidden': 'true' });
    for (const [key, label] of panel.series) {
      ul.append(el('li', {}, el('span', { class: 'swatch s-' + key }), label));
    }
    return ul;
  }

  function incidentBands(g, incidents, x0, x1, startMs, endMs, plotH) {
    const scale = (ms) => x0 + ((Math.min(Math.max(ms, startMs), endMs) - startMs) / (endMs - startMs)) * (x1 - x0);
    for (const inc of incidents) {
      const opened = toMs(inc.opened_at);
      const resolved = toMs(inc.resolved_at);
      if (opened === null || opened >= endMs || (resolved !== null && resolved < startMs)) continue;
      const a = scale(opened), b = scale(resolved === null ? endMs : resolved);
      const open = resolved === null;
      const label = (open ? 'Open incident' : 'Incident') + ' since ' + new Date(opened).toLocaleString() +
        (open ? '' : ', resolved ' + new Date(resolved).toLocaleString()) + ': ' + (inc.summary || inc.condition || '');
      const band = svgEl('g', { class: 'incident' + (open ? ' open' : ''), 'data-incident': inc.id },
        svgEl('title', {}, label),
        svgEl('rect', { x: a, y: PLOT.top, width: Math.max(2, b - a), height: plotH, class: 'band' }),
        svgEl('line', { x1: a, x2: a, y1: PLOT.top, y2: PLOT.top + plotH, class: 'marker' }));
      g.append(band);
    }
  }

  // One stacked-bar chart of `panel`'s series over `buckets`.
  function activityChart(endpoint, panel, data, incidents) {
    const buckets = data.buckets || [];
    const bucketMs = Number(data.bucket_seconds) * 1000;
    const x0 = PLOT.left, x1 = CHART_W - PLOT.right, plotH = CHART_H - PLOT.top - PLOT.bottom;
    const slot = (x1 - x0) / Math.max(1, buckets.length);
    const totals = buckets.map((b) => panel.series.reduce((s, [k]) => s + Number(b[k] || 0), 0));
    const top = niceMax(Math.max(0, ...totals));
    const sums = panel.series.map(([k, label]) => buckets.reduce((s, b) => s + Number(b[k] || 0), 0) + ' ' + label.toLowerCase());
    const id = 'chart-' + panel.key + '-' + endpoint.replace(/[^A-Za-z0-9_-]/g, '_');
    const rangeText = activityRange === '7d' ? 'the last 7 days' : 'the last 24 hours';
    const svg = svgEl('svg', { viewBox: `0 0 ${CHART_W} ${CHART_H}`, role: 'img', class: 'chart',
      'aria-labelledby': id + '-title ' + id + '-desc', 'data-chart': panel.key, 'data-buckets': buckets.length },
      svgEl('title', { id: id + '-title' }, endpoint + ': ' + panel.title.toLowerCase() + ' over ' + rangeText),
      svgEl('desc', { id: id + '-desc' }, 'In total ' + sums.join(', ') + '.'));
    // Axes: 0 and the top value on the left, a label every few buckets below.
    svg.append(svgEl('line', { x1: x0, x2: x1, y1: PLOT.top + plotH, y2: PLOT.top + plotH, class: 'axis' }));
    svg.append(svgEl('line', { x1: x0, x2: x1, y1: PLOT.top, y2: PLOT.top, class: 'grid' }));
    svg.append(svgEl('text', { x: x0 - 6, y: PLOT.top + plotH, class: 'tick y' }, '0'));
    svg.append(svgEl('text', { x: x0 - 6, y: PLOT.top + 8, class: 'tick y', 'data-axis-max': top }, String(top)));
    // A phone shows the chart at a third of its width: fewer, larger labels (app.css).
    const narrow = window.matchMedia('(max-width: 719px)').matches;
    const every = (buckets.length > 24 ? 4 : 3) * (narrow ? 2 : 1);
    buckets.forEach((b, i) => {
      const start = toMs(b.start);
      const x = x0 + i * slot;
      // The first label starts at its bar rather than centring on it, so it is not cut at the left edge.
      if (i % every === 0) {
        svg.append(svgEl('text', { x: i === 0 ? x : x + slot / 2, y: CHART_H - 8, class: i === 0 ? 'tick x first' : 'tick x' },
          fmtBucket(start, activityRange)));
      }
      let y = PLOT.top + plotH;
      for (const [key, label] of panel.series) {
        const n = Number(b[key] || 0);
        if (n <= 0) continue;
        const h = (n / top) * plotH;
        y -= h;
        svg.append(svgEl('rect', { x: x + 1, y: y, width: Math.max(1, slot - 2), height: h, class: 's-' + key,
          'data-series': key, 'data-count': n, 'data-bucket': i },
          svgEl('title', {}, fmtSpan(start, bucketMs) + ': ' + n + ' ' + label.toLowerCase())));
      }
    });
    if (buckets.length > 0) {
      const startMs = toMs(buckets[0].start);
      incidentBands(svg, incidents, x0, x1, startMs, startMs + buckets.length * bucketMs, plotH);
    }
    return el('div', { class: 'chart-panel' }, el('h3', {}, panel.title), chartLegend(panel), svg);
  }

  // Incidents for the charts; quietly none when the server has no incidents
  // route (404) or the call fails: the charts are still worth showing.
  async function loadIncidents() {
    try {
      const body = await apiJson('/incidents?all=1');
      return Array.isArray(body.incidents) ? body.incidents : [];
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err;
      return [];
    }
  }

  async function loadActivity() {
    const box = $('activity-charts');
    for (const r of ['24h', '7d']) $('activity-' + r).setAttribute('aria-pressed', String(r === activityRange));
    const [activity, incidents] = await Promise.all([apiJson('/activity?range=' + activityRange), loadIncidents()]);
    clear(box);
    const endpoints = Array.isArray(activity.endpoints) ? activity.endpoints : [];
    for (const e of endpoints) {
      const mine = incidents.filter((i) => !i.endpoint || i.endpoint === e.endpoint);
      const data = { bucket_seconds: activity.bucket_seconds, buckets: e.buckets };
      const fig = el('figure', { class: 'activity', 'data-endpoint': e.endpoint },
        el('figcaption', {}, e.endpoint));
      for (const panel of CHART_PANELS) fig.append(activityChart(e.endpoint, panel, data, mine));
      box.append(fig);
    }
    box.setAttribute('data-range', activity.range || activityRange);
    show($('activity-empty'), endpoints.length === 0);
  }

  function onActivityRange(range) {
    activityRange = range;
    loadActivity().catch(fail);
  }

  // -- endpoints: pause and circuit breaker (GET /admin/api/endpoints, admin/endpoint_json.h) --

  function pauseText(e) {
    if (!e.paused) return 'Running';
    let text = 'Paused since ' + fmtTime(e.paused_at) + ' by ' + dash(e.paused_by);
    if (e.paused_reason) text += ': ' + e.paused_reason;
    return text;
  }

  function breakerText(b) {
    if (!b || b.state === 'closed') return 'Closed';
    let text = (b.state === 'open' ? 'Open' : 'Half open (one trial delivery)') + ' after ' + b.failures + ' failures';
    if (b.next_probe_at) text += '; next trial ' + fmtTime(b.next_probe_at);
    if (b.last_error) text += '; last error: ' + b.last_error;
    return text;
  }

  // "10 Dec 2026 00:00 UTC": a rotation's end in words (UTC, as the API stores it).
  function fmtUtcWords(v) {
    const ms = toMs(v);
    if (ms === null) return '—';
    const d = new Date(ms);
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const two = (n) => String(n).padStart(2, '0');
    return d.getUTCDate() + ' ' + months[d.getUTCMonth()] + ' ' + d.getUTCFullYear() + ' ' +
      two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ' UTC';
  }

  // The secret column: a rotation under way (GET /admin/api/endpoints' secret_rotation) or nothing to say.
  function rotationText(r) {
    if (!r) return '—';
    if (r.previous_active) return 'Old secret accepted until ' + fmtUtcWords(r.previous_until);
    return 'Old secret expired at ' + fmtUtcWords(r.previous_until);
  }

  function endpointRow(e) {
    const tr = el('tr', { 'data-endpoint': e.name, 'data-paused': e.paused ? 'yes' : 'no',
      'data-breaker': e.breaker ? e.breaker.state : 'closed' });
    tr.append(el('th', { scope: 'row', 'data-label': 'Endpoint' }, el('span', {}, e.name,
      el('span', { class: 'hint provider' }, ' ' + (e.provider || '')))));
    const paused = el('td', { 'data-field': 'paused', 'data-label': 'Deliveries' }, pauseText(e));
    if (e.paused) paused.classList.add('attention');
    tr.append(paused);
    const breaker = el('td', { 'data-field': 'breaker', 'data-label': 'Circuit breaker' },
      e.has_action ? breakerText(e.breaker) : el('span', { class: 'hint' }, 'no action'));
    if (e.breaker && e.breaker.state !== 'closed') breaker.classList.add('attention');
    tr.append(breaker);
    const r = e.secret_rotation;
    const secret = el('td', { 'data-field': 'secret', 'data-label': 'Secret' }, rotationText(r));
    if (r && r.previous_active) {
      const retire = el('button', { type: 'button', class: 'retire-secret' }, 'Retire old secret now');
      retire.addEventListener('click', () => onRetireSecret(e.name));
      secret.append(' ', retire);
    }
    tr.append(secret);
    const button = el('button', { type: 'button', class: e.paused ? 'resume' : 'pause' }, e.paused ? 'Resume' : 'Pause');
    button.addEventListener('click', () => (e.paused ? onResumeEndpoint(e.name) : onPauseEndpoint(e.name)));
    const rotate = el('button', { type: 'button', class: 'rotate-secret' }, 'Rotate secret');
    rotate.addEventListener('click', () => onRotateSecret(e.name));
    tr.append(el('td', { 'data-field': 'verb', 'data-label': 'Actions' }, button, ' ', rotate));
    return tr;
  }

  async function loadEndpoints() {
    const list = await apiJson('/endpoints');
    const rows = Array.isArray(list.endpoints) ? list.endpoints : [];
    const body = $('endpoint-states').tBodies[0];
    clear(body);
    for (const e of rows) body.append(endpointRow(e));
    show($('endpoints-empty'), rows.length === 0);
    show($('endpoint-states'), rows.length > 0);
  }

  async function onPauseEndpoint(name) {
    const answer = await confirmAction('Pause endpoint ' + name + '?',
      'Its deliveries are still received and stored but not sent until you resume it. ' +
      'Attempts already running finish.', false, 'Reason (optional)');
    if (!answer) return;
    try {
      const res = await apiJson('/endpoints/' + encodeURIComponent(name) + '/pause',
        { method: 'POST', json: answer.note ? { reason: answer.note } : {} });
      say(res.changed ? 'Endpoint ' + name + ' paused.' : 'Endpoint ' + name + ' was already paused.', 'ok');
      await loadEndpoints();
    } catch (err) {
      fail(err);
    }
  }

  async function onResumeEndpoint(name) {
    const answer = await confirmAction('Resume endpoint ' + name + '?',
      'Its waiting deliveries are sent again, at the pace its action allows.', false, false);
    if (!answer) return;
    try {
      const res = await apiJson('/endpoints/' + encodeURIComponent(name) + '/resume', { method: 'POST', json: {} });
      say(res.changed ? 'Endpoint ' + name + ' resumed.' : 'Endpoint ' + name + ' was not paused.', 'ok');
      await loadEndpoints();
    } catch (err) {
      fail(err);
    }
  }

  // -- secret rotation (POST /admin/api/endpoints/{name}/secret/rotate|retire, admin/secret_json.h) --
  //
  // The new secret goes only into the request body: never into the URL, the
  // storage of the page, or a message; the input is emptied as soon as the
  // dialog closes, whatever the answer.

  // A datetime-local value ("2026-12-10T09:30") for local time `ms`.
  function msToLocal(ms) {
    const d = new Date(ms);
    const two = (n) => String(n).padStart(2, '0');
    return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + 'T' +
      two(d.getHours()) + ':' + two(d.getMinutes());
  }

  // Resolves to null (cancelled) or {secret, until}, with the input already emptied.
  function askRotation(name) {
    const dlg = $('rotate');
    $('rotate-title').textContent = 'Rotate the secret of ' + name;
    $('rotate-secret').value = '';
    $('rotate-until').value = msToLocal(Date.now() + 24 * 3600 * 1000);
    return new Promise((resolve) => {
      dlg.addEventListener('close', function onClose() {
        dlg.removeEventListener('close', onClose);
        const secret = $('rotate-secret').value;
        $('rotate-secret').value = '';
        if (dlg.returnValue !== 'ok') {
          resolve(null);
          return;
        }
        resolve({ secret: secret, until: localToMs($('rotate-until').value) });
      });
      dlg.returnValue = '';
      dlg.showModal();
      $('rotate-secret').focus();
    });
  }

  async function onRotateSecret(name) {
    const answer = await askRotation(name);
    if (!answer) return;
    if (!answer.secret) {
      say('Secret of ' + name + ' not rotated: the new secret was empty.', 'error');
      return;
    }
    const body = { secret: answer.secret };
    if (answer.until !== null) body.keep_old_until = new Date(answer.until).toISOString();
    answer.secret = '';
    try {
      const res = await apiJson('/endpoints/' + encodeURIComponent(name) + '/secret/rotate', { method: 'POST', json: body });
      say('New secret of ' + name + ' in force on this server; the old one is accepted until ' + fmtUtcWords(res.previous_until) + '.', 'ok');
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) say('Secret of ' + name + ' not rotated: ' + err.message, 'error');
      else fail(err);
    } finally {
      body.secret = '';
    }
    try {
      await loadEndpoints();
    } catch (err) {
      fail(err);
    }
  }

  async function onRetireSecret(name) {
    const answer = await confirmAction('Retire the old secret of ' + name + ' now?',
      'Deliveries signed with the old secret are refused from now on; only the new one is accepted.', false, false);
    if (!answer) return;
    try {
      await apiJson('/endpoints/' + encodeURIComponent(name) + '/secret/retire', { method: 'POST', json: {} });
      say('Old secret of ' + name + ' retired on this server: only the new one is accepted.', 'ok');
      await loadEndpoints();
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) say('Old secret of ' + name + ' not retired: ' + err.message, 'error');
      else fail(err);
    }
  }

  // -- attention: incidents (GET /admin/api/incidents, admin/incident_json.h) --

  // Each condition the alert engine watches, in plain words.
  const CONDITION_WORDS = {
    dead_letters: 'New dead letters',
    unknown: 'Events with an unknown outcome',
    conflicts: 'Same event id, different content (conflicts)',
    backlog_age: 'Deliveries waiting too long',
    signature_failures: 'Many signature failures (rotated secret, or an attack)',
    silence: 'No deliveries for too long',
    breaker_open: 'Downstream failing (circuit breaker open)',
    certificate_days: 'TLS certificate about to expire',
    disk_free: 'Disk space running low',
    database_size: 'Database growing past its limit',
    storage_failures: 'Storage failures (deliveries refused with 503)',
  };

  function conditionText(c) {
    return CONDITION_WORDS[c] || c;
  }

  function isMuted(i) {
    const until = toMs(i.muted_until);
    return until !== null && until > Date.now();
  }

  function incidentState(i) {
    const parts = [];
    if (i.acked_at) parts.push('Acknowledged by ' + dash(i.acked_by) + ' at ' + fmtTime(i.acked_at));
    if (isMuted(i)) parts.push('Muted until ' + fmtTime(i.muted_until));
    return parts.length ? parts.join('; ') : 'Open';
  }

  function incidentCells(tr, i) {
    tr.append(el('th', { scope: 'row', 'data-label': 'What' }, el('span', {}, conditionText(i.condition),
      i.summary ? el('span', { class: 'hint more' }, ' ' + i.summary) : null)));
    tr.append(el('td', { 'data-field': 'endpoint', 'data-label': 'Endpoint' },
      i.endpoint ? i.endpoint : el('span', { class: 'hint' }, 'whole installation')));
    tr.append(el('td', { 'data-field': 'since', 'data-label': 'Since' }, fmtTime(i.opened_at)));
  }

  function openIncidentRow(i) {
    const muted = isMuted(i);
    const tr = el('tr', { 'data-incident': i.id, 'data-acked': i.acked_at ? 'yes' : 'no', 'data-muted': muted ? 'yes' : 'no' });
    incidentCells(tr, i);
    tr.append(el('td', { 'data-field': 'last_seen', 'data-label': 'Last seen' }, fmtTime(i.last_seen_at)));
    tr.append(el('td', { 'data-field': 'count', 'data-label': 'Count' }, dash(i.count)));
    const state = el('td', { 'data-field': 'state', 'data-label': 'State' }, incidentState(i));
    state.classList.add(i.acked_at || muted ? 'quiet' : 'attention');
    tr.append(state);
    const ack = el('button', { type: 'button', class: 'ack', disabled: Boolean(i.acked_at) }, 'Acknowledge');
    ack.addEventListener('click', () => onAckIncident(i));
    const mute = el('button', { type: 'button', class: muted ? 'unmute' : 'mute' }, muted ? 'Unmute' : 'Mute…');
    mute.addEventListener('click', () => (muted ? onUnmuteIncident(i) : onMuteIncident(i)));
    tr.append(el('td', { 'data-field': 'verbs', 'data-label': 'Action' }, ack, ' ', mute));
    return tr;
  }

  function resolvedIncidentRow(i) {
    const tr = el('tr', { 'data-incident': i.id });
    incidentCells(tr, i);
    tr.append(el('td', { 'data-field': 'resolved', 'data-label': 'Resolved' }, fmtTime(i.resolved_at)));
    tr.append(el('td', { 'data-field': 'count', 'data-label': 'Count' }, dash(i.count)));
    return tr;
  }

  function setAttentionCount(n) {
    const badge = $('attention-count');
    badge.textContent = String(n);
    show(badge, n > 0);
    $('nav-attention').title = n + ' open incident' + (n === 1 ? '' : 's');
  }

  // The nav's count of open incidents, refreshed with every view; a failure
  // here is left to the view's own request to report.
  async function refreshAttentionCount() {
    try {
      const list = await apiJson('/incidents');
      setAttentionCount(Array.isArray(list.incidents) ? list.incidents.length : 0);
    } catch (err) {
      // the view shows the error
    }
  }

  function fillTable(table, empty, rows, toRow) {
    const body = $(table).tBodies[0];
    clear(body);
    for (const r of rows) body.append(toRow(r));
    show($(empty), rows.length === 0);
    show($(table), rows.length > 0);
  }

  async function loadAttention() {
    showView('attention');
    try {
      const list = await apiJson('/incidents?all=1');
      const all = Array.isArray(list.incidents) ? list.incidents : [];
      const open = all.filter((i) => !i.resolved_at);
      fillTable('incident-list', 'incidents-empty', open, openIncidentRow);
      fillTable('resolved-list', 'resolved-empty', all.filter((i) => i.resolved_at), resolvedIncidentRow);
      setAttentionCount(open.length);
    } catch (err) {
      fail(err);
    }
  }

  async function onAckIncident(i) {
    try {
      const res = await apiJson('/incidents/' + encodeURIComponent(i.id) + '/ack', { method: 'POST', json: {} });
      say(res.changed ? 'Acknowledged: no more reminders about it.' : 'It was already acknowledged.', 'ok');
      await loadAttention();
    } catch (err) {
      fail(err);
    }
  }

  // The body of POST …/mute for the dialog's choice, or null when the custom time is missing or past.
  function muteBody(answer) {
    if (answer.muteFor !== 'custom') return { minutes: Number(answer.muteFor) };
    const ms = localToMs(answer.muteUntil);
    if (ms === null || ms <= Date.now()) return null;
    return { until: new Date(ms).toISOString() };
  }

  async function onMuteIncident(i) {
    const answer = await confirmAction('Mute "' + conditionText(i.condition) + '"?',
      'No reminder and no "resolved" message about it until then; it stays listed here.', false, false, true);
    if (!answer) return;
    const body = muteBody(answer);
    if (!body) {
      say('Choose a time in the future to mute until.', 'error');
      return;
    }
    try {
      const res = await apiJson('/incidents/' + encodeURIComponent(i.id) + '/mute', { method: 'POST', json: body });
      say('Muted until ' + fmtTime(res.incident.muted_until) + '.', 'ok');
      await loadAttention();
    } catch (err) {
      fail(err);
    }
  }

  async function onUnmuteIncident(i) {
    try {
      await apiJson('/incidents/' + encodeURIComponent(i.id) + '/mute', { method: 'POST', json: { minutes: 0 } });
      say('Unmuted.', 'ok');
      await loadAttention();
    } catch (err) {
      fail(err);
    }
  }

  // -- audit database download --

  function exportFileName() {
    const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
    return 'hookinbox-audit-' + t + '.db';
  }

  // The name the server gives (Content-Disposition), when it is a plain file name.
  function serverFileName(res) {
    const m = /filename="?([A-Za-z0-9._-]+)"?/.exec(res.headers.get('Content-Disposition') || '');
    return m ? m[1] : null;
  }

  // The bearer header cannot ride on a plain link, so the file is fetched and handed
  // to the browser as a blob download.
  async function onExport() {
    const button = $('export');
    const withoutPayloads = $('export-without-payloads').checked;
    button.disabled = true;
    say('Preparing the audit database…');
    try {
      const res = await api('/export.db' + (withoutPayloads ? '?payloads=0' : ''));
      const blob = await res.blob();
      const url = URL.createObjectURL(blob);
      const a = el('a', { href: url, download: serverFileName(res) || exportFileName() });
      document.body.append(a);
      a.click();
      a.remove();
      // Give the browser time to start the download before the URL goes away.
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      say('Audit database downloaded (' + blob.size + ' bytes' + (withoutPayloads ? ', without payloads' : '') + ').', 'ok');
    } catch (err) {
      fail(err);
    } finally {
      button.disabled = false;
    }
  }

  // -- event list --

  const FILTERS = ['status', 'endpoint', 'tenant', 'type', 'q', 'since', 'until'];

  // datetime-local values are local wall-clock times; the API gets ms since the epoch.
  function localToMs(v) {
    if (!v) return null;
    const ms = new Date(v).getTime();
    return Number.isNaN(ms) ? null : ms;
  }

  function parseHashQuery() {
    const h = location.hash;
    const i = h.indexOf('?');
    return new URLSearchParams(i >= 0 ? h.slice(i + 1) : '');
  }

  function filtersFromForm() {
    const p = new URLSearchParams();
    for (const f of FILTERS) {
      const v = $('f-' + f).value.trim();
      if (v) p.set(f, v);
    }
    const limit = parseHashQuery().get('limit');
    if (limit) p.set('limit', limit);
    return p;
  }

  function fillForm(p) {
    for (const f of FILTERS) $('f-' + f).value = p.get(f) || '';
    // On a phone the filters fold away unless one is in use, so the list shows first.
    if (window.matchMedia('(max-width: 719px)').matches) $('filter-box').open = FILTERS.some((f) => p.get(f));
  }

  function apiQuery(p, cursor) {
    const q = new URLSearchParams();
    for (const f of FILTERS) {
      const v = p.get(f);
      if (!v) continue;
      if (f === 'since' || f === 'until') {
        const ms = localToMs(v);
        if (ms !== null) q.set(f, String(ms));
      } else {
        q.set(f, v);
      }
    }
    // A page size in the address (#/events?limit=N) wins, within the API's bounds.
    const limit = Number(p.get('limit'));
    q.set('limit', String(Number.isInteger(limit) && limit >= 1 && limit <= 500 ? limit : PAGE_SIZE));
    if (cursor) q.set('cursor', cursor);
    return q.toString();
  }

  let listState = { query: '', cursors: [], next: null };

  function statusBadge(status) {
    return el('span', { class: 'status s-' + String(status).replace(/[^a-z_]/g, '') }, status);
  }

  function eventRow(e) {
    const href = '#/event/' + encodeURIComponent(e.id);
    return el('tr', { 'data-id': e.id, 'data-status': e.status },
      el('td', { 'data-label': '#' }, el('a', { href: href }, e.id)),
      el('td', { 'data-label': 'Status' }, statusBadge(e.status)),
      el('td', { 'data-label': 'Endpoint' }, dash(e.endpoint)),
      el('td', { 'data-label': 'Tenant' }, dash(e.tenant_id)),
      el('td', { 'data-label': 'Event id', class: 'mono wrap' }, el('a', { href: href }, dash(e.event_id))),
      el('td', { 'data-label': 'Type' }, dash(e.event_type)),
      el('td', { 'data-label': 'Attempts' }, dash(e.attempt_count)),
      el('td', { 'data-label': 'Received' }, fmtTime(e.received_at)));
  }

  async function loadEvents(cursor) {
    showView('events');
    const p = parseHashQuery();
    fillForm(p);
    const query = p.toString();
    if (query !== listState.query) listState = { query: query, cursors: [], next: null };
    try {
      const page = await apiJson('/events?' + apiQuery(p, cursor));
      const body = $('event-list').tBodies[0];
      clear(body);
      const events = Array.isArray(page.events) ? page.events : [];
      for (const e of events) body.append(eventRow(e));
      show($('events-empty'), events.length === 0);
      show($('event-list'), events.length > 0);
      listState.next = page.next_cursor || null;
      show($('bulk-replay-row'), bulkReplayFilter(p) !== null && events.length > 0);
      show($('page-next'), Boolean(listState.next));
      show($('page-first'), Boolean(cursor));
    } catch (err) {
      fail(err);
    }
  }

  function onFilter(ev) {
    ev.preventDefault();
    const q = filtersFromForm().toString();
    const target = '#/events' + (q ? '?' + q : '');
    if (location.hash === target) {
      loadEvents(null);
    } else {
      location.hash = target;
    }
  }

  // The body of POST /events/replay for the list's filters, or null when the
  // filters do not name one replayable state and one endpoint, or narrow by
  // something a bulk replay cannot (tenant, type, id): the replay must take
  // exactly the events the list shows.
  function bulkReplayFilter(p) {
    const status = p.get('status');
    const endpoint = p.get('endpoint');
    if (!STATUSES_REPLAYABLE.includes(status) || !endpoint) return null;
    if (p.get('tenant') || p.get('type') || p.get('q')) return null;
    const body = { status: status, endpoint: endpoint };
    for (const f of ['since', 'until']) {
      const ms = localToMs(p.get(f));
      if (ms !== null) body[f] = ms;
    }
    return body;
  }

  // Counts first (a dry run), asks with that count, then replays.
  async function onBulkReplay() {
    const filter = bulkReplayFilter(parseHashQuery());
    if (!filter) return;
    try {
      const dry = await apiJson('/events/replay', { method: 'POST', json: Object.assign({ dry_run: true }, filter) });
      if (!dry.matched) {
        say('No events match these filters any more.', 'ok');
        return;
      }
      const purged = dry.skipped_payload_purged
        ? ' ' + dry.skipped_payload_purged + ' of them have no payload left (retention) and will be skipped.' : '';
      const answer = await confirmAction('Replay ' + dry.matched + ' matching events?',
        'Every ' + filter.status + ' event of endpoint "' + filter.endpoint + '" these filters match goes back to ' +
        '"received" with its own idempotency key, and its action runs again.' + purged, false);
      if (!answer) return;
      const body = Object.assign({}, filter);
      if (answer.note) body.note = answer.note;
      const done = await apiJson('/events/replay', { method: 'POST', json: body });
      say('Replayed ' + done.replayed + ' of ' + done.matched + ' events' +
        (done.skipped ? '; ' + done.skipped + ' skipped.' : '.'), 'ok');
      await loadEvents(null);
    } catch (err) {
      fail(err);
    }
  }

  function onClearFilters() {
    fillForm(new URLSearchParams());
    location.hash = '#/events';
  }

  // -- event detail --

  let current = null;  // the event shown: {id, status}

  function field(dl, label, value, cls) {
    dl.append(el('dt', {}, label), el('dd', { class: cls || null, 'data-field': label }, dash(value)));
  }

  // One entry per thing that happened to the event, oldest first.
  function timelineItems(d) {
    const items = [];
    for (const x of d.deliveries || []) {
      const what = 'Delivery ' + dash(x.outcome) + ' (HTTP ' + dash(x.http_status) + ')';
      const more = [x.reason && 'reason: ' + x.reason, x.remote_addr && 'from ' + x.remote_addr,
        x.body_bytes !== undefined && x.body_bytes !== null && x.body_bytes + ' bytes',
        x.user_agent && x.user_agent].filter(Boolean).join(' · ');
      items.push({ at: toMs(x.received_at), kind: 'delivery', outcome: x.outcome, what: what, more: more });
    }
    for (const a of d.attempts || []) {
      const kind = a.kind === 'probe' ? 'Probe' : 'Attempt';
      const what = kind + ' ' + dash(a.attempt) + ': ' + (a.outcome || 'in progress');
      const more = [a.http_status !== undefined && a.http_status !== null && 'HTTP ' + a.http_status,
        a.exit_code !== undefined && a.exit_code !== null && 'exit ' + a.exit_code,
        a.error && a.error, a.finished_at && 'finished ' + fmtTime(a.finished_at),
        a.worker && 'worker ' + a.worker].filter(Boolean).join(' · ');
      items.push({ at: toMs(a.started_at), kind: 'attempt', outcome: a.outcome || 'processing', what: what, more: more });
    }
    for (const a of d.actions || []) {
      const what = (a.action === 'replay' ? 'Replayed' : 'Resolved') + ': ' + dash(a.from_status) + ' → ' + dash(a.to_status);
      const more = [a.actor && 'by ' + a.actor, a.result_ref && 'ref ' + a.result_ref, a.note && 'note: ' + a.note]
        .filter(Boolean).join(' · ');
      items.push({ at: toMs(a.at), kind: 'action', outcome: a.to_status, what: what, more: more });
    }
    for (const f of d.effects || []) {
      const what = 'Effect ' + dash(f.effect_key || f.key) + ': ' + dash(f.status);
      const more = [f.external_ref && 'ref ' + f.external_ref, f.error && f.error,
        f.attempt !== undefined && 'attempt ' + f.attempt].filter(Boolean).join(' · ');
      items.push({ at: toMs(f.updated_at) || toMs(f.claimed_at), kind: 'effect', outcome: f.status, what: what, more: more });
    }
    for (const s of d.steps || []) {
      const bytes = s.bytes !== undefined ? s.bytes : s.body_bytes;
      const what = 'Step ' + dash(s.name) + ' stored';
      const more = [s.content_type, bytes !== undefined && bytes !== null && bytes + ' bytes',
        s.attempt !== undefined && 'attempt ' + s.attempt].filter(Boolean).join(' · ');
      items.push({ at: toMs(s.stored_at), kind: 'step', outcome: 'stored', what: what, more: more });
    }
    // Stable: equal times keep the order above (delivery before its attempt).
    return items.map((it, i) => [it, i])
      .sort((a, b) => ((a[0].at || 0) - (b[0].at || 0)) || (a[1] - b[1]))
      .map((p) => p[0]);
  }

  function renderDetail(d) {
    const e = d.event || d;
    current = { id: e.id, status: e.status };
    $('detail-title').textContent = '#' + e.id;
    const dl = $('detail-fields');
    clear(dl);
    dl.append(el('dt', {}, 'Status'), el('dd', { 'data-field': 'Status', id: 'detail-status' }, statusBadge(e.status)));
    field(dl, 'Endpoint', e.endpoint);
    field(dl, 'Provider', e.provider);
    field(dl, 'Tenant', e.tenant_id);
    field(dl, 'Event id', e.event_id, 'mono wrap');
    field(dl, 'Event type', e.event_type);
    field(dl, 'Attempts', e.attempt_count);
    field(dl, 'Received', fmtTime(e.received_at));
    field(dl, 'Completed', fmtTime(e.completed_at));
    if (e.next_attempt_at && (e.status === 'retryable_failed' || e.status === 'received')) {
      field(dl, 'Next attempt', fmtTime(e.next_attempt_at));
    }
    if (e.result_ref) field(dl, 'Result reference', e.result_ref, 'mono wrap');
    // The store keeps the last error after success, as history: say so.
    if (e.last_error) field(dl, e.status === 'completed' ? 'Earlier error' : 'Last error', e.last_error, 'wrap');
    if (e.skip_reason) field(dl, 'Skipped because', e.skip_reason + (e.skipped_for ? ' (event #' + e.skipped_for + ')' : ''));
    if (e.waiting_for) field(dl, 'Waiting for', 'event #' + e.waiting_for);
    if (e.business_key_hint) field(dl, 'Business key', e.business_key_hint);
    field(dl, 'Payload hash', e.payload_hash, 'mono wrap');

    const ol = $('timeline');
    clear(ol);
    const items = timelineItems(d);
    for (const it of items) {
      ol.append(el('li', { class: 't-' + it.kind + ' o-' + String(it.outcome || '').replace(/[^a-z_]/g, ''), 'data-kind': it.kind },
        el('time', {}, fmtTime(it.at)),
        el('span', { class: 'what' }, it.what),
        it.more ? el('span', { class: 'more' }, it.more) : null));
    }
    if (items.length === 0) ol.append(el('li', {}, 'Nothing recorded yet.'));

    $('replay').disabled = !STATUSES_REPLAYABLE.includes(e.status);
    $('replay').title = $('replay').disabled ? 'Only dead_lettered, unknown or completed events can be replayed.' : '';
    $('resolve').disabled = !STATUSES_RESOLVABLE.includes(e.status);
    $('resolve').title = $('resolve').disabled
      ? 'Only unknown events are resolved by hand (their outcome downstream could not be known).' : '';

    if (d.payload !== undefined && d.payload !== null) {
      const p = typeof d.payload === 'object' ? d.payload : { body: d.payload };
      const notes = [p.content_type, p.redacted ? 'configured fields redacted' : null].filter(Boolean);
      $('payload-type').textContent = notes.length ? '(' + notes.join(', ') + ')' : '';
      $('payload').textContent = p.body === null || p.body === undefined
        ? 'Not shown: ' + (p.withheld || 'no payload is stored.')
        : prettyBody(p.body);
      show($('payload-box'), true);
      $('show-payload').textContent = 'Hide payload';
    } else {
      show($('payload-box'), false);
      $('show-payload').textContent = 'Show payload';
    }
  }

  // The body exactly as stored (after redaction): never re-serialised, since
  // JSON.parse would round large numbers and an auditor must see what arrived.
  function prettyBody(body) {
    if (body === undefined || body === null) return '(no body stored)';
    return typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  }

  // While the event is still with the worker, the detail refreshes itself.
  const LIVE_STATUSES = ['received', 'processing', 'retryable_failed'];
  const LIVE_REFRESH_MS = 2000;
  let liveTimer = null;

  function stopLive() {
    if (liveTimer !== null) clearTimeout(liveTimer);
    liveTimer = null;
  }

  async function loadDetail(id, withPayload) {
    stopLive();
    showView('detail');
    try {
      const d = await apiJson('/events/' + encodeURIComponent(id) + (withPayload ? '?payload=1' : ''));
      renderDetail(d);
      const status = (d.event || d).status;
      if (LIVE_STATUSES.includes(status) && !withPayload) {
        liveTimer = setTimeout(() => {
          liveTimer = null;
          if (!$('detail').hidden && current && String(current.id) === String(id)) loadDetail(id, false);
        }, LIVE_REFRESH_MS);
      }
    } catch (err) {
      fail(err);
    }
  }

  function onShowPayload() {
    if (!current) return;
    const visible = !$('payload-box').hidden;
    if (visible) {
      show($('payload-box'), false);
      $('show-payload').textContent = 'Show payload';
    } else {
      loadDetail(current.id, true);
    }
  }

  // Asks for confirmation in a <dialog>; resolves to null (cancelled) or the fields.
  // The free-text field is labelled `noteName` (default "Note (optional)"), or hidden when it is false;
  // `withMuteFields` adds the mute choice (1 h, 8 h, 24 h or until a time).
  function confirmAction(title, text, withResolveFields, noteName, withMuteFields) {
    const dlg = $('confirm');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-note').value = '';
    $('confirm-note-name').textContent = noteName || 'Note (optional)';
    show($('confirm-note-label'), noteName !== false);
    $('resolve-ref').value = '';
    show($('resolve-fields'), withResolveFields);
    $('mute-for').value = '60';
    $('mute-until').value = '';
    show($('mute-until-label'), false);
    show($('mute-fields'), Boolean(withMuteFields));
    return new Promise((resolve) => {
      dlg.addEventListener('close', function onClose() {
        dlg.removeEventListener('close', onClose);
        if (dlg.returnValue !== 'ok') {
          resolve(null);
          return;
        }
        resolve({ note: $('confirm-note').value.trim(), as: $('resolve-as').value, ref: $('resolve-ref').value.trim(),
          muteFor: $('mute-for').value, muteUntil: $('mute-until').value });
      });
      dlg.returnValue = '';
      dlg.showModal();
      $('confirm-cancel').focus();
    });
  }

  async function onReplay() {
    if (!current) return;
    const id = current.id;
    const answer = await confirmAction('Replay event #' + id + '?',
      'It goes back to "received" with the same idempotency key and its action runs again. ' +
      'Replay only when the action is safe to repeat or did not take effect.', false);
    if (!answer) return;
    try {
      await api('/events/' + encodeURIComponent(id) + '/replay', { method: 'POST', json: answer.note ? { note: answer.note } : {} });
      say('Event #' + id + ' replayed: it is waiting for the worker again.', 'ok');
      await loadDetail(id, false);
    } catch (err) {
      fail(err);
    }
  }

  async function onResolve() {
    if (!current) return;
    const id = current.id;
    const answer = await confirmAction('Resolve event #' + id + '?',
      'Its outcome downstream could not be known. Check the downstream system, then record here what ' +
      'became of it. Nothing is sent; the worker will not run it again.', true);
    if (!answer) return;
    const body = { as: answer.as };
    if (answer.ref) body.result_ref = answer.ref;
    if (answer.note) body.note = answer.note;
    try {
      await api('/events/' + encodeURIComponent(id) + '/resolve', { method: 'POST', json: body });
      say('Event #' + id + ' resolved as ' + answer.as + '.', 'ok');
      await loadDetail(id, false);
    } catch (err) {
      fail(err);
    }
  }

  // ---- routing ----

  function route() {
    if (!token()) {
      showLogin('');
      return;
    }
    const h = location.hash || '#/';
    const path = h.replace(/^#/, '').split('?')[0];
    const m = path.match(/^\/event\/([^/]+)$/);
    if (m) {
      loadDetail(decodeURIComponent(m[1]), false);
    } else if (path === '/events') {
      loadEvents(null);
    } else if (path === '/attention') {
      loadAttention();
      return;  // it sets the count itself
    } else {
      loadDashboard();
    }
    refreshAttentionCount();
  }

  function onHashChange() {
    stopLive();
    say('');
    route();
  }

  function start() {
    $('login-form').addEventListener('submit', onLogin);
    $('logout').addEventListener('click', onLogout);
    $('dashboard-refresh').addEventListener('click', () => loadDashboard());
    $('events-refresh').addEventListener('click', () => loadEvents(listState.cursors[listState.cursors.length - 1] || null));
    $('export').addEventListener('click', onExport);
    $('activity-24h').addEventListener('click', () => onActivityRange('24h'));
    $('activity-7d').addEventListener('click', () => onActivityRange('7d'));
    $('filters').addEventListener('submit', onFilter);
    $('filter-clear').addEventListener('click', onClearFilters);
    $('page-next').addEventListener('click', () => {
      if (!listState.next) return;
      listState.cursors.push(listState.next);
      loadEvents(listState.next);
    });
    $('page-first').addEventListener('click', () => {
      listState.cursors = [];
      loadEvents(null);
    });
    $('replay').addEventListener('click', onReplay);
    $('bulk-replay').addEventListener('click', onBulkReplay);
    $('resolve').addEventListener('click', onResolve);
    $('show-payload').addEventListener('click', onShowPayload);
    $('attention-refresh').addEventListener('click', () => loadAttention());
    $('mute-for').addEventListener('change', () => show($('mute-until-label'), $('mute-for').value === 'custom'));
    window.addEventListener('hashchange', onHashChange);
    route();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
// end of app.js
