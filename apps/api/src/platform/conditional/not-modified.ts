import type { Response } from 'express';
import { writeAnswer } from '../answers/answer-writer';

/**
 * Answers 304 with the validator and no body, for a client that already holds the current
 * representation (If-None-Match matched). The handler then returns nothing: the envelope
 * adapter sends nothing over an answer already written, nor applies the route's status.
 */
export function answerNotModified(res: Response, etag: string): undefined {
  writeAnswer(res, { status: 304, headers: { ETag: etag }, body: null });
  return undefined;
}
