/** Protobuf's wire types (protobuf.dev/programming-guides/encoding). */
export const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  Fixed32 = 5,
}

/** Shorter strings are written by a loop in JavaScript: a call into Node costs more than their bytes. */
const NATIVE_STRING_FROM = 32;
const TWO_TO_32 = 4294967296;

/**
 * Protobuf's wire format written in one pass into one growing buffer: strings and hex ids through
 * Node's native encoders, a nested message's length written where it began once it is known.
 */
export class ProtobufWriter {
  private buffer: Buffer;
  private pos = 0;

  constructor(initialSize: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, initialSize));
  }

  /** The bytes written: a view of the buffer, which the writer is done with. */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.pos);
  }

  tag(field: number, wireType: WireType): void {
    const key = (field << 3) | wireType;
    if (key > 127) return this.varint(key);
    // Fields 1 to 15, every tag of a span but its flags': one byte.
    this.room(1);
    this.buffer[this.pos++] = key;
  }

  /** A non-negative integer, or a negative one as the ten bytes of its 64-bit two's complement. */
  varint(value: number): void {
    this.room(10);
    const buffer = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      let rest = value >>> 0;
      while (rest > 127) {
        buffer[this.pos++] = (rest & 127) | 128;
        rest >>>= 7;
      }
      buffer[this.pos++] = rest;
      return;
    }
    let [low, high] = value >= 0 ? [value >>> 0, (value / TWO_TO_32) >>> 0] : twosComplement(value);
    while (high > 0 || low > 127) {
      buffer[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[this.pos++] = low & 127;
  }

  fixed32(value: number): void {
    this.room(4);
    this.littleEndian32(value >>> 0);
  }

  /** OpenTelemetry's `[seconds, nanoseconds]` as a fixed64 count of nanoseconds. */
  nanoseconds([seconds, nanos]: readonly [number, number]): void {
    // seconds * 1e9 exceeds 2^53: the product is split at 16 bits of the seconds.
    const lowSeconds = (seconds & 65535) * 1e9;
    const highSeconds = ((seconds / 65536) >>> 0) * 1e9;
    const low = (lowSeconds >>> 0) + ((((highSeconds & 65535) * 65536) >>> 0) + nanos);
    const high = Math.floor(lowSeconds / TWO_TO_32) + ((highSeconds / 65536) >>> 0) + Math.floor(low / TWO_TO_32);
    this.room(8);
    this.littleEndian32(low >>> 0);
    this.littleEndian32(high >>> 0);
  }

  double(value: number): void {
    this.room(8);
    this.pos = this.buffer.writeDoubleLE(value, this.pos);
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.room(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /** An id given in hex (a trace or span id) as its bytes. */
  hexBytes(hex: string): void {
    const length = hex.length >>> 1;
    this.varint(length);
    this.room(length);
    if (this.buffer.write(hex, this.pos, length, 'hex') !== length || length * 2 !== hex.length) {
      // Not hex throughout: the digits decoded one by one, as OpenTelemetry's own serializer does.
      for (let index = 0; index < length; index++) this.buffer[this.pos + index] = (hexDigit(hex, 2 * index) << 4) | hexDigit(hex, 2 * index + 1);
    }
    this.pos += length;
  }

  /** A string as UTF-8, its byte length first; a lone surrogate becomes U+FFFD, as TextEncoder makes it. */
  string(value: string): void {
    const length = value.length;
    if (length < NATIVE_STRING_FROM) {
      this.room(length + 1);
      const buffer = this.buffer;
      let pos = this.pos + 1;
      let index = 0;
      while (index < length) {
        const code = value.charCodeAt(index);
        if (code > 127) break;
        buffer[pos++] = code;
        index++;
      }
      // All ASCII: the length (under 128) is one byte, before them.
      if (index === length) {
        buffer[this.pos] = length;
        this.pos = pos;
        return;
      }
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    this.varint(bytes);
    this.room(bytes);
    this.pos += this.buffer.write(value, this.pos, bytes, 'utf8');
  }

  /** Starts a nested message; `end` with what this returns closes it. */
  begin(): number {
    this.room(1);
    return this.pos++;
  }

  /** Writes the length of the message `begin` started: one byte was kept for it, the content moves when it needs more. */
  end(start: number): void {
    const length = this.pos - start - 1;
    if (length < 128) {
      this.buffer[start] = length;
      return;
    }
    const size = varintSize(length);
    this.room(size - 1);
    this.buffer.copyWithin(start + size, start + 1, this.pos);
    this.pos += size - 1;
    let rest = length;
    for (let at = start; rest > 127; at++) {
      this.buffer[at] = (rest & 127) | 128;
      rest >>>= 7;
    }
    this.buffer[start + size - 1] = rest;
  }

  /** Four bytes of `value`, low first, stored as bytes: `writeUInt32LE` checks its arguments on every call. */
  private littleEndian32(value: number): void {
    const buffer = this.buffer;
    const pos = this.pos;
    buffer[pos] = value;
    buffer[pos + 1] = value >>> 8;
    buffer[pos + 2] = value >>> 16;
    buffer[pos + 3] = value >>> 24;
    this.pos = pos + 4;
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest > 127; rest >>>= 7) size++;
  return size;
}

/** A negative integer's 64-bit two's complement, as its low and high 32 bits. */
function twosComplement(value: number): [number, number] {
  const magnitude = Math.abs(value);
  let low = ~(magnitude >>> 0) >>> 0;
  let high = ~((magnitude / TWO_TO_32) >>> 0) >>> 0;
  low = (low + 1) >>> 0;
  if (low === 0) high = (high + 1) >>> 0;
  return [low, high];
}

/** A hex digit's value; any other character as OpenTelemetry's serializer reads it. */
function hexDigit(hex: string, index: number): number {
  const code = hex.charCodeAt(index);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return code - 55;
}
