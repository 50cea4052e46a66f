import type { OpenAPIObject } from '@nestjs/swagger';
import { normalizeOpenApiDocument } from './openapi-normalizer';

function documentWith(paths: OpenAPIObject['paths'], components: OpenAPIObject['components'] = {}): OpenAPIObject {
  return { openapi: '3.0.0', info: { title: 't', version: '1' }, paths, components };
}

const ok = { '200': { description: 'ok' } };

describe('normalizeOpenApiDocument', () => {
  it('makes /v2 paths relative to the /v2 server and gives root paths their own server', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/users/me': { get: { operationId: 'Users_me', responses: ok } },
        '/v2': { get: { operationId: 'Root_index', responses: ok } },
        '/health/live': { get: { operationId: 'Health_live', responses: ok } },
        '/v2x/other': { get: { operationId: 'Other_get', responses: ok } },
      }),
      '/v2',
    );
    expect(Object.keys(result.paths).sort()).toEqual(['/', '/health/live', '/users/me', '/v2x/other']);
    expect(result.paths['/users/me'].servers).toBeUndefined();
    expect(result.paths['/health/live'].servers).toEqual([{ url: '/' }]);
    expect(result.paths['/v2x/other'].servers).toEqual([{ url: '/' }]);
  });

  it('turns the public marker into an empty security list', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/auth/login': { post: { operationId: 'Auth_login', responses: ok, 'x-public': true } as never },
        '/v2/users/me': { get: { operationId: 'Users_me', responses: ok } },
      }),
      '/v2',
    );
    const login = result.paths['/auth/login'].post as unknown as Record<string, unknown>;
    expect(login.security).toEqual([]);
    expect(login['x-public']).toBeUndefined();
    expect(result.paths['/users/me'].get?.security).toBeUndefined();
  });

  it('keeps security requirements naming declared schemes and drops the others', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {
          '/v2/api-keys': {
            post: { operationId: 'Keys_create', responses: ok, security: [{ bearer: [] }, { apiKey: [] }, { cookie: [] }] },
            get: { operationId: 'Keys_list', responses: ok, security: [{ apiKey: [] }] },
          },
        },
        { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, cookie: { type: 'apiKey', in: 'cookie', name: 's' } } },
      ),
      '/v2',
    );
    expect(result.paths['/api-keys'].post?.security).toEqual([{ bearer: [] }, { cookie: [] }]);
    expect(result.paths['/api-keys'].get?.security).toBeUndefined();
  });

  it('declares each path parameter once, as required, and drops ones the path lacks', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/resources/{id}/tags/{tag}': {
          get: {
            operationId: 'Tags_get',
            responses: ok,
            parameters: [
              { name: 'id', in: 'path', required: false, schema: { type: 'string' } },
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'gone', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'id', in: 'query', required: false, schema: { type: 'string' } },
            ],
          },
        },
      }),
      '/v2',
    );
    const parameters = result.paths['/resources/{id}/tags/{tag}'].get?.parameters;
    expect(parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'id', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'tag', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('leaves out catch-all paths that OpenAPI cannot express', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/files/{*path}': { get: { responses: ok } },
        '/v2/users/me': { get: { responses: ok } },
      }),
      '/v2',
    );
    expect(Object.keys(result.paths)).toEqual(['/users/me']);
  });

  it('makes operation ids unique and gives every operation a response', () => {
    const result = normalizeOpenApiDocument(
      documentWith({
        '/v2/a': { get: { operationId: 'Same_list', responses: ok } },
        '/v2/b': { get: { operationId: 'Same_list', responses: {} }, post: { responses: ok } },
      }),
      '/v2',
    );
    expect(result.paths['/a'].get?.operationId).toBe('Same_list');
    expect(result.paths['/b'].get?.operationId).toBe('Same_list_2');
    expect(result.paths['/b'].get?.responses).toMatchObject({ default: { description: 'Response' } });
    expect(result.paths['/b'].post?.operationId).toBe('b');
  });

  it('documents the errors any operation can answer, and 413/415 where a body is taken', () => {
    const result = normalizeOpenApiDocument(
      documentWith({ '/v2/a': { get: { responses: ok }, post: { responses: { ...ok, '400': { description: 'mine' } } } } }),
      '/v2',
    );
    expect(Object.keys(result.paths['/a'].get?.responses ?? {}).sort()).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(Object.keys(result.paths['/a'].post?.responses ?? {}).sort()).toEqual(['200', '400', '401', '413', '415', '429', '500', '503']);
    expect(result.paths['/a'].post?.responses['400']).toEqual({ description: 'mine' });
  });

  it('lists every credential on operations that name only the default bearer, and closes request bodies', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        { '/v2/a': { get: { security: [{ bearer: [] }], responses: ok }, post: { security: [{ cookie: [] }, { bearer: [] }], responses: ok } } },
        {
          schemas: { CreateThingDto: { type: 'object', properties: {} }, ThingView: { type: 'object', properties: {} } },
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer' },
            api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            cookie: { type: 'apiKey', in: 'cookie', name: 'rms_session' },
          },
        },
      ),
      '/v2',
    );
    expect(result.paths['/a'].get?.security).toEqual([{ bearer: [] }, { api_key: [] }, { cookie: [] }]);
    expect(result.paths['/a'].post?.security).toEqual([{ cookie: [] }, { bearer: [] }]);
    expect(result.components?.schemas?.CreateThingDto).toMatchObject({ additionalProperties: false });
    expect(result.components?.schemas?.ThingView).not.toHaveProperty('additionalProperties');
  });

  it('removes empty required lists from schemas', () => {
    const result = normalizeOpenApiDocument(
      documentWith(
        {},
        {
          schemas: {
            View: {
              type: 'object',
              required: [],
              properties: { nested: { type: 'object', required: [], properties: {} }, name: { type: 'string' } },
            },
            Kept: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          },
        },
      ),
      '/v2',
    );
    expect(JSON.stringify(result.components)).not.toContain('"required":[]');
    expect(result.components?.schemas?.Kept).toMatchObject({ required: ['id'] });
  });
});
