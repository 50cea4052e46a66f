import fc from 'fast-check';
import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { bearer } from './resources.fixtures';

/** Whatever arrives, the answer is a 2xx or 4xx in the envelope, never a 500 (docs/api.md#errors). */
describe('resources: random input never breaks the service', () => {
  let t: ApiUnderTest;
  let user: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(async () => {
    await t.close();
  });

  function expectEnvelope(status: number, body: { error?: { code?: unknown; message?: unknown } }): void {
    expect(status).toBeGreaterThanOrEqual(200);
    expect(status).toBeLessThan(500);
    if (status >= 400) {
      expect(typeof body.error?.code).toBe('string');
      expect(typeof body.error?.message).toBe('string');
    } else {
      expect(body).toHaveProperty('data');
    }
  }

  const text = fc.oneof(fc.string(), fc.fullUnicodeString(), fc.constantFrom('', ' ', 'enterprise', 'standard', '\u0000', '\ud800'));
  const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
  const field = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const resourceBody = fc.record(
    {
      name: field(fc.oneof(text, scalar)),
      description: field(fc.oneof(text, scalar)),
      type: field(fc.oneof(fc.constantFrom('standard', 'premium', 'enterprise'), scalar)),
      metadata: field(fc.oneof(fc.dictionary(text, fc.oneof(scalar, fc.anything())), scalar, fc.array(scalar))),
      tags: field(fc.oneof(fc.array(fc.oneof(text, scalar)), scalar)),
      organization_id: field(fc.oneof(text, fc.constant('org_01JD3Q0F6K8W2M4N6P8R0T2V4X'))),
      id: field(text),
      status: field(text),
    },
    { requiredKeys: [] },
  );
  const anyBody = fc.oneof(resourceBody, fc.object(), fc.dictionary(text, fc.anything()));
  /** URL text, already encoded: any well-formed string, or raw sequences that decode badly. */
  const urlText = fc.oneof(
    fc.fullUnicodeString().map(encodeURIComponent),
    fc.constantFrom('%FF', '%00', '%C3%28', '%', '%zz', '[', ']', '%5B%5D', '..', '%2F'),
  );

  it('POST /resources', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const res = await t.http.post('/v2/resources').set(bearer(user)).send(body);
        expectEnvelope(res.status, res.body);
      }),
      { numRuns: 150 },
    );
  });

  it('POST /resources/bulk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyBody, { maxLength: 5 }), async (resources) => {
        const res = await t.http.post('/v2/resources/bulk').set(bearer(user)).send({ resources });
        expectEnvelope(res.status, res.body);
      }),
      { numRuns: 50 },
    );
  });

  it('GET /resources', async () => {
    const name = fc.constantFrom(
      'page',
      'per_page',
      'limit',
      'cursor',
      'sort',
      'fields',
      'filter[status]',
      'filter[type]',
      'filter[organization_id]',
      'filter[foo]',
      'filter',
      'hard',
    );
    const value = fc.oneof(
      urlText,
      fc.integer().map(String),
      fc.constantFrom('-created_at', 'name,-type', 'active,archived', 'enterprise', '0', '101', '1e3', 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.oneof(name, urlText), value), { maxLength: 5 }), async (pairs) => {
        const query = pairs.map(([key, item]) => `${key}=${item}`).join('&');
        const res = await t.http.get(`/v2/resources?${query}`).set(bearer(user));
        expectEnvelope(res.status, res.body);
      }),
      { numRuns: 150 },
    );
  });

  it('GET /resources/{id}', async () => {
    await fc.assert(
      fc.asyncProperty(urlText, async (id) => {
        const res = await t.http.get(`/v2/resources/${id}`).set(bearer(user));
        expectEnvelope(res.status, res.body);
      }),
      { numRuns: 50 },
    );
  });
});
