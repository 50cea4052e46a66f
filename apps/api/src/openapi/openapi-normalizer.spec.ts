import type { OpenAPIObject } from '@nestjs/swagger';
import { normalizeOpenApiDocument } from './openapi-normalizer';

function documentWith(paths: OpenAPIObject['paths'], components: OpenAPIObject['components'] = {}): OpenAPIObject {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths, components };
}

const ok = { '200': { description: 'ok' } };
const SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer' },
  api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  cookie: { type: 'apiKey', in: 'cookie', name: 'rms_session' },
} as const;

/** The nodes of a normalized document, read as plain JSON. */
function json(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}

/** A response, or the one of `components.responses` it refers to. */
function resolved(document: OpenAPIObject, response: unknown): Record<string, unknown> {
  const reference = json(response).$ref;
  return typeof reference === 'string' ? json(document.components?.responses?.[reference.replace('#/components/responses/', '')]) : json(response);
}

describe('normalizeOpenApiDocument', () => {
  it('keeps full paths, without servers of their own', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/users/me': { get: { operationId: 'getCurrentUser', responses: ok } },
        '/health/live': { get: { operationId: 'checkLiveness', responses: ok } },
      }),
    );
    expect(Object.keys(result.paths)).toEqual(['/v2/users/me', '/health/live']);
    expect(result.paths['/health/live'].servers).toBeUndefined();
  });

  it('turns the public marker into an empty security list', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/auth/login': { post: { operationId: 'logIn', responses: ok, 'x-public': true } as never },
        '/v2/users/me': { get: { operationId: 'getCurrentUser', responses: ok } },
      }),
    );
    const login = json(result.paths['/v2/auth/login'].post);
    expect(login.security).toEqual([]);
    expect(login['x-public']).toBeUndefined();
    expect(result.paths['/v2/users/me'].get?.security).toBeUndefined();
  });

  it('keeps security requirements naming declared schemes and drops the others', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {
          '/v2/api-keys': {
            post: { operationId: 'createKey', responses: ok, security: [{ bearer: [] }, { apiKey: [] }, { cookie: [] }] },
            get: { operationId: 'listKeys', responses: ok, security: [{ apiKey: [] }] },
          },
        },
        { securitySchemes: { bearer: SCHEMES.bearer, cookie: SCHEMES.cookie } },
      ),
    );
    expect(result.paths['/v2/api-keys'].post?.security).toEqual([{ bearer: [] }, { cookie: [] }]);
    expect(result.paths['/v2/api-keys'].get?.security).toBeUndefined();
  });

  it('declares each path parameter once, as required, and drops ones the path lacks', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/resources/{id}/tags/{tag}': {
          get: {
            operationId: 'getTag',
            responses: ok,
            parameters: [
              { name: 'id', in: 'path', required: false, schema: { type: 'string' } },
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'gone', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
            ],
          },
        },
      }),
    );
    expect(result.paths['/v2/resources/{id}/tags/{tag}'].get?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
      { name: 'tag', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('leaves out catch-all paths that OpenAPI cannot express, and gives every operation a response', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/files/{*path}': { get: { responses: ok } },
        '/v2/users/me': { get: { operationId: 'getCurrentUser', responses: {} } },
      }),
    );
    expect(Object.keys(result.paths)).toEqual(['/v2/users/me']);
    expect(result.paths['/v2/users/me'].get?.responses).toMatchObject({ default: { description: 'Response' } });
  });

  it('documents the errors any operation can answer, 413/415 where a body is taken, and the envelope beside a page', () => {
    const page = { description: 'page', content: { 'text/html': { schema: { type: 'string' } } } };
    const result = normalizeOpenApiDocument(
      documentWith({ '/v2/a': { get: { responses: { ...ok, '401': page } }, post: { responses: { ...ok, '400': { description: 'mine', content: { 'application/json': {} } } } } } }),
    );
    const get = result.paths['/v2/a'].get?.responses ?? {};
    expect(Object.keys(get).sort()).toEqual(['200', '400', '401', '429', '431', '500', '503']);
    expect(Object.keys(json(json(get['401']).content))).toEqual(['text/html', 'application/json']);
    const post = result.paths['/v2/a'].post?.responses ?? {};
    expect(Object.keys(post).sort()).toEqual(['200', '400', '401', '409', '413', '415', '422', '429', '431', '500', '503']);
    expect(json(post['400']).description).toBe('mine');
  });

  it('documents X-Request-ID on every answer, the rate-limit headers where requests are counted, and Retry-After on 429 and 503', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/users/me': { get: { operationId: 'getCurrentUser', responses: ok } },
        '/health/live': { get: { operationId: 'checkLiveness', responses: ok } },
      }),
    );
    const headersOf = (path: string, status: string): string[] =>
      Object.keys(json(resolved(result, json(result.paths[path].get?.responses)[status]).headers));
    expect(headersOf('/v2/users/me', '200')).toEqual(['X-Request-ID', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']);
    expect(headersOf('/v2/users/me', '429')).toContain('Retry-After');
    expect(headersOf('/v2/users/me', '503')).toContain('Retry-After');
    expect(headersOf('/health/live', '200')).toEqual(['X-Request-ID']);
    expect(json(result.components?.headers)['X-Request-ID']).toMatchObject({ required: true });
  });

  it('describes each answer it adds once, under components.responses, and refers to it from every operation', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {
          '/v2/users/me': { get: { operationId: 'getCurrentUser', responses: ok }, patch: { operationId: 'updateCurrentUser', responses: ok } },
          '/v2/users': { get: { operationId: 'listUsers', responses: ok } },
          '/health/live': { get: { operationId: 'checkLiveness', responses: ok } },
        },
        { securitySchemes: SCHEMES },
      ),
    );
    const responses = (path: string, method: 'get' | 'patch'): Record<string, unknown> => json(result.paths[path][method]?.responses);
    expect(responses('/v2/users/me', 'get')['429']).toEqual({ $ref: '#/components/responses/RateLimitExceeded' });
    expect(responses('/v2/users', 'get')['429']).toEqual({ $ref: '#/components/responses/RateLimitExceeded' });
    expect(responses('/health/live', 'get')['429']).toEqual({ $ref: '#/components/responses/RateLimitExceededUncounted' });
    expect(responses('/v2/users/me', 'patch')['401']).toEqual({ $ref: '#/components/responses/AuthenticationRequiredOnWrite' });
    expect(responses('/v2/users/me', 'get')['200']).toMatchObject({ description: 'ok' });
    expect(Object.keys(json(result.components?.responses)).sort()).toEqual(
      [
        'AuthenticationRequired',
        'AuthenticationRequiredOnWrite',
        'AuthenticationRequiredUncounted',
        'BadRequest',
        'BadRequestUncounted',
        'IdempotencyKeyConflict',
        'IdempotencyKeyReused',
        'InternalServerError',
        'InternalServerErrorUncounted',
        'PayloadTooLargeOnWrite',
        'RateLimitExceeded',
        'RateLimitExceededUncounted',
        'RequestHeaderFieldsTooLarge',
        'RequestHeaderFieldsTooLargeOnWrite',
        'RequestHeaderFieldsTooLargeUncounted',
        'ServiceUnavailable',
        'ServiceUnavailableUncounted',
        'UnsupportedMediaTypeOnWrite',
      ].sort(),
    );
  });

  it('takes Idempotency-Key on POST and PATCH that carry a credential, replays say so, one-time secrets are named', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {
          '/v2/keys': {
            post: { operationId: 'createKey', responses: { '201': { description: 'made' } }, 'x-one-time-secrets': ['key'] } as never,
            get: { operationId: 'listKeys', responses: ok },
          },
          '/v2/auth/login': { post: { operationId: 'logIn', responses: ok, 'x-public': true } as never },
        },
        { securitySchemes: SCHEMES },
      ),
    );
    const create = json(result.paths['/v2/keys'].post);
    expect(create.parameters).toEqual([{ $ref: '#/components/parameters/Idempotency-Key' }]);
    expect(create['x-one-time-secrets']).toBeUndefined();
    const responses = json(create.responses);
    expect(Object.keys(json(json(responses['201']).headers))).toEqual(expect.arrayContaining(['Idempotent-Replayed', 'Idempotent-Secret-Omitted']));
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['409', '422']));
    expect(Object.keys(result.paths['/v2/auth/login'].post?.responses ?? {})).not.toContain('422');
    for (const status of ['400', '429', '500']) expect(Object.keys(json(resolved(result, responses[status]).headers))).not.toContain('Idempotent-Replayed');
    expect(Object.keys(json(resolved(result, responses['401']).headers))).toContain('Idempotent-Replayed');
    expect(result.paths['/v2/keys'].get?.parameters).toEqual([]);
    expect(result.paths['/v2/auth/login'].post?.parameters).toEqual([]);
    expect(json(result.components?.parameters)['Idempotency-Key']).toMatchObject({ in: 'header', schema: { maxLength: 255 } });
  });

  it('lists every credential on operations that name only the default bearer, and closes request bodies', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        { '/v2/a': { get: { security: [{ bearer: [] }], responses: ok }, post: { security: [{ cookie: [] }, { bearer: [] }], responses: ok } } },
        { schemas: { CreateThingDto: { type: 'object', properties: {} }, ThingView: { type: 'object', properties: {} } }, securitySchemes: SCHEMES },
      ),
    );
    expect(result.paths['/v2/a'].get?.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }]);
    expect(result.paths['/v2/a'].post?.security).toEqual([{ cookie: [] }, { bearer: [] }]);
    expect(result.components?.schemas?.CreateThingDto).toMatchObject({ additionalProperties: false });
    expect(result.components?.schemas?.ThingView).not.toHaveProperty('additionalProperties');
  });

  it('gives free text of request bodies and queries the NUL-free pattern, and leaves answers and formats alone', () => {
    const shared = { type: 'string' };
    const result = normalizeOpenApiDocument(
      documentWith(
        {
          '/v2/things': {
            post: {
              operationId: 'createThing',
              parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
              requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThingDto' } } } },
              responses: { '201': { description: 'made', content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingView' } } } } },
            },
          },
        },
        {
          schemas: {
            CreateThingDto: {
              type: 'object',
              properties: { name: shared, slug: { type: 'string', pattern: '^[a-z]+$' }, email: { type: 'string', format: 'email' }, tags: { type: 'array', items: { type: 'string' } } },
            },
            ThingView: { type: 'object', properties: { name: shared } },
          },
        },
      ),
    );
    const dto = json(json(result.components?.schemas?.CreateThingDto).properties);
    expect(dto.name).toEqual({ type: 'string', pattern: '^[^\\u0000]*$' });
    expect(dto.slug).toEqual({ type: 'string', pattern: '^[a-z]+$' });
    expect(dto.email).toEqual({ type: 'string', format: 'email' });
    expect(json(dto.tags).items).toEqual({ type: 'string', pattern: '^[^\\u0000]*$' });
    expect(json(json(result.paths['/v2/things'].post?.parameters?.[0]).schema)).toEqual({ type: 'string', pattern: '^[^\\u0000]*$' });
    expect(json(json(result.components?.schemas?.ThingView).properties).name).toEqual({ type: 'string' });
  });

  it('writes nullable and boolean exclusive bounds in their OpenAPI 3.1 form', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {},
        {
          schemas: {
            View: {
              type: 'object',
              properties: {
                note: { type: 'string', nullable: true },
                kind: { type: 'string', enum: ['a', 'b'], nullable: true },
                owner: { allOf: [{ $ref: '#/components/schemas/Owner' }], nullable: true, description: 'who' },
                value: { oneOf: [{ type: 'string' }, { type: 'number' }], nullable: true },
                plain: { type: 'string', nullable: false },
                above: { type: 'number', minimum: 0, exclusiveMinimum: true },
                below: { type: 'number', maximum: 9, exclusiveMaximum: false },
                nullable: { type: 'boolean' },
              },
            },
          },
        },
      ),
    );
    expect(json(json(result.components?.schemas?.View).properties)).toEqual({
      note: { type: ['string', 'null'] },
      kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
      owner: { description: 'who', oneOf: [{ allOf: [{ $ref: '#/components/schemas/Owner' }] }, { type: 'null' }] },
      value: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
      plain: { type: 'string' },
      above: { type: 'number', exclusiveMinimum: 0 },
      below: { type: 'number', maximum: 9 },
      nullable: { type: 'boolean' },
    });
  });
});
