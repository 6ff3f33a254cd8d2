// Wave-2 interop cases: the official npm SDKs of the
// presets added in wave 2, used by interop.mjs exactly like the wave-1 ones.
//
// Each SDK is used only through its own signing or verifying function.
// Signers (hookinbox serve must accept, answer duplicate, refuse tampering):
// workos (computeSignature), sanity (encodeSignatureHeader), adyen
// (hmacValidator.calculateHmac), payos (the client's createSignatureFromObj,
// which its webhooks.verify uses too), coinbase-commerce
// (Webhook.computeSignature). Verifiers, on what `hookinbox send-test` sends:
// line (validateSignature), telnyx (webhooks.unwrap, Ed25519), gocardless
// (webhooks.parse), workos (constructEvent), adyen (validateHMAC),
// coinbase-commerce (verifyEventBody), polar (validateEvent), sanity
// (isValidSignature: send-test writes its unpadded base64url) and payos
// (webhooks.verify: send-test signs payOS's own example body). LINE,
// GoCardless and Polar publish no signing function, and Telnyx signs with a
// key only Telnyx holds: they are verifier cases alone.
//
// Several of these SDKs quote the signature header or the body in their
// error messages (telnyx, coinbase-commerce), so a refusal is reported by
// the error's name only: nothing secret reaches the log.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// The packages interop.mjs imports ahead of the cases (see its comment).
export const packages = [
  '@line/bot-sdk', 'telnyx', 'gocardless-nodejs/webhooks', '@workos-inc/node', '@sanity/webhook',
  '@adyen/api-library', '@payos/node', 'coinbase-commerce-node', '@polar-sh/sdk/webhooks',
];

// ctx: the helpers interop.mjs has (secretOf, publicKeyOf, header, rand, json) and dir, the work folder.
export function wave2Cases(ctx) {
  const { secretOf, publicKeyOf, header, rand, json } = ctx;

  // null when fn returns anything but false; otherwise why not, naming only
  // the error class (messages may quote signatures or bodies).
  const quietBool = async (fn) => {
    try {
      const r = await fn();
      return r === false ? 'package said invalid' : null;
    } catch (e) {
      return `package refused it (${e?.name ?? e?.constructor?.name ?? 'error'})`;
    }
  };

  // ---- signers -------------------------------------------------------------

  const workosClient = async () => {
    const { WorkOS } = await import('@workos-inc/node');
    return new WorkOS('sk_test_interop');
  };

  // WorkOS signs JSON.stringify of the event (computeSignature stringifies
  // what it is given), so the body sent is that exact string.
  async function signWorkos() {
    const workos = await workosClient();
    const event = {
      id: `event_interop_${rand()}`, event: 'user.created', created_at: new Date().toISOString(),
      data: { object: 'user', id: `user_${rand()}`, email: 'interop@example.test', first_name: 'interop' },
    };
    const timestamp = Date.now();
    const signature = await workos.webhooks.computeSignature(timestamp, event, secretOf('workos'));
    return { body: JSON.stringify(event), headers: { ...json, 'WorkOS-Signature': `t=${timestamp}, v1=${signature}` } };
  }

  async function signSanity() {
    const { encodeSignatureHeader } = await import('@sanity/webhook');
    const body = JSON.stringify({ _id: `doc-${rand()}`, _type: 'post', title: 'interop' });
    const signature = await encodeSignatureHeader(body, Date.now(), secretOf('sanity'));
    return {
      body,
      headers: {
        ...json, 'sanity-webhook-signature': signature, 'idempotency-key': `idem-interop-${rand()}`,
        'sanity-operation': 'create',
      },
    };
  }

  // Two items, each signed on its own by the SDK, as Adyen batches them.
  async function signAdyen() {
    const { hmacValidator: HmacValidator } = await import('@adyen/api-library');
    const validator = new HmacValidator();
    const item = (n) => {
      const it = {
        pspReference: `${Date.now()}${n}${Math.floor(Math.random() * 1e4)}`.slice(0, 16), originalReference: '',
        merchantAccountCode: 'InteropMerchant', merchantReference: `order-interop-${rand()}`,
        amount: { value: 1130 + n, currency: 'EUR' }, eventCode: 'AUTHORISATION', success: 'true',
        eventDate: new Date().toISOString(), paymentMethod: 'visa', reason: 'interop',
      };
      it.additionalData = { hmacSignature: validator.calculateHmac(it, secretOf('adyen')) };
      return { NotificationRequestItem: it };
    };
    const body = JSON.stringify({ live: 'false', notificationItems: [item(1), item(2)] });
    return { body, headers: json };
  }

  async function signPayos() {
    const { PayOS } = await import('@payos/node');
    const payos = new PayOS({ clientId: 'interop', apiKey: 'interop', checksumKey: secretOf('payos') });
    const data = {
      orderCode: Math.floor(Math.random() * 1e9), amount: 3000, description: 'interop order',
      accountNumber: '12345678', reference: `TF${rand()}`, transactionDateTime: '2026-01-02 03:04:05',
      currency: 'VND', paymentLinkId: rand(), code: '00', desc: 'success',
      counterAccountBankId: '', counterAccountBankName: '', counterAccountName: '', counterAccountNumber: '',
      virtualAccountName: '', virtualAccountNumber: '',
    };
    const signature = await payos.crypto.createSignatureFromObj(data, secretOf('payos'));
    return { body: JSON.stringify({ code: '00', desc: 'success', success: true, data, signature }), headers: json };
  }

  async function signCoinbase() {
    const { Webhook } = (await import('coinbase-commerce-node')).default;
    const body = JSON.stringify({
      id: rand(), scheduled_for: new Date().toISOString(), attempt_number: 1,
      event: {
        id: crypto.randomUUID(), type: 'charge:confirmed', api_version: '2018-03-22',
        created_at: new Date().toISOString(), data: { code: `C${rand()}`, name: 'interop' },
      },
    });
    return { body, headers: { ...json, 'X-CC-Webhook-Signature': Webhook.computeSignature(body, secretOf('coinbase-commerce')) } };
  }

  const signers = {
    workos: signWorkos, sanity: signSanity, adyen: signAdyen, payos: signPayos, 'coinbase-commerce': signCoinbase,
  };

  // ---- verifiers -----------------------------------------------------------

  const verifiers = {
    async line(req, raw) {
      const { validateSignature } = await import('@line/bot-sdk');
      return quietBool(() => validateSignature(raw, secretOf('line'), header(req, 'x-line-signature')));
    },
    async telnyx(req, raw) {
      const { default: Telnyx } = await import('telnyx');
      const client = new Telnyx({ apiKey: 'KEY_interop', publicKey: publicKeyOf('telnyx') });
      return quietBool(() => client.webhooks.unwrap(raw, { headers: req.headers }));
    },
    async gocardless(req, raw) {
      const { parse } = await import('gocardless-nodejs/webhooks');
      return quietBool(() => parse(raw, secretOf('gocardless'), header(req, 'Webhook-Signature')));
    },
    // constructEvent takes the parsed event and signs its JSON.stringify: a
    // body that is not compact JSON would fail here (send-test's is compact).
    async workos(req, raw) {
      const workos = await workosClient();
      return quietBool(() => workos.webhooks.constructEvent({
        payload: JSON.parse(raw), sigHeader: header(req, 'WorkOS-Signature'), secret: secretOf('workos'),
      }));
    },
    async adyen(req, raw) {
      const { hmacValidator: HmacValidator } = await import('@adyen/api-library');
      const validator = new HmacValidator();
      return quietBool(() => {
        const items = JSON.parse(raw).notificationItems ?? [];
        if (items.length === 0) return false;
        return items.every((i) => validator.validateHMAC(i.NotificationRequestItem, secretOf('adyen')));
      });
    },
    async sanity(req, raw) {
      const { isValidSignature } = await import('@sanity/webhook');
      return quietBool(() => isValidSignature(raw, header(req, 'sanity-webhook-signature'), secretOf('sanity')));
    },
    async payos(req, raw) {
      const { PayOS } = await import('@payos/node');
      const payos = new PayOS({ clientId: 'interop', apiKey: 'interop', checksumKey: secretOf('payos') });
      return quietBool(() => payos.webhooks.verify(JSON.parse(raw)));
    },
    async 'coinbase-commerce'(req, raw) {
      const { Webhook } = (await import('coinbase-commerce-node')).default;
      return quietBool(() => Webhook.verifyEventBody(raw, header(req, 'X-CC-Webhook-Signature'), secretOf('coinbase-commerce')));
    },
    // validateEvent verifies (standardwebhooks over the base64 of the secret)
    // and then parses the event with Polar's schemas. send-test's sample is no
    // Polar event type, so after a good signature the parse step refuses it
    // with SDKValidationError; a bad signature is WebhookVerificationError.
    async polar(req, raw) {
      const { validateEvent, WebhookVerificationError } = await import('@polar-sh/sdk/webhooks');
      try {
        validateEvent(raw, req.headers, secretOf('polar'));
        return null;
      } catch (e) {
        if (e instanceof WebhookVerificationError) return 'package refused the signature (WebhookVerificationError)';
        return e?.name === 'SDKValidationError' ? null : `package refused it (${e?.name ?? 'error'})`;
      }
    },
  };

  // send-test's own adyen sample has only the key's fields; Adyen's
  // HmacValidator reads amount.value and the other signed fields of a real
  // notification, so send-test signs this one instead (send-test --body; it
  // adds each item's hmacSignature, as for its sample).
  const sendTestArgs = {
    adyen() {
      const file = path.join(ctx.dir, 'adyen-notification.json');
      fs.writeFileSync(file, JSON.stringify({
        notificationItems: [{
          NotificationRequestItem: {
            pspReference: `${Date.now()}`.padEnd(16, '7'), originalReference: '', merchantAccountCode: 'InteropMerchant',
            merchantReference: `order-interop-${rand()}`, amount: { value: 1130, currency: 'EUR' },
            eventCode: 'AUTHORISATION', success: 'true', eventDate: new Date().toISOString(), paymentMethod: 'visa',
          },
        }],
        live: 'false',
      }));
      return ['--body', file];
    },
  };
  // The generic corruption changes the first lower-case letter, which in
  // Adyen's body is the unsigned "live": change the signed merchantReference.
  // payOS signs only `data`: the generic corruption would hit the unsigned
  // "code" around it, so the signed amount is changed instead.
  const corrupters = {
    adyen: (body) => body.replace('order-interop', 'order-intrude'),
    payos: (body) => body.replace('"amount":', '"amount":1'),
  };

  return { signers, verifiers, sendTestArgs, corrupters };
}
