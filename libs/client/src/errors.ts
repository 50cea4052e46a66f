import type { ErrorCode, FieldProblem } from './api-types';
import { isRecord, parseJson } from './json-shapes';

export const REQUEST_ID_HEADER = 'X-Request-ID';

/** The base of every error the SDK throws, so that `catch` can tell them from others. */
export class RmsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error answer (4xx or 5xx): its status, its headers and the request id to quote to support. */
export abstract class RmsResponseError extends RmsError {
  readonly status: number;
  readonly requestId: string | null;
  readonly headers: Headers;

  constructor(message: string, response: Response) {
    super(message);
    this.status = response.status;
    this.requestId = response.headers.get(REQUEST_ID_HEADER);
    this.headers = response.headers;
  }
}

/** An answer in the service's envelope `{ error: { code, message, details? } }`. */
export class RmsApiError extends RmsResponseError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldProblem[],
    response: Response,
  ) {
    super(message, response);
  }
}

/** An answer of `/oauth/*` in RFC 6749 form, `{ error, error_description }`. */
export class RmsOAuthError extends RmsResponseError {
  constructor(
    readonly error: string,
    readonly errorDescription: string,
    response: Response,
  ) {
    super(`${error}: ${errorDescription}`, response);
  }
}

/** An answer in neither form, such as a proxy's HTML page; `body` is its text. */
export class RmsUnexpectedResponseError extends RmsResponseError {
  constructor(
    readonly body: string,
    response: Response,
  ) {
    super(`The service answered ${response.status} without an error body the SDK knows.`, response);
  }
}

function fieldProblems(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is FieldProblem => isRecord(item) && typeof item.field === 'string' && typeof item.message === 'string',
  );
}

/** The typed error of a 4xx or 5xx answer; reads its body. */
export async function errorOf(response: Response): Promise<RmsResponseError> {
  const text = await response.text();
  const body = parseJson(text);
  const envelope = isRecord(body) ? body.error : undefined;
  if (isRecord(envelope) && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
    // The document enumerates the codes, and the service answers with no other.
    return new RmsApiError(envelope.code as ErrorCode, envelope.message, fieldProblems(envelope.details), response);
  }
  if (isRecord(body) && typeof body.error === 'string') {
    const description = typeof body.error_description === 'string' ? body.error_description : '';
    return new RmsOAuthError(body.error, description, response);
  }
  return new RmsUnexpectedResponseError(text, response);
}
