import fc from 'fast-check';
import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';

/**
 * Every operation of the served OpenAPI document, fed random bodies, query strings and headers
 * (NUL bytes, lone surrogates, huge and negative integers, deep nesting, very many keys): the
 * answer is always a 2xx, 3xx or 4xx in the envelope, never a 5xx (docs/api.md#errors).
 */
interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  parameters: string[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
}

/** They end the caller's own credential; every other operation is fair game. */
const SKIPPED = new Set(['post /v2/auth/logout', 'post /v2/session/logout']);
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

const hostileText = fc.oneof(
  fc.string(),
  fc.fullUnicodeString(),
  fc.constantFrom('', '\u0000', 'a\u0000b', '\ud800', '\udfff x', 'x'.repeat(5000), '../../etc', '<script>', "'; DROP TABLE users; --"),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e21, Number.MAX_VALUE),
  fc.double(),
);
const scalar = fc.oneof(hostileText, hostileNumber, fc.boolean(), fc.constant(null));
/** A value nested `depth` levels, past the 32 the service accepts when large. */
const nested = fc.integer({ min: 1, max: 60 }).map((depth) => {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
});
const manyKeys = fc.integer({ min: 100, max: 3000 }).map((count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i])));
const knownFieldNames = fc.constantFrom(
  'name', 'description', 'type', 'status', 'metadata', 'tags', 'resources', 'ids', 'updates', 'email', 'password',
  'username', 'profile', 'scopes', 'refresh_token', 'role', 'plan', 'slug', 'user_id', 'url', 'events', 'secret',
);
const body = fc.oneof(
  fc.dictionary(fc.oneof(knownFieldNames, hostileText), fc.oneof(scalar, nested, fc.array(scalar, { maxLength: 5 }), fc.anything()), { maxKeys: 6 }),
  manyKeys,
  nested,
  fc.anything(),
);
/** Percent-encodes every UTF-8 byte (a lone surrogate arrives as U+FFFD; `%ED%A0%80` sends one raw). */
const urlEncode = (text: string): string => [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const queryValue = fc.oneof(
  hostileText.map(urlEncode),
  hostileNumber.map(String),
  fc.constantFrom('%FF', '%00', '%C3%28', '%ED%A0%80', '%', '%zz', '100000000000000000000', '-1', '1e3'),
);
const headers = fc.record(
  {
    'If-Match': fc.oneof(hostileText, fc.constantFrom('*', '"1"', 'W/"1"')),
    'If-None-Match': fc.oneof(hostileText, fc.constantFrom('*', '"1"')),
    'Idempotency-Key': hostileText,
    'X-Request-ID': hostileText,
    Accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
  },
  { requiredKeys: [] },
);

/** Header values Node itself refuses to send are dropped: they never reach a server. */
function sendableHeaders(candidate: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(candidate).filter(([, value]) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)));
}

describe('every endpoint: random input never breaks the service', () => {
  let t: ApiUnderTest;
  let user: TestUser;
  let operations: Operation[];

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http, { db: t.db, role: 'admin', plan: 'enterprise' });
    const document = (await t.http.get('/openapi.json').expect(200)).body as OpenApiDocument;
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.has(method) && !SKIPPED.has(`${method} ${path}`))
        .map(([method, operation]) => ({
          method: method as Operation['method'],
          path,
          parameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        })),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('covers the operations of the document', () => {
    expect(operations.length).toBeGreaterThan(15);
  });

  /**
   * The envelope everywhere but on the authorization server: RFC 6749 JSON on its machine
   * endpoints, and an HTML page on the browser's, unless the body was not even a form.
   */
  function expectErrorForm(path: string, res: { headers: Record<string, string>; body: { error?: unknown; error_description?: unknown } & Record<string, unknown> }): void {
    if (path.startsWith('/oauth/authorize') && res.headers['content-type']?.startsWith('text/html')) {
      expect(res.headers['x-frame-options']).toBe('DENY');
    } else if (path.startsWith('/oauth/') && !path.startsWith('/oauth/authorize')) {
      expect(typeof res.body.error).toBe('string');
      expect(typeof res.body.error_description).toBe('string');
    } else {
      const envelope = res.body.error as { code?: unknown; message?: unknown } | undefined;
      expect(typeof envelope?.code).toBe('string');
      expect(typeof envelope?.message).toBe('string');
    }
  }

  it('answers every generated request below 500, errors in the envelope (RFC 6749 form or a page under /oauth)', async () => {
    const request = fc.record({
      index: fc.nat(),
      pathValue: fc.oneof(hostileText.map(urlEncode), fc.constantFrom('res_01JD3Q0F6K8W2M4N6P8R0T2V4X', '%00', '%FF')),
      query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('page', 'per_page', 'limit', 'cursor', 'search', 'role', 'api_key'), hostileText.map(urlEncode)), queryValue), { maxLength: 4 }),
      body,
      headers,
    });
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const operation = operations[input.index % operations.length];
        const path = operation.path.replace(/\{[^}]+\}/g, input.pathValue || 'x');
        const declared = operation.parameters.map((name) => [name, '1'] as [string, string]);
        const query = [...declared.slice(0, 1), ...input.query].map(([key, value]) => `${key}=${value}`).join('&');
        let call = t.http[operation.method](`${path}?${query}`)
          .set('Authorization', `Bearer ${user.accessToken}`)
          .set(sendableHeaders(input.headers));
        if (operation.method !== 'get' && operation.method !== 'delete') {
          call = call.set('Content-Type', 'application/json').send(JSON.stringify(input.body) ?? 'null');
        }
        const res = await call;
        const where = `${operation.method.toUpperCase()} ${path}?${query}`;
        expect({ where, status: res.status < 500 }).toEqual({ where, status: true });
        if (res.status >= 400) expectErrorForm(path, res);
      }),
      { numRuns: 600 },
    );
  }, 120000);
});
