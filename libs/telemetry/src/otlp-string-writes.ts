import { dirname, join } from 'node:path';

/** What the OTLP protobuf serializer's writer and size estimator have that a string's write touches. */
interface ProtobufStringWriter {
  pos: number;
  writeVarint(value: number): void;
  writeString(value: string): void;
}

interface ProtobufWriter extends ProtobufStringWriter {
  _buffer: Uint8Array;
  _ensureCapacity(size: number): void;
}

/** The two classes, as @opentelemetry/otlp-transformer's modules export them. */
export interface OtlpProtobufClasses {
  ProtobufWriter: { new (estimatedSize: number): ProtobufWriter & { finish(): Uint8Array }; prototype: ProtobufWriter };
  ProtobufSizeEstimator: { new (): ProtobufStringWriter; prototype: ProtobufStringWriter };
}

/** Shorter strings are written by a loop in JavaScript: a call into Node costs more than their bytes. */
const NATIVE_FROM = 32;

/** Node's own UTF-8 write into any Uint8Array, as protobufjs uses it: `(string, offset, length)`, the bytes written. */
type Utf8Write = (this: Uint8Array, value: string, offset: number, length: number) => number;
const utf8Write = (Buffer.prototype as unknown as { utf8Write: Utf8Write }).utf8Write;

/**
 * A string's bytes, length first, with Node's native UTF-8 encoder: the same bytes the serializer
 * writes (a lone surrogate becomes U+FFFD, as TextEncoder makes it).
 */
function writeString(this: ProtobufWriter, value: string): void {
  const length = value.length;
  if (length < NATIVE_FROM) {
    this._ensureCapacity(length + 1);
    const buffer = this._buffer;
    let pos = this.pos + 1;
    let index = 0;
    while (index < length) {
      const code = value.charCodeAt(index);
      if (code > 127) break;
      buffer[pos++] = code;
      index++;
    }
    // All ASCII: the length (under 128) is one byte, written before them.
    if (index === length) {
      buffer[this.pos] = length;
      this.pos = pos;
      return;
    }
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  this.writeVarint(bytes);
  this._ensureCapacity(bytes);
  this.pos += utf8Write.call(this._buffer, value, this.pos, bytes);
}

/**
 * The size of the same write: a long string's counted natively, a short one's taken as its length,
 * exact when it is ASCII, as attribute keys and most values are. One with other characters writes
 * more than that, and the writer grows its buffer as it does whenever an estimate falls short.
 */
function measureString(this: ProtobufStringWriter, value: string): void {
  const bytes = value.length < NATIVE_FROM ? value.length : Buffer.byteLength(value, 'utf8');
  this.writeVarint(bytes);
  this.pos += bytes;
}

/** The entry of the otlp-transformer that the SDK's OTLP/protobuf trace exporter loads. */
export function exportersOtlpTransformer(): string {
  const sdk = dirname(require.resolve('@opentelemetry/sdk-node'));
  const exporter = dirname(require.resolve('@opentelemetry/exporter-trace-otlp-proto', { paths: [sdk] }));
  return require.resolve('@opentelemetry/otlp-transformer', { paths: [exporter] });
}

/** That otlp-transformer's protobuf writer and size estimator, which its index does not export. */
export function exportersOtlpProtobufClasses(): OtlpProtobufClasses {
  const protobuf = join(dirname(exportersOtlpTransformer()), 'common', 'protobuf');
  /* eslint-disable @typescript-eslint/no-require-imports -- modules its index does not export */
  const { ProtobufWriter } = require(join(protobuf, 'protobuf-writer.cjs')) as Pick<OtlpProtobufClasses, 'ProtobufWriter'>;
  const { ProtobufSizeEstimator } = require(join(protobuf, 'protobuf-size-estimator.cjs')) as Pick<OtlpProtobufClasses, 'ProtobufSizeEstimator'>;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { ProtobufWriter, ProtobufSizeEstimator };
}

/**
 * Makes the OTLP protobuf serializer write and measure strings with Node's native UTF-8 encoder.
 * It walks each string a UTF-16 unit at a time in JavaScript, twice to write it and once to size
 * the buffer, about 30 instructions a character: most of what tracing cost a sampled read, whose
 * statements are hundreds of characters (docs/performance.md, "Tracing"). The bytes are the same.
 */
export function useNativeOtlpStringWrites(classes: OtlpProtobufClasses = exportersOtlpProtobufClasses()): void {
  classes.ProtobufWriter.prototype.writeString = writeString;
  classes.ProtobufSizeEstimator.prototype.writeString = measureString;
}
