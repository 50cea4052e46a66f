import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { recordSpansInMemory, RecordedSpans } from '@app/testing';
import type { DatabaseCall } from './database-call';
import { inDatabaseSpan, inRecordingSpan } from './database-spans';

// Tracing on, as startTracing would leave it, with the spans kept in memory instead of exported.
jest.mock('./tracing', () => ({ ...jest.requireActual<typeof import('./tracing')>('./tracing'), isTracingOn: () => true }));

describe('database spans', () => {
  let spans: RecordedSpans;
  beforeEach(() => (spans = recordSpansInMemory()));
  afterEach(() => spans.stop());

  const select: DatabaseCall = {
    system: 'postgresql',
    operation: 'SELECT',
    queryText: 'SELECT id FROM resources WHERE id = $1',
    namespace: 'rms',
    server: { address: 'db.internal', port: 5432 },
  };

  it('makes a client span, child of the recording span active, with the conventions attributes', async () => {
    const { span: request, context: inRequest } = spans.parent('GET /v2/resources/:id');
    const answer = await context.with(inRequest, () => inDatabaseSpan(() => select, () => Promise.resolve('rows')));
    request.end();

    expect(answer).toBe('rows');
    const [query] = spans.ended().filter((span) => span.kind === SpanKind.CLIENT);
    expect(query.name).toBe('SELECT rms');
    expect(query.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(query.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.text': 'SELECT id FROM resources WHERE id = $1',
      'db.namespace': 'rms',
      'server.address': 'db.internal',
      'server.port': 5432,
    });
  });

  it('makes nothing outside a recording span: none active, or an unsampled one', async () => {
    const unsampled = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 });
    for (const work of [ROOT_CONTEXT, trace.setSpan(ROOT_CONTEXT, unsampled)]) {
      expect(context.with(work, inRecordingSpan)).toBe(false);
      expect(await context.with(work, () => inDatabaseSpan(() => select, () => Promise.resolve('rows')))).toBe('rows');
    }
    expect(spans.ended()).toEqual([]);
  });

  it("records a failure by its type and code, never the database's message, and passes it on", async () => {
    const { span: request, context: inRequest } = spans.parent('POST /v2/auth/register');
    const duplicate = Object.assign(new Error('duplicate key value violates unique constraint: (email)=(someone@example.com)'), { name: 'QueryFailedError', code: '23505' });
    const insert: DatabaseCall = { ...select, operation: 'INSERT', queryText: 'INSERT INTO users (email) VALUES ($1)' };
    await expect(context.with(inRequest, () => inDatabaseSpan(() => insert, () => Promise.reject(duplicate)))).rejects.toBe(duplicate);
    request.end();

    const [query] = spans.ended().filter((span) => span.kind === SpanKind.CLIENT);
    expect(query.status).toEqual({ code: SpanStatusCode.ERROR, message: 'postgresql error of type QueryFailedError (code 23505)' });
    expect(query.attributes).toMatchObject({ 'error.type': '23505', 'db.response.status_code': '23505' });
    expect(query.events.map((event) => event.attributes)).toEqual([{ 'exception.type': 'QueryFailedError', 'exception.message': 'postgresql error of type QueryFailedError (code 23505)' }]);
    expect(JSON.stringify(spans.ended().map((span) => [span.attributes, span.events, span.status]))).not.toContain('someone@example.com');
  });
});
