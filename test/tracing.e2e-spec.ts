import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import protobuf from 'protobufjs';
import { DataSource } from 'typeorm';
import { Background, startWorkerProcess } from './doc-blocks';
import {
  createSuiteEnvironment,
  createTestApp,
  createUser,
  freePort,
  built,
  HttpsReceiver,
  PROJECT_ROOT,
  startHttpsReceiver,
  SuiteEnvironment,
  waitUntil,
} from './support';

/** OTLP's span kinds. */
const SERVER = 2;
const CLIENT = 3;

/** One span as an app exported it, with its service and its attributes as plain values. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links?: { traceId: string; spanId: string }[];
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { spans: (Omit<ExportedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[] }[];
  }[];
}

const plain = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));

interface OtlpReceiver {
  url: string;
  spans: ExportedSpan[];
  /** The media type of each export received. */
  mediaTypes: string[];
  close(): Promise<void>;
}

/** What a span's exporter sends of it over OTLP/protobuf, the part these tests read (opentelemetry-proto's trace.proto). */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  repeated KeyValue attributes = 9; repeated Link links = 13;
}
message Link { bytes trace_id = 1; bytes span_id = 2; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;
const ExportTraceServiceRequest = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('ExportTraceServiceRequest');

interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: Uint8Array; spanId: Uint8Array }[];
}

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

/** An OTLP/protobuf export in the shape of its OTLP/JSON form: ids in hex, integers as numbers. */
function fromProtobuf(body: Buffer): OtlpExport {
  const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: Number, arrays: true }) as {
    resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: DecodedSpan[] }[] }[];
  };
  return {
    resourceSpans: decoded.resourceSpans.map(({ resource, scopeSpans }) => ({
      resource,
      scopeSpans: scopeSpans.map(({ spans }) => ({
        spans: spans.map((span) => ({
          ...span,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          links: span.links?.map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        })),
      })),
    })),
  };
}

/** A collector's OTLP/HTTP traces endpoint, in protobuf (the exporters' default) and in JSON, keeping every span. */
async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  const mediaTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const mediaType = String(req.headers['content-type']);
      mediaTypes.push(mediaType);
      const body = mediaType === 'application/x-protobuf' ? fromProtobuf(Buffer.concat(chunks)) : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(plain(resource.attributes)['service.name']);
        for (const span of scopeSpans.flatMap((scope) => scope.spans)) {
          spans.push({ ...span, service, parentSpanId: span.parentSpanId ?? '', attributes: plain(span.attributes) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    mediaTypes,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** The built API in a process of its own, its output kept. */
async function startApiProcess(env: NodeJS.ProcessEnv): Promise<{ url: string; process: Background }> {
  const port = await freePort();
  const api = new Background(process.execPath, [built('apps/api/src/main.ts')], { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env, PORT: String(port) }, PROJECT_ROOT);
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => {
      if (api.process.exitCode !== null) throw new Error(`the API exited with ${api.process.exitCode}:\n${api.output}`);
      const live = await fetch(`${url}/health/live`).catch(() => undefined);
      return live?.status === 200 ? true : undefined;
    },
    120_000,
    200,
  );
  return { url, process: api };
}

/** The JSON lines of a process's output. */
const logLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** An outgoing HTTP request's span; SQL and Redis spans are clients too. */
const isHttpClient = (span: ExportedSpan): boolean => span.kind === CLIENT && span.attributes['http.request.method'] !== undefined;

/** Whether `span` descends from `ancestor` through the spans given. */
function descendsFrom(span: ExportedSpan, ancestor: ExportedSpan, spans: ExportedSpan[]): boolean {
  const byId = new Map(spans.map((candidate) => [candidate.spanId, candidate]));
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}

/**
 * The API and the worker, each a built process with an OTLP endpoint set, exporting to a
 * receiver in this process; a webhook pointed at a real HTTPS receiver.
 */
describe('tracing from a request to the webhook it caused', () => {
  let suite: SuiteEnvironment;
  let otlp: OtlpReceiver;
  let receiver: HttpsReceiver;
  let api: { url: string; process: Background };
  /** The same API behind a gateway it trusts with the trace context. */
  let trustingApi: { url: string; process: Background };
  /** The same API sampling no request, under a service name of its own, with the SDK's debug diagnostics on. */
  let unsampledApi: { url: string; process: Background };
  let worker: Background;
  let db: Client;

  beforeAll(async () => {
    suite = await createSuiteEnvironment('tracing');
    otlp = await startOtlpReceiver();
    receiver = await startHttpsReceiver();
    receiver.respond((request, res) => void res.writeHead(request.url === '/gone' ? 410 : 200).end());
    // The API and the worker export in OTLP/protobuf, the exporters' default; the other two APIs in OTLP/JSON.
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const env = { ...suite.env, ...tracing, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
    const inJson = { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    [api, trustingApi, unsampledApi, worker] = await Promise.all([
      startApiProcess(env),
      startApiProcess({ ...inJson, TRACE_TRUST_INBOUND: 'true' }),
      startApiProcess({
        ...inJson,
        OTEL_SERVICE_NAME: 'rms-api-unsampled',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
        OTEL_LOG_LEVEL: 'debug',
      }),
      startWorkerProcess({ ...env, NODE_EXTRA_CA_CERTS: receiver.certFile, WEBHOOK_RELAY_INTERVAL_MS: '50' }, 120_000),
    ]);
    db = new Client({ connectionString: suite.env.DATABASE_URL });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.process.stop(), trustingApi?.process.stop(), unsampledApi?.process.stop(), worker?.stop()]);
    await db?.end();
    await receiver?.close();
    await otlp?.close();
    await suite?.destroy();
  });

  async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}, base = api.url): Promise<Response> {
    return fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  /** A new account's authorization. */
  async function newAccount(name: string): Promise<string> {
    const credentials = { email: `${name}@example.com`, username: name, password: `password-${name}-1` };
    expect((await call('POST', '/v2/auth/register', credentials)).status).toBe(201);
    const login = await call('POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
    return `Bearer ${((await login.json()) as { data: { access_token: string } }).data.access_token}`;
  }

  /** A new account's authorization, with a webhook for its created resources at the receiver's `path`. */
  async function accountWithWebhook(name: string, path: string): Promise<string> {
    const authorization = await newAccount(name);
    const webhook = await call('POST', '/v2/webhooks', { url: `https://127.0.0.1:${receiver.port}${path}`, events: ['resource.created'] }, { authorization });
    expect(webhook.status).toBe(201);
    return authorization;
  }

  /** A caller's own trace context, as a client on the internet may send it. */
  const callerTraceId = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const callerSpanId = 'deadbeefdeadbeef';
  const callerContext = { traceparent: `00-${callerTraceId}-${callerSpanId}-01`, tracestate: 'client=chosen-state', baggage: 'client=chosen-baggage' };

  /** Creates a resource with the caller's trace context through `base`; the context its event stored and the headers its delivery came with. */
  async function createWithCallerContext(base: string, authorization: string, path: string) {
    const created = await call('POST', '/v2/resources', { name: 'Edge' }, { authorization, ...callerContext }, base);
    expect(created.status).toBe(201);
    const resourceId = ((await created.json()) as { data: { id: string } }).data.id;
    const delivered = await waitUntil(() => receiver.received.find((request) => request.url === path && request.body.includes(resourceId)));
    const { rows } = await db.query<{ trace_context: Record<string, string> }>(`SELECT trace_context FROM events WHERE data->'object'->>'id' = $1`, [resourceId]);
    expect(rows).toHaveLength(1);
    return { stored: rows[0].trace_context, sent: delivered.headers };
  }

  it('holds the request, its SQL, the relay, each delivery and its HTTPS request in one trace, with ids on the log lines', async () => {
    const credentials = { email: 'traced@example.com', username: 'traced', password: 'password-traced-1' };
    expect((await call('POST', '/v2/auth/register', credentials)).status).toBe(201);
    const login = await call('POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
    const authorization = `Bearer ${((await login.json()) as { data: { access_token: string } }).data.access_token}`;
    for (const path of ['/ok', '/gone']) {
      const webhook = await call('POST', '/v2/webhooks', { url: `https://127.0.0.1:${receiver.port}${path}`, events: ['resource.created'] }, { authorization });
      expect(webhook.status).toBe(201);
    }

    const created = await call('POST', '/v2/resources', { name: 'Traced' }, { authorization, 'x-request-id': 'traced-create-1' });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('traced-create-1');
    const resourceId = ((await created.json()) as { data: { id: string } }).data.id;

    const delivered = await waitUntil(() => receiver.received.find((request) => request.url === '/ok' && request.body.includes(resourceId)));
    const traceparent = String(delivered.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, sentBySpanId] = traceparent.split('-');

    const inTrace = (): ExportedSpan[] => otlp.spans.filter((span) => span.traceId === traceId);
    const workerSpans = (name: string): ExportedSpan[] => inTrace().filter((span) => span.service === 'rms-worker' && span.name === name);
    // Both attempts exported, with their HTTPS requests: the last spans of the trace to end.
    const workerRequests = (): ExportedSpan[] => inTrace().filter((span) => span.service === 'rms-worker' && isHttpClient(span));
    await waitUntil(() => (workerSpans('webhook delivery').length === 2 && workerRequests().length === 2 ? true : undefined));
    const spans = inTrace();

    const request = spans.find(
      (span) => span.service === 'rms-api' && span.kind === SERVER && span.attributes['http.request.method'] === 'POST' && span.attributes['url.path'] === '/v2/resources',
    );
    if (!request) throw new Error(`no server span for POST /v2/resources among ${JSON.stringify(spans.map((span) => span.name))}`);
    expect(request.parentSpanId).toBe('');
    expect(request.name).toBe('POST /v2/resources');
    expect(request.attributes).toMatchObject({ 'http.route': '/v2/resources', 'http.response.status_code': 201, 'url.scheme': 'http' });
    const sql = spans.filter((span) => span.service === 'rms-api' && span.attributes['db.system.name'] === 'postgresql');
    const eventInsert = sql.find((span) => String(span.attributes['db.query.text']).includes('INSERT INTO events'));
    expect(eventInsert).toMatchObject({ kind: CLIENT, attributes: { 'db.operation.name': 'INSERT', 'server.address': expect.any(String), 'server.port': expect.any(Number) } });
    expect(String(eventInsert?.attributes['db.query.text'])).toMatch(/\$1/);
    for (const span of sql) expect(descendsFrom(span, request, spans)).toBe(true);
    // The credential's revocation check, in the turn's Redis pipeline: named by its command, never its keys.
    const redis = spans.filter((span) => span.service === 'rms-api' && span.attributes['db.system.name'] === 'redis');
    expect(redis.map((span) => span.attributes['db.query.text'])).toContain('EXISTS');
    for (const span of redis) {
      expect(span.attributes['db.query.text']).toMatch(/^[A-Z]+$/);
      expect(descendsFrom(span, request, spans)).toBe(true);
    }

    const [relay, ...otherRelays] = workerSpans('outbox relay');
    expect(otherRelays).toEqual([]);
    expect(descendsFrom(relay, request, spans)).toBe(true);
    const { rows } = await db.query<{ id: string; trace_context: { traceparent: string } }>(
      `SELECT id, trace_context FROM events WHERE data->'object'->>'id' = $1`,
      [resourceId],
    );
    expect(rows).toHaveLength(1);
    expect(relay.attributes['rms.event.id']).toBe(rows[0].id);
    const [, storedTraceId, storedSpanId] = rows[0].trace_context.traceparent.split('-');
    expect(storedTraceId).toBe(traceId);
    expect(spans.find((span) => span.spanId === storedSpanId)?.service).toBe('rms-api');

    const attempts = workerSpans('webhook delivery');
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt.parentSpanId).toBe(relay.spanId);
    const sends = workerRequests();
    for (const send of sends) {
      expect(attempts.map((attempt) => attempt.spanId)).toContain(send.parentSpanId);
      expect(send.attributes['url.full']).toBe(`https://127.0.0.1:${receiver.port}`);
    }
    expect(sends.map((send) => send.spanId)).toContain(sentBySpanId);

    const requestLine = await waitUntil(() =>
      logLines(api.process.output).find((line) => line.requestId === 'traced-create-1' && line.msg === 'request completed'),
    );
    expect(requestLine.trace_id).toBe(traceId);
    expect(spans.filter((span) => span.service === 'rms-api').map((span) => span.spanId)).toContain(requestLine.span_id);
    const disabledLine = await waitUntil(() => logLines(worker.output).find((line) => line.msg === 'webhook disabled'));
    expect(disabledLine.trace_id).toBe(traceId);
    expect(attempts.map((attempt) => attempt.spanId)).toContain(disabledLine.span_id);
  }, 60_000);

  it("starts a new trace at a request carrying a caller's context, linked to it, and neither stores nor sends the caller's", async () => {
    const authorization = await accountWithWebhook('edge', '/edge');
    const { stored, sent } = await createWithCallerContext(api.url, authorization, '/edge');

    expect(stored).toEqual({ traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/) });
    const [, traceId] = stored.traceparent.split('-');
    expect(traceId).not.toBe(callerTraceId);
    expect(String(sent.traceparent).split('-')[1]).toBe(traceId);
    expect(sent.tracestate).toBeUndefined();
    expect(sent.baggage).toBeUndefined();
    expect(JSON.stringify(sent)).not.toMatch(/chosen|c0ffee/);

    const request = await waitUntil(() => otlp.spans.find((span) => span.traceId === traceId && span.service === 'rms-api' && span.kind === SERVER));
    expect(request.parentSpanId).toBe('');
    expect(request.links).toEqual([expect.objectContaining({ traceId: callerTraceId, spanId: callerSpanId })]);
  });

  it("continues the caller's trace with TRACE_TRUST_INBOUND=true, still storing and sending no trace state", async () => {
    const authorization = await accountWithWebhook('trusted-edge', '/trusted-edge');
    const { stored, sent } = await createWithCallerContext(trustingApi.url, authorization, '/trusted-edge');

    expect(stored).toEqual({ traceparent: expect.stringMatching(new RegExp(`^00-${callerTraceId}-[0-9a-f]{16}-01$`)) });
    expect(stored.traceparent).not.toContain(callerSpanId);
    expect(String(sent.traceparent)).toMatch(new RegExp(`^00-${callerTraceId}-[0-9a-f]{16}-01$`));
    expect(sent.tracestate).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain('chosen');
  });

  it('records nothing of a request the sampler leaves out, whose event and delivery carry the not-sampled flag', async () => {
    const authorization = await accountWithWebhook('unsampled', '/unsampled');
    const outputBefore = unsampledApi.process.output.length;
    const created = await call('POST', '/v2/resources', { name: 'Unsampled' }, { authorization, 'x-request-id': 'unsampled-create-1' }, unsampledApi.url);
    expect(created.status).toBe(201);
    const resourceId = ((await created.json()) as { data: { id: string } }).data.id;
    const delivered = await waitUntil(() => receiver.received.find((request) => request.url === '/unsampled' && request.body.includes(resourceId)));
    const { rows } = await db.query<{ trace_context: { traceparent: string } }>(`SELECT trace_context FROM events WHERE data->'object'->>'id' = $1`, [resourceId]);

    expect(rows).toEqual([{ trace_context: { traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/) } }]);
    const [, traceId] = rows[0].trace_context.traceparent.split('-');
    expect(String(delivered.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    const requestLine = await waitUntil(() =>
      logLines(unsampledApi.process.output).find((line) => line.requestId === 'unsampled-create-1' && line.msg === 'request completed'),
    );
    expect(requestLine.trace_id).toBe(traceId);
    // The SDK notes each span it starts without recording: none, since the sampler is asked
    // before the tracer is called, and SQL and Redis spans are made under a recorded span only.
    expect(unsampledApi.process.output).toContain('@opentelemetry/api: Registered a global for trace');
    expect(unsampledApi.process.output.slice(outputBefore)).not.toContain('Recording is off, propagating context in a non-recording span');

    // A sampled request through the same webhook: once its delivery's spans are exported, any the
    // unsampled one made would have been, the worker's before them and the other API's long since.
    const sampled = await call('POST', '/v2/resources', { name: 'Sampled' }, { authorization });
    expect(sampled.status).toBe(201);
    const sampledId = ((await sampled.json()) as { data: { id: string } }).data.id;
    const sampledDelivery = await waitUntil(() => receiver.received.find((request) => request.url === '/unsampled' && request.body.includes(sampledId)));
    expect(String(sampledDelivery.headers.traceparent)).toMatch(/-01$/);
    const [, sampledTraceId] = String(sampledDelivery.headers.traceparent).split('-');
    await waitUntil(() => otlp.spans.find((span) => span.traceId === sampledTraceId && span.service === 'rms-worker' && isHttpClient(span)));
    expect(otlp.spans.filter((span) => span.traceId === traceId || span.service === 'rms-api-unsampled')).toEqual([]);
  });

  it('exports in OTLP/protobuf by default, each string whole: a Latin-1 user agent, the statements of a read', async () => {
    const authorization = await newAccount('protobuf');
    const created = await call('POST', '/v2/resources', { name: 'Protobuf' }, { authorization });
    expect(created.status).toBe(201);
    const resourceId = ((await created.json()) as { data: { id: string } }).data.id;
    const userAgent = 'probe/1.0 (café; Zürich)';

    const read = await fetch(`${api.url}/v2/resources/${resourceId}`, { headers: { authorization, 'user-agent': userAgent } });

    expect(read.status).toBe(200);
    const request = await waitUntil(() =>
      otlp.spans.find((span) => span.service === 'rms-api' && span.kind === SERVER && span.attributes['url.path'] === `/v2/resources/${resourceId}`),
    );
    expect(request).toMatchObject({
      name: 'GET /v2/resources/:id',
      attributes: { 'user_agent.original': userAgent, 'http.route': '/v2/resources/:id', 'http.response.status_code': 200 },
    });
    const statements = await waitUntil(() => {
      const sql = otlp.spans.filter((span) => span.traceId === request.traceId && span.attributes['db.system.name'] === 'postgresql');
      return sql.length > 0 ? sql.map((span) => String(span.attributes['db.query.text'])) : undefined;
    });
    expect(statements).toContainEqual(expect.stringMatching(/^SELECT r\.id, [\s\S]+ FROM resources r\s+WHERE r\.id = \$1 [\s\S]+\)$/));
    expect(otlp.mediaTypes).toContain('application/x-protobuf');
    expect(otlp.mediaTypes).toContain('application/json');
  });

  it('records a request query with its credentials hidden, as the request log writes it', async () => {
    const answer = await fetch(`${api.url}/v2/resources?limit=1&API_KEY=sk_test_hidden123&access_token=hidden456`);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const request = await waitUntil(() =>
      otlp.spans.find((span) => span.kind === SERVER && span.attributes['url.path'] === '/v2/resources' && span.attributes['url.query'] !== undefined),
    );
    expect(request.attributes['url.query']).toBe('limit=1&API_KEY=[REDACTED]&access_token=[REDACTED]');
    expect(JSON.stringify(otlp.spans)).not.toMatch(/hidden123|hidden456/);
  });
});

describe('tracing off (no OTLP endpoint)', () => {
  it('stores no trace context with an event', async () => {
    const t = await createTestApp();
    try {
      const owner = await createUser(t.http);
      const created = await t.http.post('/v2/resources').set('Authorization', `Bearer ${owner.accessToken}`).send({ name: 'Untraced' }).expect(201);
      const rows: { trace_context: unknown }[] = await t.app
        .get(DataSource)
        .query(`SELECT trace_context FROM events WHERE data->'object'->>'id' = $1`, [created.body.data.id]);
      expect(rows).toEqual([{ trace_context: null }]);
    } finally {
      await t.close();
    }
  });

  /** The OpenTelemetry packages loaded once the modules given are, with the environment given. */
  function openTelemetryPackagesLoaded(entries: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
    const script = [
      ...entries.map((entry) => `require(${JSON.stringify(built(entry))});`),
      `const names = Object.keys(require.cache).map((file) => /node_modules\\/(@opentelemetry\\/[^/]+)\\//.exec(file)?.[1]).filter(Boolean);`,
      `process.stdout.write(JSON.stringify([...new Set(names)].sort()));`,
    ].join('\n');
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
    return new Promise((done, fail) => {
      execFile(process.execPath, ['-e', script], { cwd: PROJECT_ROOT, env: { ...inherited, ...env } }, (error, stdout, stderr) => {
        if (error) fail(new Error(`${error.message}\n${stderr}`));
        else done(JSON.parse(stdout) as string[]);
      });
    });
  }

  it('loads no SDK, exporter or instrumentation: only the API package, whose calls are no-ops', async () => {
    const tracingEntries = ['apps/api/src/tracing.ts', 'apps/worker/src/tracing.ts'];
    const [off, on] = await Promise.all([
      // Both apps whole, as main.ts loads them after their tracing module.
      openTelemetryPackagesLoaded([...tracingEntries, 'apps/api/src/app.setup.ts', 'apps/worker/src/worker.module.ts'], {}),
      openTelemetryPackagesLoaded(tracingEntries, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
    ]);
    expect(off).toEqual(['@opentelemetry/api']);
    expect(on).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-http']));
    // SQL and Redis spans are the apps' own: no instrumentation patches pg or ioredis.
    expect(on).not.toEqual(expect.arrayContaining([expect.stringMatching(/instrumentation-(pg|ioredis)/)]));
  }, 180_000);
});
