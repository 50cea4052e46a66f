import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
} from '@nestjs/swagger';
import { CODE_SAMPLES, codeSamples } from './code-samples';
import { PUBLIC_OPERATION } from '../platform/decorators/public.decorator';
import { IDEMPOTENT_METHODS, isReplayable } from '../platform/idempotency/idempotency.guard';
import { ONE_TIME_SECRETS_OPERATION } from '../platform/idempotency/one-time-secret.decorator';
import {
  REQUEST_HEADER_PARAMETERS,
  requestHeaderParameter,
  RESPONSE_HEADERS,
  ResponseHeaderName,
  responseHeaders,
} from '../platform/openapi/http-headers';
import { isExemptPath } from '../rate-limit/rate-limit.policy';

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `{name}` segments only: catch-alls (`{*path}`) and optional segments are not documentable. */
const DOCUMENTABLE_PATH = /^(\/|(\/([^{}/]+|\{[A-Za-z0-9_.-]+\})+)+)$/;
const PATH_PARAMETER = /\{([A-Za-z0-9_.-]+)\}/g;

type Parameter = ParameterObject | ReferenceObject;
/** A node of the document as JSON: OpenAPI 3.1 schemas have keywords Nest's 3.0 types lack. */
type JsonObject = Record<string, unknown>;

const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeView' };
/**
 * Answers any operation can give, whatever its controller declares: a malformed request or two
 * credentials (400), a removed authentication method (401, public routes included), the rate
 * limit (429), an oversized header block (431, from Node before any route), a failure (500) and
 * a dependency that is down (503). Operations with a body may also answer 413 and 415.
 */
const CROSS_CUTTING_ERRORS: Record<string, string> = {
  '400': '`invalid_request` (malformed request, two credentials) or `validation_error`',
  '401': '`authentication_required`: missing, expired or removed credential',
  '429': '`rate_limit_exceeded`: see Retry-After',
  '431': '`invalid_request`: the request line and headers exceed 16 KiB',
  '500': '`internal_server_error`: quote the X-Request-ID',
  '503': '`service_unavailable`: a dependency did not answer, see Retry-After',
};
const BODY_ERRORS: Record<string, string> = {
  '413': '`payload_too_large`: body over 1 MiB',
  '415': '`unsupported_media_type`: send application/json',
};
const BODY_METHODS = new Set(['post', 'put', 'patch']);
/** Answers of an operation that takes `Idempotency-Key`. */
const IDEMPOTENCY_ERRORS: Record<string, string> = {
  '409': '`idempotency_key_in_progress`: a request with this Idempotency-Key is still running, see Retry-After; `idempotency_key_answer_lost`: it took effect, or may have, and its answer was lost',
  '422': '`idempotency_key_reused`: the Idempotency-Key was used for another request',
};
/**
 * The components the answers above become, shared by every operation that gives them: a suffix
 * tells the variants apart, `OnWrite` with the idempotency headers, `Uncounted` without the
 * rate-limit ones (docs/decisions.md).
 */
const ERROR_RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'AuthenticationRequired',
  '409': 'IdempotencyKeyConflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'IdempotencyKeyReused',
  '429': 'RateLimitExceeded',
  '431': 'RequestHeaderFieldsTooLarge',
  '500': 'InternalServerError',
  '503': 'ServiceUnavailable',
};
const RATE_LIMIT_HEADERS: ResponseHeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const RETRY_STATUSES = new Set(['429', '503']);

/**
 * Every string of a query or JSON body is refused when it holds a NUL (the service's one text
 * rule); a string schema without a pattern or format of its own says so. Lone surrogates, the
 * rule's other half, have no form in a JSON Schema pattern.
 */
const NUL_FREE = '^[^\\u0000]*$';

type MarkedOperation = OperationObject & { [PUBLIC_OPERATION]?: boolean; [ONE_TIME_SECRETS_OPERATION]?: string[] };

/**
 * Makes the generated document an exact OpenAPI 3.1 description, whatever decorators a
 * controller uses or forgets: full paths under the one server, public operations without
 * security, security naming declared schemes only, every `{param}` of a path declared once, at
 * least one response, the answers every operation can give, the headers every answer carries,
 * request bodies closed and their strings NUL-free, 3.0 keywords (`nullable`, boolean
 * `exclusiveMinimum`) in their 3.1 form, and a curl and an SDK sample on every operation.
 */
export function normalizeOpenApiDocument(generated: OpenAPIObject): OpenAPIObject {
  // A copy without shared nodes: Nest hands out decorator metadata by reference, and a schema
  // object used twice (in a request and in an answer) is changed here for one use only.
  const document = JSON.parse(JSON.stringify(generated)) as OpenAPIObject;
  const schemes = new Set(Object.keys(document.components?.securitySchemes ?? {}));
  const paths: Record<string, PathItemObject> = {};
  const sharedResponses = new SharedResponses();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!DOCUMENTABLE_PATH.test(path)) continue;
    const normalized: PathItemObject = {};
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (operation) normalized[method] = normalizeOperation(operation, path, method, schemes, sharedResponses);
    }
    paths[path] = normalized;
  }
  const components = {
    ...document.components,
    responses: { ...document.components?.responses, ...sharedResponses.components },
    headers: { ...document.components?.headers, ...RESPONSE_HEADERS },
    parameters: { ...document.components?.parameters, ...REQUEST_HEADER_PARAMETERS },
  };
  closeRequestBodies(components.schemas ?? {});
  const normalized = { ...document, paths, components };
  excludeNulFromRequestText(normalized);
  return withCodeSamples(toOpenApi31(normalized) as OpenAPIObject);
}

/** Gives every operation a curl request and an SDK call, made from what the document says of it. */
function withCodeSamples(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (operation) Object.assign(operation, { [CODE_SAMPLES]: codeSamples(document, path, method, operation) });
    }
  }
  return document;
}

/** The answers the normalizer adds, each described once under `components.responses` and referred to. */
class SharedResponses {
  readonly components: Record<string, ResponseObject> = {};

  refer(status: string, response: ResponseObject, headerNames: ResponseHeaderName[]): ReferenceObject {
    const onWrite = headerNames.includes('Idempotent-Replayed') && status !== '409' && status !== '422';
    const uncounted = !headerNames.includes('RateLimit');
    const name = `${ERROR_RESPONSE_NAMES[status]}${onWrite ? 'OnWrite' : ''}${uncounted ? 'Uncounted' : ''}`;
    const known = this.components[name];
    // The name is made from what varies; two different answers under one name would be a mistake here.
    if (known && JSON.stringify(known) !== JSON.stringify(response)) throw new Error(`Two different answers would be components.responses.${name}`);
    this.components[name] = response;
    return { $ref: `#/components/responses/${name}` };
  }
}

function normalizeOperation(operation: MarkedOperation, path: string, method: string, schemes: Set<string>, shared: SharedResponses): OperationObject {
  const normalized: MarkedOperation = { ...operation };
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
  const secretFields = normalized[ONE_TIME_SECRETS_OPERATION] ?? [];
  delete normalized[ONE_TIME_SECRETS_OPERATION];

  // The Idempotency-Key guard claims keys on every POST and PATCH that carries a credential.
  const takesCredential = normalized.security === undefined || normalized.security.length > 0;
  const idempotent = takesCredential && IDEMPOTENT_METHODS.has(method.toUpperCase());
  normalized.parameters = normalizeParameters(operation.parameters ?? [], path);
  if (idempotent) normalized.parameters.push(requestHeaderParameter('Idempotency-Key'));

  const responses = { ...operation.responses } as Record<string, ResponseObject | ReferenceObject>;
  if (Object.keys(responses).length === 0) responses.default = { description: 'Response' };
  const errors = {
    ...CROSS_CUTTING_ERRORS,
    ...(BODY_METHODS.has(method) ? BODY_ERRORS : {}),
    ...(idempotent ? IDEMPOTENCY_ERRORS : {}),
  };
  const added = new Set<string>();
  for (const [status, description] of Object.entries(errors)) {
    const declared = responses[status];
    if (!declared) {
      responses[status] = { description, content: { 'application/json': { schema: ERROR_ENVELOPE } } };
      added.add(status);
    }
    // A page or redirect status of the authorization endpoint is also the envelope for these causes.
    else if (!('$ref' in declared) && !declared.content?.['application/json']) {
      responses[status] = { ...declared, content: { ...declared.content, 'application/json': { schema: ERROR_ENVELOPE } } };
    }
  }
  for (const [status, response] of Object.entries(responses)) {
    if ('$ref' in response) continue;
    const names: ResponseHeaderName[] = ['X-Request-ID'];
    if (!isExemptPath(path)) names.push(...RATE_LIMIT_HEADERS);
    if (RETRY_STATUSES.has(status) || (idempotent && status === '409')) names.push('Retry-After');
    if (idempotent && isReplayable(Number(status))) names.push('Idempotent-Replayed');
    if (idempotent && secretFields.length > 0 && status.startsWith('2')) names.push('Idempotent-Secret-Omitted');
    const withHeaders = { ...response, headers: { ...responseHeaders(...names), ...response.headers } };
    responses[status] = added.has(status) ? shared.refer(status, withHeaders, names) : withHeaders;
  }
  normalized.responses = responses;
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

/** Gives every free-text string of a request body or query the NUL-free pattern. */
function excludeNulFromRequestText(document: { paths: Record<string, PathItemObject>; components: { schemas?: object } }): void {
  const schemas = (document.components.schemas ?? {}) as Record<string, JsonObject>;
  const visited = new Set<JsonObject>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null || visited.has(node as JsonObject)) return;
    const schema = node as JsonObject;
    visited.add(schema);
    if (typeof schema.$ref === 'string') return visit(schemas[schema.$ref.replace('#/components/schemas/', '')]);
    const isFreeText = schema.type === 'string' && schema.pattern === undefined && schema.format === undefined && schema.enum === undefined;
    if (isFreeText) schema.pattern = NUL_FREE;
    for (const keyword of ['items', 'additionalProperties', 'allOf', 'oneOf', 'anyOf']) visit(schema[keyword]);
    for (const keyword of ['properties', 'patternProperties']) {
      if (typeof schema[keyword] === 'object' && schema[keyword] !== null) Object.values(schema[keyword] as JsonObject).forEach(visit);
    }
  };
  for (const item of Object.values(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const parameter of operation.parameters ?? []) {
        if ('in' in parameter && parameter.in === 'query') visit(parameter.schema);
      }
      const body = operation.requestBody;
      if (body && 'content' in body) Object.values(body.content).forEach((media) => visit(media.schema));
    }
  }
}

/** Values that are data, not schemas: nothing inside them is a keyword. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * The 3.0 keywords Nest writes, in their OpenAPI 3.1 (JSON Schema 2020-12) form: `nullable`
 * becomes a `null` type (and a `null` enum value), or a `null` alternative beside a reference
 * or a composition; boolean `exclusiveMinimum`/`exclusiveMaximum` become the bound itself.
 */
function toOpenApi31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi31);
  if (typeof node !== 'object' || node === null) return node;
  const converted: JsonObject = {};
  for (const [key, value] of Object.entries(node)) converted[key] = DATA_KEYWORDS.has(key) ? value : toOpenApi31(value);
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof converted[exclusive] !== 'boolean') continue;
    if (converted[exclusive] === true) converted[exclusive] = converted[bound];
    else delete converted[exclusive];
    if (converted[exclusive] !== undefined) delete converted[bound];
  }
  // Only the boolean keyword: a property named `nullable` in a `properties` map is a schema.
  if (typeof converted.nullable !== 'boolean') return converted;
  const nullable = converted.nullable;
  delete converted.nullable;
  if (!nullable) return converted;
  if (typeof converted.type === 'string') {
    const withNull: JsonObject = { ...converted, type: [converted.type, 'null'] };
    const values: unknown[] | undefined = Array.isArray(converted.enum) ? converted.enum : undefined;
    if (values && !values.includes(null)) withNull.enum = [...values, null];
    return withNull;
  }
  const alternatives: unknown[] | undefined = Array.isArray(converted.oneOf) ? converted.oneOf : undefined;
  if (alternatives) return { ...converted, oneOf: [...alternatives, { type: 'null' }] };
  const { description, example, ...alternative } = converted;
  return { ...(description === undefined ? {} : { description }), ...(example === undefined ? {} : { example }), oneOf: [alternative, { type: 'null' }] };
}
