// The admin web UI in a real browser (run by run.sh, which installs chromium
// and playwright-core first).
//
//   node browser.mjs --bin BUILD/hookinbox --dir WORK --chromium /usr/bin/chromium
//
// Starts `hookinbox serve` with an admin token (token_file) and one endpoint
// whose exec action fails permanently until the test creates a flag file; sends
// signed deliveries (a completed one and its duplicate, a dead letter and a
// conflicting copy of it, one whose event id is HTML); then, in headless
// chromium, with `Content-Security-Policy: default-src 'self'` on the page:
//   - a wrong token is refused on the login form, the right one lets in;
//   - the dashboard shows the endpoint's figures as the database has them;
//   - its activity charts (24 h and 7 d) draw the endpoint's deliveries and
//     outcomes as the database has them, one scale per chart, a title per
//     bar, an open incident as a band;
//   - the list filtered by status dead_lettered shows exactly the dead letter;
//     with an endpoint too, "Replay matching…" counts (a dry run) and asks
//     with the count, and Cancel changes nothing;
//     a page size of 2 pages through all events with "Next page"; a
//     receive-time range and part of an event id narrow the list;
//   - the HTML event id is shown as text (no element is created from it);
//   - the dead letter's detail has its deliveries and attempt in the timeline
//     and its payload on request; Replay asks first (Cancel changes nothing),
//     then, confirmed, the event is replayed and becomes completed;
//   - "Download audit database" saves a file that sqlite3 opens:
//     PRAGMA integrity_check = ok, the event completed with its replay row;
//     "without payloads" saves one with no payload bodies;
//   - Resolve (an event left unknown by a timed-out action) asks for the
//     outcome, a reference and a note, and the database records them;
//   - the dashboard's endpoints table pauses "shop" (asking for a reason) and
//     resumes it; the database records both with actor and reason;
//   - "Replay matching…" confirmed replays two new dead letters, which complete;
//   - the Attention view (incidents seeded with sqlite3, as the alert engine
//     writes them): the nav counts the open ones, the list says the condition
//     in plain words with its endpoint and count, the resolved one is below;
//     Acknowledge and Mute (8 hours) are recorded with the admin as actor,
//     and the row says acknowledged and muted;
//   - at 375 px wide (a phone) no view scrolls sideways;
//   - an endpoint removed from the config (by a reload) while it has stored
//     events shows "removed from the config" on the dashboard and has no
//     Pause or Rotate; "Rotate secret" on another puts a new secret in force
//     with the old one still accepted, "Retire old secret now" makes the old
//     one 401; the secret is left in no input, address or storage;
//   - a token that stops working returns to the login; 10 failed logins
//     bring the "wait a minute" answer (429);
//   - no script error and no CSP violation on the way.
// Prints one line per check, `browser <check>: ok`, and exits 1 at the first
// failure with what was expected. The admin token and the secret are never printed.
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { chromium } from 'playwright-core';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, v, i, all) => (i % 2 === 0 ? acc.concat([[v.replace(/^--/, ''), all[i + 1]]]) : acc), []));
const bin = args.bin;
const dir = args.dir;
const chromiumPath = args.chromium;
if (!bin || !dir || !chromiumPath) {
  console.error('usage: browser.mjs --bin HOOKINBOX --dir WORK --chromium CHROMIUM');
  process.exit(2);
}

const TOKEN_KEY = 'hookinbox.adminToken';  // app.js
const STEP_MS = 20000;                      // one UI step
let server = null;
let browser = null;
let shownPage = null;  // for a screenshot and the UI's message when a check fails

class CheckFailed extends Error {}
function check(cond, what) {
  if (!cond) throw new CheckFailed(what);
}
function ok(name) {
  console.log(`browser ${name}: ok`);
}

// Polls fn until it returns a truthy value or the deadline passes.
async function pollUntil(fn, what, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > deadline) throw new CheckFailed(`${what} (waited ${ms} ms; last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 50));  // poll interval, bounded by the deadline
  }
}

function sql(db, query) {
  return execFileSync('sqlite3', ['-readonly', db, query], { encoding: 'utf8' }).trim();
}

// Writes beside the running server (WAL), waiting up to 5 s for its lock.
function sqlWrite(db, query) {
  execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, query], { encoding: 'utf8' });
}

// ---- the installation ----

function setUp() {
  execFileSync(bin, ['init', dir], { stdio: 'ignore' });
  const token = crypto.randomBytes(24).toString('hex');
  fs.writeFileSync(path.join(dir, 'secrets/browser-admin.token'), token + '\n', { mode: 0o600 });
  const secret = fs.readFileSync(path.join(dir, 'secrets/demo.secret'), 'utf8').trim();
  const flag = path.join(dir, 'action-succeeds');
  const hang = path.join(dir, 'action-hangs');
  // Fails permanently (exit 1: dead letter) until the flag file exists; while
  // the hang file exists it outlives timeout_ms (not idempotent: unknown).
  fs.writeFileSync(path.join(dir, 'handler.sh'),
    `#!/bin/sh\ncat >/dev/null\n[ -f '${hang}' ] && exec sleep 30\n[ -f '${flag}' ] && exit 0\n` +
    `echo 'downstream refused' >&2\nexit 1\n`, { mode: 0o755 });
  const toml = `[server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"

[admin]
listen = "127.0.0.1:0"
token_file = "secrets/browser-admin.token"

[storage]
path = "data/hookinbox.db"

[worker]
threads = 2
lease_seconds = 5
max_attempts = 3
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 2

# Every alert condition off: the Attention view's incidents are seeded below,
# and a check would open its own (the dead letters) or close the seeded ones.
[alert]
dead_letters = false
unknown = false
conflicts = false
backlog_age = false
signature_failures = false
breaker_open = false
certificate_days = false
disk_free = false
storage_failures = false

[[endpoint]]
name = "shop"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"

[endpoint.action]
type = "exec"
command = ["handler.sh"]
timeout_ms = 3000
idempotent_target = false

# Receive-only: its events are kept as received, for the audit.
[[endpoint]]
name = "kept"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
`;
  fs.writeFileSync(path.join(dir, 'browser.toml'), toml);
  return { token, secret, flag, hang, toml, db: path.join(dir, 'data/hookinbox.db'), cert: path.join(dir, 'tls/cert.pem') };
}

// The first http(s) URL on the log line that announces `event` (key=value or JSON logs).
function urlFromLog(log, event) {
  const re = new RegExp(`[="]${event}\\b`);
  for (const line of log.split('\n')) {
    if (!re.test(line)) continue;
    const m = line.match(/https?:\/\/[^\s"]+/);
    if (m) return m[0];
  }
  return null;
}

async function startServer() {
  const logPath = path.join(dir, 'serve.log');
  const log = fs.openSync(logPath, 'w');
  // timeout: should this test be killed outright, the server still goes away.
  server = spawn('timeout', ['--kill-after=5', '280', bin, 'serve', '-c', path.join(dir, 'browser.toml')],
    { stdio: ['ignore', 'ignore', log] });
  let exited = false;
  server.on('exit', () => { exited = true; });
  return pollUntil(() => {
    if (exited) throw new CheckFailed('hookinbox serve exited:\n' + fs.readFileSync(logPath, 'utf8'));
    const text = fs.readFileSync(logPath, 'utf8');
    const admin = urlFromLog(text, 'admin_listening');
    const pub = urlFromLog(text, 'listening');
    return admin && pub ? { admin, pub } : null;
  }, 'hookinbox serve logs its two addresses', 30000);
}

function post(inst, base, body, signedBody = body, endpoint = 'shop', secret = inst.secret) {
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = crypto.createHmac('sha256', secret).update(ts + '.' + signedBody).digest('hex');
  return new Promise((resolve, reject) => {
    const req = https.request(base + '/hooks/' + endpoint, {
      method: 'POST', ca: fs.readFileSync(inst.cert),
      headers: { 'Content-Type': 'application/json', 'X-Timestamp': ts, 'X-Signature': 'sha256=' + sig },
    }, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function send(inst, base, event, expectStatus) {
  const res = await post(inst, base, JSON.stringify(event));
  check(res.status === 200, `delivery of ${event.id}: HTTP ${res.status} ${res.body}`);
  const got = JSON.parse(res.body).status;
  check(got === expectStatus, `delivery of ${event.id}: expected "${expectStatus}", got "${got}"`);
}

function statusOf(inst, eventId) {
  return sql(inst.db, `SELECT status FROM webhook_inbox WHERE event_id = '${eventId.replace(/'/g, "''")}'`);
}

// ---- the browser ----

const XSS_ID = 'evt_<b id="xss">bold</b>';

// Serves the UI's page with a strict CSP (whatever the server sends), so a
// violation shows up as a console error below.
async function strictCsp(context) {
  await context.route(/\/admin\/(index\.html)?(\?.*)?$/, async (route) => {
    const response = await route.fetch();
    const headers = Object.assign({}, response.headers(), { 'content-security-policy': "default-src 'self'" });
    await route.fulfill({ response, headers });
  });
}

function watchErrors(page, errors) {
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // The browser logs refused API calls; the UI's handling of them is checked.
    if (/status of (401|429)/.test(m.text())) return;
    // The charts ask for incidents, which a server without that route answers 404: handled quietly.
    if (/status of 404/.test(m.text()) && /\/admin\/api\/incidents/.test(m.location().url || '')) return;
    errors.push('console: ' + m.text());
  });
}

async function textOf(page, selector) {
  return (await page.locator(selector).first().textContent({ timeout: STEP_MS })) || '';
}

async function waitVisible(page, selector) {
  await page.locator(selector).first().waitFor({ state: 'visible', timeout: STEP_MS });
}

async function login(page, token) {
  await waitVisible(page, '#login');
  await page.fill('#token', token);
  await page.click('#login-submit');
}

async function noSidewaysScroll(page, view) {
  const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  check(m.scroll <= m.width, `${view} at 375 px scrolls sideways: content ${m.scroll} px wide in a ${m.width} px window`);
}

async function statCell(page, field) {
  return (await textOf(page, `#stats tr[data-endpoint="shop"] [data-field="${field}"]`)).trim();
}

// What one chart of the shop endpoint draws: per series the sum of its bars'
// counts, whether every bar's height is its count on one scale, and whether
// every bar's title names its count.
async function chartBars(page, chart) {
  return page.evaluate((chart) => {
    const svg = document.querySelector(`#activity-charts figure[data-endpoint="shop"] svg[data-chart="${chart}"]`);
    if (!svg) return null;
    const sums = {};
    const perUnit = new Set();
    let titled = true;
    for (const r of svg.querySelectorAll('rect[data-series]')) {
      const n = Number(r.getAttribute('data-count'));
      sums[r.getAttribute('data-series')] = (sums[r.getAttribute('data-series')] || 0) + n;
      perUnit.add((Number(r.getAttribute('height')) / n).toFixed(3));
      if (!r.querySelector('title').textContent.endsWith(`: ${n} ${r.getAttribute('data-series')}`)) titled = false;
    }
    return { sums, scales: perUnit.size, titled, buckets: Number(svg.getAttribute('data-buckets')),
      label: svg.getAttribute('role') + '|' + (document.getElementById(svg.getAttribute('aria-labelledby').split(' ')[0]) || {}).textContent,
      incidents: [...svg.querySelectorAll('g.incident')].map((g) => (g.classList.contains('open') ? 'open:' : '') + g.querySelector('title').textContent) };
  }, chart);
}

// The dashboard's activity charts draw the shop endpoint's deliveries and
// outcomes as the database has them, on the 24 h and the 7 d range, with an
// open incident as a band (served here by interception: the incidents route
// may not exist on this server, which the charts must survive quietly).
async function checkActivityCharts(page, inst) {
  const count = (q) => Number(sql(inst.db, q) || 0);
  const delivered = (outcome) => count(`SELECT sum(request_count) FROM webhook_deliveries WHERE endpoint = 'shop' AND outcome = '${outcome}'`);
  const ended = (outcomes) => count("SELECT count(*) FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id" +
    ` WHERE i.endpoint = 'shop' AND a.kind = 'action' AND a.outcome IN (${outcomes})`);
  const want = {
    accepted: delivered('accepted'), duplicate: delivered('duplicate'), rejected: delivered('rejected'),
    completed: ended("'completed'"), failed: ended("'retryable_failed', 'dead_lettered', 'unknown'"),
  };
  check(want.accepted === 3 && want.duplicate === 1 && want.completed === 2 && want.failed >= 1,
    `the scenario's activity: ${JSON.stringify(want)}`);
  const same = (got, keys) => keys.every((k) => (got.sums[k] || 0) === want[k]);
  for (const range of ['24h', '7d']) {
    if (range === '7d') {
      await page.route('**/admin/api/incidents*', (route) => route.fulfill({ status: 200, contentType: 'application/json',
        body: JSON.stringify({ incidents: [{ id: 7, condition: 'dead_letters', endpoint: 'shop', summary: 'shop: 1 dead letter',
          opened_at: new Date(Date.now() - 3600 * 1000).toISOString(), resolved_at: null }] }) }));
      await page.click('#activity-7d');
    }
    const buckets = range === '7d' ? 28 : 24;
    const deliveries = await pollUntil(async () => {
      const d = await chartBars(page, 'deliveries');
      return d && d.buckets === buckets && same(d, ['accepted', 'duplicate', 'rejected']) ? d : null;
    }, `the ${range} deliveries chart of shop draws ${JSON.stringify(want)}`);
    const outcomes = await chartBars(page, 'outcomes');
    check(outcomes && same(outcomes, ['completed', 'failed']), `${range} outcomes chart: ${JSON.stringify(outcomes)}, want ${JSON.stringify(want)}`);
    for (const c of [deliveries, outcomes]) {
      check(c.scales === 1, `${range}: every bar's height is its count on one scale (${c.scales} scales)`);
      check(c.titled, `${range}: every bar's title names its count`);
      check(/^img\|shop: /.test(c.label), `${range}: the chart is an image titled by its endpoint (${c.label})`);
    }
    check(await page.getAttribute('#activity-' + range, 'aria-pressed') === 'true', `the ${range} button is pressed`);
    if (range === '7d') {
      check(deliveries.incidents.length === 1 && deliveries.incidents[0].startsWith('open:Open incident since ') &&
        deliveries.incidents[0].endsWith('shop: 1 dead letter'), `the open incident is marked: ${JSON.stringify(deliveries.incidents)}`);
    }
  }
  await page.unroute('**/admin/api/incidents*');
  await page.click('#activity-24h');
  check(await page.locator('#message.error').count() === 0, 'the charts raised no error message');
  ok(`activity charts (24 h and 7 d: accepted ${want.accepted}, duplicate ${want.duplicate}, completed ${want.completed}, ` +
    `failed ${want.failed}; an open incident marked)`);
}

// One admin API call with the token (the admin listener is plain HTTP on loopback here).
async function adminApi(inst, admin, method, route, json) {
  const res = await fetch(admin + '/admin/api' + route, {
    method, headers: { Authorization: 'Bearer ' + inst.token, 'Content-Type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

// A receive-only endpoint signed like shop's, with its own secret file.
function receiveOnlyEndpoint(name, secretFile) {
  return `
[[endpoint]]
name = "${name}"
provider = "generic"
secret_file = "${secretFile}"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
`;
}

async function reloadWith(inst, admin, toml, what) {
  fs.writeFileSync(path.join(dir, 'browser.toml'), toml);
  const res = await adminApi(inst, admin, 'POST', '/reload', {});
  check(res.status === 200 && res.body && res.body.applied === true, `reload (${what}): HTTP ${res.status} ${JSON.stringify(res.body)}`);
}

// Issue 25 in the UI: an endpoint removed from the config keeps its stored
// events and the dashboard says "removed from the config" (no Pause, no
// Rotate); a secret rotated through the dashboard's form is in force at
// once, the old one accepted beside it until retired, then refused.
async function checkRemovedAndRotation(page, inst, admin, pub, ui) {
  const oldSecret = crypto.randomBytes(24).toString('hex');
  const newSecret = 'whsec_' + crypto.randomBytes(24).toString('hex');
  const secretFile = path.join(dir, 'secrets/rotating.secret');
  fs.writeFileSync(secretFile, oldSecret + '\n', { mode: 0o600 });
  const rotating = receiveOnlyEndpoint('rotating', 'secrets/rotating.secret');
  await reloadWith(inst, admin, inst.toml + receiveOnlyEndpoint('gone', 'secrets/demo.secret') + rotating, 'gone and rotating added');
  const deliver = (endpoint, id, secret) => post(inst, pub, JSON.stringify({ id }), undefined, endpoint, secret);
  const gone = await deliver('gone', 'evt_gone_1', inst.secret);
  check(gone.status === 200, `delivery to gone: HTTP ${gone.status} ${gone.body}`);
  const before = await deliver('rotating', 'evt_rot_old_1', oldSecret);
  check(before.status === 200, `delivery to rotating with its secret: HTTP ${before.status} ${before.body}`);
  await reloadWith(inst, admin, inst.toml + rotating, 'gone removed');

  const from = page.url();  // given back at the end: the checks after this one start from it
  await page.goto(ui + '#/');
  await page.click('#dashboard-refresh');
  const goneRow = '#stats tr[data-endpoint="gone"]';
  await waitVisible(page, goneRow);
  check((await page.locator(goneRow).getAttribute('data-configured')) === 'no', 'the removed endpoint\'s row is marked');
  check(/removed from the config/.test(await textOf(page, goneRow + ' th')), 'its name says "removed from the config"');
  const backlog = (await textOf(page, goneRow + ' [data-field="backlog"]')).trim();
  check(backlog === 'removed from the config', `its backlog says "${backlog}", expected "removed from the config"`);
  check((await textOf(page, goneRow + ' [data-field="received"]')).trim() === '1', 'its stored delivery still counts');
  check((await page.locator('#stats tr[data-endpoint="shop"]').getAttribute('data-configured')) === 'yes', 'shop is configured');
  await waitVisible(page, '#endpoint-states tr[data-endpoint="rotating"]');
  check(await page.locator('#endpoint-states tr[data-endpoint="gone"]').count() === 0,
    'the removed endpoint has no row to pause or rotate');
  ok('an endpoint removed from the config: "removed from the config", its stored events kept, no Pause or Rotate');

  // Rotate through the form.
  const row = '#endpoint-states tr[data-endpoint="rotating"]';
  check((await textOf(page, row + ' [data-field="secret"]')).trim() === '—', 'no rotation under way yet');
  await page.click(row + ' button.rotate-secret');
  await waitVisible(page, '#rotate');
  check((await page.locator('#rotate-secret').getAttribute('type')) === 'password', 'the new secret is typed into a password field');
  const until = new Date(await page.inputValue('#rotate-until')).getTime();
  check(Math.abs(until - (Date.now() + 24 * 3600000)) < 5 * 60000, 'the old secret is kept 24 h by default');
  const keepUntil = new Date(Date.now() + 48 * 3600000);
  keepUntil.setSeconds(0, 0);
  const local = (d) => { const t = (n) => String(n).padStart(2, '0'); return `${d.getFullYear()}-${t(d.getMonth() + 1)}-${t(d.getDate())}T${t(d.getHours())}:${t(d.getMinutes())}`; };
  await page.fill('#rotate-until', local(keepUntil));
  await page.fill('#rotate-secret', newSecret);
  await page.click('#rotate-ok');
  await pollUntil(async () => /New secret of rotating in force on this server; the old one is accepted until \d+ \w{3} \d{4} \d\d:\d\d UTC/.test(
    await textOf(page, '#message')), 'the UI says the new secret is in force and until when the old one is accepted');
  check(await page.inputValue('#rotate-secret') === '', 'the secret is not left in the input');
  const stored = await page.evaluate(() => JSON.stringify(Object.assign({}, localStorage, sessionStorage)) + location.href);
  check(!stored.includes(newSecret), 'the secret is in neither the address nor the page\'s storage');
  check(fs.readFileSync(secretFile, 'utf8').trim() === newSecret, 'the secret file holds the new secret');
  const fresh = await deliver('rotating', 'evt_rot_new_1', newSecret);
  check(fresh.status === 200, `a delivery signed with the new secret: HTTP ${fresh.status} ${fresh.body}`);
  const old = await deliver('rotating', 'evt_rot_old_2', oldSecret);
  check(old.status === 200, `a delivery signed with the old secret, in its window: HTTP ${old.status} ${old.body}`);
  await pollUntil(async () => /Old secret accepted until/.test(await textOf(page, row + ' [data-field="secret"]')),
    'the row says until when the old secret is accepted');
  await page.screenshot({ path: path.join(dir, 'desktop-rotation.png'), fullPage: true });
  ok('Rotate secret: the new secret in force, the old one still accepted');

  // Retire the old one now (asks first).
  await page.click(row + ' button.retire-secret');
  await waitVisible(page, '#confirm');
  await page.click('#confirm-ok');
  await pollUntil(async () => /Old secret of rotating retired/.test(await textOf(page, '#message')), 'the UI says the old secret is retired');
  const refused = await deliver('rotating', 'evt_rot_old_3', oldSecret);
  check(refused.status === 401, `a delivery signed with the retired secret: HTTP ${refused.status}, expected 401`);
  const still = await deliver('rotating', 'evt_rot_new_2', newSecret);
  check(still.status === 200, `a delivery signed with the new secret after the retirement: HTTP ${still.status} ${still.body}`);
  await pollUntil(async () => (await textOf(page, row + ' [data-field="secret"]')).trim() === '—', 'the row no longer shows a rotation');
  const audit = sql(inst.db, "SELECT group_concat(action, ',') FROM (SELECT action FROM endpoint_actions WHERE endpoint = 'rotating' ORDER BY id)");
  check(audit === 'secret_rotated,secret_retired', `the audit has the rotation and the retirement: ${audit}`);
  check(!fs.readFileSync(path.join(dir, 'serve.log'), 'utf8').includes(newSecret), 'the server\'s log never holds the secret');
  ok('Retire old secret now: the old secret refused (401), the new one accepted, both steps audited');
  await page.goto(from);
}

async function run() {
  const inst = setUp();
  const { admin, pub } = await startServer();
  const ui = admin + '/admin/';
  ok('serve started');

  // The deliveries: evt_paid_1 completes (and comes twice), evt_fail_1 is dead-lettered
  // (and comes again with another payload: a conflict), the HTML id completes.
  fs.writeFileSync(inst.flag, '');
  await send(inst, pub, { id: 'evt_paid_1', type: 'invoice.paid', amount: 100 }, 'accepted');
  await send(inst, pub, { id: 'evt_paid_1', type: 'invoice.paid', amount: 100 }, 'duplicate');
  await send(inst, pub, { id: XSS_ID, type: 'invoice.paid' }, 'accepted');
  await pollUntil(() => statusOf(inst, 'evt_paid_1') === 'completed' && statusOf(inst, XSS_ID) === 'completed',
    'the first events complete');
  fs.rmSync(inst.flag);
  await send(inst, pub, { id: 'evt_fail_1', type: 'invoice.failed', marker: 'payload-marker-1' }, 'accepted');
  await pollUntil(() => statusOf(inst, 'evt_fail_1') === 'dead_lettered', 'evt_fail_1 is dead-lettered');
  await send(inst, pub, { id: 'evt_fail_1', type: 'invoice.failed', marker: 'changed' }, 'conflict');
  const kept = await post(inst, pub, JSON.stringify({ id: 'evt_kept_1' }), undefined, 'kept');
  check(kept.status === 200, `delivery to the receive-only endpoint: HTTP ${kept.status} ${kept.body}`);
  ok('deliveries stored');

  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
  const errors = [];
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  await strictCsp(context);
  const page = await context.newPage();
  shownPage = page;
  watchErrors(page, errors);

  // Log in: wrong token first.
  const res = await page.goto(ui);
  check(res && res.status() === 200, `GET /admin/ answered ${res && res.status()}`);
  await login(page, 'not-the-token');
  await waitVisible(page, '#login-error');
  check(/wrong token/i.test(await textOf(page, '#login-error')), 'a wrong token says "Wrong token"');
  check(await page.locator('#dashboard').isHidden(), 'a wrong token does not open the dashboard');
  ok('wrong token refused');
  await login(page, inst.token);
  await waitVisible(page, '#dashboard');
  check(await page.locator('#login-error').isHidden(), 'the error goes once logged in');
  ok('login');

  // Dashboard figures, as the database has them.
  await waitVisible(page, '#stats tr[data-endpoint="shop"]');
  const dupes = sql(inst.db, "SELECT count(*) FROM webhook_deliveries WHERE endpoint = 'shop' AND outcome = 'duplicate'");
  const conflicts = sql(inst.db, "SELECT count(*) FROM webhook_deliveries WHERE endpoint = 'shop' AND outcome = 'conflict'");
  const authenticated = sql(inst.db,
    "SELECT count(*) FROM webhook_deliveries WHERE endpoint = 'shop' AND outcome IN ('accepted', 'duplicate', 'conflict')");
  const events = sql(inst.db, "SELECT count(*) FROM webhook_inbox WHERE endpoint = 'shop'");
  check(dupes === '1' && conflicts === '1' && authenticated === '5' && events === '3',
    `the scenario stored what it should (duplicates ${dupes}, conflicts ${conflicts}, deliveries ${authenticated}, events ${events})`);
  const received = await statCell(page, 'received');
  // SPEC §9: "received" counts authenticated deliveries (accepted + duplicate + conflict).
  check(received === authenticated, `dashboard received: ${received}, expected ${authenticated}`);
  check(await statCell(page, 'duplicates') === dupes, `dashboard duplicates: ${await statCell(page, 'duplicates')}, expected ${dupes}`);
  check(await statCell(page, 'conflicts') === conflicts, `dashboard conflicts: ${await statCell(page, 'conflicts')}, expected ${conflicts}`);
  check(await statCell(page, 'dead_lettered') === '1', `dashboard dead letters: ${await statCell(page, 'dead_lettered')}, expected 1`);
  check(await statCell(page, 'unknown') === '0', `dashboard unknown: ${await statCell(page, 'unknown')}, expected 0`);
  check(await statCell(page, 'backlog') === '0', `dashboard backlog: ${await statCell(page, 'backlog')}, expected 0`);
  check(await statCell(page, 'completed') === '2', `dashboard completed: ${await statCell(page, 'completed')}, expected 2`);
  ok(`dashboard figures (received ${received}, duplicates 1, conflicts 1, dead letters 1, unknown 0, backlog 0, completed 2)`);
  // A receive-only endpoint's kept event waits for nothing: no backlog, no age.
  check(statusOf(inst, 'evt_kept_1') === 'received', 'the receive-only event stays received');
  for (const field of ['backlog', 'oldest_pending_age_seconds']) {
    const cell = (await textOf(page, `#stats tr[data-endpoint="kept"] [data-field="${field}"]`)).trim();
    check(cell === 'no action', `dashboard ${field} of the receive-only endpoint: "${cell}", expected "no action"`);
  }
  ok('a receive-only endpoint shows "no action" for backlog and oldest waiting');
  await checkActivityCharts(page, inst);

  // The list, filtered by status.
  await page.click('#nav-events');
  await waitVisible(page, '#filters');
  await page.selectOption('#f-status', 'dead_lettered');
  await page.click('#filter-apply');
  await pollUntil(async () => {
    const rows = await page.locator('#event-list tbody tr').evaluateAll(
      (trs) => trs.map((tr) => [tr.getAttribute('data-status'), tr.children[4].textContent]));
    return rows.length === 1 && rows[0][0] === 'dead_lettered' && rows[0][1] === 'evt_fail_1';
  }, 'the list filtered by dead_lettered shows exactly evt_fail_1');
  check(page.url().includes('status=dead_lettered'), 'the filter is in the address, for Back and bookmarks');
  ok('filter by status');

  // Bulk replay: offered only for one replayable state and one endpoint; it
  // counts first (a dry run) and asks with that count; Cancel changes nothing.
  check(await page.locator('#bulk-replay').isHidden(), 'no bulk replay without an endpoint filter');
  await page.goto(ui + '#/events?status=dead_lettered&endpoint=shop');
  await waitVisible(page, '#bulk-replay');
  await page.click('#bulk-replay');
  await waitVisible(page, '#confirm');
  const bulkTitle = await textOf(page, '#confirm-title');
  check(/replay 1 matching events/i.test(bulkTitle), `the dialog gives the dry run's count: ${bulkTitle}`);
  await page.click('#confirm-cancel');
  await page.locator('#confirm').waitFor({ state: 'hidden', timeout: STEP_MS });
  check(statusOf(inst, 'evt_fail_1') === 'dead_lettered', 'Cancel on the bulk replay replayed the event anyway');
  check(sql(inst.db, 'SELECT count(*) FROM webhook_event_actions') === '0', 'the dry run wrote an audit row');
  ok('bulk replay counts and asks first');

  // Keyset pages of 2: shop's three events, newest first, over two pages.
  await page.goto(ui + '#/events?endpoint=shop&limit=2');
  const pageIds = async () => page.locator('#event-list tbody tr').evaluateAll((trs) => trs.map((tr) => tr.children[4].textContent));
  const first = await pollUntil(async () => { const ids = await pageIds(); return ids.length === 2 ? ids : null; }, 'a first page of 2 events');
  check(await page.locator('#page-next').isVisible(), '"Next page" is offered when there are more');
  check(first[0] === 'evt_fail_1', `newest first: the first row is ${first[0]}`);
  await page.click('#page-next');
  const second = await pollUntil(async () => { const ids = await pageIds(); return ids.length === 1 ? ids : null; }, 'a second page of 1 event');
  check(second[0] === 'evt_paid_1', `the second page holds the oldest event, got ${second[0]}`);
  check(await page.locator('#page-next').isHidden(), 'no "Next page" after the last page');
  ok('next page');
  await page.screenshot({ path: path.join(dir, 'desktop-events.png'), fullPage: true });

  // The HTML event id is text.
  await page.goto(ui + '#/events');
  await pollUntil(async () => (await pageIds()).includes(XSS_ID), 'the event with an HTML id is listed as text');
  check(await page.locator('#xss').count() === 0, 'an event id was rendered as HTML');
  ok('values are escaped');

  // A receive-time range: everything was received after 2001, nothing before.
  await page.fill('#f-until', '2001-01-01T00:00');
  await page.click('#filter-apply');
  await waitVisible(page, '#events-empty');
  check((await pageIds()).length === 0 || await page.locator('#event-list').isHidden(), 'nothing was received before 2001');
  await page.fill('#f-until', '');
  await page.fill('#f-since', '2001-01-01T00:00');
  await page.click('#filter-apply');
  const stored = Number(sql(inst.db, 'SELECT count(*) FROM webhook_inbox'));  // shop's three and the kept one
  await pollUntil(async () => (await pageIds()).length === stored && await page.locator('#events-empty').isHidden(),
    'everything was received since 2001');
  await page.fill('#f-since', '');
  ok('time range filter');

  // The dead letter's detail.
  await page.fill('#f-q', 'evt_fail');
  await page.click('#filter-apply');
  await pollUntil(async () => { const ids = await pageIds(); return ids.length === 1 && ids[0] === 'evt_fail_1'; },
    'the free-text filter on the event id finds evt_fail_1 alone');
  await page.click('#event-list tbody tr a >> nth=0');
  await waitVisible(page, '#detail');
  await pollUntil(async () => (await textOf(page, '#detail-status')).trim() === 'dead_lettered', 'the detail shows dead_lettered');
  const timeline = await page.locator('#timeline li').evaluateAll(
    (lis) => lis.map((li) => [li.getAttribute('data-kind'), li.textContent]));
  const deliveries = timeline.filter(([k]) => k === 'delivery');
  const attempts = timeline.filter(([k]) => k === 'attempt');
  check(deliveries.length === 2 && /accepted/.test(deliveries[0][1]) && /conflict/.test(deliveries[1][1]),
    `the timeline shows the accepted and the conflicting delivery: ${JSON.stringify(deliveries)}`);
  check(attempts.length === 1 && /dead_lettered/.test(attempts[0][1]),
    `the timeline shows the failed attempt: ${JSON.stringify(attempts)}`);
  check(await page.locator('#replay').isEnabled() && await page.locator('#resolve').isDisabled(),
    'a dead letter offers Replay, not Resolve (only unknown events are resolved)');
  check(await page.locator('#payload-box').isHidden(), 'the payload is not shown unasked');
  await page.click('#show-payload');
  await waitVisible(page, '#payload-box');
  check((await textOf(page, '#payload')).includes('payload-marker-1'), 'the payload is shown on request');
  ok('event detail and timeline');

  // Replay: Cancel changes nothing; confirmed, the event runs again and completes.
  await page.click('#replay');
  await waitVisible(page, '#confirm');
  await page.click('#confirm-cancel');
  await page.locator('#confirm').waitFor({ state: 'hidden', timeout: STEP_MS });
  check(statusOf(inst, 'evt_fail_1') === 'dead_lettered', 'Cancel replayed the event anyway');
  fs.writeFileSync(inst.flag, '');  // the downstream works again
  await page.click('#replay');
  await waitVisible(page, '#confirm');
  check(/replay event/i.test(await textOf(page, '#confirm-title')), 'the dialog says what it confirms');
  await page.fill('#confirm-note', 'downstream fixed');
  await page.click('#confirm-ok');
  await pollUntil(async () => (await textOf(page, '#detail-status')).trim() === 'completed',
    'the replayed event shows completed in the detail', 30000);
  check(statusOf(inst, 'evt_fail_1') === 'completed', 'the database has the replayed event completed');
  const replayLine = await page.locator('#timeline li[data-kind="action"]').first().textContent({ timeout: STEP_MS });
  check(/Replayed: dead_lettered/.test(replayLine), `the timeline shows the replay: ${replayLine}`);
  ok('replay with confirmation');

  // The audit database, with and without payloads.
  await page.click('#nav-dashboard');
  await waitVisible(page, '#export');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('#export')]);
  check(/^hookinbox-audit-.*\.db$/.test(download.suggestedFilename()), `download name: ${download.suggestedFilename()}`);
  const full = path.join(dir, 'audit.db');
  await download.saveAs(full);
  check(sql(full, 'PRAGMA integrity_check') === 'ok', 'PRAGMA integrity_check on the download');
  check(sql(full, "SELECT status FROM webhook_inbox WHERE event_id = 'evt_fail_1'") === 'completed',
    'the download has the replayed event completed');
  check(sql(full, "SELECT count(*) FROM webhook_event_actions a JOIN webhook_inbox i ON i.id = a.inbox_id " +
    "WHERE i.event_id = 'evt_fail_1' AND a.action = 'replay'") === '1', 'the download has the replay row');
  check(Number(sql(full, 'SELECT count(*) FROM webhook_payloads')) >= 3, 'the full download has the payloads');
  await page.check('#export-without-payloads');
  const [bare] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('#export')]);
  const lean = path.join(dir, 'audit-no-payloads.db');
  await bare.saveAs(lean);
  check(sql(lean, 'PRAGMA integrity_check') === 'ok', 'PRAGMA integrity_check on the download without payloads');
  check(sql(lean, "SELECT count(*) FROM webhook_inbox WHERE event_id = 'evt_fail_1'") === '1',
    'the download without payloads still has the event');
  check(sql(lean, 'SELECT count(*) FROM webhook_payloads WHERE length(body) > 0') === '0',
    'the download without payloads has no payload bodies');
  ok('download audit database (sqlite3: integrity ok, event present)');
  await page.screenshot({ path: path.join(dir, 'desktop-dashboard.png'), fullPage: true });

  // Resolve by hand: an event whose action outlived its timeout is unknown;
  // it is recorded as completed with a reference.
  fs.writeFileSync(inst.hang, '');
  await send(inst, pub, { id: 'evt_slow_1', type: 'invoice.paid' }, 'accepted');
  await pollUntil(() => statusOf(inst, 'evt_slow_1') === 'unknown', 'evt_slow_1 becomes unknown', 30000);
  fs.rmSync(inst.hang);
  const slow = sql(inst.db, "SELECT id FROM webhook_inbox WHERE event_id = 'evt_slow_1'");
  await page.goto(ui + '#/event/' + slow);
  await pollUntil(async () => (await textOf(page, '#detail-status')).trim() === 'unknown', 'evt_slow_1 shows unknown');
  check(await page.locator('#resolve').isEnabled(), 'Resolve is offered for an unknown event');
  await page.click('#resolve');
  await waitVisible(page, '#resolve-fields');
  await page.selectOption('#resolve-as', 'completed');
  await page.fill('#resolve-ref', 'manual-42');
  await page.fill('#confirm-note', 'found in the downstream system');
  await page.click('#confirm-ok');
  await pollUntil(async () => (await textOf(page, '#detail-status')).trim() === 'completed', 'the resolved event shows completed');
  check(sql(inst.db, `SELECT status || ' ' || result_ref FROM webhook_inbox WHERE id = ${slow}`) === 'completed manual-42',
    'the database has the event resolved as completed with its reference');
  check(sql(inst.db, `SELECT count(*) FROM webhook_event_actions WHERE inbox_id = ${slow} AND action = 'resolve' ` +
    "AND note = 'found in the downstream system'") === '1', 'the resolve is audited with its note');
  check(await page.locator('#resolve').isDisabled(), 'Resolve is not offered for a completed event');
  await page.screenshot({ path: path.join(dir, 'desktop-detail.png'), fullPage: true });
  ok('resolve with confirmation');

  // Pause and resume an endpoint from the dashboard: a reason is asked for,
  // the database records who and why.
  const shopRow = '#endpoint-states tr[data-endpoint="shop"]';
  const shopPaused = async () => (await textOf(page, shopRow + ' [data-field="paused"]')).trim();
  await page.goto(ui + '#/');
  await waitVisible(page, shopRow);
  check(await shopPaused() === 'Running', `shop starts running, the dashboard says "${await shopPaused()}"`);
  check(/closed/i.test(await textOf(page, shopRow + ' [data-field="breaker"]')), 'the breaker of shop is closed');
  await page.click(shopRow + ' button.pause');
  await waitVisible(page, '#confirm');
  check(/pause endpoint shop/i.test(await textOf(page, '#confirm-title')), 'the dialog says what it pauses');
  check(/reason/i.test(await textOf(page, '#confirm-note-name')), 'the dialog asks for a reason');
  await page.fill('#confirm-note', 'CRM maintenance');
  await page.click('#confirm-ok');
  await pollUntil(async () => /^Paused since .+ by admin:127\.[0-9.]+: CRM maintenance$/.test(await shopPaused()),
    'the dashboard shows shop paused, since when, by whom and why');
  check(/^admin:127\.[0-9.]+\|pause\|CRM maintenance$/.test(
    sql(inst.db, "SELECT actor || '|' || action || '|' || reason FROM endpoint_actions WHERE endpoint = 'shop'")),
    'the database records the pause with its actor and reason');
  await page.click(shopRow + ' button.resume');
  await waitVisible(page, '#confirm');
  check(await page.locator('#confirm-note-label').isHidden(), 'resume asks for no reason');
  await page.click('#confirm-ok');
  await pollUntil(async () => await shopPaused() === 'Running', 'shop runs again');
  check(sql(inst.db, "SELECT count(*) FROM endpoint_actions WHERE endpoint = 'shop' AND action = 'resume'") === '1' &&
    sql(inst.db, "SELECT count(*) FROM endpoint_states WHERE endpoint = 'shop' AND paused_at IS NULL") === '1',
    'the database has shop resumed, audited');
  ok('pause (with a reason) and resume an endpoint from the dashboard');
  // Leave the dashboard: the 401 check below reaches it by a click on its link.
  await page.goto(ui + '#/events');
  await waitVisible(page, '#events');
  // Bulk replay, confirmed: two new dead letters go back and complete, each
  // with its own audit row; the message gives the counts.
  fs.rmSync(inst.flag);
  for (const id of ['evt_bulk_1', 'evt_bulk_2']) {
    await send(inst, pub, { id: id, type: 'invoice.failed' }, 'accepted');
    await pollUntil(() => statusOf(inst, id) === 'dead_lettered', `${id} is dead-lettered`);
  }
  fs.writeFileSync(inst.flag, '');
  await page.goto(ui + '#/events?status=dead_lettered&endpoint=shop');
  await waitVisible(page, '#bulk-replay');
  await page.click('#bulk-replay');
  await waitVisible(page, '#confirm');
  const title2 = await textOf(page, '#confirm-title');
  check(/replay 2 matching events/i.test(title2), `the dialog gives the count of the two dead letters: ${title2}`);
  await page.fill('#confirm-note', 'downstream back');
  await page.click('#confirm-ok');
  await pollUntil(async () => /replayed 2 of 2 events/i.test(await textOf(page, '#message')),
    'the message says 2 of 2 were replayed');
  for (const id of ['evt_bulk_1', 'evt_bulk_2']) {
    await pollUntil(() => statusOf(inst, id) === 'completed', `${id} completes after the bulk replay`, 30000);
  }
  check(sql(inst.db, "SELECT count(*) FROM webhook_event_actions WHERE action = 'replay' AND note = 'downstream back'") ===
    '2', 'each bulk-replayed event has its own audit row with the note');
  ok('bulk replay with confirmation');

  // The Attention view: two open incidents and one resolved an hour ago,
  // written as the alert engine would; acknowledge one, then mute it.
  const now = Date.now();
  sqlWrite(inst.db, 'INSERT INTO alerts (id, condition, endpoint, summary, opened_at, last_seen_at, resolved_at,' +
    ' observations, count) VALUES' +
    ` (101, 'dead_letters', 'shop', 'shop: 3 dead letters', ${now - 7200000}, ${now - 60000}, NULL, 4, 3),` +
    ` (102, 'disk_free', '', 'disk 4% free', ${now - 3600000}, ${now - 60000}, NULL, 2, 4),` +
    ` (103, 'silence', 'shop', 'shop: no delivery for 25 h', ${now - 86400000}, ${now - 7200000}, ${now - 3600000}, 9, 90000)`);
  await page.goto(ui + '#/');
  await pollUntil(async () => (await textOf(page, '#attention-count')).trim() === '2', 'the nav counts 2 open incidents');
  await page.click('#nav-attention');
  await waitVisible(page, '#incident-list');
  const deadRow = '#incident-list tr[data-incident="101"]';
  await waitVisible(page, deadRow);
  check(await page.locator('#incident-list tbody tr').count() === 2, 'the list has the two open incidents');
  check(/dead letters/i.test(await textOf(page, deadRow + ' th')), 'the condition is in plain words');
  check((await textOf(page, deadRow + ' [data-field="endpoint"]')).trim() === 'shop', 'with its endpoint');
  check((await textOf(page, deadRow + ' [data-field="count"]')).trim() === '3', 'and its count');
  check(/whole installation/.test(await textOf(page, '#incident-list tr[data-incident="102"] [data-field="endpoint"]')),
    'an incident without an endpoint concerns the whole installation');
  check(await page.locator('#resolved-list tr[data-incident="103"]').count() === 1, 'the resolved one is listed below');
  check((await textOf(page, deadRow + ' [data-field="state"]')).trim() === 'Open', 'it starts open');
  await page.click(deadRow + ' button.ack');
  await pollUntil(async () => /^Acknowledged by admin:127\.[0-9.]+/.test((await textOf(page, deadRow + ' [data-field="state"]')).trim()),
    'the row says who acknowledged it');
  check(/^admin:127\.[0-9.]+$/.test(sql(inst.db, 'SELECT acked_by FROM alerts WHERE id = 101')),
    'the database records the acknowledgement with the admin as actor');
  check(await page.locator(deadRow + ' button.ack').isDisabled(), 'Acknowledge is not offered twice');
  await page.click(deadRow + ' button.mute');
  await waitVisible(page, '#confirm');
  check(await page.locator('#mute-fields').isVisible(), 'the dialog offers how long to mute');
  check(await page.locator('#mute-until-label').isHidden(), 'the custom time is hidden until chosen');
  await page.selectOption('#mute-for', '480');
  await page.click('#confirm-ok');
  await pollUntil(async () => /Muted until/.test(await textOf(page, deadRow + ' [data-field="state"]')),
    'the row says it is muted');
  const mutedFor = Number(sql(inst.db, 'SELECT muted_until FROM alerts WHERE id = 101')) - now;
  check(mutedFor > 8 * 3600000 - 60000 && mutedFor < 8 * 3600000 + 600000, `muted for 8 hours, the database says ${mutedFor} ms`);
  check(/^admin:127\.[0-9.]+$/.test(sql(inst.db, 'SELECT muted_by FROM alerts WHERE id = 101')), 'the mute names the admin');
  await page.click(deadRow + ' button.unmute');
  await pollUntil(async () => !/Muted/.test(await textOf(page, deadRow + ' [data-field="state"]')), 'unmuted');
  check(sql(inst.db, 'SELECT muted_until IS NULL FROM alerts WHERE id = 101') === '1', 'the database has it unmuted');
  await page.screenshot({ path: path.join(dir, 'desktop-attention.png'), fullPage: true });
  ok('the Attention view: list, acknowledge, mute for 8 hours, unmute');

  // A phone: 375 px wide.
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await strictCsp(phone);
  const p = await phone.newPage();
  watchErrors(p, errors);
  await p.goto(ui);
  await noSidewaysScroll(p, 'the login');
  await login(p, inst.token);
  await waitVisible(p, '#stats tr[data-endpoint="shop"]');
  await noSidewaysScroll(p, 'the dashboard');
  await p.screenshot({ path: path.join(dir, 'phone-dashboard.png'), fullPage: true });
  await p.goto(ui + '#/events');
  const all = Number(sql(inst.db, 'SELECT count(*) FROM webhook_inbox'));
  await pollUntil(async () => (await p.locator('#event-list tbody tr').count()) === all, 'the phone lists the events');
  await noSidewaysScroll(p, 'the event list');
  await p.screenshot({ path: path.join(dir, 'phone-events.png'), fullPage: true });
  const failId = sql(inst.db, "SELECT id FROM webhook_inbox WHERE event_id = 'evt_fail_1'");
  await p.goto(ui + '#/event/' + failId);
  await pollUntil(async () => (await p.locator('#timeline li').count()) >= 4, 'the phone shows the timeline');
  await noSidewaysScroll(p, 'the event detail');
  await p.screenshot({ path: path.join(dir, 'phone-detail.png'), fullPage: true });
  await p.goto(ui + '#/attention');
  await waitVisible(p, '#incident-list tr[data-incident="101"]');
  await noSidewaysScroll(p, 'the Attention view');
  await p.screenshot({ path: path.join(dir, 'phone-attention.png'), fullPage: true });
  ok('375 px: no sideways scrolling (login, dashboard, list, detail, attention)');

  await checkRemovedAndRotation(page, inst, admin, pub, ui);

  // A token that stops working sends the person back to the login.
  await page.evaluate((key) => sessionStorage.setItem(key, 'a-token-that-stopped-working'), TOKEN_KEY);
  await page.click('#nav-dashboard');
  await waitVisible(page, '#login');
  check(/log in again/i.test(await textOf(page, '#login-error')), 'a 401 explains why the login is back');
  ok('401 returns to the login');

  // Too many failed logins: the UI says to wait.
  let said = '';
  for (let i = 0; i < 12 && !/wait a minute/i.test(said); i++) {
    await login(page, 'wrong-' + i);
    said = await pollUntil(async () => {
      const t = await textOf(page, '#login-error');
      return (await page.locator('#login-submit').isEnabled()) && /wrong token|wait a minute/i.test(t) ? t : null;
    }, 'the login answers');
  }
  check(/wait a minute/i.test(said), `after repeated wrong tokens the login says to wait, got: ${said}`);
  ok('429 says to wait');

  check(errors.length === 0, 'no script errors or CSP violations:\n  ' + errors.join('\n  '));
  ok('no script errors under CSP default-src \'self\'');
}

let code = 0;
try {
  await run();
  console.log('browser: all checks passed');
} catch (e) {
  console.error(`browser FAIL: ${e instanceof CheckFailed ? e.message : e.stack}`);
  const log = path.join(dir, 'serve.log');
  if (fs.existsSync(log)) {
    // The server's own log (never holds the token or payloads), for the reason.
    console.error('--- last lines of hookinbox serve:\n' + fs.readFileSync(log, 'utf8').split('\n').slice(-15).join('\n'));
  }
  if (shownPage) {
    const said = await shownPage.locator('#message').textContent({ timeout: 1000 }).catch(() => '');
    if (said) console.error(`--- the UI's message: ${said}`);
    await shownPage.screenshot({ path: path.join(dir, 'failure.png'), fullPage: true }).catch(() => {});
  }
  code = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => { server.on('exit', r); setTimeout(r, 10000); });
  }
}
process.exit(code);
