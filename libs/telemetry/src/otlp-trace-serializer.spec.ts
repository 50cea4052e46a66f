import { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { OtlpTraceProtobufSerializer } from './otlp-trace-serializer';

/** Strings of every UTF-8 length class, lone surrogates among them, short and long. */
const text = fc.oneof(fc.string(), fc.fullUnicodeString(), fc.string16bits(), fc.string({ minLength: 100, maxLength: 700 }), fc.fullUnicodeString({ minLength: 40 }));

/** OTLP's AnyValue as attributes carry it: scalars of each kind, bytes, lists and maps of them, and what writes an empty value. */
const { value: attributeValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.boolean(),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.constantFrom(2 ** 32, 2 ** 32 - 1, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53), 2 ** 63, -(2 ** 63), 0, -1),
    fc.double(),
    fc.uint8Array({ maxLength: 40 }),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
}));
const attributes = fc.dictionary(text, attributeValue, { maxKeys: 12 }) as fc.Arbitrary<Attributes>;

/** `[seconds, nanoseconds]`, about now and at the ends of the range. */
const hrTime: fc.Arbitrary<HrTime> = fc.tuple(fc.oneof(fc.integer({ min: 0, max: 2 ** 32 + 5 }), fc.constant(1_764_000_000)), fc.integer({ min: 0, max: 999_999_999 }));
const traceState = fc.option(
  fc.constantFrom('vendor=value', 'a=1,b=2', 'rojo=00f067aa0ba902b7').map((state) => new TraceState(state)),
  { nil: undefined },
);
const spanContext: fc.Arbitrary<SpanContext> = fc.record({
  traceId: fc.hexaString({ minLength: 32, maxLength: 32 }),
  spanId: fc.hexaString({ minLength: 16, maxLength: 16 }),
  traceFlags: fc.integer({ min: 0, max: 255 }),
  isRemote: fc.option(fc.boolean(), { nil: undefined }),
  traceState,
});
const event: fc.Arbitrary<TimedEvent> = fc.record(
  { name: text, time: hrTime, attributes, droppedAttributesCount: fc.nat(5) },
  { requiredKeys: ['name', 'time'] },
);
const link: fc.Arbitrary<Link> = fc.record({ context: spanContext, attributes, droppedAttributesCount: fc.nat(5) }, { requiredKeys: ['context'] });

/** Two resources and two scopes the spans share, so that they group as the SDK's do. */
const RESOURCES = [resourceFromAttributes({ 'service.name': 'rms-api', 'host.name': 'héte', 'process.command_args': ['node', 'main.js'] }), resourceFromAttributes({})];
const SCOPES = [{ name: 'resource-management-service' }, { name: '@opentelemetry/instrumentation-http', version: '0.301.0', schemaUrl: 'https://opentelemetry.io/schemas/1.36.0' }];

const span: fc.Arbitrary<ReadableSpan> = fc
  .record({
    context: spanContext,
    parentSpanContext: fc.option(spanContext, { nil: undefined }),
    name: text,
    kind: fc.constantFrom(SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER),
    startTime: hrTime,
    endTime: hrTime,
    status: fc.oneof(
      fc.constant({ code: SpanStatusCode.UNSET }),
      fc.constant({ code: SpanStatusCode.OK }),
      fc.record({ code: fc.constant(SpanStatusCode.ERROR), message: fc.option(text, { nil: undefined }) }),
    ),
    attributes,
    links: fc.array(link, { maxLength: 3 }),
    events: fc.array(event, { maxLength: 3 }),
    resource: fc.constantFrom(...RESOURCES),
    instrumentationScope: fc.constantFrom(...SCOPES),
    droppedAttributesCount: fc.nat(3),
    droppedEventsCount: fc.nat(3),
    droppedLinksCount: fc.nat(3),
  })
  .map(
    ({ context, ...fields }): ReadableSpan => ({
      ...fields,
      spanContext: () => context,
      duration: [0, 0],
      ended: true,
    }),
  );

const bytes = (value: Uint8Array | undefined): Buffer => Buffer.from(value ?? []);

describe('OtlpTraceProtobufSerializer', () => {
  it("writes the very bytes of OpenTelemetry's ProtobufTraceSerializer, batch after batch", () => {
    const serializer = new OtlpTraceProtobufSerializer();
    fc.assert(
      fc.property(fc.array(span, { maxLength: 40 }), (spans) => {
        expect(bytes(serializer.serializeRequest(spans)).equals(bytes(ProtobufTraceSerializer.serializeRequest(spans)))).toBe(true);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('writes a batch far larger than the last one, growing its buffer', () => {
    const serializer = new OtlpTraceProtobufSerializer();
    const [small, large] = [1, 2_000].map((count) => fc.sample(span, { numRuns: count, seed: count }));
    for (const spans of [small, large, small]) {
      expect(bytes(serializer.serializeRequest(spans)).equals(bytes(ProtobufTraceSerializer.serializeRequest(spans)))).toBe(true);
    }
  });

  it('writes nothing for no spans, and reads responses as OpenTelemetry does', () => {
    const serializer = new OtlpTraceProtobufSerializer();
    expect(serializer.serializeRequest([])).toHaveLength(0);
    // ExportTraceServiceResponse { partial_success { rejected_spans: 2, error_message: "full" } }
    const response = Uint8Array.from([0x0a, 0x08, 0x08, 0x02, 0x12, 0x04, ...Buffer.from('full')]);
    expect(serializer.deserializeResponse(response)).toEqual(ProtobufTraceSerializer.deserializeResponse(response));
    expect(serializer.deserializeResponse(response)).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: 'full' } });
  });
});
