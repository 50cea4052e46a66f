import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { propagation, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { recordSpansInMemory, RecordedSpans } from '@app/testing';
import { SamplingFirst } from './sampling-first';
import { recordServerSpans } from './server-span-recorder';
import { activeSpanContext } from './trace-context';
import { tracingSampling } from './tracing';

// Tracing on with the sampling each test gives, as startTracing would leave it.
jest.mock('./tracing', () => ({ ...jest.requireActual<typeof import('./tracing')>('./tracing'), isTracingOn: () => true, tracingSampling: jest.fn() }));

const source = { routeOf: () => '/v2/resources/:id', clientAddressOf: () => '203.0.113.7' };

function request(): { req: IncomingMessage; res: ServerResponse } {
  const req = { url: '/v2/resources/42', method: 'GET', headers: { host: 'api.example:8080' }, socket: { remoteAddress: '10.0.0.2', remotePort: 51000 }, httpVersion: '1.1' };
  const res = Object.assign(new EventEmitter(), { statusCode: 200 });
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse };
}

describe('recordServerSpans', () => {
  let spans: RecordedSpans;
  afterEach(async () => {
    propagation.disable();
    await spans.stop();
  });

  /** The SDK as startTracing leaves it, sampling `ratio` of new traces. */
  const sampling = (ratio: number): void => {
    const first = new SamplingFirst(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }), ratio);
    jest.mocked(tracingSampling).mockReturnValue(first);
    spans = recordSpansInMemory(first);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  };

  it('runs an unsampled request with its trace beside the active span, having made no span', () => {
    sampling(0);
    const started = jest.spyOn(trace.getTracerProvider().getTracer('resource-management-service'), 'startSpan');
    const { req, res } = request();
    let seen: { active: unknown; spanContext: ReturnType<typeof activeSpanContext> } | undefined;
    recordServerSpans(source)(req, res, () => (seen = { active: trace.getActiveSpan(), spanContext: activeSpanContext() }));
    res.emit('close');

    expect(seen?.active).toBeUndefined();
    expect(seen?.spanContext).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/), spanId: expect.stringMatching(/^[0-9a-f]{16}$/), traceFlags: TraceFlags.NONE });
    expect(started).not.toHaveBeenCalled();
    expect(spans.ended()).toEqual([]);
  });

  it('runs a sampled request in its server span, named by its route once answered', () => {
    sampling(1);
    const { req, res } = request();
    let active: ReturnType<typeof trace.getActiveSpan>;
    recordServerSpans(source)(req, res, () => (active = trace.getActiveSpan()));
    expect(active?.isRecording()).toBe(true);
    res.emit('close');

    const [server] = spans.ended();
    expect(server.spanContext().spanId).toBe(active?.spanContext().spanId);
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.name).toBe('GET /v2/resources/:id');
    expect(server.attributes).toMatchObject({ 'http.route': '/v2/resources/:id', 'http.response.status_code': 200, 'client.address': '203.0.113.7', 'server.port': 8080 });
  });
});
