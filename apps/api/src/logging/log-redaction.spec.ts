import { REDACTED, redactHeaders, redactUrl } from './log-redaction';

describe('redactUrl (docs/api.md#logging)', () => {
  it.each([
    ['/v2/resources?api_key=SECRET123', `/v2/resources?api_key=${REDACTED}`],
    ['/v2/resources?page=2&api_key=SECRET123&per_page=5', `/v2/resources?page=2&api_key=${REDACTED}&per_page=5`],
    ['/v2/resources?API_KEY=SECRET123', `/v2/resources?API_KEY=${REDACTED}`],
    ['/v2/resources?api%5Fkey=SECRET123', `/v2/resources?api%5Fkey=${REDACTED}`],
    ['/v2/resources?api_key[]=SECRET123', `/v2/resources?api_key[]=${REDACTED}`],
    ['/v2/resources?api_key=A&api_key=B', `/v2/resources?api_key=${REDACTED}&api_key=${REDACTED}`],
    ['/v2/resources?access_token=SECRET123', `/v2/resources?access_token=${REDACTED}`],
    ['/oauth/token?client_secret=SECRET123', `/oauth/token?client_secret=${REDACTED}`],
    ['/v2/resources?api_key', `/v2/resources?api_key=${REDACTED}`],
  ])('hides the credential in %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
    expect(redactUrl(url)).not.toContain('SECRET123');
  });

  it.each([
    '/v2/resources',
    '/v2/resources?page=2&per_page=5&sort=-created_at',
    '/v2/resources?filter[type]=premium&fields=id,name',
    '/v2/resources?my_api_key_note=visible',
    '/v2/resources?q=%E0%A4%A',
  ])('leaves %s as it is', (url) => {
    expect(redactUrl(url)).toBe(url);
  });
});

describe('redactHeaders (docs/api.md#logging)', () => {
  it('hides every credential header and keeps the others', () => {
    const redacted = redactHeaders({
      authorization: 'Bearer eyJ.SECRET',
      'proxy-authorization': 'Basic SECRET',
      cookie: 'rms_session=SECRET',
      'set-cookie': ['rms_session=SECRET; HttpOnly'],
      'x-api-key': 'sk_test_SECRET',
      'x-auth-token': 'legacy-SECRET',
      'x-csrf-token': 'csrf-SECRET',
      'user-agent': 'curl/8.5.0',
      'content-type': 'application/json',
      'x-request-id': 'abc',
    });
    expect(JSON.stringify(redacted)).not.toContain('SECRET');
    expect(redacted).toEqual({
      authorization: REDACTED,
      'proxy-authorization': REDACTED,
      cookie: REDACTED,
      'set-cookie': REDACTED,
      'x-api-key': REDACTED,
      'x-auth-token': REDACTED,
      'x-csrf-token': REDACTED,
      'user-agent': 'curl/8.5.0',
      'content-type': 'application/json',
      'x-request-id': 'abc',
    });
  });
});
