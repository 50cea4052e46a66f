import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks answers of the API against its own served `/openapi.json`: the status must be
 * documented for the operation, and a JSON body must match the documented schema. Every e2e
 * suite runs its answers through it (test/openapi-response-check.setup.ts), so the document
 * cannot drift from what the service does.
 */
interface MediaType {
  schema?: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface OperationObject {
  responses?: Record<string, ResponseObject>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject> & { servers?: Array<{ url: string }> }>;
  servers?: Array<{ url: string }>;
  components?: { schemas?: Record<string, object> };
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
  body: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
/** Node's own answer to an oversized header block, before any route. */
const ANY_ROUTE_STATUSES = new Set([431]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function templatePattern(prefix: string, template: string): RegExp {
  const parts = `${prefix}${template}`.split(/\{[^}]+\}/).map(escapeRegExp);
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

export class OpenApiResponseValidator {
  private readonly operations: CompiledOperation[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<object, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(toJsonSchema({ components: document.components ?? {} }), 'openapi');
    const defaultPrefix = (document.servers?.[0]?.url ?? '').replace(/\/$/, '');
    for (const [template, item] of Object.entries(document.paths)) {
      const prefix = (item.servers?.[0]?.url ?? defaultPrefix).replace(/\/$/, '');
      for (const method of METHODS) {
        const operation = item[method] as OperationObject | undefined;
        if (!operation) continue;
        this.operations.push({ method, pattern: templatePattern(prefix, template), template, responses: operation.responses ?? {} });
      }
    }
    // Literal paths before templated ones: /resources/bulk is not /resources/{id}.
    this.operations.sort((a, b) => (a.template.includes('{') ? 1 : 0) - (b.template.includes('{') ? 1 : 0));
  }

  /** The problems of one answer; empty when it matches the document (or is not the API's). */
  problems(answer: CheckedAnswer): string[] {
    const path = new URL(answer.url).pathname;
    const method = answer.method.toLowerCase();
    const candidates = this.operations.filter((operation) => operation.pattern.test(path));
    const operation = candidates.find((candidate) => candidate.method === method);
    if (!operation) return [];
    const documented = operation.responses[String(answer.status)] ?? operation.responses.default;
    const where = `${answer.method.toUpperCase()} ${operation.template} -> ${answer.status}`;
    if (!documented) {
      if (ANY_ROUTE_STATUSES.has(answer.status)) return [];
      return [`${where}: the status is not documented`];
    }
    const schema = documented.content?.['application/json']?.schema;
    const isJson = answer.contentType?.startsWith('application/json') === true;
    if (!schema || !isJson) return [];
    const validate = this.validatorFor(schema);
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map((error) => `${where}: body${error.instancePath} ${error.message ?? 'is invalid'}`);
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

/**
 * OpenAPI 3.0 schema to JSON Schema: `nullable: true` becomes a `null` alternative, and
 * `#/components/...` references point into the schema registered as `openapi`.
 */
function toJsonSchema(value: unknown): object {
  return convert(value) as object;
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value !== 'object' || value === null) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string' && item.startsWith('#/')) converted[key] = `openapi${item}`;
    else if (key !== 'nullable') converted[key] = convert(item);
  }
  if ((value as { nullable?: unknown }).nullable !== true) return converted;
  if (typeof converted.type === 'string') return { ...converted, type: [converted.type, 'null'] };
  return { anyOf: [converted, { type: 'null' }] };
}
