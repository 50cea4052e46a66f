import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Checks answers of the API against its own served `/openapi.json`: the status must be
 * documented for the operation, its content type too, every header the answer carries must be
 * documented on that response, and a JSON body must match the documented schema. Every e2e suite
 * runs its answers through it (test/openapi-response-check.setup.ts), so the document cannot
 * drift from what the service does.
 */
interface MediaType {
  schema?: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, unknown>;
}
interface ReferenceObject {
  $ref: string;
}
interface OperationObject {
  responses?: Record<string, ResponseObject | ReferenceObject>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  servers?: Array<{ url: string }>;
  components?: { responses?: Record<string, ResponseObject> };
}

interface CompiledOperation {
  method: string;
  pattern: RegExp;
  template: string;
  responses: Record<string, ResponseObject>;
}

export interface CheckedAnswer {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  /** Header names as sent; their values are the document's to describe, not to check here. */
  headerNames: string[];
  body: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/**
 * Headers of HTTP itself, which OpenAPI leaves out (`Content-Type` is the media type of the
 * content; RFC 9110 framing and caching negotiation), and CORS's, which the browser reads on
 * cross-origin requests and OpenAPI has no place for.
 */
const HTTP_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'vary']);
const CORS_HEADER = /^access-control-/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function templatePattern(prefix: string, template: string): RegExp {
  const parts = `${prefix}${template}`.split(/\{[^}]+\}/).map(escapeRegExp);
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/** `application/json; charset=utf-8` -> `application/json`. */
function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export class OpenApiResponseValidator {
  private readonly operations: CompiledOperation[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<object, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(toJsonSchema({ components: document.components ?? {} }), 'openapi');
    // Paths are full; the server's own path (none when it is an origin) goes before them.
    const prefix = new URL(document.servers?.[0]?.url ?? '/', 'http://server').pathname.replace(/\/$/, '');
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const responses = Object.fromEntries(Object.entries(operation.responses ?? {}).map(([status, response]) => [status, resolveResponse(document, response)]));
        this.operations.push({ method, pattern: templatePattern(prefix, template), template, responses });
      }
    }
  }

  /** The problems of one answer; empty when it matches the document (or is not the API's). */
  problems(answer: CheckedAnswer): string[] {
    const path = new URL(answer.url).pathname;
    const method = answer.method.toLowerCase();
    // A literal path shadows templated ones, as in OpenAPI and in the service: /v2/resources/bulk is
    // never /v2/resources/{id}, and a method it lacks is a 405 that no operation documents.
    const matching = this.operations.filter((candidate) => candidate.pattern.test(path));
    const literal = matching.filter((candidate) => !candidate.template.includes('{'));
    const operation = (literal.length > 0 ? literal : matching).find((candidate) => candidate.method === method);
    if (!operation) return [];
    const documented = operation.responses[String(answer.status)] ?? operation.responses.default;
    const where = `${answer.method.toUpperCase()} ${operation.template} -> ${answer.status}`;
    if (!documented) return [`${where}: the status is not documented`];
    const problems = this.headerProblems(answer, documented).map((problem) => `${where}: ${problem}`);
    if (answer.contentType === undefined) return problems;
    const mediaType = mediaTypeOf(answer.contentType);
    const content = Object.fromEntries(Object.entries(documented.content ?? {}).map(([type, media]) => [mediaTypeOf(type), media]));
    if (!(mediaType in content)) return [...problems, `${where}: the content type ${mediaType} is not documented`];
    const schema = content[mediaType].schema;
    if (!schema || mediaType !== 'application/json') return problems;
    const validate = this.validatorFor(schema);
    if (validate(answer.body)) return problems;
    return [...problems, ...(validate.errors ?? []).map((error) => `${where}: body${error.instancePath} ${error.message ?? 'is invalid'}`)];
  }

  private headerProblems(answer: CheckedAnswer, documented: ResponseObject): string[] {
    const names = new Set(Object.keys(documented.headers ?? {}).map((name) => name.toLowerCase()));
    return answer.headerNames
      .map((name) => name.toLowerCase())
      .filter((name) => !HTTP_HEADERS.has(name) && !CORS_HEADER.test(name) && !names.has(name))
      .map((name) => `the header ${name} is not documented`);
  }

  /** Where a value (a request body of a sample, say) breaks a schema of the document, which may refer to its components. */
  schemaProblems(schema: object, value: unknown): string[] {
    const validate = this.validatorFor(schema);
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
  }

  private validatorFor(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema));
      this.validators.set(schema, validate);
    }
    return validate;
  }
}

/** A response, or the one of `components.responses` it refers to. */
function resolveResponse(document: OpenApiDocument, response: ResponseObject | ReferenceObject): ResponseObject {
  if (!('$ref' in response)) return response;
  const resolved = document.components?.responses?.[response.$ref.replace('#/components/responses/', '')];
  if (!resolved) throw new Error(`${response.$ref} is not in the document`);
  return resolved;
}

/** `#/components/...` references point into the components registered as the schema `openapi`. */
function toJsonSchema(value: unknown): object {
  return convert(value) as object;
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value !== 'object' || value === null) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    converted[key] = key === '$ref' && typeof item === 'string' && item.startsWith('#/') ? `openapi${item}` : convert(item);
  }
  return converted;
}
