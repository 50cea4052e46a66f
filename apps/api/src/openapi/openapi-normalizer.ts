import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ReferenceObject } from '@nestjs/swagger';
import { PUBLIC_OPERATION } from '../common/decorators/public.decorator';

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `{name}` segments only: catch-alls (`{*path}`) and optional segments are not documentable. */
const DOCUMENTABLE_PATH = /^(\/|(\/([^{}/]+|\{[A-Za-z0-9_.-]+\})+)+)$/;
const PATH_PARAMETER = /\{([A-Za-z0-9_.-]+)\}/g;

type Parameter = ParameterObject | ReferenceObject;

const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeView' };
/**
 * Answers any operation can give, whatever its controller declares: a malformed request or two
 * credentials (400), a removed authentication method (401, public routes included), the rate
 * limit (429), a failure (500) and a dependency that is down (503). Operations with a body may
 * also answer 413 and 415.
 */
const CROSS_CUTTING_ERRORS: Record<string, string> = {
  '400': '`invalid_request` (malformed request, two credentials) or `validation_error`',
  '401': '`authentication_required`: missing, expired or removed credential',
  '429': '`rate_limit_exceeded`: see Retry-After',
  '500': '`internal_server_error`: quote the X-Request-ID',
  '503': '`service_unavailable`: a dependency did not answer, see Retry-After',
};
const BODY_ERRORS: Record<string, string> = {
  '413': '`payload_too_large`: body over 1 MiB',
  '415': '`unsupported_media_type`: send application/json',
};
const BODY_METHODS = new Set(['post', 'put', 'patch']);
type PublicMarked = OperationObject & { [PUBLIC_OPERATION]?: boolean };

/**
 * Makes the generated document valid whatever decorators a controller uses or forgets:
 * paths relative to the `/v2` server (root paths get their own `/` server), public operations
 * without security, security naming declared schemes only, every `{param}` of a path declared
 * once, unique operation ids, at least one response, and no empty `required` lists (invalid
 * in OpenAPI 3.0).
 */
export function normalizeOpenApiDocument(document: OpenAPIObject, prefix: string): OpenAPIObject {
  const paths: Record<string, PathItemObject> = {};
  const operationIds = new Set<string>();
  const schemes = new Set(Object.keys(document.components?.securitySchemes ?? {}));
  for (const [path, item] of Object.entries(document.paths)) {
    if (!DOCUMENTABLE_PATH.test(path)) continue;
    const inPrefix = path === prefix || path.startsWith(`${prefix}/`);
    const key = inPrefix ? path.slice(prefix.length) || '/' : path;
    const target: PathItemObject = paths[key] ?? (inPrefix ? {} : { servers: [{ url: '/' }] });
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!operation || target[method]) continue;
      target[method] = normalizeOperation(operation, key, operationIds, schemes);
      addCrossCuttingErrors(target[method], BODY_METHODS.has(method));
    }
    paths[key] = target;
  }
  removeEmptyRequired(document.components);
  closeRequestBodies(document.components?.schemas ?? {});
  return { ...document, paths };
}

function normalizeOperation(
  operation: PublicMarked,
  path: string,
  operationIds: Set<string>,
  schemes: Set<string>,
): OperationObject {
  const normalized: PublicMarked = { ...operation };
  if (normalized.security && normalized.security.length > 0) {
    // A requirement naming an undeclared scheme is invalid; without one left, the document's applies.
    const known = normalized.security.filter((requirement) => Object.keys(requirement).every((name) => schemes.has(name)));
    if (known.length > 0) normalized.security = known;
    else delete normalized.security;
  }
  if (isDefaultBearerOnly(normalized.security)) {
    // JWT, API key, session and OAuth token each authenticate every route that takes a credential; routes
    // that refuse one (API keys on /api-keys) name their schemes themselves.
    normalized.security = ['bearer', 'api_key', 'cookie', 'oauth2'].filter((name) => schemes.has(name)).map((name) => ({ [name]: [] }));
  }
  if (normalized[PUBLIC_OPERATION]) normalized.security = [];
  delete normalized[PUBLIC_OPERATION];
  normalized.parameters = normalizeParameters(operation.parameters ?? [], path);
  normalized.responses = { ...operation.responses };
  if (Object.keys(normalized.responses).length === 0) normalized.responses = { default: { description: 'Response' } };
  normalized.operationId = uniqueOperationId(operation.operationId ?? operationIdOf(path), operationIds);
  return normalized;
}

/** Declares each template parameter once, as required, and drops path parameters the path lacks. */
function normalizeParameters(parameters: Parameter[], path: string): Parameter[] {
  const templateNames = new Set([...path.matchAll(PATH_PARAMETER)].map((match) => match[1]));
  const seen = new Set<string>();
  const result: Parameter[] = [];
  for (const parameter of parameters) {
    if (!('name' in parameter)) {
      result.push(parameter);
      continue;
    }
    const key = `${parameter.in}:${parameter.name}`;
    if (seen.has(key)) continue;
    if (parameter.in === 'path' && !templateNames.has(parameter.name)) continue;
    seen.add(key);
    result.push(parameter.in === 'path' ? { ...parameter, required: true } : parameter);
  }
  for (const name of templateNames) {
    if (!seen.has(`path:${name}`)) {
      result.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  return result;
}

function isDefaultBearerOnly(security: OperationObject['security']): boolean {
  return security?.length === 1 && Object.keys(security[0]).length === 1 && 'bearer' in security[0];
}

/** Request bodies refuse unknown fields (a `validation_error`), so their schemas say so. */
function closeRequestBodies(schemas: Record<string, unknown>): void {
  for (const [name, schema] of Object.entries(schemas)) {
    const object = schema as { type?: unknown; additionalProperties?: unknown };
    if (name.endsWith('Dto') && object.type === 'object') object.additionalProperties ??= false;
  }
}

function addCrossCuttingErrors(operation: OperationObject | undefined, hasBody: boolean): void {
  if (!operation) return;
  const errors = hasBody ? { ...CROSS_CUTTING_ERRORS, ...BODY_ERRORS } : CROSS_CUTTING_ERRORS;
  for (const [status, description] of Object.entries(errors)) {
    operation.responses[status] ??= { description, content: { 'application/json': { schema: ERROR_ENVELOPE } } };
  }
}

function operationIdOf(path: string): string {
  return path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'root';
}

function uniqueOperationId(candidate: string, taken: Set<string>): string {
  let id = candidate;
  for (let n = 2; taken.has(id); n++) id = `${candidate}_${n}`;
  taken.add(id);
  return id;
}

function removeEmptyRequired(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) removeEmptyRequired(child);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (Array.isArray(record.required) && record.required.length === 0) delete record.required;
  for (const child of Object.values(record)) removeEmptyRequired(child);
}
