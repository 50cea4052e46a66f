import type { ServerResponse } from 'node:http';

/** A response in flight, between the one before it and the one after it. */
interface Entry {
  response: ServerResponse;
  previous: Entry | null;
  next: Entry | null;
}

/**
 * The responses in flight, in a list of one entry per response rather than a Set. A Set that
 * every response enters and leaves is rehashed every few requests, and V8 keeps each replaced
 * table, with the responses it held, linked to its successor for the Set's iterators: once one
 * of those tables had reached the old generation, every later response stayed alive through
 * every scavenge, and each request's objects were promoted and freed only by a full collection
 * (docs/performance.md). An entry that leaves is unlinked both ways, so nothing old points at it.
 */
export class InFlightResponses {
  private first: Entry | null = null;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `response`; the returned function takes it out again (once). */
  add(response: ServerResponse): () => void {
    const entry: Entry = { response, previous: null, next: this.first };
    if (this.first !== null) this.first.previous = entry;
    this.first = entry;
    this.count++;
    return () => this.remove(entry);
  }

  *[Symbol.iterator](): IterableIterator<ServerResponse> {
    for (let entry = this.first; entry !== null; entry = entry.next) yield entry.response;
  }

  private remove(entry: Entry): void {
    const { previous, next } = entry;
    if (previous === null && next === null && this.first !== entry) return;
    if (previous === null) this.first = next;
    else previous.next = next;
    if (next !== null) next.previous = previous;
    entry.previous = null;
    entry.next = null;
    this.count--;
  }
}
