import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ReferenceObject } from '@nestjs/swagger';
import { PUBLIC_OPERATION } from '../common/decorators/public.decorator';

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `{name}` segments only: catch-alls (`{*path}`) and optional segments are not documentable. */
const DOCUMENTABLE_PATH = /^(\/|(\/([^{}/]+|\{[A-Za-z0-9_.-]+\})+)+)$/;
const PATH_PARAMETER = /\{([A-Za-z0-9_.-]+)\}/g;

type Parameter = ParameterObject | ReferenceObject;
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
    }
    paths[key] = target;
  }
  removeEmptyRequired(document.components);
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
  if (normalized[PUBLIC_OPERATION]) normalized.security = [];
  delete normalized[PUBLIC_OPERATION];
  normalized.parameters = normalizeParameters(operation.parameters ?? [], path);
  if (!normalized.responses || Object.keys(normalized.responses).length === 0) {
    normalized.responses = { default: { description: 'Response' } };
  }
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
