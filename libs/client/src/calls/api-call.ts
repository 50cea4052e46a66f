import { responseInfoOf, ResponseInfo } from './response-info';

/** A call's answer body with what its response said. */
export interface WithResponse<T> {
  readonly data: T;
  readonly response: ResponseInfo;
}

/** What openapi-fetch resolves with; the SDK's client throws every error answer. */
export interface FetchAnswer<Body> {
  data?: Body;
  response: Response;
}

/**
 * One call of a namespace (`rms.resources.get(id)`): awaited, it gives the record;
 * `.withResponse()` gives the record and the response's status, ETag, request id,
 * `Idempotent-Replayed` and rate-limit state. The request is sent once, when the call is made.
 */
export class ApiCall<T> implements PromiseLike<T> {
  private readonly answer: Promise<WithResponse<T>>;

  constructor(answer: Promise<WithResponse<T>>) {
    this.answer = answer;
  }

  withResponse(): Promise<WithResponse<T>> {
    return this.answer;
  }

  then<Fulfilled = T, Rejected = never>(
    onFulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.answer.then(({ data }) => data).then(onFulfilled, onRejected);
  }

  catch<Rejected = never>(onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null): Promise<T | Rejected> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onFinally);
  }
}

/** A call whose answer is `{ data: <record> }`: gives the record. */
export function recordCall<T>(call: Promise<FetchAnswer<{ data: T }>>): ApiCall<T> {
  return new ApiCall(
    call.then(({ data: body, response }) => {
      if (!body) throw new TypeError(`${response.url} answered ${response.status} without a body.`);
      return { data: body.data, response: responseInfoOf(response) };
    }),
  );
}

/** A call whose whole body is the answer (a bulk result, `{ data, meta }`). */
export function bodyCall<T>(call: Promise<FetchAnswer<T>>): ApiCall<T> {
  return new ApiCall(
    call.then(({ data: body, response }) => {
      if (body === undefined) throw new TypeError(`${response.url} answered ${response.status} without a body.`);
      return { data: body, response: responseInfoOf(response) };
    }),
  );
}

/** A call answered without a body (204, or a 304 asked for): gives undefined. */
export function emptyCall(call: Promise<FetchAnswer<unknown>>): ApiCall<undefined> {
  return new ApiCall(call.then(({ response }) => ({ data: undefined, response: responseInfoOf(response) })));
}
