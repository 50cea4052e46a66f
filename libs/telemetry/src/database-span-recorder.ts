import { Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { DatabaseCall } from './database-call';
import { tracer } from './spans';

/** The database semantic conventions' attributes of a call, written into one object. */
function callAttributes(call: DatabaseCall): Attributes {
  const attributes: Attributes = {
    [ATTR_DB_SYSTEM_NAME]: call.system,
    [ATTR_DB_OPERATION_NAME]: call.operation,
    [ATTR_DB_QUERY_TEXT]: call.queryText,
  };
  if (call.namespace !== undefined) attributes[ATTR_DB_NAMESPACE] = call.namespace;
  if (call.server) {
    attributes[ATTR_SERVER_ADDRESS] = call.server.address;
    if (call.server.port !== undefined) attributes[ATTR_SERVER_PORT] = call.server.port;
  }
  return attributes;
}

/** The code a database answered a failure with: PostgreSQL's SQLSTATE (`23505`), or none. */
function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** A span named `{operation} {database}` (or the operation alone), ended with the call's outcome. */
export async function recordDatabaseCall<T>(call: DatabaseCall, work: () => Promise<T>): Promise<T> {
  const name = call.namespace ? `${call.operation} ${call.namespace}` : call.operation;
  // Set once it is made: given to startSpan, they are cleaned twice, once for the sampler, which
  // for a child of a recorded span follows its parent and reads none.
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT }).setAttributes(callAttributes(call));
  try {
    const result = await work();
    span.end();
    return result;
  } catch (error) {
    const code = codeOf(error);
    const type = error instanceof Error ? error.name : typeof error;
    const message = code === undefined ? `${call.system} error of type ${type}` : `${call.system} error of type ${type} (code ${code})`;
    span.recordException({ name: type, message });
    span.setAttributes({ [ATTR_ERROR_TYPE]: code ?? type, ...(code !== undefined && { [ATTR_DB_RESPONSE_STATUS_CODE]: code }) });
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.end();
    throw error;
  }
}
