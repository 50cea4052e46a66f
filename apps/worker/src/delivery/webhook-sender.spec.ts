import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WebhookHostResolver } from '@app/common';
import { HttpsReceiver, startHttpsReceiver } from '@app/testing';
import { WebhookAgents } from './webhook-agents';
import { LookupPutOffError, WebhookHostLookup } from './webhook-host-lookup';
import { PutOff, SentAttempt, sendWebhook, SendOptions, WEBHOOK_USER_AGENT } from './webhook-sender';
import { signatureHeaders } from './webhook-signature';

/** Deliveries to a real HTTPS receiver on 127.0.0.1 with a certificate made for the run (docs/api.md#webhook-delivery). */
describe('sendWebhook', () => {
  let receiver: HttpsReceiver;
  let trusting: WebhookAgents;
  let guarded: WebhookAgents;
  let untrusting: WebhookAgents;
  const resolver = new WebhookHostResolver({ concurrency: 4 });
  const ownerLookup = (allowPrivateTargets: boolean): LookupFunction =>
    new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets }).forOwner('usr_01M83J1BG441AVKTCT1S4B49EA');
  const guardedLookup = ownerLookup(false);

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    trusting = new WebhookAgents({ allowPrivateTargets: true, ca: receiver.cert });
    guarded = new WebhookAgents({ allowPrivateTargets: false, ca: receiver.cert });
    untrusting = new WebhookAgents({ allowPrivateTargets: true });
  });
  afterAll(async () => {
    for (const agents of [trusting, guarded, untrusting]) agents.destroy();
    await receiver.close();
  });

  const respond = (handler: (body: string, res: ServerResponse, headers: IncomingMessage['headers']) => void): void =>
    receiver.respond((request, res) => handler(request.body, res, request.headers));
  const options = (overrides: Partial<SendOptions> = {}): SendOptions => ({ timeoutMs: 5000, agents: trusting, lookup: ownerLookup(true), ...overrides });
  /** An attempt that was made, as every case but the put-off one expects. */
  const send = async (...args: Parameters<typeof sendWebhook>): Promise<SentAttempt> => {
    const result: SentAttempt | PutOff = await sendWebhook(...args);
    if ('putOff' in result) throw new Error(`put off: ${result.putOff}`);
    return result;
  };
  const url = () => `https://127.0.0.1:${receiver.port}/hook`;
  const event = { id: 'evt_01M83J1BG441AVKTCT1S4B49EA', type: 'resource.created' };
  const body = JSON.stringify({ id: event.id, type: event.type, data: { object: { name: 'é ✓' } }, previous_data: null });

  it.each(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'a-plain-secret-of-some-length'])(
    'signs the exact bytes; both signatures verify (secret %s)',
    async (secret) => {
      let received: { headers: IncomingMessage['headers']; body: string } | undefined;
      respond((raw, res, requestHeaders) => {
        received = { headers: requestHeaders, body: raw };
        res.writeHead(200, { 'X-Receiver': 'yes' }).end('ok');
      });
      const timestamp = Math.floor(Date.now() / 1000);
      const attempt = await send(url(), body, signatureHeaders(secret, event, body, timestamp), options());
      expect(attempt).toMatchObject({ succeeded: true, status_code: 200, error: null, response_body: 'ok' });
      expect(received?.body).toBe(body);
      const headers = received?.headers ?? {};
      // The attempt records the headers the receiver got (all but Connection, which Node adds last) and those it answered with.
      expect({ ...attempt.request_headers, connection: 'keep-alive' }).toEqual(headers);
      expect(JSON.stringify(attempt.request_headers)).not.toContain(secret);
      expect(attempt.response_headers).toMatchObject({ 'x-receiver': 'yes', date: expect.any(String) });
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
      expect(headers['x-webhook-event-id']).toBe(event.id);
      expect(headers['x-webhook-event-type']).toBe(event.type);
      const expected = createHmac('sha256', secret).update(received?.body ?? '').digest();
      const given = headers['x-webhook-signature'] as string;
      expect(given).toMatch(/^[0-9a-f]{64}$/);
      expect(timingSafeEqual(Buffer.from(given, 'hex'), expected)).toBe(true);
      // An off-the-shelf Standard Webhooks verifier accepts it; it takes the raw secret as base64.
      const verifierKey = secret.startsWith('whsec_') ? secret : Buffer.from(secret).toString('base64');
      const verified = new Webhook(verifierKey).verify(received?.body ?? '', {
        'webhook-id': headers['webhook-id'] as string,
        'webhook-timestamp': headers['webhook-timestamp'] as string,
        'webhook-signature': headers['webhook-signature'] as string,
      });
      expect(verified).toMatchObject({ id: event.id });
    },
  );

  it('records a 500 with the first KiB of the body', async () => {
    respond((_raw, res) => res.writeHead(500).end('x'.repeat(5000)));
    const attempt = await send(url(), body, {}, options());
    expect(attempt).toMatchObject({ succeeded: false, status_code: 500, error: null });
    expect(attempt.response_body).toHaveLength(1024);
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('does not follow a redirect: a 302 is a failure', async () => {
    let hits = 0;
    respond((_raw, res) => {
      hits += 1;
      res.writeHead(302, { Location: `https://127.0.0.1:${receiver.port}/elsewhere` }).end();
    });
    const attempt = await send(url(), body, {}, options());
    expect(attempt).toMatchObject({ succeeded: false, status_code: 302 });
    expect(hits).toBe(1);
  });

  it('gives up after the timeout and records why', async () => {
    respond((_raw, res) => void setTimeout(() => res.writeHead(200).end(), 1500));
    const attempt = await send(url(), body, {}, options({ timeoutMs: 300 }));
    expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: 'no answer within 300 ms', response_headers: null });
    expect(attempt.request_headers).toMatchObject({ 'content-length': String(Buffer.byteLength(body)) });
  });

  it('refuses private targets at connect time unless allowed, naming no address', async () => {
    respond((_raw, res) => res.writeHead(200).end());
    const literal = await send(url(), body, {}, options({ agents: guarded, lookup: guardedLookup }));
    expect(literal).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/) });
    // A name is judged by the address it resolves to at connection time.
    const named = await send(`https://localhost:${receiver.port}/hook`, body, {}, options({ agents: guarded, lookup: guardedLookup }));
    expect(named).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/) });
    // The owner reads attempts[].error: it must not say what the host resolved to.
    for (const attempt of [literal, named]) expect(attempt.error).not.toMatch(/127\.0\.0\.1|::1/);
    for (const attempt of [literal, named]) expect(attempt).toMatchObject({ request_headers: null, response_headers: null });
  });

  it.each(['[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'])(
    'refuses the IPv6 literal %s, which carries an IPv4 address, before connecting',
    async (host) => {
      const attempt = await send(`https://${host}:${receiver.port}/hook`, body, {}, options({ agents: guarded, lookup: guardedLookup }));
      expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/) });
    },
  );

  it('bounds a connect-time lookup that never answers by the delivery timeout', async () => {
    const lookup = jest.fn<void, Parameters<LookupFunction>>();
    const attempt = await send('https://stalled.example.com/hook', body, {}, options({ agents: guarded, lookup, timeoutMs: 300 }));
    expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: 'no answer within 300 ms' });
    expect(lookup).toHaveBeenCalledWith('stalled.example.com', expect.anything(), expect.any(Function));
  });

  it('makes no attempt, and sends nothing, when the lookup is put off', async () => {
    let hits = 0;
    respond((_raw, res) => {
      hits += 1;
      res.writeHead(200).end();
    });
    const putOff: LookupFunction = (_hostname, _options, callback) => process.nextTick(callback, new LookupPutOffError('all in flight'), []);
    const result = await sendWebhook(`https://localhost:${receiver.port}/hook`, body, {}, options({ lookup: putOff }));
    expect(result).toEqual({ putOff: 'all in flight' });
    expect(hits).toBe(0);
  });

  it.each(['https://[fe80::1%25eth0]/hook', 'https://[::1/hook'])('records an unparsable stored url (%s) as a failed attempt instead of throwing', async (stored) => {
    const attempt = await send(stored, body, {}, options());
    expect(attempt).toMatchObject({
      succeeded: false,
      status_code: null,
      error: 'The webhook url cannot be parsed.',
      request_headers: null,
      response_headers: null,
    });
  });

  it('records an untrusted certificate as an error', async () => {
    respond((_raw, res) => res.writeHead(200).end());
    const attempt = await send(url(), body, {}, options({ agents: untrusting }));
    // Nothing went out, so no headers are recorded as sent.
    expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: expect.any(String), request_headers: null, response_headers: null });
  });

  it('reuses one kept connection per origin for consecutive deliveries', async () => {
    respond((_raw, res) => res.writeHead(200).end('ok'));
    const agents = new WebhookAgents({ allowPrivateTargets: true, ca: receiver.cert });
    const connections = jest.spyOn(agents.for(new URL(url())), 'createConnection');
    try {
      for (let sent = 0; sent < 3; sent++) expect(await send(url(), body, {}, options({ agents }))).toMatchObject({ succeeded: true });
      expect(connections).toHaveBeenCalledTimes(1);
    } finally {
      agents.destroy();
    }
  });

  it('checks the address of every new kept connection: a guarded pool still refuses a name for loopback', async () => {
    respond((_raw, res) => res.writeHead(200).end('ok'));
    for (let sent = 0; sent < 2; sent++) {
      const named = await send(`https://localhost:${receiver.port}/hook`, body, {}, options({ agents: guarded, lookup: guardedLookup }));
      expect(named).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/) });
    }
  });

  describe('to an http:// loopback receiver (WEBHOOK_ALLOW_LOOPBACK_HTTP)', () => {
    let plain: Server;
    let port: number;
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const loopbackHttp = new WebhookAgents({ allowPrivateTargets: false, allowLoopbackHttp: true });
    const httpsOnly = new WebhookAgents({ allowPrivateTargets: true });

    beforeAll(async () => {
      plain = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      port = (plain.address() as AddressInfo).port;
    });
    afterAll(async () => {
      loopbackHttp.destroy();
      httpsOnly.destroy();
      await new Promise((resolve) => plain.close(resolve));
    });

    it.each(['127.0.0.1', 'localhost'])('sends to http://%s when allowed, signed as over https', async (host) => {
      received.length = 0;
      const attempt = await sendWebhook(`http://${host}:${port}/hooks`, body, signatureHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', event, body, 1), options({ agents: loopbackHttp }));
      expect(attempt).toMatchObject({ succeeded: true, status_code: 204, error: null });
      expect(received).toHaveLength(1);
      expect(received[0].body).toBe(body);
      expect(received[0].headers).toMatchObject({ 'x-webhook-event-id': event.id, 'webhook-timestamp': '1', 'user-agent': WEBHOOK_USER_AGENT });
    });

    it('refuses http:// when the setting is off, even with private targets allowed, before connecting', async () => {
      received.length = 0;
      const attempt = await sendWebhook(`http://127.0.0.1:${port}/hooks`, body, {}, options({ agents: httpsOnly }));
      expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/), request_headers: null });
      expect(received).toHaveLength(0);
    });

    it.each(['http://10.0.0.5/hooks', 'http://example.com/hooks', 'http://[::ffff:127.0.0.1]/hooks'])('never sends http:// to a host that is not loopback: %s', async (target) => {
      const attempt = await sendWebhook(target, body, {}, options({ agents: loopbackHttp }));
      expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not an allowed target/) });
    });
  });
});
