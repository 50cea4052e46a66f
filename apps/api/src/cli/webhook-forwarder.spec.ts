import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WebhookForwarder } from './webhook-forwarder';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EVENT = { id: 'evt_01M88C15461N45SX1T9TMGP8BH', type: 'resource.created', created_at: '2026-11-28T09:30:00.000Z', data: { object: { id: 'res_1' } }, previous_data: null };
const BODY = JSON.stringify(EVENT);

/** A delivery signed as the worker signs it, with both schemes. */
function signedHeaders(secret: string): Record<string, string> {
  const timestamp = new Date();
  return {
    'Content-Type': 'application/json',
    'X-Webhook-Signature': createHmac('sha256', secret).update(BODY).digest('hex'),
    'X-Webhook-Event-Id': EVENT.id,
    'webhook-id': EVENT.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(EVENT.id, timestamp, BODY),
  };
}

/** The forwarder between the worker (this test's fetch) and an endpoint of the test's own. */
describe('WebhookForwarder', () => {
  let endpoint: Server;
  let endpointUrl: URL;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const printed: string[] = [];
  let forwarder: WebhookForwarder;
  let receiverUrl: string;

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(418, { 'Content-Type': 'text/plain' }).end('short and stout');
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = new URL(`http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hooks?source=rms`);
    forwarder = new WebhookForwarder({ forwardTo: endpointUrl, secret: SECRET, print: (line) => printed.push(line) });
    receiverUrl = await forwarder.listen();
  });
  afterAll(async () => {
    await forwarder.close();
    await new Promise((resolve) => endpoint.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    printed.length = 0;
  });

  it('listens on a loopback port and names the url the webhook should target', () => {
    expect(receiverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
  });

  it('forwards a verified delivery unchanged and answers with the endpoint\'s status and body', async () => {
    const headers = signedHeaders(SECRET);
    const answer = await fetch(receiverUrl, { method: 'POST', headers, body: BODY });
    expect(answer.status).toBe(418);
    expect(await answer.text()).toBe('short and stout');
    expect(received).toHaveLength(1);
    expect(received[0].body).toBe(BODY);
    const sent = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(received[0].headers).toMatchObject(sent);
    expect(printed).toEqual([
      expect.stringMatching(/^\S+Z {2}resource\.created {2}evt_01M88C15461N45SX1T9TMGP8BH {2}signature verified$/),
      expect.stringMatching(/^\S+Z {2}evt_01M88C15461N45SX1T9TMGP8BH {2}POST http:\/\/127\.0\.0\.1:\d+\/hooks\?source=rms answered 418 \(\d+ ms\)$/),
    ]);
  });

  it('answers 401 to a request that is not signed with the webhook\'s secret, and forwards nothing', async () => {
    for (const headers of [{ 'Content-Type': 'application/json' }, signedHeaders('whsec_3fBq0Qm5n7k2X8yZ1cV4bN6mL9pR2tWe')]) {
      const answer = await fetch(receiverUrl, { method: 'POST', headers, body: BODY });
      expect(answer.status).toBe(401);
    }
    expect(received).toEqual([]);
    expect(printed).toEqual([expect.stringMatching(/refused a request that is not a signed delivery/), expect.stringMatching(/refused a request/)]);
  });

  it('answers 502 and says so when the endpoint cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = new WebhookForwarder({ forwardTo: new URL(`http://127.0.0.1:${port}/hooks`), secret: SECRET, print: (line) => printed.push(line) });
    try {
      const answer = await fetch(await unreachable.listen(), { method: 'POST', headers: signedHeaders(SECRET), body: BODY });
      expect(answer.status).toBe(502);
      expect(printed[1]).toMatch(new RegExp(`POST http://127\\.0\\.0\\.1:${port}/hooks failed: connect ECONNREFUSED`));
    } finally {
      await unreachable.close();
    }
  });
});
