import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestApp, TestApp } from './support';

interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
}
type PathItem = Record<string, Operation> & { servers?: Array<{ url: string }> };

describe('OpenAPI (decisions 1)', () => {
  let t: TestApp;
  let document: {
    openapi: string;
    servers: Array<{ url: string }>;
    security: Array<Record<string, string[]>>;
    paths: Record<string, PathItem>;
    components: { securitySchemes: Record<string, Record<string, unknown>> };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    document = res.body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves a document that passes OpenAPI validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.openapi).toMatch(/^3\./);
  });

  it('puts the API under the /v2 server and root paths under their own', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/v2' })]);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/v2/'))).toEqual([]);
    expect(document.paths['/users/me'].get).toBeDefined();
    expect(document.paths['/users/me'].servers).toBeUndefined();
    for (const path of ['/health/live', '/health/ready', '/metrics']) {
      expect(document.paths[path].servers).toEqual([{ url: '/' }]);
    }
  });

  it('declares the bearer, API key, session cookie and OAuth schemes, any of which a route takes', () => {
    expect(document.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      api_key: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      cookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'rms_session' }),
      oauth2: expect.objectContaining({
        type: 'oauth2',
        flows: {
          authorizationCode: expect.objectContaining({ authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token' }),
          clientCredentials: expect.objectContaining({ tokenUrl: '/oauth/token' }),
        },
      }),
    });
    expect(document.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }, { oauth2: [] }]);
  });

  it('names only declared schemes in the security of operations', () => {
    const declared = Object.keys(document.components.securitySchemes);
    const named = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([key]) => key !== 'servers')
        .flatMap(([, operation]) => ((operation as Operation).security ?? []).flatMap((entry) => Object.keys(entry))),
    );
    expect(named.filter((name) => !declared.includes(name))).toEqual([]);
  });

  it('marks public operations as taking no credential', () => {
    for (const [path, method] of [
      ['/health/live', 'get'],
      ['/health/ready', 'get'],
      ['/metrics', 'get'],
      ['/auth/login', 'post'],
    ]) {
      expect(document.paths[path][method].security).toEqual([]);
    }
  });

  it('gives every operation a unique id', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([key]) => key !== 'servers')
        .map(([, operation]) => (operation as Operation).operationId),
    );
    expect(ids.length).toBeGreaterThan(5);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every parameter of every path template (the validator checks this for Swagger 2 only)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'servers') continue;
        const declared = ((operation as Operation).parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        for (const name of names) if (!declared.includes(name)) missing.push(`${method.toUpperCase()} ${path}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('serves the interactive docs as HTML without a credential', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');
    const init = await t.http.get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/v2');
  });

  it('serves the same document on every request', async () => {
    const again = await t.http.get('/openapi.json');
    expect(again.body).toEqual(document);
  });

  describe('tells the truth about what the service does', () => {
    type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };
    const schema = (name: string): Schema => (document as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas[name];

    it('documents 204 on every delete and logout', () => {
      for (const [path, method] of [['/resources/{id}', 'delete'], ['/api-keys/{id}', 'delete'], ['/auth/logout', 'post'], ['/session/logout', 'post']]) {
        expect(Object.keys((document.paths[path][method] as unknown as { responses: object }).responses)).toContain('204');
      }
    });

    it('offers the four credentials as alternatives where each works', () => {
      expect(document.paths['/resources'].get.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }, { oauth2: [] }]);
      expect(document.paths['/api-keys'].post.security).toEqual([{ cookie: [] }, { bearer: [] }]);
    });

    it('documents 400 (two credentials), 401, 429 and 503 on every operation', () => {
      for (const item of Object.values(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (method === 'servers') continue;
          expect(Object.keys((operation as unknown as { responses: object }).responses)).toEqual(expect.arrayContaining(['400', '401', '429', '503']));
        }
      }
    });

    it('types profile fields as strings, emails as email, ids with their pattern, and closes request bodies', () => {
      expect(schema('ProfileChangesDto').properties?.first_name).toMatchObject({ type: 'string', nullable: true, maxLength: 100 });
      expect(schema('ProfileChangesDto').properties?.avatar_url).toMatchObject({ type: 'string', format: 'uri' });
      expect(schema('RegisterDto').properties?.email).toMatchObject({ format: 'email', maxLength: 255 });
      expect(schema('UserView').properties?.id).toMatchObject({ pattern: '^usr_[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{26}$' });
      expect(schema('CreateResourceDto')).toMatchObject({ additionalProperties: false });
    });

    it('documents a fields projection with only id required', () => {
      expect(schema('ResourceProjectionView').required).toEqual(['id']);
    });
  });
});
