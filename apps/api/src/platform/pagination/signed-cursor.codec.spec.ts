import { createHmac } from 'node:crypto';
import { AppConfig } from '@app/config';
import { InvalidRequestError } from '@app/common';
import { SignedCursorCodec } from './signed-cursor.codec';

function codec(secret = 'a'.repeat(40)): SignedCursorCodec {
  return new SignedCursorCodec(Object.assign(new AppConfig(), { JWT_SECRET: secret }));
}

describe('SignedCursorCodec', () => {
  const cursor = { position: ['2025-11-21T09:30:00.000Z', 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X'], backward: true };

  it('round-trips a position and direction as an opaque base64url token', () => {
    const token = codec().encode(cursor, 'binding');
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec().decode(token, 'binding')).toEqual(cursor);
  });

  it('refuses a token with any byte changed', () => {
    const token = codec().encode(cursor, 'binding');
    const bytes = Buffer.from(token, 'base64url');
    for (const index of [0, 20, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[index] ^= 0x01;
      expect(() => codec().decode(tampered.toString('base64url'), 'binding')).toThrow(InvalidRequestError);
    }
  });

  it.each(['', 'abc', 'not base64!', 'A'.repeat(5000)])('refuses the malformed token %p', (token) => {
    expect(() => codec().decode(token, 'binding')).toThrow(InvalidRequestError);
  });

  it('refuses a token with a stray trailing character', () => {
    const token = codec().encode(cursor, 'binding');
    expect(() => codec().decode(`${token}A`, 'binding')).toThrow(InvalidRequestError);
  });

  it('refuses a token made with another secret', () => {
    const token = codec('b'.repeat(40)).encode(cursor, 'binding');
    expect(() => codec().decode(token, 'binding')).toThrow(InvalidRequestError);
  });

  it("tags a token with the HMAC-SHA256 createHmac gives, under the key derived from the secret", () => {
    const secret = 'c'.repeat(40);
    const key = createHmac('sha256', secret).update('rms:list-cursor:v1').digest();
    for (const name of ['', 'a', 'x'.repeat(55), 'y'.repeat(300)]) {
      const bytes = Buffer.from(codec(secret).encode({ position: [name, 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X'], backward: false }, 'b'), 'base64url');
      const body = bytes.subarray(16);
      expect(bytes.subarray(0, 16)).toEqual(createHmac('sha256', key).update(body).digest().subarray(0, 16));
    }
  });

  it('refuses a token used with other filters or sort, saying so', () => {
    const token = codec().encode(cursor, 'usr_1|-created_at|active||');
    expect(() => codec().decode(token, 'usr_1|-created_at|archived||')).toThrow(/other filters or another sort/);
  });
});
