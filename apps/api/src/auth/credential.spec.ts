import { bearerToken, bearerTokenOf } from './credential';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl';

describe('bearerTokenOf', () => {
  it.each([
    [`Bearer ${JWT}`, JWT],
    [`bearer ${JWT}`, JWT],
    [`BEARER \t ${JWT}`, JWT],
    ['Bearer\u00a0tok_1', 'tok_1'],
  ])('gives the token of %j', (authorization, token) => {
    expect(bearerTokenOf(authorization)).toBe(token);
  });

  it.each(['Bearer', 'Bearer ', 'Bearerx abc', 'Bearer a b', 'Bearer a ', 'Bearer a\u00a0b', ' Bearer a', 'Basic dXNlcjpwYXNz', 'Token abc', ''])(
    'gives nothing for %j',
    (authorization) => {
      expect(bearerTokenOf(authorization)).toBeUndefined();
    },
  );
});

describe('bearerToken', () => {
  it("reads the request's Authorization header, trimmed, and repeated headers as one value", () => {
    expect(bearerToken({ headers: { authorization: `  Bearer ${JWT}  ` }, query: {} })).toBe(JWT);
    expect(bearerToken({ headers: {}, query: {} })).toBeUndefined();
    expect(bearerToken({ headers: { authorization: ['Bearer a', 'Bearer b'] as unknown as string }, query: {} })).toBeUndefined();
  });

  it('reads it once per request, whoever asks', () => {
    const req = { headers: { authorization: 'Bearer first' }, query: {} };
    expect(bearerToken(req)).toBe('first');
    req.headers.authorization = 'Bearer second';
    expect(bearerToken(req)).toBe('first');
    const none = { headers: {} as { authorization?: string }, query: {} };
    expect(bearerToken(none)).toBeUndefined();
    none.headers.authorization = 'Bearer late';
    expect(bearerToken(none)).toBeUndefined();
  });
});
