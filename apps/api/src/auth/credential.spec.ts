import { bearerToken, bearerTokenOf } from './credential';

/** What the token of an Authorization value is, by the regular expression `bearerTokenOf` reads without. */
const byExpression = (authorization: string): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl';
const SPACES = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const NOT_SPACES = ['\u0085', '\u180e', '\u200b', '\u0000', '\u001f', '\u00ad', '\u2060'];

describe('bearerTokenOf', () => {
  const values = [
    `Bearer ${JWT}`,
    `bearer ${JWT}`,
    `BEARER ${JWT}`,
    `BeArEr  \t ${JWT}`,
    'Bearer',
    'Bearer ',
    'Bearer  ',
    'Bearerx abc',
    'Bearer a b',
    'Bearer a ',
    ' Bearer a',
    'Beare a',
    'Basic dXNlcjpwYXNz',
    'Token abc',
    'Bearer\u212aabc',
    '\u0130earer abc',
    'Bearer x',
    '',
    ...SPACES.flatMap((space) => [`Bearer${space}tok`, `Bearer tok${space}en`, `Bearer${space}${space}tok`]),
    ...NOT_SPACES.flatMap((other) => [`Bearer${other}tok`, `Bearer tok${other}en`, `Bearer ${other}`]),
  ];

  /** The value with every character outside printable ASCII as its \\u code, for the test's name. */
  const shown = (value: string): string => value.replace(/[^\x21-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it.each(values.map((value) => [shown(value), value]))('reads %s as /^Bearer\\s+(\\S+)$/i does', (_shown, value) => {
    expect(bearerTokenOf(value)).toBe(byExpression(value));
  });

  it('gives the token of a bearer credential and nothing for another scheme', () => {
    expect(bearerTokenOf(`Bearer ${JWT}`)).toBe(JWT);
    expect(bearerTokenOf('Bearer\t\ttok_1')).toBe('tok_1');
    expect(bearerTokenOf('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerTokenOf('Bearer a b')).toBeUndefined();
  });
});

describe('bearerToken', () => {
  it("reads the request's Authorization header, trimmed, and repeated headers as one value", () => {
    expect(bearerToken({ headers: { authorization: `  Bearer ${JWT}  ` }, query: {} })).toBe(JWT);
    expect(bearerToken({ headers: {}, query: {} })).toBeUndefined();
    expect(bearerToken({ headers: { authorization: ['Bearer a', 'Bearer b'] as unknown as string }, query: {} })).toBeUndefined();
  });
});
