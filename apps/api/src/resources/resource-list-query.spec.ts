import { InvalidRequestError, ValidationError } from '@app/common';
import { parseDeleteQuery, parseResourceFieldsQuery, parseResourceListQuery } from './resource-list-query';

function problems(run: () => unknown): Array<{ field: string; message: string }> {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.details ?? [];
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseResourceListQuery', () => {
  it('defaults to offset page 1 of 20, newest first, list form', () => {
    const query = parseResourceListQuery({});
    expect(query.pagination).toEqual({ style: 'offset', page: 1, perPage: 20 });
    expect(query.spec.sort).toEqual([{ field: 'created_at', descending: true }]);
    expect(query.spec.fields).toEqual(['name', 'type', 'status', 'created_at', 'updated_at']);
    expect(query.fields).toBeNull();
    expect(query.linkQuery).toEqual({});
  });

  it('switches to cursor style on cursor or limit', () => {
    expect(parseResourceListQuery({ limit: '5' }).pagination).toEqual({ style: 'cursor', cursor: null, limit: 5 });
    expect(parseResourceListQuery({ cursor: 'abc' }).pagination).toEqual({ style: 'cursor', cursor: 'abc', limit: 20 });
  });

  it.each([{ page: '1', cursor: 'x' }, { per_page: '5', limit: '5' }, { page: '2', limit: '1' }])(
    'refuses mixed styles %p as invalid_request',
    (raw) => {
      expect(() => parseResourceListQuery(raw)).toThrow(InvalidRequestError);
    },
  );

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '1000000001' }, 'page'],
    [{ per_page: '0' }, 'per_page'],
    [{ per_page: '101' }, 'per_page'],
    [{ per_page: '2.5' }, 'per_page'],
    [{ limit: '-1' }, 'limit'],
    [{ cursor: '' }, 'cursor'],
    [{ sort: 'colour' }, 'sort'],
    [{ sort: '' }, 'sort'],
    [{ sort: 'name,name' }, 'sort'],
    [{ 'filter[status]': 'active,gone' }, 'filter[status]'],
    [{ 'filter[type]': '' }, 'filter[type]'],
    [{ 'filter[organization_id]': 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' }, 'filter[organization_id]'],
    [{ 'filter[owner_id]': 'x' }, 'filter[owner_id]'],
    [{ fields: 'name,password' }, 'fields'],
    [{ sort: ['name', 'type'] }, 'sort'],
    [{ q: 'search' }, 'q'],
  ])('refuses %p naming %s', (raw, field) => {
    expect(problems(() => parseResourceListQuery(raw)).map((problem) => problem.field)).toEqual([field]);
  });

  it('reports every bad parameter together', () => {
    const fields = problems(() => parseResourceListQuery({ page: '0', per_page: '0', sort: 'x', fields: 'y' }));
    expect(fields.map((problem) => problem.field).sort()).toEqual(['fields', 'page', 'per_page', 'sort']);
  });

  it('reads sort keys, filters and fields', () => {
    const query = parseResourceListQuery({
      sort: 'status,-name',
      'filter[status]': 'archived, active',
      'filter[type]': 'enterprise',
      'filter[organization_id]': 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X',
      fields: 'tags,name',
    });
    expect(query.spec.sort).toEqual([
      { field: 'status', descending: false },
      { field: 'name', descending: true },
    ]);
    expect(query.spec.filter).toEqual({
      status: ['archived', 'active'],
      type: ['enterprise'],
      organizationId: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    });
    expect([...(query.fields ?? [])]).toEqual(['tags', 'name']);
    expect(query.linkQuery).toEqual({
      sort: 'status,-name',
      fields: 'tags,name',
      'filter[status]': 'archived, active',
      'filter[type]': 'enterprise',
      'filter[organization_id]': 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    });
  });

  it('binds cursors to normalised filters and sort, not to the order of values or to fields', () => {
    const a = parseResourceListQuery({ 'filter[status]': 'active,archived', fields: 'name', limit: '5' });
    const b = parseResourceListQuery({ 'filter[status]': 'archived,active', limit: '9' });
    const c = parseResourceListQuery({ 'filter[status]': 'active', limit: '5' });
    const d = parseResourceListQuery({ 'filter[status]': 'active,archived', sort: 'created_at', limit: '5' });
    expect(a.binding).toBe(b.binding);
    expect(a.binding).not.toBe(c.binding);
    expect(a.binding).not.toBe(d.binding);
  });
});

describe('parseResourceFieldsQuery', () => {
  it('takes fields only', () => {
    expect(parseResourceFieldsQuery({})).toBeNull();
    expect([...(parseResourceFieldsQuery({ fields: 'name' }) ?? [])]).toEqual(['name']);
    expect(problems(() => parseResourceFieldsQuery({ page: '1' })).map((problem) => problem.field)).toEqual(['page']);
  });
});

describe('parseDeleteQuery', () => {
  it('reads hard=true|false', () => {
    expect(parseDeleteQuery({})).toEqual({ hard: false });
    expect(parseDeleteQuery({ hard: 'true' })).toEqual({ hard: true });
    expect(parseDeleteQuery({ hard: 'false' })).toEqual({ hard: false });
    expect(problems(() => parseDeleteQuery({ hard: '1' })).map((problem) => problem.field)).toEqual(['hard']);
  });
});
