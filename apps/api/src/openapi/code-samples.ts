import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject } from '@nestjs/swagger';

/** A JSON node of the document: its 3.1 schemas have keywords Nest's 3.0 types lack. */
type JsonObject = Record<string, unknown>;

/** Redoc's (and most renderers') extension for an operation's ready-made requests. */
export const CODE_SAMPLES = 'x-codeSamples';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** What each security scheme adds to a curl request; the credential itself is a shell variable. */
const CURL_CREDENTIALS: Record<string, string> = {
  bearer: '-H "Authorization: Bearer $RMS_ACCESS_TOKEN"',
  api_key: '-H "X-API-Key: $RMS_API_KEY"',
  oauth2: '-H "Authorization: Bearer $RMS_OAUTH_TOKEN"',
};

/** Where a document without a server is served from: a development checkout's. */
const DEVELOPMENT_ORIGIN = 'http://localhost:3000';

/** The credential a sample uses when an operation takes several: the one a script is likeliest to hold. */
const SCHEME_PREFERENCE = ['bearer', 'api_key', 'oauth2', 'cookie'];
const CSRF_HEADER = 'X-CSRF-Token';

/** Shown where a string has neither example nor format of its own. */
const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'ada@example.com',
  uri: 'https://hooks.example.com/rms',
  'uri-reference': 'https://hooks.example.com/rms',
  uuid: '3f8e2c1a-5b7d-4e9f-a1c2-6d4b8e0f7a93',
  'date-time': '2026-01-01T00:00:00Z',
};

/**
 * A curl request and an SDK call (`@rms/client`'s typed `rms.api`) for an operation, built from
 * its method, path, parameters, request body and security, so that they stay true as it changes.
 */
export function codeSamples(document: OpenAPIObject, path: string, method: string, operation: OperationObject): CodeSample[] {
  const samples = new SampleValues((document.components?.schemas ?? {}) as Record<string, JsonObject>);
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter)).filter((parameter) => parameter !== undefined);
  const pathValues = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, String(samples.of(parameterSchema(p)))]));
  const query = Object.fromEntries(parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, samples.of(parameterSchema(p))]));
  const headers = parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name);
  const body = requestBodyOf(operation);
  const bodyValue = body ? (body.schema.example ?? samples.of(body.schema)) : undefined;
  const schemes = new Set((operation.security ?? document.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const scheme = SCHEME_PREFERENCE.find((name) => schemes.has(name));
  const cookie = scheme === 'cookie' ? cookieNameOf(document) : undefined;
  // A session's unsafe request also carries its CSRF token.
  if (cookie && method !== 'get' && !headers.includes(CSRF_HEADER)) headers.push(CSRF_HEADER);
  return [
    { lang: 'Shell', label: 'curl', source: curlSample({ document, path, method, pathValues, query, headers, body, bodyValue, scheme, cookie }) },
    { lang: 'TypeScript', label: 'SDK', source: sdkSample({ path, method, pathValues, query, headers, body, bodyValue }) },
  ];
}

interface RequestBody {
  mediaType: string;
  schema: JsonObject;
}

interface SampleRequest {
  path: string;
  method: string;
  pathValues: Record<string, string>;
  query: Record<string, unknown>;
  headers: string[];
  body: RequestBody | undefined;
  bodyValue: unknown;
}

function curlSample(request: SampleRequest & { document: OpenAPIObject; scheme?: string; cookie?: string }): string {
  const origin = request.document.servers?.[0]?.url ?? '';
  const url = new URL(origin + fillPath(request.path, request.pathValues), DEVELOPMENT_ORIGIN);
  for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, String(value));
  const lines = [`curl -X ${request.method.toUpperCase()} ${shellQuote(url.toString())}`];
  if (request.scheme && CURL_CREDENTIALS[request.scheme]) lines.push(CURL_CREDENTIALS[request.scheme]);
  if (request.cookie) lines.push(`-b "${request.cookie}=$RMS_SESSION"`);
  for (const name of request.headers) lines.push(`-H "${name}: $${shellVariable(name)}"`);
  if (request.body?.mediaType === 'application/json') {
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(request.bodyValue))}`);
  } else if (request.body) {
    for (const [name, value] of Object.entries(request.bodyValue as JsonObject)) lines.push(`--data-urlencode ${shellQuote(`${name}=${String(value)}`)}`);
  }
  return lines.join(' \\\n  ');
}

function sdkSample(request: SampleRequest): string {
  const params: JsonObject = {};
  if (Object.keys(request.pathValues).length > 0) params.path = request.pathValues;
  if (Object.keys(request.query).length > 0) params.query = request.query;
  if (request.headers.length > 0) params.header = Object.fromEntries(request.headers.map((name) => [name, `<${name}>`]));
  const options: string[] = [];
  if (Object.keys(params).length > 0) options.push(`params: ${JSON.stringify(params)}`);
  if (request.body) options.push(`body: ${JSON.stringify(request.bodyValue)}`);
  if (request.body && request.body.mediaType !== 'application/json') options.push('bodySerializer: (body) => new URLSearchParams(body)');
  const argument = options.length > 0 ? `, { ${options.join(', ')} }` : '';
  return `const { data, error } = await rms.api.${request.method.toUpperCase()}('${request.path}'${argument});`;
}

function requestBodyOf(operation: OperationObject): RequestBody | undefined {
  const body = operation.requestBody;
  if (!body || !('content' in body)) return undefined;
  const [mediaType, media] = Object.entries(body.content)[0] ?? [];
  if (!mediaType || !media?.schema) return undefined;
  return { mediaType, schema: media.schema as JsonObject };
}

function resolveParameter(document: OpenAPIObject, parameter: ParameterObject | ReferenceObject): ParameterObject | undefined {
  if (!('$ref' in parameter)) return parameter;
  const name = parameter.$ref.replace('#/components/parameters/', '');
  const resolved = document.components?.parameters?.[name];
  return resolved && !('$ref' in resolved) ? resolved : undefined;
}

function parameterSchema(parameter: ParameterObject): JsonObject {
  const schema = (parameter.schema ?? {}) as JsonObject;
  return parameter.example === undefined ? schema : { ...schema, example: parameter.example };
}

function cookieNameOf(document: OpenAPIObject): string | undefined {
  const scheme = document.components?.securitySchemes?.cookie;
  return scheme && 'name' in scheme ? scheme.name : undefined;
}

function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? name));
}

/** One shell word in single quotes, which the shell takes literally. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `X-CSRF-Token` as the shell variable `X_CSRF_TOKEN`. */
function shellVariable(header: string): string {
  return header.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** An example value of a schema: its own example, else one made from its keywords. */
class SampleValues {
  constructor(private readonly schemas: Record<string, JsonObject>) {}

  of(schema: JsonObject, depth = 0): unknown {
    if (typeof schema.$ref === 'string') return this.of(this.schemas[schema.$ref.replace('#/components/schemas/', '')] ?? {}, depth + 1);
    if (schema.example !== undefined) return schema.example;
    if (schema.const !== undefined) return schema.const;
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
      const alternatives = schema[keyword];
      if (Array.isArray(alternatives) && alternatives.length > 0) return this.of(alternatives[0] as JsonObject, depth + 1);
    }
    const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[])[0] : schema.type;
    if (type === 'object' || schema.properties) return depth > 5 ? {} : this.object(schema, depth);
    if (type === 'array') {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return minItems > 0 && schema.items ? [this.of(schema.items as JsonObject, depth + 1)] : [];
    }
    if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 1;
    if (type === 'boolean') return true;
    if (type === 'null') return null;
    if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format]) return FORMAT_EXAMPLES[schema.format];
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 1;
    return 'x'.repeat(Math.max(minLength, 1));
  }

  /** The required properties, and those the schema gives an example of. */
  private object(schema: JsonObject, depth: number): JsonObject {
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const value: JsonObject = {};
    for (const [name, property] of Object.entries(properties)) {
      if (required.has(name) || property.example !== undefined) value[name] = this.of(property, depth + 1);
    }
    return value;
  }
}
