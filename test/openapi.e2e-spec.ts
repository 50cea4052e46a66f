import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { EVENT_KINDS } from '@app/common';
import { OpenApiResponseValidator } from '@app/testing/openapi-response-validator';
import { signatureHeaders } from '../apps/worker/src/delivery/webhook-signature';
import { connectTierApi, ApiUnderTest } from './support';

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name?: string; in?: string; $ref?: string }>;
  requestBody?: { content: Record<string, { schema?: Json; example?: unknown }> };
  responses: Record<string, Response | { $ref: string }>;
  'x-codeSamples'?: Array<{ lang: string; label: string; source: string }>;
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: Json }>;
}
type PathItem = Record<string, Operation>;
interface Document {
  openapi: string;
  info: { license?: { name: string; identifier?: string } };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, PathItem>;
  webhooks: Record<string, PathItem>;
  components: {
    schemas: Record<string, Json>;
    headers: Record<string, Json>;
    parameters: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    responses: Record<string, Response>;
  };
}

/** The words a POSIX shell reads from a command (no expansion): quotes and escapes removed, continued lines joined. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i];
    if (char === '\\') {
      // An escaped character stands for itself; an escaped line end joins the lines.
      if (command[i + 1] !== '\n') word = (word ?? '') + command[i + 1];
      i++;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (char === '"') {
      const end = command.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** A curl command's method, URL, headers, cookie and body. */
function parseCurl(command: string): { method: string; url: URL; headers: Map<string, string>; cookie?: string; json?: string; form: string[] } {
  const [program, ...words] = shellWords(command);
  expect(program).toBe('curl');
  const parsed = { method: 'GET', url: new URL('http://unset'), headers: new Map<string, string>(), cookie: undefined as string | undefined, json: undefined as string | undefined, form: [] as string[] };
  for (let i = 0; i < words.length; i++) {
    const [option, value] = [words[i], words[i + 1]];
    if (option === '-X') parsed.method = value;
    else if (option === '-H') parsed.headers.set(value.slice(0, value.indexOf(':')).toLowerCase(), value.slice(value.indexOf(':') + 1).trim());
    else if (option === '-b') parsed.cookie = value;
    else if (option === '-d') parsed.json = value;
    else if (option === '--data-urlencode') parsed.form.push(value);
    else {
      parsed.url = new URL(option);
      continue;
    }
    i++;
  }
  return parsed;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Where the service answers outside `/v2` (docs/api.md#root-paths). */
const ROOT_PATH = /^\/(v2\/|oauth\/|health\/|metrics$|\.well-known\/)/;

describe('OpenAPI (docs/api.md#root-paths)', () => {
  let t: ApiUnderTest;
  let document: Document;

  beforeAll(async () => {
    t = await connectTierApi();
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    document = res.body;
  });
  afterAll(async () => {
    await t.close();
  });

  const operations = (): Array<{ path: string; method: string; operation: Operation }> =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.has(method))
        .map(([method, operation]) => ({ path, method, operation })),
    );
  const webhookOperations = (): Array<{ kind: string; operation: Operation }> =>
    Object.entries(document.webhooks).flatMap(([kind, item]) => Object.values(item).map((operation) => ({ kind, operation })));
  const schema = (name: string): Json => document.components.schemas[name];
  /** An operation's answers, those shared as `components.responses` resolved. */
  const responsesOf = (operation: Operation): Record<string, Response> =>
    Object.fromEntries(
      Object.entries(operation.responses).map(([status, response]) => [status, '$ref' in response ? document.components.responses[response.$ref.split('/').pop() ?? ''] : response]),
    );
  const resolve = (node: Json): Json =>
    typeof node.$ref === 'string' ? resolve(schema(node.$ref.replace('#/components/schemas/', ''))) : node;

  it('serves an OpenAPI 3.1 document that passes validation', async () => {
    expect(document.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it("names package.json's license", () => {
    const { license } = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as { license: string };
    expect(document.info.license).toEqual({ name: license, identifier: `LicenseRef-${license}` });
  });

  it('has one server, the public origin, and full paths that need no other', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: 'http://localhost:3000' })]);
    for (const [path, item] of Object.entries(document.paths)) {
      expect({ path, full: ROOT_PATH.test(path) }).toEqual({ path, full: true });
      expect(item.servers).toBeUndefined();
    }
    expect(document.paths['/v2/resources'].get).toBeDefined();
    for (const path of ['/oauth/token', '/health/ready', '/metrics', '/.well-known/oauth-authorization-server']) expect(document.paths[path]).toBeDefined();
  });

  it('speaks 3.1: no nullable, no boolean exclusive bounds', () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('"nullable"');
    expect(text).not.toMatch(/"exclusive(Minimum|Maximum)":(true|false)/);
    expect(schema('ProfileChangesDto').properties).toMatchObject({ first_name: { type: ['string', 'null'], maxLength: 100 } });
  });

  it('declares its tags, each described, in the order a newcomer meets them, and tags every operation with one', () => {
    const names = document.tags.map((tag) => tag.name);
    expect(names[0]).toBe('Authentication');
    expect(names.indexOf('Resources')).toBeLessThan(names.indexOf('API keys'));
    expect(names[names.length - 1]).toBe('Operations');
    for (const tag of document.tags) expect(tag.description?.length).toBeGreaterThan(20);
    const used = [...operations().map(({ operation }) => operation), ...webhookOperations().map(({ operation }) => operation)].flatMap((operation) => {
      expect(operation.tags).toHaveLength(1);
      return operation.tags ?? [];
    });
    expect([...new Set(used)].sort()).toEqual([...names].sort());
  });

  it('gives every operation a readable, unique id, a summary and a description', () => {
    const all = [...operations().map(({ operation }) => operation), ...webhookOperations().map(({ operation }) => operation)];
    const ids = all.map((operation) => operation.operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listResources', 'getResource', 'createWebhook', 'exchangeOAuthToken', 'logIn']));
    for (const operation of all) {
      expect({ id: operation.operationId, summary: operation.summary?.length ?? 0 }).toEqual({ id: operation.operationId, summary: expect.any(Number) });
      expect(operation.summary).toMatch(/\S/);
      expect(operation.description).toMatch(/\S/);
    }
  });

  describe('list meta', () => {
    const metaOf = (path: string): Json => {
      const body = responsesOf(document.paths[path].get)['200'].content?.['application/json'].schema as Json;
      return (body.properties as Record<string, Json>).meta;
    };

    it('names the offset meta (with its links) and the cursor meta (next, prev, has_more)', () => {
      expect(schema('OffsetPageMetaView')).toMatchObject({
        required: expect.arrayContaining(['page', 'per_page', 'total', 'total_pages', 'links']),
        properties: { links: { $ref: '#/components/schemas/OffsetPageLinksView' } },
      });
      expect(schema('OffsetPageLinksView')).toMatchObject({
        required: expect.arrayContaining(['first', 'prev', 'next', 'last']),
        properties: { prev: { type: ['string', 'null'] }, next: { type: ['string', 'null'] } },
      });
      expect(schema('CursorPageMetaView')).toMatchObject({
        required: expect.arrayContaining(['cursor', 'limit']),
        properties: { cursor: { $ref: '#/components/schemas/PageCursorView' } },
      });
      expect(schema('PageCursorView')).toMatchObject({
        required: expect.arrayContaining(['next', 'prev', 'has_more']),
        properties: { next: { type: ['string', 'null'] }, prev: { type: ['string', 'null'] }, has_more: { type: 'boolean' } },
      });
    });

    it('refers every list to its meta by name: events by cursor, resources either way, the others by offset', () => {
      expect(metaOf('/v2/events')).toEqual({ $ref: '#/components/schemas/CursorPageMetaView' });
      expect(metaOf('/v2/resources')).toEqual({
        oneOf: [{ $ref: '#/components/schemas/OffsetPageMetaView' }, { $ref: '#/components/schemas/CursorPageMetaView' }],
      });
      for (const path of ['/v2/users', '/v2/api-keys', '/v2/organizations', '/v2/webhooks', '/v2/oauth-clients']) {
        expect(metaOf(path)).toEqual({ $ref: '#/components/schemas/OffsetPageMetaView' });
      }
    });
  });

  it('has no open bag in any answer: every object names its properties or types its values', () => {
    const open: string[] = [];
    const seen = new Set<Json>();
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${where}[${index}]`));
      if (typeof node !== 'object' || node === null || seen.has(node as Json)) return;
      const current = node as Json;
      seen.add(current);
      if (typeof current.$ref === 'string') return walk(resolve(current), current.$ref);
      const isObject = current.type === 'object' || (Array.isArray(current.type) && current.type.includes('object'));
      const typed = current.properties || current.patternProperties || typeof current.additionalProperties === 'object' || current.maxProperties === 0;
      if (current.additionalProperties === true || (isObject && !typed)) open.push(where);
      for (const keyword of ['items', 'additionalProperties', 'allOf', 'oneOf', 'anyOf']) walk(current[keyword], `${where}.${keyword}`);
      for (const keyword of ['properties', 'patternProperties']) {
        for (const [name, child] of Object.entries((current[keyword] as Json | undefined) ?? {})) walk(child, `${where}.${name}`);
      }
    };
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(responsesOf(operation))) {
        for (const [type, media] of Object.entries(response.content ?? {})) walk(media.schema, `${method.toUpperCase()} ${path} ${status} ${type}`);
      }
    }
    for (const { kind, operation } of webhookOperations()) walk(operation.requestBody?.content['application/json'].schema, `webhook ${kind}`);
    expect(open).toEqual([]);
  });

  describe('headers', () => {
    const headersOf = (path: string, method: string, status: string): string[] =>
      Object.keys(responsesOf(document.paths[path][method])[status].headers ?? {});

    it('are described once, as components, and referred to', () => {
      for (const name of ['X-Request-ID', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit', 'Retry-After', 'ETag', 'Location', 'Idempotent-Replayed', 'Idempotent-Secret-Omitted', 'Cache-Control']) {
        expect(document.components.headers[name]).toMatchObject({ description: expect.any(String), schema: expect.any(Object) });
      }
      expect(responsesOf(document.paths['/v2/users/me'].get)['200'].headers?.['X-Request-ID']).toEqual({ $ref: '#/components/headers/X-Request-ID' });
    });

    it('X-Request-ID on every answer; the rate-limit headers wherever requests are counted; Retry-After on 429 and 503', () => {
      for (const { path, method, operation } of operations()) {
        for (const [status, response] of Object.entries(responsesOf(operation))) {
          const names = Object.keys(response.headers ?? {});
          const where = `${method} ${path} ${status}`;
          expect({ where, names }).toEqual({ where, names: expect.arrayContaining(['X-Request-ID']) });
          if (!/^\/(health|metrics)/.test(path)) {
            expect({ where, names }).toEqual({ where, names: expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']) });
          }
          if (status === '429' || status === '503') expect({ where, names }).toEqual({ where, names: expect.arrayContaining(['Retry-After']) });
        }
      }
    });

    it('ETag on single resources, idempotency headers on writes, Cache-Control where it is set, cookies and redirects', () => {
      expect(headersOf('/v2/resources/{id}', 'get', '200')).toContain('ETag');
      expect(headersOf('/v2/resources/{id}', 'get', '304')).toContain('ETag');
      expect(headersOf('/v2/resources', 'post', '201')).toEqual(expect.arrayContaining(['ETag', 'Idempotent-Replayed']));
      expect(document.paths['/v2/resources'].post.parameters).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
      for (const path of ['/v2/api-keys', '/v2/webhooks', '/v2/oauth-clients']) expect(headersOf(path, 'post', '201')).toContain('Idempotent-Secret-Omitted');
      expect(headersOf('/v2/resources', 'post', '201')).not.toContain('Idempotent-Secret-Omitted');
      for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
        expect(headersOf(path, 'post', '200')).toEqual(expect.arrayContaining(['Cache-Control', 'Pragma']));
        expect(headersOf(path, 'post', '400')).toContain('Cache-Control');
      }
      expect(headersOf('/.well-known/oauth-authorization-server', 'get', '200')).toContain('Cache-Control');
      expect(headersOf('/health/ready', 'get', '200')).toContain('Cache-Control');
      expect(headersOf('/v2/session/login', 'post', '200')).toContain('Set-Cookie');
      expect(headersOf('/oauth/authorize', 'post', '303')).toEqual(expect.arrayContaining(['Location', 'Cache-Control']));
      expect(headersOf('/oauth/authorize', 'get', '200')).toEqual(expect.arrayContaining(['Content-Security-Policy', 'X-Frame-Options']));
    });
  });

  describe('webhooks: the events as a contract (docs/api.md#event-payload)', () => {
    it('has one POST per event kind, with its payload schema and the signature headers of both schemes', () => {
      expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_KINDS].sort());
      const workerHeaders = Object.keys(signatureHeaders('whsec_c2VjcmV0', { id: 'evt_x', type: 'resource.created' }, '{}', 0)).filter((name) => name !== 'Content-Type');
      for (const kind of EVENT_KINDS) {
        const post = document.webhooks[kind].post;
        const body = post.requestBody?.content['application/json'];
        const eventSchema = resolve(body?.schema as Json);
        expect(eventSchema.properties).toMatchObject({ type: { const: kind } });
        const names = (post.parameters ?? []).map((parameter) => {
          const resolved = parameter.$ref ? (document.components.parameters[parameter.$ref.replace('#/components/parameters/', '')] as { name: string; in: string }) : parameter;
          expect(resolved.in).toBe('header');
          return resolved.name;
        });
        expect(names.sort()).toEqual([...workerHeaders].sort());
        expect(body?.example).toMatchObject({ type: kind });
      }
    });

    it('types data.object per kind: resources, users and payments', () => {
      const objectOf = (kind: string): unknown => {
        const eventSchema = resolve(document.webhooks[kind].post.requestBody?.content['application/json'].schema as Json);
        return ((eventSchema.properties as Record<string, Json>).data.properties as Record<string, Json>).object;
      };
      for (const kind of ['resource.created', 'resource.updated', 'resource.deleted']) expect(objectOf(kind)).toEqual({ $ref: '#/components/schemas/ResourceView' });
      for (const kind of ['user.created', 'user.updated']) expect(objectOf(kind)).toEqual({ $ref: '#/components/schemas/UserView' });
      for (const kind of ['payment.succeeded', 'payment.failed']) expect(objectOf(kind)).toEqual({ $ref: '#/components/schemas/PaymentView' });
    });

    it('answers GET /v2/events and GET /v2/events/{id} with the same schemas, by reference', () => {
      const deliveredSchemas = EVENT_KINDS.map((kind) => document.webhooks[kind].post.requestBody?.content['application/json'].schema);
      expect(schema('Event').oneOf).toEqual(deliveredSchemas);
      const list = responsesOf(document.paths['/v2/events'].get)['200'].content?.['application/json'].schema as Json;
      expect((list.properties as Record<string, Json>).data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Event' } });
      const single = responsesOf(document.paths['/v2/events/{id}'].get)['200'].content?.['application/json'].schema as Json;
      expect((single.properties as Record<string, Json>).data).toEqual({ $ref: '#/components/schemas/Event' });
    });
  });

  describe('is as strict as the service', () => {
    it('closes request bodies, types ids, emails and profile fields', () => {
      expect(schema('CreateResourceDto')).toMatchObject({ additionalProperties: false });
      expect(schema('RegisterDto').properties).toMatchObject({ email: { format: 'email', maxLength: 255 } });
      expect(schema('UserView').properties).toMatchObject({ id: { pattern: '^usr_[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{26}$' } });
      expect(schema('ProfileChangesDto').properties).toMatchObject({ avatar_url: { type: ['string', 'null'], format: 'uri' } });
    });

    it('states the minimums the service checks, and null only where it is taken', () => {
      expect(schema('CreateApiKeyDto').properties).toMatchObject({ scopes: { minItems: 1, uniqueItems: true } });
      expect(schema('CreateOAuthClientDto').properties).toMatchObject({ scopes: { minItems: 1 }, redirect_uris: { minItems: 1 } });
      expect(schema('CreateOAuthClientDto').properties).toMatchObject({ confidential: { type: 'boolean' } });
      expect(schema('RefreshDto').properties).toMatchObject({ refresh_token: { minLength: 1, maxLength: 4096 } });
      expect(schema('BulkUpdateResourcesDto').properties).toMatchObject({ ids: { minItems: 1 }, updates: { minProperties: 1 } });
      expect(schema('CreateResourceDto').properties).toMatchObject({ tags: { items: { minLength: 1, maxLength: 50 } }, metadata: { maxProperties: 50 } });
    });

    it('documents a fields projection with only id required', () => {
      expect(schema('ResourceProjectionView').required).toEqual(['id']);
    });

    it('gives every JSON request body an example', () => {
      const missing = operations()
        .filter(({ operation }) => operation.requestBody?.content['application/json'])
        .filter(({ operation }) => {
          const body = resolve(operation.requestBody?.content['application/json'].schema as Json);
          const properties = Object.values((body.properties as Record<string, Json> | undefined) ?? {}).map(resolve);
          return body.example === undefined && properties.some((property) => property.example === undefined && property.allOf === undefined && property.items === undefined);
        })
        .map(({ path, method }) => `${method} ${path}`);
      expect(missing).toEqual([]);
    });
  });

  it('declares the bearer, API key, session cookie and OAuth schemes, any of which a route takes', () => {
    expect(document.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      api_key: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      cookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'rms_session' }),
      oauth2: expect.objectContaining({
        type: 'oauth2',
        flows: {
          // Absolute, from PUBLIC_URL: an OAuth client follows them as they are.
          authorizationCode: expect.objectContaining({
            authorizationUrl: 'http://localhost:3000/oauth/authorize',
            tokenUrl: 'http://localhost:3000/oauth/token',
          }),
          clientCredentials: expect.objectContaining({ tokenUrl: 'http://localhost:3000/oauth/token' }),
        },
      }),
    });
    expect(document.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }, { oauth2: [] }]);
  });

  it('names only declared schemes in the security of operations, and offers the credentials as alternatives', () => {
    const declared = Object.keys(document.components.securitySchemes);
    const named = operations().flatMap(({ operation }) => (operation.security ?? []).flatMap((entry) => Object.keys(entry)));
    expect(named.filter((name) => !declared.includes(name))).toEqual([]);
    expect(document.paths['/v2/resources'].get.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }, { oauth2: [] }]);
    expect(document.paths['/v2/api-keys'].post.security).toEqual([{ cookie: [] }, { bearer: [] }]);
  });

  it('marks public operations as taking no credential', () => {
    for (const [path, method] of [
      ['/health/live', 'get'],
      ['/health/ready', 'get'],
      ['/metrics', 'get'],
      ['/v2/auth/login', 'post'],
      ['/oauth/token', 'post'],
    ]) {
      expect(document.paths[path][method].security).toEqual([]);
    }
  });

  it('declares every parameter of every path template', () => {
    const missing: string[] = [];
    for (const { path, method, operation } of operations()) {
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) if (!declared.includes(name)) missing.push(`${method.toUpperCase()} ${path}: ${name}`);
    }
    expect(missing).toEqual([]);
  });

  it('documents 204 on every delete and logout, and 400, 401, 429, 431 and 503 on every operation', () => {
    for (const [path, method] of [['/v2/resources/{id}', 'delete'], ['/v2/api-keys/{id}', 'delete'], ['/v2/auth/logout', 'post'], ['/v2/session/logout', 'post']]) {
      expect(Object.keys(document.paths[path][method].responses)).toContain('204');
    }
    for (const { operation } of operations()) expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401', '429', '431', '503']));
  });

  it('gives every operation a curl request and an SDK call that the operation accepts', () => {
    const validator = new OpenApiResponseValidator(document);
    const origin = document.servers[0].url;
    const templates = Object.keys(document.paths).map((template) => ({ template, pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
    const problems: string[] = [];
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const samples = operation['x-codeSamples'] ?? [];
      expect({ where, labels: samples.map((sample) => sample.label) }).toEqual({ where, labels: ['curl', 'SDK'] });
      const [curl, sdk] = samples;

      const request = parseCurl(curl.source);
      expect(request.url.origin).toBe(origin);
      const matched = templates.filter(({ pattern }) => pattern.test(request.url.pathname)).map(({ template }) => template);
      if (!matched.includes(path)) problems.push(`${where}: curl's ${request.url.pathname} is not this operation's path`);
      if (request.method.toLowerCase() !== method) problems.push(`${where}: curl's method is ${request.method}`);
      const security = operation.security ?? document.security;
      const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)));
      const credential = request.headers.has('authorization') ? ['bearer', 'oauth2'] : request.headers.has('x-api-key') ? ['api_key'] : request.cookie ? ['cookie'] : [];
      if (security.length === 0 ? credential.length > 0 : !credential.some((scheme) => schemes.has(scheme))) {
        problems.push(`${where}: curl's credential (${credential.join(' or ') || 'none'}) is not one the operation takes`);
      }
      for (const parameter of operation.parameters ?? []) {
        const resolved = (parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop() ?? ''] : parameter) as { name: string; in: string; required?: boolean };
        if (resolved.required && resolved.in === 'header' && !request.headers.has(resolved.name.toLowerCase())) problems.push(`${where}: curl lacks ${resolved.name}`);
        if (resolved.required && resolved.in === 'query' && !request.url.searchParams.has(resolved.name)) problems.push(`${where}: curl lacks ?${resolved.name}`);
      }
      const content = operation.requestBody?.content ?? {};
      if (content['application/json']) {
        expect({ where, contentType: request.headers.get('content-type') }).toEqual({ where, contentType: 'application/json' });
        const body: unknown = JSON.parse(request.json ?? 'undefined');
        problems.push(...validator.schemaProblems(content['application/json'].schema ?? {}, body).map((problem) => `${where}: curl's body ${problem}`));
      } else if (content['application/x-www-form-urlencoded']) {
        const form = Object.fromEntries(new URLSearchParams(request.form.join('&')));
        problems.push(...validator.schemaProblems(content['application/x-www-form-urlencoded'].schema ?? {}, form).map((problem) => `${where}: curl's form ${problem}`));
      } else if (request.json !== undefined || request.form.length > 0) problems.push(`${where}: curl sends a body the operation does not take`);

      expect(sdk.lang).toBe('TypeScript');
      expect(sdk.source).toContain(`await rms.api.${method.toUpperCase()}('${path}'`);
    }
    expect(problems).toEqual([]);
  });

  it('serves the API reference at /docs from the service itself, under a CSP without inline script', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
        "connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    const scripts = [...res.text.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attributes]) => /src="([^"]+)"/.exec(attributes)?.[1])).toEqual([expect.stringMatching(/^\/docs\/redoc-[\d.]+\.standalone\.js$/), '/docs/reference.js']);
    expect(scripts.map(([, , body]) => body)).toEqual(['', '']);
    expect(res.text).not.toMatch(/https?:\/\//);
    const boot = await t.http.get('/docs/reference.js');
    expect(boot.status).toBe(200);
    expect(boot.headers['content-type']).toMatch(/^text\/javascript/);
    expect(boot.text).toContain('Redoc.init(');
    const bundle = await t.http.get(scripts[0][1].match(/src="([^"]+)"/)?.[1] ?? '');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(bundle.text).not.toContain('cdn.redoc.ly');
  });

  it('serves the same document on every request', async () => {
    const again = await t.http.get('/openapi.json');
    expect(again.body).toEqual(document);
  });
});
