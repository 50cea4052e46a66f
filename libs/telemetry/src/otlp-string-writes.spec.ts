import { InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { exportersOtlpProtobufClasses, exportersOtlpTransformer, OtlpProtobufClasses, useNativeOtlpStringWrites } from './otlp-string-writes';

/** Strings of every UTF-8 length class, about the short/native boundary, and lone surrogates. */
const STRINGS = [
  '',
  'GET',
  'x'.repeat(31),
  'x'.repeat(32),
  'x'.repeat(127),
  'x'.repeat(128),
  `SELECT ${'r.id, r.name, '.repeat(40)}FROM resources r WHERE r.id = $1`,
  'café',
  'é'.repeat(31),
  'é'.repeat(70),
  '\u007f\u0080\u07ff\u0800\uffff',
  '日本語のテキスト',
  '😀'.repeat(20),
  'a😀b',
  '\ud800',
  'lone \udc00 low',
  `${'x'.repeat(40)}\ud83d`,
  `\ud83d${'x'.repeat(40)}`,
];

/**
 * The serializer of the otlp-transformer the SDK's trace exporter loads, and its writer and size
 * estimator, loaded afresh so that each case starts from the serializer's own string writes.
 */
function fresh(): { classes: OtlpProtobufClasses; serializer: typeof ProtobufTraceSerializer } {
  let loaded: ReturnType<typeof fresh> | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ProtobufTraceSerializer: serializer } = require(exportersOtlpTransformer()) as typeof import('@opentelemetry/otlp-transformer');
    loaded = { classes: exportersOtlpProtobufClasses(), serializer };
  });
  if (!loaded) throw new Error('otlp-transformer did not load');
  return loaded;
}

const bytesOf = (serializer: typeof ProtobufTraceSerializer, spans: ReadableSpan[]): Buffer => Buffer.from(serializer.serializeRequest(spans) ?? []);

/** Spans whose names, attribute keys, string values and lists are each of the strings. */
async function spansOf(strings: string[]): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('spec');
  strings.forEach((value, index) => {
    tracer.startSpan(value, { attributes: { [`key ${value}`]: value, list: [value, index], index } }).end();
  });
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

describe('useNativeOtlpStringWrites', () => {
  it('serializes spans to the very bytes the OTLP serializer writes itself', async () => {
    const spans = await spansOf(STRINGS);
    const { classes, serializer } = fresh();
    const own = bytesOf(serializer, spans);

    useNativeOtlpStringWrites(classes);

    expect(own.length).toBeGreaterThan(1_000);
    expect(bytesOf(serializer, spans).equals(own)).toBe(true);
  });

  it.each(STRINGS.map((value) => [JSON.stringify(value).slice(0, 40), value]))('writes %s as the serializer does, and measures it', (_, value) => {
    const { classes } = fresh();
    const own = new classes.ProtobufWriter(8);
    own.writeString(value);

    useNativeOtlpStringWrites(classes);
    const writer = new classes.ProtobufWriter(8);
    writer.writeString(value);
    const estimator = new classes.ProtobufSizeEstimator();
    estimator.writeString(value);

    expect(Buffer.from(writer.finish())).toEqual(Buffer.from(own.finish()));
    // Exactly, but for a short string with other characters than ASCII, which the writer grows its buffer for.
    if (value.length >= 32 || Buffer.byteLength(value) === value.length) expect(estimator.pos).toBe(writer.pos);
    else expect(estimator.pos).toBeLessThan(writer.pos);
  });

  it("is what the serializer of the SDK's OTLP/protobuf trace exporter calls", async () => {
    const spans = await spansOf(['canary']);
    const { classes, serializer } = fresh();
    useNativeOtlpStringWrites(classes);
    const written = jest.spyOn(classes.ProtobufWriter.prototype, 'writeString');
    const measured = jest.spyOn(classes.ProtobufSizeEstimator.prototype, 'writeString');

    bytesOf(serializer, spans);

    expect(written).toHaveBeenCalledWith('canary');
    expect(measured).toHaveBeenCalledWith('canary');
  });
});
