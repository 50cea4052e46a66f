import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { codeSamples } from './code-samples';

function documentWith(operation: OperationObject): OpenAPIObject {
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    security: [{ bearer: [] }],
    paths: { '/v2/notes/{id}': { post: operation } },
    components: {
      securitySchemes: { cookie: { type: 'apiKey', in: 'cookie', name: 'rms_session' } },
      schemas: { NoteDto: { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 3 }, pinned: { type: 'boolean', example: true } } } },
    },
  };
}

const sample = (operation: OperationObject, label: string): string =>
  codeSamples(documentWith(operation), '/v2/notes/{id}', 'post', operation).find((candidate) => candidate.label === label)?.source ?? '';

describe('codeSamples', () => {
  const body = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NoteDto' } } } };
  const path = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string' as const, example: 'nte_1' } };

  it('writes a curl request with the path filled in, the credential as a shell variable and a body made from the schema', () => {
    expect(sample({ parameters: [path], requestBody: body, responses: {} }, 'curl')).toBe(
      [
        "curl -X POST 'https://api.example.com/v2/notes/nte_1'",
        '-H "Authorization: Bearer $RMS_ACCESS_TOKEN"',
        "-H 'Content-Type: application/json'",
        `-d '{"text":"xxx","pinned":true}'`,
      ].join(' \\\n  '),
    );
  });

  it('keeps a quote of an example inside one shell word', () => {
    const quoted = { required: true, content: { 'application/json': { schema: { type: 'object', example: { text: "it's" } } } } };
    expect(sample({ parameters: [path], requestBody: quoted, responses: {} }, 'curl')).toContain(`-d '{"text":"it'\\''s"}'`);
  });

  it('sends no credential for a public operation, and the session cookie with its CSRF token where only the session is taken', () => {
    expect(sample({ parameters: [path], security: [], responses: {} }, 'curl')).not.toMatch(/Authorization|X-API-Key|-b /);
    expect(sample({ parameters: [path], security: [{ cookie: [] }], responses: {} }, 'curl')).toContain('-b "rms_session=$RMS_SESSION" \\\n  -H "X-CSRF-Token: $X_CSRF_TOKEN"');
  });

  it("calls the SDK's typed path with the operation's path and method", () => {
    expect(sample({ parameters: [path], requestBody: body, responses: {} }, 'SDK')).toBe(
      `const { data, error } = await rms.api.POST('/v2/notes/{id}', { params: {"path":{"id":"nte_1"}}, body: {"text":"xxx","pinned":true} });`,
    );
  });
});
