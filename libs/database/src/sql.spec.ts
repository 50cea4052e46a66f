import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { DataSource } from 'typeorm';
import { recordSpansInMemory, RecordedSpans } from '@app/testing';
import { Sql } from './sql';

// Tracing on, as startTracing would leave it, with the spans kept in memory instead of exported.
jest.mock('@app/telemetry/tracing', () => ({ ...jest.requireActual<typeof import('@app/telemetry/tracing')>('@app/telemetry/tracing'), isTracingOn: () => true }));

/** A DataSource whose pool answers every read with `answer`, connected by the URL given. */
function dataSourceAnswering(url: string, answer: () => Promise<unknown>): DataSource {
  return { options: { type: 'postgres', url }, driver: { master: { query: answer } } } as unknown as DataSource;
}

describe('Sql spans', () => {
  let spans: RecordedSpans;
  beforeEach(() => (spans = recordSpansInMemory()));
  afterEach(() => spans.stop());

  const read = { text: 'SELECT id, name FROM resources WHERE id = $1', values: ['4f1c7d9e-secret-value'] };
  const url = 'postgres://rms:database-password@db.internal:6543/rms_production';

  it('sends a statement in a recorded request as a span: its text as sent, its database and server, no values or credentials', async () => {
    const sql = new Sql(dataSourceAnswering(url, () => Promise.resolve({ rows: [{ id: 1 }], rowCount: 1 })));
    const { span: request, context: inRequest } = spans.parent('GET /v2/resources/:id');
    expect(await context.with(inRequest, () => sql.rows(read))).toEqual([{ id: 1 }]);
    request.end();

    const [statement] = spans.ended().filter((span) => span.kind === SpanKind.CLIENT);
    expect(statement.name).toBe('SELECT rms_production');
    expect(statement.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(statement.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.text': read.text,
      'db.namespace': 'rms_production',
      'server.address': 'db.internal',
      'server.port': 6543,
    });
    expect(JSON.stringify(spans.ended().map((span) => span.attributes))).not.toMatch(/secret-value|database-password/);
  });

  it('makes no span for a statement outside a recorded request', async () => {
    const sql = new Sql(dataSourceAnswering(url, () => Promise.resolve({ rows: [], rowCount: 0 })));
    await sql.rows(read);
    expect(spans.ended()).toEqual([]);
  });

  it("records a failed statement by its SQLSTATE, not PostgreSQL's message", async () => {
    const failure = Object.assign(new Error('invalid input syntax for type uuid: "4f1c7d9e-secret-value"'), { code: '22P02' });
    const sql = new Sql(dataSourceAnswering(url, () => Promise.reject(failure)));
    const { span: request, context: inRequest } = spans.parent('GET /v2/resources/:id');
    await expect(context.with(inRequest, () => sql.rows(read))).rejects.toBe(failure);
    request.end();

    const [statement] = spans.ended().filter((span) => span.kind === SpanKind.CLIENT);
    expect(statement.status.code).toBe(SpanStatusCode.ERROR);
    expect(statement.attributes['error.type']).toBe('22P02');
    expect(JSON.stringify([statement.status, statement.events])).not.toContain('secret-value');
  });
});
