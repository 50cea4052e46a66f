import { nextPageQuery } from './pagination';

describe('nextPageQuery', () => {
  const links = (next: string | null) => ({ first: '/v2/x?page=1', prev: null, next, last: '/v2/x?page=3' });

  it('continues an offset list with the next page, keeping the rest of the query', () => {
    const meta = { page: 1, per_page: 10, total: 25, total_pages: 3, links: links('/v2/x?page=2') };
    expect(nextPageQuery(meta, { per_page: 10, sort: 'name' })).toEqual({ per_page: 10, sort: 'name', page: 2 });
  });

  it('stops an offset list where links.next is null, or past total_pages without links', () => {
    expect(nextPageQuery({ page: 3, per_page: 10, total: 25, total_pages: 3, links: links(null) }, {})).toBeNull();
    expect(nextPageQuery({ page: 2, total_pages: 3 }, {})).toEqual({ page: 3 });
    expect(nextPageQuery({ page: 3, total_pages: 3 }, {})).toBeNull();
  });

  it('continues a cursor list with meta.cursor.next while has_more, keeping limit and filters', () => {
    const meta = { cursor: { next: 'c2', prev: 'c0', has_more: true }, limit: 5 };
    expect(nextPageQuery(meta, { limit: 5, 'filter[status]': 'active', cursor: 'c1' })).toEqual({
      limit: 5,
      'filter[status]': 'active',
      cursor: 'c2',
    });
    expect(nextPageQuery({ cursor: { next: null, prev: 'c0', has_more: false }, limit: 5 }, { limit: 5 })).toBeNull();
  });

  it('refuses an answer that is not a list', () => {
    expect(() => nextPageQuery(undefined, {})).toThrow(TypeError);
    expect(() => nextPageQuery({ count: 3 }, {})).toThrow(/neither offset nor cursor/);
  });
});
