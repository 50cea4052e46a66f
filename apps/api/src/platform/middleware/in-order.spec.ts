import type { IncomingMessage, ServerResponse } from 'node:http';
import { inOrder } from './in-order';

type Step = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

const req = {} as IncomingMessage;
const res = {} as ServerResponse;

function recording(calls: string[], name: string, ending: (next: (error?: unknown) => void) => void = (next) => next()): Step {
  return (_req, _res, next) => {
    calls.push(name);
    ending(next);
  };
}

describe('inOrder', () => {
  it('runs every middleware in the order given, later ones after a middleware calls next later, then hands on', async () => {
    const calls: string[] = [];
    const done = new Promise<unknown>((resolve) =>
      inOrder(recording(calls, 'a'), recording(calls, 'b', (next) => setImmediate(next)), recording(calls, 'c'))(req, res, resolve),
    );
    await expect(done).resolves.toBeUndefined();
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('skips the rest after an error, passed on or thrown, and hands the error to Express', () => {
    const failure = new Error('refused');
    for (const failing of [recording([], 'x', (next) => next(failure)), () => { throw failure; }]) {
      const calls: string[] = [];
      const done = jest.fn();
      inOrder(recording(calls, 'a'), failing, recording(calls, 'c'))(req, res, done);
      expect(calls).toEqual(['a']);
      expect(done).toHaveBeenCalledWith(failure);
    }
  });

  it('ends a response without handing on when a middleware answers by itself', () => {
    const calls: string[] = [];
    const done = jest.fn();
    inOrder(recording(calls, 'a'), recording(calls, 'answers', () => undefined), recording(calls, 'c'))(req, res, done);
    expect(calls).toEqual(['a', 'answers']);
    expect(done).not.toHaveBeenCalled();
  });
});
