import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import { IExportTraceServiceResponse, ISerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { ProtobufWriter, WireType } from './protobuf-writer';

/** An instrumentation scope, with the attributes newer APIs give one. */
type Scope = ReadableSpan['instrumentationScope'] & { attributes?: Attributes; droppedAttributesCount?: number };

/** What the span flags say besides the trace flags: that they say whether the parent is remote, and whether it is. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const INT64_MIN = -(2 ** 63);
const INT64_MAX = 2 ** 63;

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

/** An attribute's value as OTLP's AnyValue; undefined, null and values of no OTLP type write an empty one. */
function writeAnyValue(writer: ProtobufWriter, value: unknown): void {
  switch (typeof value) {
    case 'string':
      writer.tag(1, WireType.LengthDelimited);
      writer.string(value);
      return;
    case 'boolean':
      writer.tag(2, WireType.Varint);
      writer.varint(value ? 1 : 0);
      return;
    case 'number':
      if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_MAX) {
        writer.tag(3, WireType.Varint);
        writer.varint(value);
      } else {
        writer.tag(4, WireType.Fixed64);
        writer.double(value);
      }
      return;
    case 'object':
      break;
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return;
  }
  if (value instanceof Uint8Array) {
    writer.tag(7, WireType.LengthDelimited);
    writer.bytes(value);
  } else if (Array.isArray(value)) {
    writer.tag(5, WireType.LengthDelimited);
    const list = writer.begin();
    for (const item of value) {
      writer.tag(1, WireType.LengthDelimited);
      const itemStart = writer.begin();
      writeAnyValue(writer, item);
      writer.end(itemStart);
    }
    writer.end(list);
  } else if (value !== null) {
    writer.tag(6, WireType.LengthDelimited);
    const list = writer.begin();
    writeKeyValues(writer, value as Attributes, 1);
    writer.end(list);
  }
}

/** Each own key of `values` as a KeyValue in field `field`. */
function writeKeyValues(writer: ProtobufWriter, values: Attributes, field: number): void {
  for (const key in values) {
    if (!Object.prototype.hasOwnProperty.call(values, key)) continue;
    writer.tag(field, WireType.LengthDelimited);
    const keyValue = writer.begin();
    writer.tag(1, WireType.LengthDelimited);
    writer.string(key);
    writer.tag(2, WireType.LengthDelimited);
    const anyValue = writer.begin();
    writeAnyValue(writer, (values as Record<string, unknown>)[key]);
    writer.end(anyValue);
    writer.end(keyValue);
  }
}

function writeTimestamp(writer: ProtobufWriter, field: number, time: HrTime): void {
  writer.tag(field, WireType.Fixed64);
  writer.nanoseconds(time);
}

function writeTraceState(writer: ProtobufWriter, field: number, context: SpanContext): void {
  const traceState = context.traceState?.serialize();
  if (!traceState) return;
  writer.tag(field, WireType.LengthDelimited);
  writer.string(traceState);
}

function writeEvent(writer: ProtobufWriter, event: TimedEvent): void {
  writer.tag(11, WireType.LengthDelimited);
  const start = writer.begin();
  writeTimestamp(writer, 1, event.time);
  writer.tag(2, WireType.LengthDelimited);
  writer.string(event.name);
  if (event.attributes) writeKeyValues(writer, event.attributes, 3);
  writer.tag(4, WireType.Varint);
  writer.varint(event.droppedAttributesCount || 0);
  writer.end(start);
}

function writeLink(writer: ProtobufWriter, link: Link): void {
  writer.tag(13, WireType.LengthDelimited);
  const start = writer.begin();
  const context = link.context;
  writer.tag(1, WireType.LengthDelimited);
  writer.hexBytes(context.traceId);
  writer.tag(2, WireType.LengthDelimited);
  writer.hexBytes(context.spanId);
  writeTraceState(writer, 3, context);
  if (link.attributes) writeKeyValues(writer, link.attributes, 4);
  writer.tag(5, WireType.Varint);
  writer.varint(link.droppedAttributesCount || 0);
  writer.tag(6, WireType.Fixed32);
  writer.fixed32(spanFlags(context.traceFlags, context.isRemote));
  writer.end(start);
}

/** OTLP's Span (opentelemetry-proto, trace/v1/trace.proto), its fields in their numbers' order. */
function writeSpan(writer: ProtobufWriter, span: ReadableSpan): void {
  writer.tag(2, WireType.LengthDelimited);
  const start = writer.begin();
  const context = span.spanContext();
  writer.tag(1, WireType.LengthDelimited);
  writer.hexBytes(context.traceId);
  writer.tag(2, WireType.LengthDelimited);
  writer.hexBytes(context.spanId);
  writeTraceState(writer, 3, context);
  const parentSpanId = span.parentSpanContext?.spanId;
  if (parentSpanId) {
    writer.tag(4, WireType.LengthDelimited);
    writer.hexBytes(parentSpanId);
  }
  writer.tag(5, WireType.LengthDelimited);
  writer.string(span.name);
  // OTLP's kinds count from SPAN_KIND_UNSPECIFIED, the API's from INTERNAL.
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    writer.tag(6, WireType.Varint);
    writer.varint(kind);
  }
  writeTimestamp(writer, 7, span.startTime);
  writeTimestamp(writer, 8, span.endTime);
  if (span.attributes) writeKeyValues(writer, span.attributes, 9);
  writer.tag(10, WireType.Varint);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(writer, event);
  writer.tag(12, WireType.Varint);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(writer, link);
  writer.tag(14, WireType.Varint);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, WireType.LengthDelimited);
  const status = writer.begin();
  if (span.status.message) {
    writer.tag(2, WireType.LengthDelimited);
    writer.string(span.status.message);
  }
  writer.tag(3, WireType.Varint);
  writer.varint(span.status.code);
  writer.end(status);
  writer.tag(16, WireType.Fixed32);
  writer.fixed32(spanFlags(context.traceFlags, span.parentSpanContext?.isRemote));
  writer.end(start);
}

function writeScopeSpans(writer: ProtobufWriter, scope: Scope, spans: ReadableSpan[]): void {
  writer.tag(2, WireType.LengthDelimited);
  const start = writer.begin();
  writer.tag(1, WireType.LengthDelimited);
  const scopeStart = writer.begin();
  writer.tag(1, WireType.LengthDelimited);
  writer.string(scope.name);
  if (scope.version) {
    writer.tag(2, WireType.LengthDelimited);
    writer.string(scope.version);
  }
  if (scope.attributes) writeKeyValues(writer, scope.attributes, 3);
  if (scope.droppedAttributesCount) {
    writer.tag(4, WireType.Varint);
    writer.varint(scope.droppedAttributesCount);
  }
  writer.end(scopeStart);
  for (const span of spans) writeSpan(writer, span);
  if (scope.schemaUrl) {
    writer.tag(3, WireType.LengthDelimited);
    writer.string(scope.schemaUrl);
  }
  writer.end(start);
}

function writeResourceSpans(writer: ProtobufWriter, resource: Resource, scopes: Map<Scope, ReadableSpan[]>): void {
  writer.tag(1, WireType.LengthDelimited);
  const start = writer.begin();
  writer.tag(1, WireType.LengthDelimited);
  const resourceStart = writer.begin();
  if (resource.attributes) writeKeyValues(writer, resource.attributes, 1);
  writer.tag(2, WireType.Varint);
  writer.varint(0);
  writer.end(resourceStart);
  for (const [scope, spans] of scopes) writeScopeSpans(writer, scope, spans);
  if (resource.schemaUrl) {
    writer.tag(3, WireType.LengthDelimited);
    writer.string(resource.schemaUrl);
  }
  writer.end(start);
}

/** The spans by their resource, then their instrumentation scope, each the very object the spans hold, in the order first met. */
function byResourceAndScope(spans: ReadableSpan[]): Map<Resource, Map<Scope, ReadableSpan[]>> {
  const resources = new Map<Resource, Map<Scope, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.resource);
    if (!scopes) resources.set(span.resource, (scopes = new Map<Scope, ReadableSpan[]>()));
    const inScope = scopes.get(span.instrumentationScope);
    if (inScope) inScope.push(span);
    else scopes.set(span.instrumentationScope, [span]);
  }
  return resources;
}

/**
 * OTLP/protobuf's ExportTraceServiceRequest of a batch of spans: the bytes OpenTelemetry's
 * `ProtobufTraceSerializer` writes, in one pass rather than a pass to size the buffer and one to
 * fill it, strings and ids written natively (docs/performance.md, "Tracing"). Responses are read
 * by OpenTelemetry's own.
 */
export class OtlpTraceProtobufSerializer implements ISerializer<ReadableSpan[], IExportTraceServiceResponse> {
  /** Bytes per span of the batches so far, to size the next batch's buffer. */
  private bytesPerSpan = 512;

  serializeRequest(spans: ReadableSpan[]): Uint8Array {
    const writer = new ProtobufWriter(Math.ceil(spans.length * this.bytesPerSpan * 1.25));
    for (const [resource, scopes] of byResourceAndScope(spans)) writeResourceSpans(writer, resource, scopes);
    const bytes = writer.finish();
    if (spans.length > 0) this.bytesPerSpan = Math.ceil(bytes.length / spans.length);
    return bytes;
  }

  deserializeResponse(data: Uint8Array): IExportTraceServiceResponse {
    return ProtobufTraceSerializer.deserializeResponse(data);
  }
}
