// The interop cases: each provider's own npm package against hookinbox.
//
//   node interop.mjs --bin HOOKINBOX --dir WORK --base https://127.0.0.1:PORT
//
// Started by run.sh, which has written WORK (secrets/, tls/, check/<provider>.toml,
// a "rejected" list of providers whose endpoint the binary refused) and started
// `hookinbox serve` at BASE.
//
// Signer cases: the package signs a delivery; hookinbox must answer 200
// "accepted", then "duplicate" for the same delivery, and 401 once the body is
// tampered with. Verifier cases: `hookinbox send-test --url` posts to a capture
// server here, which checks the request with the package (200 valid, 401 not);
// send-test must exit 0, and a corrupted copy must be refused, proving the check can fail.
//
// Forward cases (provider "forward"): a second `hookinbox serve`, started here
// with an [endpoint.action] type = "http" pointing at a capture server here,
// forwards a delivery; the standardwebhooks package must verify the forward
// with the whsec_ forward secret, refuse it with a tampered body, and
// Idempotency-Key must equal webhook-id.
//
// Prints `interop <provider> <check>: ok|FAIL reason` per case; exit 1 on any
// failure. Never prints a secret, key or signature.
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packages as wave2Packages, wave2Cases } from './wave2.mjs';

const { values: opt } = parseArgs({
  options: { bin: { type: 'string' }, dir: { type: 'string' }, base: { type: 'string' } },
});
const ca = fs.readFileSync(path.join(opt.dir, 'tls/cert.pem'));
const secretOf = (p) => fs.readFileSync(path.join(opt.dir, 'secrets', `${p}.secret`), 'utf8').trim();
const keyFile = (p) => path.join(opt.dir, 'secrets', `${p}.key`);
const publicKeyOf = (p) => fs.readFileSync(path.join(opt.dir, 'secrets', `${p}.pub`), 'utf8').trim();
const publicUrl = (p) => `https://hooks.example.test/hooks/${p}`;  // as run.sh configures it
const rejected = new Map(
  fs.readFileSync(path.join(opt.dir, 'rejected'), 'utf8').split('\n').filter(Boolean)
    .map((line) => line.split('\t')),
);
const rand = () => crypto.randomBytes(6).toString('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);

let failures = 0;
let passes = 0;
function report(provider, check, error) {
  if (error) failures++;
  else passes++;
  console.log(`interop ${provider} ${check}: ${error ? `FAIL ${error}` : 'ok'}`);
}

// Runs fn; a thrown error becomes the FAIL reason (first line only: package
// errors can quote the header they were given).
async function attempt(provider, check, fn) {
  try {
    const why = await fn();
    report(provider, check, why || null);
  } catch (e) {
    report(provider, check, `${e?.message ?? e}`.split('\n')[0]);
  }
}

// POSTs body; resolves to {status, body}. tls: extra https options (the test CA).
function request(url, { headers = {}, body = '', tls = {} } = {}) {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const sized = { ...headers, 'Content-Length': Buffer.byteLength(body) };
    const options = { method: 'POST', headers: sized, timeout: 15000, ...tls };
    const req = lib.request(url, options, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

// d.query: a "?…" the signature covers (Twilio's bodySHA256), sent as part of the URL.
const postToHookinbox = (p, d) =>
  request(`${opt.base}/hooks/${p}${d.query ?? ''}`, { headers: d.headers, body: d.body, tls: { ca } });

// "accepted" / "duplicate" from a single reply, or from every event of a batch reply.
function outcome(reply) {
  let parsed;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return `unparsable reply`;
  }
  if (Array.isArray(parsed.events)) {
    const kinds = [...new Set(parsed.events.map((e) => e.status))];
    return kinds.length === 1 ? kinds[0] : `mixed ${kinds.join('/')}`;
  }
  return parsed.status;
}

// The signer protocol: accepted, duplicate, tampered → 401. `variant`
// prefixes the check names when a provider has more than one delivery form.
async function signerCases(p, sign, variant = '') {
  if (rejected.has(p)) {
    report(p, 'sign', `endpoint rejected by this binary (preset missing?): ${rejected.get(p)}`);
    return;
  }
  let d;
  try {
    d = await sign();
  } catch (e) {
    report(p, 'sign', `the package could not sign: ${`${e?.message ?? e}`.split('\n')[0]}`);
    return;
  }
  const expect = async (want, delivery) => {
    const r = await postToHookinbox(p, delivery);
    if (r.status !== 200) return `status ${r.status} ${r.body.slice(0, 200)}`;
    const got = outcome(r);
    return got === want ? null : `answered "${got}", expected "${want}"`;
  };
  await attempt(p, `${variant}signed-accepted`, () => expect('accepted', d));
  await attempt(p, `${variant}signed-duplicate`, () => expect('duplicate', d));
  await attempt(p, `${variant}signed-tampered`, async () => {
    if (!d.body.includes('interop')) return 'the sample body has no "interop" marker to tamper with';
    const r = await postToHookinbox(p, { ...d, body: d.body.replace('interop', 'intrude') });
    return r.status === 401 ? null : `status ${r.status} for a tampered body, expected 401`;
  });
}

// ---- signers: the package produces the signature ---------------------------------

const json = { 'Content-Type': 'application/json' };

async function signStripe() {
  const { default: Stripe } = await import('stripe');
  const body = JSON.stringify({
    id: `evt_interop_${rand()}`, object: 'event', api_version: '2024-06-20', created: nowSeconds(),
    type: 'payment_intent.succeeded', livemode: false, pending_webhooks: 1,
    data: {
      object: { id: `pi_${rand()}`, object: 'payment_intent', amount: 2000, currency: 'usd', description: 'interop' },
    },
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: secretOf('stripe') });
  return { body, headers: { ...json, 'Stripe-Signature': header } };
}

async function signGithub() {
  const { sign } = await import('@octokit/webhooks-methods');
  const body = JSON.stringify({
    ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40),
    repository: { id: 1296269, full_name: 'octocat/interop' }, pusher: { name: 'octocat' },
  });
  return {
    body,
    headers: {
      ...json, 'X-Hub-Signature-256': await sign(secretOf('github'), body), 'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': crypto.randomUUID(), 'X-GitHub-Hook-ID': '424242', 'User-Agent': 'GitHub-Hookshot/interop',
    },
  };
}

// standardwebhooks and svix share the Webhook#sign API; only the header prefix differs.
async function signStandard(pkg, prefix, p) {
  const { Webhook } = await import(pkg);
  const id = `msg_interop_${rand()}`;
  const when = new Date();
  const body = JSON.stringify({
    type: 'invoice.paid', timestamp: when.toISOString(), data: { id: `inv_${rand()}`, note: 'interop' },
  });
  return {
    body,
    headers: {
      ...json, [`${prefix}id`]: id, [`${prefix}timestamp`]: `${Math.floor(when.getTime() / 1000)}`,
      [`${prefix}signature`]: new Webhook(secretOf(p)).sign(id, when, body),
    },
  };
}

async function signTwilio() {
  const { default: twilio } = await import('twilio');
  const params = {
    // A messaging status callback, as Twilio posts it to a StatusCallback URL.
    AccountSid: `AC${rand()}${rand()}`, ApiVersion: '2010-04-01', From: '+15005550006',
    MessageSid: `SM${rand()}${rand()}`, MessageStatus: 'delivered', MessagingServiceSid: 'MGinterop',
    SmsSid: `SM${rand()}`, SmsStatus: 'delivered', To: '+15005550001',
  };
  return {
    body: new URLSearchParams(params).toString(),
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': twilio.getExpectedTwilioSignature(secretOf('twilio'), publicUrl('twilio'), params),
    },
  };
}

// Twilio's JSON bodies: the signature covers the URL with ?bodySHA256=<hex of the body>.
async function signTwilioJson() {
  const { default: twilio } = await import('twilio');
  const body = JSON.stringify({
    AccountSid: `AC${rand()}${rand()}`, MessageSid: `SM${rand()}${rand()}`, MessageStatus: 'sent',
    To: '+15005550001', From: '+15005550006', Note: 'interop',
  });
  const query = `?bodySHA256=${twilio.getExpectedBodyHash(body)}`;
  const signature = twilio.getExpectedTwilioSignature(secretOf('twilio'), publicUrl('twilio') + query, {});
  if (!twilio.validateRequestWithBody(secretOf('twilio'), signature, publicUrl('twilio') + query, body)) {
    throw new Error('twilio validateRequestWithBody refused its own signature');
  }
  return { body, query, headers: { ...json, 'X-Twilio-Signature': signature } };
}

async function signHubspot() {
  const { Signature } = await import('@hubspot/api-client');
  const event = (n) => ({
    eventId: 100 + n, subscriptionId: 4242, portalId: 62515, appId: 1160452, occurredAt: Date.now(),
    subscriptionType: 'contact.propertyChange', attemptNumber: 0, objectId: 1246965 + n,
    propertyName: 'firstname', propertyValue: 'interop', changeSource: 'CRM',
  });
  const base = Math.floor(Math.random() * 1e9);
  const body = JSON.stringify([event(base), event(base + 1)]);
  const timestamp = Date.now();
  const signature = Signature.getSignature('POST', 'v3', {
    clientSecret: secretOf('hubspot'), requestBody: body, url: publicUrl('hubspot'), timestamp,
  });
  return {
    body,
    headers: {
      ...json, 'X-HubSpot-Signature-v3': signature, 'X-HubSpot-Request-Timestamp': `${timestamp}`,
      'X-HubSpot-Signature-Version': 'v3',
    },
  };
}

// The tweetnacl key pair behind secrets/discord.key (run.sh makes it with openssl).
async function discordKeyPair() {
  const { default: nacl } = await import('tweetnacl');
  const jwk = crypto.createPrivateKey(fs.readFileSync(keyFile('discord'))).export({ format: 'jwk' });
  const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(Buffer.from(jwk.d, 'base64url')));
  if (Buffer.from(pair.publicKey).toString('hex') !== publicKeyOf('discord')) {
    throw new Error('tweetnacl derived another public key');
  }
  return { nacl, pair };
}

function discordBody() {
  return JSON.stringify({
    version: 1, application_id: '1234567890123456789', type: 1,
    event: {
      type: 'APPLICATION_AUTHORIZED', timestamp: new Date().toISOString(),
      data: {
        integration_type: 0, scopes: ['applications.commands'],
        user: { id: `${Date.now()}${Math.floor(Math.random() * 1e5)}`, username: 'interop' },
      },
    },
  });
}

async function signDiscord() {
  const { nacl, pair } = await discordKeyPair();
  const { verifyKey } = await import('discord-interactions');
  const body = discordBody();
  const timestamp = `${nowSeconds()}`;
  const signature = Buffer.from(nacl.sign.detached(Buffer.from(timestamp + body), pair.secretKey)).toString('hex');
  // discord-interactions must agree with tweetnacl before hookinbox is asked.
  if (!(await verifyKey(body, signature, timestamp, publicKeyOf('discord')))) {
    throw new Error('discord-interactions verifyKey refused the tweetnacl signature');
  }
  return { body, headers: { ...json, 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': timestamp } };
}

// ---- verifiers: the package checks what send-test sends --------------------------

const header = (req, name) => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v ?? '';
};
const asBool = async (fn) => {
  try {
    const r = await fn();
    return r === false || r?.valid === false ? `package said invalid${r?.reason ? ` (${r.reason})` : ''}` : null;
  } catch (e) {
    return `package threw: ${`${e?.message ?? e}`.split('\n')[0]}`;
  }
};

// Each returns null when the package accepts the request, else why not.
const verifiers = {
  async stripe(req, raw) {
    const { default: Stripe } = await import('stripe');
    return asBool(() => Stripe.webhooks.constructEvent(raw, header(req, 'Stripe-Signature'), secretOf('stripe')));
  },
  async github(req, raw) {
    const { verify } = await import('@octokit/webhooks-methods');
    return asBool(() => verify(secretOf('github'), raw, header(req, 'X-Hub-Signature-256')));
  },
  async 'standard-webhooks'(req, raw) {
    const { Webhook } = await import('standardwebhooks');
    return asBool(() => new Webhook(secretOf('standard-webhooks')).verify(raw, req.headers));
  },
  async svix(req, raw) {
    const { Webhook } = await import('svix');
    return asBool(() => new Webhook(secretOf('svix')).verify(raw, req.headers));
  },
  // Clerk and Resend deliver through Svix; each has its own verify function.
  async clerk(req, raw) {
    const { verifyWebhook } = await import('@clerk/backend/webhooks');
    const request = new Request(publicUrl('clerk'), { method: 'POST', headers: req.headers, body: raw });
    return asBool(() => verifyWebhook(request, { signingSecret: secretOf('clerk') }));
  },
  async resend(req, raw) {
    const { Resend } = await import('resend');
    return asBool(() => new Resend('re_interop').webhooks.verify({
      payload: raw, webhookSecret: secretOf('resend'),
      headers: {
        id: header(req, 'svix-id'), timestamp: header(req, 'svix-timestamp'), signature: header(req, 'svix-signature'),
      },
    }));
  },
  async twilio(req, raw) {
    const { default: twilio } = await import('twilio');
    const params = Object.fromEntries(new URLSearchParams(raw));
    const signature = header(req, 'X-Twilio-Signature');
    return asBool(() => twilio.validateRequest(secretOf('twilio'), signature, publicUrl('twilio'), params));
  },
  async hubspot(req, raw) {
    const { Signature } = await import('@hubspot/api-client');
    return asBool(() => Signature.isValid({
      signature: header(req, 'X-HubSpot-Signature-v3'), clientSecret: secretOf('hubspot'), requestBody: raw,
      signatureVersion: 'v3', url: publicUrl('hubspot'), method: 'POST',
      timestamp: Number(header(req, 'X-HubSpot-Request-Timestamp')),
    }));
  },
  async discord(req, raw) {
    const { verifyKey } = await import('discord-interactions');
    const [signature, timestamp] = [header(req, 'X-Signature-Ed25519'), header(req, 'X-Signature-Timestamp')];
    return asBool(() => verifyKey(raw, signature, timestamp, publicKeyOf('discord')));
  },
  async slack(req, raw) {
    const { verifySlackRequest } = await import('@slack/bolt');
    return asBool(() => verifySlackRequest({
      signingSecret: secretOf('slack'), body: raw,
      headers: {
        'x-slack-signature': header(req, 'X-Slack-Signature'),
        'x-slack-request-timestamp': Number(header(req, 'X-Slack-Request-Timestamp')),
      },
      logger: quietLogger,
    }));
  },
  async shopify(req, raw, res) {
    await import('@shopify/shopify-api/adapters/node');
    const { shopifyApi, ApiVersion, LogSeverity } = await import('@shopify/shopify-api');
    const shopify = shopifyApi({
      apiKey: 'interop-app', apiSecretKey: secretOf('shopify'), scopes: [], hostName: 'hooks.example.test',
      apiVersion: Object.values(ApiVersion).sort().pop(), isEmbeddedApp: false,
      logger: { level: LogSeverity.Error, log: () => {} },
    });
    const result = await shopify.webhooks.validate({ rawBody: raw, rawRequest: req, rawResponse: res });
    if (result.valid) return null;
    if (result.reason !== 'missing_headers') return `package said invalid (${result.reason})`;
    // Say whether only headers are missing: validate again with placeholders
    // for them (the HMAC covers the body alone).
    for (const name of result.missingHeaders) req.headers[name.toLowerCase()] = 'interop-placeholder';
    const again = await shopify.webhooks.validate({ rawBody: raw, rawRequest: req, rawResponse: res });
    return `package said invalid: missing headers ${result.missingHeaders.join(', ')}` +
      (again.valid ? ' (the HMAC itself verifies once they are present)' : ` and then ${again.reason}`);
  },
  async sendgrid(req, raw) {
    const { EventWebhook } = await import('@sendgrid/eventwebhook');
    const ew = new EventWebhook();
    const pem = `-----BEGIN PUBLIC KEY-----\n${publicKeyOf('sendgrid')}\n-----END PUBLIC KEY-----\n`;
    return asBool(() => ew.verifySignature(ew.convertPublicKeyToECDSA(pem), raw,
      header(req, 'X-Twilio-Email-Event-Webhook-Signature'), header(req, 'X-Twilio-Email-Event-Webhook-Timestamp')));
  },
  async paddle(req, raw) {
    const { Paddle, LogLevel } = await import('@paddle/paddle-node-sdk');
    const paddle = new Paddle('pdl_sdbx_apikey_interop', { logLevel: LogLevel?.error ?? 'error' });
    return asBool(() => paddle.webhooks.isSignatureValid(raw, secretOf('paddle'), header(req, 'Paddle-Signature')));
  },
  async square(req, raw) {
    const { WebhooksHelper } = await import('square');
    return asBool(() => WebhooksHelper.verifySignature({
      requestBody: raw, signatureHeader: header(req, 'x-square-hmacsha256-signature'),
      signatureKey: secretOf('square'), notificationUrl: publicUrl('square'),
    }));
  },
  async linear(req, raw) {
    const { LinearWebhookClient } = await import('@linear/sdk/webhooks');
    const client = new LinearWebhookClient(secretOf('linear'));
    return asBool(() => client.verify(Buffer.from(raw), header(req, 'Linear-Signature')));
  },
  async razorpay(req, raw) {
    const { default: Razorpay } = await import('razorpay');
    const signature = header(req, 'X-Razorpay-Signature');
    return asBool(() => Razorpay.validateWebhookSignature(raw, signature, secretOf('razorpay')));
  },
};
const wave2 = wave2Cases({ secretOf, publicKeyOf, header, rand, json, dir: opt.dir });
Object.assign(verifiers, wave2.verifiers);
const quietLogger = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel() {}, setName() {} };

// One capture server for every verifier case; `current` says which package checks.
let current = null;  // { provider, verdicts: [], last: {headers, body} }
const capture = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let why = 'no case is running';
    if (current) {
      current.last = { headers: { ...req.headers }, body: raw };
      why = await verifiers[current.provider](req, raw, res)
        .catch((e) => `package failed to load or run: ${`${e?.message ?? e}`.split('\n')[0]}`);
      current.verdicts.push(why);
    }
    if (res.headersSent) return;
    res.writeHead(why ? 401 : 200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(why ? { status: 'rejected' } : { status: 'accepted' }));
  });
});

function sendTest(args) {
  return new Promise((resolve) => {
    execFile(opt.bin, ['send-test', ...args], { timeout: 60000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, out: `${stdout}${stderr}`.trim() });
    });
  });
}

async function verifierCases(p, port) {
  if (rejected.has(p)) {
    report(p, 'send-test', `endpoint rejected by this binary (preset missing?): ${rejected.get(p)}`);
    return;
  }
  current = { provider: p, verdicts: [], last: null };
  const args = [p, '-c', path.join(opt.dir, 'check', `${p}.toml`), '--url', `http://127.0.0.1:${port}/hooks/${p}`];
  if (p === 'discord' || p === 'sendgrid' || p === 'telnyx') args.push('--private-key', keyFile(p));
  args.push(...(wave2.sendTestArgs[p]?.() ?? []));
  await attempt(p, 'send-test', async () => {
    const r = await sendTest(args);
    if (current.verdicts.length === 0) {
      return `send-test exited ${r.code} without reaching the capture server: ${r.out.split('\n')[0]}`;
    }
    if (current.verdicts[0]) return current.verdicts[0];
    return r.code === 0 ? null : `send-test exited ${r.code}: ${r.out.split('\n')[0]}`;
  });
  await attempt(p, 'corrupted', async () => {
    if (!current.last) return 'nothing captured to corrupt';
    const { headers, body } = current.last;
    delete headers['content-length'];
    delete headers['transfer-encoding'];
    const corrupted = wave2.corrupters[p]?.(body) ?? body.replace(/[a-z]/, (c) => (c === 'x' ? 'y' : 'x'));
    const r = await request(`http://127.0.0.1:${port}/hooks/${p}`, { headers, body: corrupted });
    return r.status === 401 ? null : `the package accepted a corrupted body (status ${r.status})`;
  });
  current = null;
}

// ---- forward: hookinbox's http action signs what it forwards -----------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls fn until it returns a truthy value or `ms` pass; resolves to its last value.
async function pollUntil(fn, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > deadline) return v;
    await sleep(50);  // poll interval, bounded by the deadline
  }
}

// Starts `hookinbox serve -c cfg` with its log in logPath; resolves to
// { child, port } once it listens, or throws with the log's first lines.
// `timeout` ends it on its own should this script be killed outright.
async function startServe(cfg, logPath) {
  const log = fs.openSync(logPath, 'w');
  const child = spawn('timeout', ['--kill-after=5', '120', opt.bin, 'serve', '-c', cfg],
    { stdio: ['ignore', 'ignore', log] });
  fs.closeSync(log);
  let exited = false;
  child.on('exit', () => { exited = true; });
  const port = await pollUntil(() => {
    const m = fs.readFileSync(logPath, 'utf8').match(/"event":"listening","url":"https:\/\/[^"]*:(\d+)"/);
    return m ? Number(m[1]) : exited ? -1 : 0;
  }, 30000);
  if (!(port > 0)) {
    child.kill('SIGTERM');
    const first = fs.readFileSync(logPath, 'utf8').split('\n').slice(0, 3).join(' | ');
    throw new Error(`the forwarding hookinbox serve did not start: ${first}`);
  }
  return { child, port };
}

async function stopServe(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([gone, sleep(15000)]);
}

async function forwardCases() {
  const p = 'forward';
  if (rejected.has('standard-webhooks')) {
    report(p, 'delivered', `the standard-webhooks endpoint it receives on was rejected: ${rejected.get('standard-webhooks')}`);
    return;
  }
  // The secret as a Standard Webhooks sender shows it (whsec_ + base64),
  // written to forward_secret_file unchanged.
  const forwardSecret = `whsec_${crypto.randomBytes(32).toString('base64')}`;
  const dir = path.join(opt.dir, 'forward');
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'forward.secret'), `${forwardSecret}\n`, { mode: 0o600 });

  const forwards = [];  // { headers, body } of every request hookinbox forwarded
  const downstream = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      forwards.push({ headers: { ...req.headers }, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"done"}');
    });
  });
  await new Promise((resolve) => downstream.listen(0, '127.0.0.1', resolve));
  const cfg = path.join(dir, 'hookinbox.toml');
  fs.writeFileSync(cfg, `[server]
listen = "127.0.0.1:0"
tls_cert = ${JSON.stringify(path.join(opt.dir, 'tls/cert.pem'))}
tls_key = ${JSON.stringify(path.join(opt.dir, 'tls/key.pem'))}

[admin]
listen = "127.0.0.1:0"

[storage]
path = "data/hookinbox.db"

[[endpoint]]
name = "standard-webhooks"
provider = "standard-webhooks"
secret_file = ${JSON.stringify(path.join(opt.dir, 'secrets/standard-webhooks.secret'))}

[endpoint.action]
type = "http"
url = "http://127.0.0.1:${downstream.address().port}/downstream"
forward_secret_file = "forward.secret"
timeout_ms = 5000

[worker]
threads = 1
`);

  let serve = null;
  try {
    await attempt(p, 'delivered', async () => {
      serve = await startServe(cfg, path.join(dir, 'serve.log'));
      const d = await signStandard('standardwebhooks', 'webhook-', 'standard-webhooks');
      const r = await request(`https://127.0.0.1:${serve.port}/hooks/standard-webhooks`,
        { headers: d.headers, body: d.body, tls: { ca } });
      if (r.status !== 200 || outcome(r) !== 'accepted') return `status ${r.status} ${r.body.slice(0, 200)}`;
      if (!(await pollUntil(() => forwards.length > 0, 20000))) return 'nothing was forwarded within 20 s';
      return forwards[0].body === d.body ? null : 'the forwarded body differs from the delivered one';
    });
    const f = forwards[0];
    const { Webhook } = await import('standardwebhooks');
    await attempt(p, 'standard-webhooks-verify', () => {
      if (!f) return 'nothing forwarded';
      new Webhook(forwardSecret).verify(f.body, f.headers);  // throws when it does not verify
      return null;
    });
    await attempt(p, 'tampered', () => {
      if (!f) return 'nothing forwarded';
      if (!f.body.includes('interop')) return 'the forwarded body has no "interop" marker to tamper with';
      try {
        new Webhook(forwardSecret).verify(f.body.replace('interop', 'intrude'), f.headers);
      } catch {
        return null;
      }
      return 'the package accepted a tampered body';
    });
    await attempt(p, 'idempotency-key', () => {
      if (!f) return 'nothing forwarded';
      const key = header({ headers: f.headers }, 'Idempotency-Key');
      if (!/^[0-9a-f]{64}$/.test(key)) return 'Idempotency-Key is not 64 lowercase hex digits';
      return key === header({ headers: f.headers }, 'webhook-id') ? null : 'Idempotency-Key differs from webhook-id';
    });
  } finally {
    if (serve) await stopServe(serve.child);
    downstream.close();
  }
}

// ---- run ----------------------------------------------------------------------------

const signers = {
  stripe: signStripe,
  github: signGithub,
  'standard-webhooks': () => signStandard('standardwebhooks', 'webhook-', 'standard-webhooks'),
  svix: () => signStandard('svix', 'svix-', 'svix'),
  twilio: signTwilio,
  hubspot: signHubspot,
  discord: signDiscord,
  ...wave2.signers,
};
const started = Date.now();
// Load every package first: a first import inside a check would eat into
// short signature windows (Paddle's SDK allows 5 s). A package that cannot
// load fails its own cases later, with the reason.
await Promise.allSettled([
  'stripe', '@octokit/webhooks-methods', 'standardwebhooks', 'svix', '@clerk/backend/webhooks', 'resend', 'twilio',
  '@hubspot/api-client', 'tweetnacl',
  'discord-interactions', '@slack/bolt', '@shopify/shopify-api/adapters/node', '@shopify/shopify-api',
  '@sendgrid/eventwebhook', '@paddle/paddle-node-sdk', 'square', '@linear/sdk/webhooks', 'razorpay',
  ...wave2Packages,
].map((name) => import(name)));
for (const [p, sign] of Object.entries(signers)) await signerCases(p, sign);
await signerCases('twilio', signTwilioJson, 'json-');

await new Promise((resolve) => capture.listen(0, '127.0.0.1', resolve));
const { port } = capture.address();
for (const p of Object.keys(verifiers)) await verifierCases(p, port);
capture.close();
await forwardCases();

console.log(`interop: took ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`interop: ${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
