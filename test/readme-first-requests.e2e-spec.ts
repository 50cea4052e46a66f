import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signatureHeaders } from '../apps/worker/src/delivery/webhook-signature';
import { Background, markedBlock, markedBlocks, runProcess, ShellSession, ShellResult, startWorkerProcess } from './doc-blocks';
import { createSuiteEnvironment, createTestApp, freePort, PROJECT_ROOT, SuiteEnvironment, TestApp, waitUntil } from './support';

const README = 'README.md';
const QUICKSTART = 'docs/quickstart.md';
const WEBHOOKS = 'docs/webhooks.md';

/** The runnable blocks of the README, then of docs/quickstart.md which continues its terminal, in the order a newcomer pastes them. */
const FIRST_REQUESTS: Array<[file: string, name: string]> = [
  [README, 'setup'],
  [README, 'account'],
  [README, 'resources'],
  [QUICKSTART, 'api-key'],
  [QUICKSTART, 'organization'],
  [QUICKSTART, 'webhook'],
  [QUICKSTART, 'webhook-deliveries'],
  [QUICKSTART, 'oauth-client'],
];
/** The curl commands of docs/webhooks.md, which continue the README's terminal. */
const WEBHOOK_REQUESTS = ['re-enable', 'test-trigger', 'deliveries', 'retry'];

/** The JSON documents a block printed, one per line; other lines are skipped. */
function jsonLines(output: string) {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

function expectSucceeded(result: ShellResult): void {
  if (result.code !== 0) throw new Error(`the block exited with ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

/**
 * The documents a newcomer reads first, run: README.md's "First requests" and docs/quickstart.md against the API
 * started here (with a worker, and the local receiver of docs/webhooks.md receiving the
 * webhook's deliveries), then the curl commands of docs/webhooks.md in the same terminal, and
 * its signature snippets against signatures made by the worker's own signing code.
 */
describe('the first requests of README.md and docs/quickstart.md, and docs/webhooks.md', () => {
  let suite: SuiteEnvironment;
  let t: TestApp;
  let worker: Background | undefined;
  let receiver: Background | undefined;
  let home: string;
  let receiverPort: number;
  let shell: ShellSession;

  beforeAll(async () => {
    // A database of the suite's own: its worker trusts only this receiver's certificate.
    suite = await createSuiteEnvironment('readme');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    home = mkdtempSync(join(tmpdir(), 'rms-readme-'));
    receiverPort = await freePort();
    // The commands run with a home of their own: ~/rms-receiver is made there, and no ~/.curlrc applies.
    const env = { ...process.env, HOME: home, WEBHOOK_URL: `https://127.0.0.1:${receiverPort}/webhooks` };

    const setup = await runProcess('bash', ['-e', '-c', markedBlock(WEBHOOKS, 'webhook-snippet', 'receiver-setup').code], env, home, 30_000);
    expectSucceeded(setup);
    writeFileSync(join(home, 'rms-receiver', 'receiver.js'), markedBlock(WEBHOOKS, 'webhook-snippet', 'receiver.js').code);

    t = await createTestApp();
    worker = await startWorkerProcess({
      NODE_EXTRA_CA_CERTS: join(home, 'rms-receiver', 'cert.pem'),
      WEBHOOK_RELAY_INTERVAL_MS: '50',
    });
    shell = new ShellSession(home, { ...env, BASE: t.url });
  }, 120_000);

  afterAll(async () => {
    await receiver?.stop();
    await worker?.stop();
    await t?.close();
    await suite?.destroy();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const block = (name: string) => {
    const [file] = FIRST_REQUESTS.find(([, blockName]) => blockName === name) ?? [README];
    return markedBlock(file, 'first-request', name).code;
  };
  const run = async (code: string): Promise<ShellResult> => {
    const result = await shell.run(code);
    expectSucceeded(result);
    return result;
  };

  it('marks the blocks it runs, in the order of the walk-through', () => {
    const marked = [README, QUICKSTART].flatMap((file) => markedBlocks(file, 'first-request').map((found) => [file, found.name, found.language]));
    expect(marked).toEqual(FIRST_REQUESTS.map(([file, name]) => [file, name, 'sh']));
    expect(markedBlocks(WEBHOOKS, 'webhook-request').map((found) => found.name)).toEqual(WEBHOOK_REQUESTS);
  });

  it('keeps the two commands on top', () => {
    const top = readFileSync(join(PROJECT_ROOT, README), 'utf8').split('\n').slice(0, 4);
    expect(top[0]).toBe('```sh');
    expect(top[1]).toMatch(/^npm ci && npm start +# /);
    expect(top[2]).toMatch(/^npm ci && npm test +# /);
    expect(top[3]).toBe('```');
  });

  it('setup: checks readiness and defines the json helper', async () => {
    const { stdout } = await run(block('setup'));
    expect(jsonLines(stdout)[0]).toMatchObject({ data: { status: 'ok' } });
  });

  it('account: registers, logs in and reads the account with the token', async () => {
    const { stdout } = await run(block('account'));
    const [registered, me] = jsonLines(stdout);
    expect(registered.data).toMatchObject({ id: expect.stringMatching(/^usr_/), email: expect.stringMatching(/^ada-\d+@example\.com$/) });
    expect(me.data).toEqual(registered.data);
    expect(await shell.variable('TOKEN')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('resources: creates, reads, bulk-creates, and lists a cursor page and the next', async () => {
    const { stdout } = await run(block('resources'));
    const [read, firstPage, secondPage] = jsonLines(stdout);
    expect(read.data).toMatchObject({ id: expect.stringMatching(/^res_/), name: 'First resource', tags: ['demo'], metadata: { color: 'blue' } });
    expect(stdout.split('\n')).toContain('3');
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.meta).toMatchObject({ limit: 2, cursor: { next: expect.any(String), has_more: true } });
    expect(secondPage.data).toHaveLength(2);
    expect(secondPage.meta.cursor.has_more).toBe(false);
    const names = [...firstPage.data, ...secondPage.data].map((resource: { name: string }) => resource.name).sort();
    expect(names).toEqual(['First resource', 'Fourth', 'Second', 'Third']);
  });

  it('api-key: makes a read-only key and lists with it; a write with it is 403, as the README says', async () => {
    const { stdout } = await run(block('api-key'));
    expect(stdout.split('\n')[0]).toMatch(/^sk_test_\w+$/);
    expect(jsonLines(stdout)[0].data).toHaveLength(1);
    const key = await shell.variable('API_KEY');
    const write = await t.http.post('/v2/resources').set('X-API-Key', key).send({ name: 'not allowed' });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('insufficient_permissions');
  });

  it('organization: makes one, adds a member and creates a resource in it', async () => {
    const { stdout } = await run(block('organization'));
    const [member, resource] = jsonLines(stdout);
    expect(member.data).toMatchObject({ user_id: expect.stringMatching(/^usr_/), role: 'member' });
    expect(resource.data).toMatchObject({ name: 'Shared plan', organization_id: expect.stringMatching(/^org_/) });
  });

  it('webhook: creates one for the local receiver and prints the command that starts it', async () => {
    const { stdout } = await run(block('webhook'));
    const [created] = jsonLines(stdout);
    expect(created.data).toMatchObject({ id: expect.stringMatching(/^wh_/), status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
    const command = /^In a second terminal: (.*)$/m.exec(stdout)?.[1];
    expect(command).toBe(`cd ~/rms-receiver && WEBHOOK_SECRET='${created.data.secret}' node receiver.js`);
    // The command as printed, in the second terminal; PORT moves the receiver off 8443 for the test.
    receiver = new Background('bash', ['-c', command as string], { ...process.env, HOME: home, PORT: String(receiverPort) }, home);
    await waitUntil(() => (receiver?.output.includes('listening on https://127.0.0.1:') ? true : undefined), 10_000);
  });

  it('webhook-deliveries: the test event and a real one arrive, verified, at the receiver', async () => {
    const { stdout } = await run(block('webhook-deliveries'));
    const [testDelivery, log] = jsonLines(stdout);
    expect(testDelivery.data).toMatchObject({ id: expect.stringMatching(/^dlv_/), event_type: 'resource.created', status: 'pending' });
    const watchedId = stdout.split('\n').find((line) => line.startsWith('res_'));
    expect(log.data.length).toBeGreaterThanOrEqual(1);
    await waitUntil(() => (receiver?.output.includes(`resource.created ${testDelivery.data.event_id} `) ? true : undefined));
    await waitUntil(() => (receiver?.output.includes(`"id":"${watchedId}"`) ? true : undefined));
    expect(receiver?.output).not.toMatch(/bad signature/);
  });

  it('oauth-client: registers a confidential client and lists with a client-credentials token', async () => {
    const { stdout } = await run(block('oauth-client'));
    const [client, list] = jsonLines(stdout);
    expect(client.data).toMatchObject({ id: expect.stringMatching(/^cli_/), confidential: true, client_secret: expect.any(String) });
    expect(list.data).toHaveLength(1);
    expect(await shell.variable('OAUTH_TOKEN')).toMatch(/^oat_/);
  });

  describe('docs/webhooks.md', () => {
    const request = (name: string) => markedBlock(WEBHOOKS, 'webhook-request', name).code;

    it('re-enables a disabled webhook', async () => {
      const webhookId = await shell.variable('WEBHOOK_ID');
      const token = await shell.variable('TOKEN');
      await t.http.patch(`/v2/webhooks/${webhookId}`).set('Authorization', `Bearer ${token}`).send({ status: 'disabled' }).expect(200);
      const [enabled] = jsonLines((await run(request('re-enable'))).stdout);
      expect(enabled.data).toMatchObject({ id: webhookId, status: 'enabled', disabled_reason: null });
    });

    it('sends a test event of a chosen kind', async () => {
      const [delivery] = jsonLines((await run(request('test-trigger'))).stdout);
      expect(delivery.data).toMatchObject({ event_type: 'payment.succeeded', status: 'pending' });
      await waitUntil(() => (receiver?.output.includes(`payment.succeeded ${delivery.data.event_id} `) ? true : undefined));
    });

    it('reads the deliveries log and one delivery, and retries it', async () => {
      const [list, one] = jsonLines((await run(request('deliveries'))).stdout);
      expect(list.data.length).toBeGreaterThanOrEqual(3);
      expect(one.data).toMatchObject({ id: list.data[0].id, event_id: list.data[0].event_id });
      const [retried] = jsonLines((await run(request('retry'))).stdout);
      expect(retried.data).toMatchObject({ id: one.data.id, status: 'pending' });
      // The receiver of docs/webhooks.md skips an event id it has seen.
      await waitUntil(() => (receiver?.output.includes(`${one.data.event_id} again, skipped`) ? true : undefined));
    });

    it('the receiver refuses a request whose signature does not match', async () => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: receiverPort,
            path: '/webhooks',
            method: 'POST',
            ca: readFileSync(join(home, 'rms-receiver', 'cert.pem')),
            headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': '00'.repeat(32) },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        );
        req.once('error', reject);
        req.end('{"id":"evt_forged"}');
      });
      expect(status).toBe(401);
    });
  });

  describe('the signature snippets of docs/webhooks.md, against the worker\'s signatures', () => {
    const body = JSON.stringify({
      id: 'evt_01JD3Q8M2X4V6Z8B0D2F4H6K8N',
      type: 'resource.updated',
      created_at: '2026-01-05T10:00:00.000Z',
      data: { object: { id: 'res_01JD3Q8M2W0Q1R2S3T4V5W6X7Y', name: 'Ünïcode — "quoted" \\ name' } },
      previous_data: { name: 'Before' },
    });
    const event = { id: 'evt_01JD3Q8M2X4V6Z8B0D2F4H6K8N', type: 'resource.updated' };
    /** Each secret, with another of its kind. */
    const secrets = [
      ['a generated whsec_ secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_3fBq0Qm5n7k2X8yZ1cV4bN6mL9pR2tWe'],
      ['a secret of your own', 'my own secret, 16+ characters', 'my own secret, 16+ characterz'],
    ];

    interface Case {
      label: string;
      body: string;
      secret: string;
      headers: Record<string, string>;
    }

    /** Node's req.headers: names in lower case. */
    const lowerCased = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

    function casesFor(secret: string, otherSecret: string): { cases: Case[]; expected: boolean[] } {
      const now = Math.floor(Date.now() / 1000);
      const signed = lowerCased(signatureHeaders(secret, event, body, now));
      const old = lowerCased(signatureHeaders(secret, event, body, now - 600));
      const cases: Case[] = [
        { label: 'genuine', body, secret, headers: signed },
        { label: 'body changed', body: body.replace('Before', 'After'), secret, headers: signed },
        { label: 'body re-serialized', body: JSON.stringify(JSON.parse(body), null, 1), secret, headers: signed },
        { label: 'another secret', body, secret: otherSecret, headers: signed },
        { label: 'ten minutes old', body, secret, headers: old },
      ];
      return { cases, expected: [true, false, false, false] };
    }

    /** Runs a snippet in plain Node with a driver that feeds it every case, as raw bytes. */
    async function verdicts(snippet: string, call: string, cases: Case[]): Promise<unknown[]> {
      const driver = `
const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const verdicts = input.map(({ body, headers, secret }) => {
  const rawBody = Buffer.from(body, 'utf8');
  try { return Boolean(${call}); } catch (error) { return error.name; }
});
console.log(JSON.stringify(verdicts));`;
      const result = await runProcess(process.execPath, ['-e', `${snippet}\n${driver}`], process.env, PROJECT_ROOT, 20_000, JSON.stringify(cases));
      if (result.code !== 0) throw new Error(result.stderr);
      return JSON.parse(result.stdout);
    }

    it.each(secrets)('X-Webhook-Signature, with %s', async (_label, secret, otherSecret) => {
      const { cases, expected } = casesFor(secret, otherSecret);
      const snippet = markedBlock(WEBHOOKS, 'webhook-snippet', 'verify-x-webhook-signature').code;
      // This header signs the body alone, so an old one still verifies: the timestamp is not in it.
      expect(await verdicts(snippet, "verifyWebhookSignature(rawBody, headers['x-webhook-signature'], secret)", cases)).toEqual([...expected, true]);
    });

    it.each(secrets)('the Standard Webhooks signature, with %s', async (_label, secret, otherSecret) => {
      const { cases, expected } = casesFor(secret, otherSecret);
      const snippet = markedBlock(WEBHOOKS, 'webhook-snippet', 'verify-standard-webhooks').code;
      expect(await verdicts(snippet, 'verifyStandardWebhook(rawBody, headers, secret)', cases)).toEqual([...expected, false]);
    });

    it.each(secrets)('the standardwebhooks library, as docs/webhooks.md calls it, with %s', async (_label, secret, otherSecret) => {
      const { cases } = casesFor(secret, otherSecret);
      const snippet = markedBlock(WEBHOOKS, 'webhook-snippet', 'verify-standardwebhooks-library').code;
      const results = await verdicts(snippet, 'verifyWithLibrary(rawBody, headers, secret)', cases);
      expect(results).toEqual([true, 'WebhookVerificationError', 'WebhookVerificationError', 'WebhookVerificationError', 'WebhookVerificationError']);
    });

    it('the example delivery of docs/webhooks.md is signed as the worker signs it', () => {
      const text = readFileSync(join(PROJECT_ROOT, WEBHOOKS), 'utf8');
      const example = /```http\n(POST \/rms HTTP\/1\.1\n[\s\S]*?)\n```/.exec(text)?.[1];
      if (!example) throw new Error('docs/webhooks.md has no example delivery');
      const [head, exampleBody] = example.split('\n\n');
      const headers = Object.fromEntries(head.split('\n').slice(1).map((line) => line.split(/: (.*)/s).slice(0, 2)));
      const secret = /signed with the secret\s+`(whsec_[^`]+)`/.exec(text)?.[1];
      if (!secret) throw new Error('docs/webhooks.md does not name the secret of its example');
      const parsed = JSON.parse(exampleBody);
      const expected = signatureHeaders(secret, { id: parsed.id, type: parsed.type }, exampleBody, Number(headers['webhook-timestamp']));
      for (const name of Object.keys(expected)) expect([name, headers[name]]).toEqual([name, expected[name]]);
      expect(Number(headers['Content-Length'])).toBe(Buffer.byteLength(exampleBody));
    });
  });
});
