import type { ServerResponse } from 'node:http';
import type { Response } from 'express';

/** A complete answer decided in place of the handler's result: its status, headers and body (none for null). */
export interface WrittenAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Sets each header through Node's `setHeader`: Express's `res.set` of an object lowercases each
 * name twice. A for-in over a literal's own keys reads V8's cached key list; `Object.entries`
 * would allocate an array per header.
 */
export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}

/**
 * Writes an answer where it is decided (a 304 in the handler, an idempotent replay in the
 * Idempotency-Key guard). It goes through `res.send`, where a capture of the response's sends
 * (`captureSends`) sees it; the envelope adapter then leaves the written answer alone.
 */
export function writeAnswer(res: Response, answer: WrittenAnswer): void {
  setHeaders(res, answer.headers);
  res.status(answer.status);
  if (answer.body === null) res.send();
  else res.send(answer.body);
}

/**
 * Thrown once an answer is written, only to stop Nest from running the route further (a guard
 * cannot otherwise); it carries nothing, and the exception filter passes it by.
 */
export class AnswerWritten extends Error {
  constructor() {
    super('The answer is written');
    this.name = 'AnswerWritten';
  }
}
