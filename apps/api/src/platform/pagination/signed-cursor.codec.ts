import { Injectable } from '@nestjs/common';
import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@app/config';
import { InvalidRequestError } from '@app/common';

/** A position in a sorted listing and the direction to read from it. */
export interface ListCursor {
  /** Values of the sort keys, then the id, of the row the page starts after (or before). */
  position: string[];
  backward: boolean;
}

interface CursorPayload {
  /** Direction: `n`ext or `p`rev. */
  d: 'n' | 'p';
  k: string[];
  /** Hash of the filters and sort the cursor was made for. */
  b: string;
}

const MAC_BYTES = 16;
/** SHA-256's block size: the HMAC key is padded to it (RFC 2104). */
const SHA256_BLOCK_BYTES = 64;
/** Binding hashes kept: a listing's pages share their binding, so most are hashed once. */
const MAX_BINDING_HASHES = 10_000;
const MAX_TOKEN_LENGTH = 4096;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

/** Made only when a cursor is refused: an error's stack, taken deep in the request's path, cost every later page about 25 µs. */
function invalidCursor(): InvalidRequestError {
  return new InvalidRequestError('The cursor is not valid. Use a cursor from meta.cursor of an earlier page.');
}

function isPayload(value: unknown): value is CursorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const payload = value as Record<string, unknown>;
  return (
    (payload.d === 'n' || payload.d === 'p') &&
    typeof payload.b === 'string' &&
    Array.isArray(payload.k) &&
    payload.k.length > 0 &&
    payload.k.every((item) => typeof item === 'string')
  );
}

/**
 * The cursor of every keyset-paginated list. Cursors are opaque base64url tokens: an
 * HMAC-SHA256 tag (truncated to 128 bits) followed by the position, the direction and a hash of
 * the filters and sort (plus the caller) they belong to. A tampered token or one used with other
 * filters or sort is `invalid_request`.
 */
@Injectable()
export class SignedCursorCodec {
  /** The HMAC key XOR ipad and XOR opad, made once. */
  private readonly innerPad: Buffer;
  private readonly outerPad: Buffer;
  private readonly bindingHashes = new Map<string, string>();

  constructor(config: AppConfig) {
    // A key of its own, derived once from the service secret.
    const key = createHmac('sha256', config.jwtSecret).update('rms:list-cursor:v1').digest();
    this.innerPad = Buffer.alloc(SHA256_BLOCK_BYTES, 0x36);
    this.outerPad = Buffer.alloc(SHA256_BLOCK_BYTES, 0x5c);
    for (let i = 0; i < key.length; i++) {
      this.innerPad[i] ^= key[i];
      this.outerPad[i] ^= key[i];
    }
  }

  encode(cursor: ListCursor, binding: string): string {
    const payload: CursorPayload = { d: cursor.backward ? 'p' : 'n', k: cursor.position, b: this.bindingHash(binding) };
    const body = Buffer.from(JSON.stringify(payload));
    return Buffer.concat([this.mac(body), body]).toString('base64url');
  }

  decode(token: string, binding: string): ListCursor {
    if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) throw invalidCursor();
    const bytes = Buffer.from(token, 'base64url');
    // Only the canonical spelling: a decoder ignores stray trailing characters.
    if (bytes.length <= MAC_BYTES || bytes.toString('base64url') !== token) throw invalidCursor();
    const body = bytes.subarray(MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(0, MAC_BYTES), this.mac(body))) throw invalidCursor();
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!isPayload(payload)) throw invalidCursor();
    if (payload.b !== this.bindingHash(binding)) {
      throw new InvalidRequestError(
        'The cursor belongs to other filters or another sort. Keep filters and sort constant across pages, or start again without a cursor.',
      );
    }
    return { position: payload.k, backward: payload.d === 'p' };
  }

  /**
   * HMAC-SHA256 (RFC 2104), as `createHmac` gives it (the spec checks), from two one-shot
   * hashes: an Hmac object per page, a stream with a native handle for the collector to
   * track, cost the listing about 3% in A/B.
   */
  private mac(body: Buffer): Buffer {
    const inner = hash('sha256', Buffer.concat([this.innerPad, body]), 'buffer');
    return hash('sha256', Buffer.concat([this.outerPad, inner]), 'buffer').subarray(0, MAC_BYTES);
  }

  private bindingHash(binding: string): string {
    let hash = this.bindingHashes.get(binding);
    if (hash === undefined) {
      hash = createHash('sha256').update(binding).digest('base64url').slice(0, 16);
      if (this.bindingHashes.size >= MAX_BINDING_HASHES) this.bindingHashes.clear();
      this.bindingHashes.set(binding, hash);
    }
    return hash;
  }
}
