import request from 'supertest';
import { CheckedAnswer, OpenApiResponseValidator } from '@app/testing/openapi-response-validator';

/**
 * Every answer an e2e suite receives from the API, through supertest or `fetch`, is checked
 * against the API's own served `/openapi.json`: an undocumented status or a body that does not
 * match its schema fails the test that received it.
 */
const nativeFetch = globalThis.fetch;
const validators = new Map<string, Promise<OpenApiResponseValidator | null>>();

function validatorFor(origin: string): Promise<OpenApiResponseValidator | null> {
  let validator = validators.get(origin);
  if (!validator) {
    validator = nativeFetch(`${origin}/openapi.json`)
      .then(async (res) => (res.ok ? new OpenApiResponseValidator((await res.json()) as never) : null))
      .catch(() => null);
    validators.set(origin, validator);
  }
  return validator;
}

async function problemsOf(answer: CheckedAnswer): Promise<string[]> {
  const url = new URL(answer.url);
  if (url.pathname === '/openapi.json' || url.pathname.startsWith('/docs')) return [];
  const validator = await validatorFor(url.origin);
  return validator ? validator.problems(answer) : [];
}

function mismatch(problems: string[]): Error {
  return new Error(`The answer does not match /openapi.json:\n  ${problems.join('\n  ')}`);
}

type AssertFn = (resError: Error | null, res: request.Response, fn: (error: Error | null, res: request.Response) => void) => void;
const testPrototype = (request as unknown as { Test: { prototype: { assert: AssertFn } } }).Test.prototype;
const assertAnswer = testPrototype.assert;
testPrototype.assert = function checkedAssert(this: unknown, resError, res, fn) {
  if (!res) return assertAnswer.call(this, resError, res, fn);
  const req = (res as unknown as { request: { method: string; url: string } }).request;
  const answer = {
    method: req.method,
    url: req.url,
    status: res.status,
    contentType: res.headers['content-type'],
    headerNames: Object.keys(res.headers),
    body: res.body,
  };
  problemsOf(answer).then(
    (problems) => (problems.length > 0 ? fn(mismatch(problems), res) : assertAnswer.call(this, resError, res, fn)),
    (error: Error) => fn(error, res),
  );
};

globalThis.fetch = async (input, init) => {
  const res = await nativeFetch(input, init);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  if (res.type === 'opaque' || !res.url.startsWith('http://127.0.0.1')) return res;
  const text = await res.clone().text();
  const contentType = res.headers.get('content-type') ?? undefined;
  let body: unknown = text;
  if (contentType?.startsWith('application/json') && text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const problems = await problemsOf({ method, url: res.url, status: res.status, contentType, headerNames: [...res.headers.keys()], body });
  if (problems.length > 0) throw mismatch(problems);
  return res;
};
