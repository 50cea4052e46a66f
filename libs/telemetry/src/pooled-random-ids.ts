import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';

/** Bytes drawn at a time: the ids of about 400 sampled requests of three spans, or 680 unsampled ones. */
const POOL_BYTES = 16_384;

/** Fills its argument with random bytes: the system's generator, unless a spec chooses them. */
export type RandomFill = (bytes: Uint8Array) => void;

/**
 * Trace and span ids cut from a pool of random bytes, drawn from the system's generator and
 * written out as hex together, so that an id is a slice of that hex (a view of it, not a copy) and
 * a new trace's 32-bit words are read from the bytes without parsing it. The SDK's
 * RandomIdGenerator makes each id from `Math.random`, writes it word by word into a buffer and
 * encodes that: about 1.7k instructions of an unsampled request (docs/performance.md, "Tracing").
 * An all-zero id, which is invalid, is never given.
 */
export class PooledRandomIds implements IdGenerator {
  private readonly bytes = new Uint8Array(POOL_BYTES);
  private readonly view = new DataView(this.bytes.buffer);
  private hex = '';
  private next = POOL_BYTES;

  constructor(private readonly fill: RandomFill = randomFillSync) {}

  /** Where in the pool `length` (8 or 16) fresh bytes start, not all zero. */
  take(length: 8 | 16): number {
    for (;;) {
      if (this.next + length > POOL_BYTES) this.refill();
      const at = this.next;
      this.next += length;
      const high = this.word(at) | this.word(at + 4);
      if ((length === 8 ? high : high | this.word(at + 8) | this.word(at + 12)) !== 0) return at;
    }
  }

  /** The big-endian 32-bit word of the pool at `at`: the value of its 8 hex digits in the id. */
  word(at: number): number {
    return this.view.getUint32(at, false);
  }

  /** The lowercase hex of `length` pool bytes from `at`. */
  hexAt(at: number, length: number): string {
    return this.hex.slice(2 * at, 2 * (at + length));
  }

  generateTraceId(): string {
    return this.hexAt(this.take(16), 16);
  }

  generateSpanId(): string {
    return this.hexAt(this.take(8), 8);
  }

  private refill(): void {
    this.fill(this.bytes);
    this.hex = Buffer.from(this.bytes.buffer).toString('hex');
    this.next = 0;
  }
}
