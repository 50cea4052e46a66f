import { ApiCall, recordCall } from './api-call';
import { ListCall, Page } from './list-call';

interface CursorMeta {
  cursor: { next: string | null; prev: string | null; has_more: boolean };
  limit: number;
}

const PAGES: Record<string, Page<string, CursorMeta>> = {
  first: { data: ['a', 'b'], meta: { cursor: { next: 'second', prev: null, has_more: true }, limit: 2 } },
  second: { data: ['c'], meta: { cursor: { next: null, prev: 'first', has_more: false }, limit: 2 } },
};

/** A list of two cursor pages, recording every query it is read with. */
function twoPageList(): { list: ListCall<string, CursorMeta>; queries: Record<string, unknown>[] } {
  const queries: Record<string, unknown>[] = [];
  const list = new ListCall<string, CursorMeta>(
    (query) => {
      queries.push(query);
      const page = PAGES[typeof query.cursor === 'string' ? query.cursor : 'first'];
      return Promise.resolve({ data: page, response: new Response(null, { headers: { 'X-Request-ID': `req-${queries.length}` } }) });
    },
    { limit: 2, sort: 'name' },
  );
  return { list, queries };
}

describe('ListCall', () => {
  it('sends nothing until it is awaited or iterated, and reads the first page once', async () => {
    const { list, queries } = twoPageList();
    expect(queries).toEqual([]);
    expect(await list).toEqual(PAGES.first);
    expect((await list.withResponse()).response.requestId).toBe('req-1');
    expect(queries).toEqual([{ limit: 2, sort: 'name' }]);
  });

  it('iterates every record of every page, keeping the query', async () => {
    const { list, queries } = twoPageList();
    const records: string[] = [];
    for await (const record of list) records.push(record);
    expect(records).toEqual(['a', 'b', 'c']);
    expect(queries).toEqual([
      { limit: 2, sort: 'name' },
      { limit: 2, sort: 'name', cursor: 'second' },
    ]);
  });

  it('gives every page with its response', async () => {
    const { list } = twoPageList();
    const requestIds: (string | null)[] = [];
    for await (const page of list.pages()) requestIds.push(page.response.requestId);
    expect(requestIds).toEqual(['req-1', 'req-2']);
  });
});

describe('ApiCall', () => {
  const answer = () =>
    Promise.resolve({
      data: { data: { id: 'res_1' } },
      response: new Response('{}', { status: 201, headers: { ETag: '"1"', 'Idempotent-Replayed': 'true', 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1700000000' } }),
    });

  it('gives the record when awaited, and the record with the response with withResponse()', async () => {
    const call: ApiCall<{ id: string }> = recordCall(answer());
    expect(await call).toEqual({ id: 'res_1' });
    expect((await call.withResponse()).response).toMatchObject({
      status: 201,
      etag: '"1"',
      idempotentReplayed: true,
      rateLimit: { limit: 60, remaining: 59, resetAt: new Date(1_700_000_000_000) },
    });
  });

  it('rejects as the request did, for await and catch alike', async () => {
    const failure = new Error('refused');
    const call = recordCall<{ id: string }>(Promise.reject(failure));
    await expect(call.withResponse()).rejects.toBe(failure);
    await expect(call.catch((error: unknown) => error)).resolves.toBe(failure);
  });
});
