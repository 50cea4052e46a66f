import { randomBytes } from 'node:crypto';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { connectRunRedis, recordSpansInMemory, RecordedSpans } from '@app/testing';
import { traceRedisCommands } from './redis-spans';

// Tracing on, as startTracing would leave it, with the spans kept in memory instead of exported.
jest.mock('@app/telemetry/tracing', () => ({ ...jest.requireActual<typeof import('@app/telemetry/tracing')>('@app/telemetry/tracing'), isTracingOn: () => true }));

/** Against the test run's Redis. */
describe('traceRedisCommands', () => {
  const redis = traceRedisCommands(connectRunRedis());
  const key = (): string => `redis-spans-spec:session:${randomBytes(6).toString('hex')}`;
  let spans: RecordedSpans;
  beforeEach(() => (spans = recordSpansInMemory()));
  afterEach(() => spans.stop());
  afterAll(() => redis.quit());

  const commandSpans = () => spans.ended().filter((span) => span.kind === SpanKind.CLIENT);

  it('makes each command sent in a recorded span a span of its own, named by the command alone', async () => {
    const session = key();
    const { span: request, context: inRequest } = spans.parent('POST /console/logout');
    await context.with(inRequest, () => redis.set(session, 'the session', 'EX', 60));
    expect(await context.with(inRequest, () => redis.get(session))).toBe('the session');
    request.end();

    expect(commandSpans().map((span) => [span.name, span.parentSpanContext?.spanId])).toEqual([
      ['SET', request.spanContext().spanId],
      ['GET', request.spanContext().spanId],
    ]);
    expect(commandSpans()[1].attributes).toEqual({
      'db.system.name': 'redis',
      'db.operation.name': 'GET',
      'db.query.text': 'GET',
      'server.address': redis.options.host,
      'server.port': redis.options.port,
    });
    expect(JSON.stringify(spans.ended().map((span) => span.attributes))).not.toMatch(/session/);
  });

  it("makes none outside a recorded span, nor for a pipeline's commands, whose sender names them", async () => {
    await redis.get(key());
    const { span: request, context: inRequest } = spans.parent('GET /v2/resources/:id');
    await context.with(inRequest, () => redis.pipeline().exists(key()).exists(key()).exec());
    await context.with(inRequest, () => redis.multi().get(key()).exec());
    request.end();
    expect(commandSpans()).toEqual([]);
  });

  it('records a command that fails and still fails it for its sender', async () => {
    const list = key();
    await redis.rpush(list, 'x');
    const { span: request, context: inRequest } = spans.parent('POST /v2/resources');
    await expect(context.with(inRequest, () => redis.incr(list))).rejects.toThrow(/WRONGTYPE/);
    request.end();
    const [failed] = commandSpans();
    expect(failed.name).toBe('INCR');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes['error.type']).toBe('ReplyError');
  });
});
