import { Context, context, ContextManager, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import pino from 'pino';
import { withUnrecordedTrace } from './trace-context';
import { withTraceFields } from './trace-log-fields';

// Tracing on, as startTracing would leave it.
jest.mock('./tracing', () => ({ ...jest.requireActual<typeof import('./tracing')>('./tracing'), isTracingOn: () => true }));

/** The active context as a stack: enough for work that runs synchronously inside `with`. */
class StackContextManager implements ContextManager {
  private readonly stack: Context[] = [];

  active(): Context {
    return this.stack.at(-1) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(work: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    this.stack.push(work);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.stack.pop();
    }
  }

  bind<T>(_context: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.stack.length = 0;
    return this;
  }
}

describe('the trace ids of a log line', () => {
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const spanId = 'b7ad6b7169203331';
  const sampled = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  const lines: string[] = [];
  const output = { write: (line: string): void => void lines.push(line) };
  const logger = pino(withTraceFields({ base: undefined, timestamp: () => ',"time":"2026-12-02T06:00:00.000Z"' }), output);

  beforeAll(() => context.setGlobalContextManager(new StackContextManager()));
  afterAll(() => context.disable());
  beforeEach(() => (lines.length = 0));

  it("writes the active span's ids into the line, which stays one JSON object", () => {
    context.with(sampled, () => logger.info({ requestId: 'r-1', req: { url: '/v2/resources?q="}"' } }, 'request completed'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ requestId: 'r-1', req: { url: '/v2/resources?q="}"' }, msg: 'request completed', time: '2026-12-02T06:00:00.000Z', trace_id: traceId, span_id: spanId });
  });

  it("names an unsampled request's trace, which its event and deliveries carry on", () => {
    const unsampled = { traceId, spanId: 'c0ffee00c0ffee00', traceFlags: TraceFlags.NONE };
    context.with(withUnrecordedTrace(ROOT_CONTEXT, unsampled), () => logger.warn('slow'));
    expect(JSON.parse(lines[0])).toMatchObject({ msg: 'slow', trace_id: traceId, span_id: 'c0ffee00c0ffee00' });
  });

  it('leaves a line written outside any trace, or under a no-op span, as pino wrote it', () => {
    logger.info('outside');
    context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: TraceFlags.NONE })), () => logger.info('no-op'));
    expect(lines.map((line) => JSON.parse(line) as object)).toEqual([
      { level: 30, time: '2026-12-02T06:00:00.000Z', msg: 'outside' },
      { level: 30, time: '2026-12-02T06:00:00.000Z', msg: 'no-op' },
    ]);
  });

  it("keeps pino's own time when the options name none", () => {
    const untimed = pino(withTraceFields({ base: undefined }), output);
    context.with(sampled, () => untimed.info('timed'));
    expect(JSON.parse(lines[0])).toEqual({ level: 30, time: expect.any(Number), trace_id: traceId, span_id: spanId, msg: 'timed' });
  });
});
