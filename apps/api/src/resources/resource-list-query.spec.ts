import { Type } from '@nestjs/common';
import { FieldProblem, InvalidRequestError, ValidationError } from '@app/common';
import { AppValidationPipe } from '../platform/validation/app-validation.pipe';
import { DeleteResourceQueryDto } from './dto/delete-resource.query';
import { ResourceFieldsQueryDto } from './dto/resource-fields.query';
import { ResourceListQueryDto } from './dto/resource-list.query';
import { OnePaginationStylePipe, requestedFields, ResourceListQuery, toResourceListQuery } from './resource-list-query';

const validation = new AppValidationPipe();

/** A query as `@ValidQuery()` hands it to the handler. */
async function validated<T>(raw: Record<string, unknown>, dto: Type<T>): Promise<T> {
  return (await validation.transform(raw, { type: 'query', metatype: dto })) as T;
}

/** `GET /resources`'s query as the controller reads it: one pagination style, validated, normalised. */
async function listQuery(raw: Record<string, unknown>): Promise<ResourceListQuery> {
  return toResourceListQuery(await validated(new OnePaginationStylePipe().transform(raw), ResourceListQueryDto));
}

async function refusal(raw: Record<string, unknown>, dto: Type<unknown> = ResourceListQueryDto): Promise<ValidationError> {
  const outcome = await validated(raw, dto).then(
    () => new Error('expected a ValidationError'),
    (error: unknown) => error,
  );
  if (outcome instanceof ValidationError) return outcome;
  throw outcome;
}

async function problems(raw: Record<string, unknown>, dto?: Type<unknown>): Promise<FieldProblem[]> {
  return (await refusal(raw, dto)).details ?? [];
}

describe('the resource list query', () => {
  it('defaults to offset page 1 of 20, newest first, list form', async () => {
    const query = await listQuery({});
    expect(query.pagination).toEqual({ style: 'offset', page: 1, perPage: 20 });
    expect(query.spec.sort).toEqual([{ field: 'created_at', descending: true }]);
    expect(query.spec.fields).toEqual(['name', 'type', 'status', 'created_at', 'updated_at']);
    expect(query.fields).toBeNull();
    expect(query.linkQuery).toEqual({});
  });

  it('switches to cursor style on cursor or limit', async () => {
    expect((await listQuery({ limit: '5' })).pagination).toEqual({ style: 'cursor', cursor: null, limit: 5 });
    expect((await listQuery({ cursor: 'abc' })).pagination).toEqual({ style: 'cursor', cursor: 'abc', limit: 20 });
  });

  it.each([{ page: '1', cursor: 'x' }, { per_page: '5', limit: '5' }, { page: '2', limit: '1' }, { page: '0', cursor: '' }])(
    'refuses mixed styles %p as invalid_request, whatever their values',
    async (raw) => {
      await expect(listQuery(raw)).rejects.toThrow(InvalidRequestError);
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
  ])('refuses %p naming %s', async (raw, field) => {
    expect((await problems(raw)).map((problem) => problem.field)).toEqual([field]);
  });

  it('words every refusal in terms of query parameters', async () => {
    const refused = await refusal({
      page: ['1', '2'],
      per_page: '0',
      sort: 'name,-name',
      'filter[type]': 'gold,standard',
      'filter[owner_id]': 'x',
      id: 'res_1',
    });
    expect(refused.message).toBe('The query has invalid parameters.');
    expect(refused.details).toEqual(
      expect.arrayContaining([
        { field: 'page', message: 'must be given once' },
        { field: 'per_page', message: 'must be an integer from 1 to 100' },
        { field: 'sort', message: 'sorts by name more than once' },
        { field: 'filter[type]', message: 'unknown type "gold"; use standard, premium, enterprise' },
        { field: 'filter[owner_id]', message: 'is not a known filter; use filter[status], filter[type], filter[organization_id]' },
        { field: 'id', message: 'is not a known query parameter' },
      ]),
    );
    expect(refused.details).toHaveLength(6);
  });

  it('reports every bad parameter together', async () => {
    const fields = await problems({ page: '0', per_page: '0', sort: 'x', fields: 'y' });
    expect(fields.map((problem) => problem.field).sort()).toEqual(['fields', 'page', 'per_page', 'sort']);
  });

  it('reads sort keys, filters and fields', async () => {
    const query = await listQuery({
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

  it('binds cursors to normalised filters and sort, not to the order of values or to fields', async () => {
    const a = await listQuery({ 'filter[status]': 'active,archived', fields: 'name', limit: '5' });
    const b = await listQuery({ 'filter[status]': 'archived,active', limit: '9' });
    const c = await listQuery({ 'filter[status]': 'active', limit: '5' });
    const d = await listQuery({ 'filter[status]': 'active,archived', sort: 'created_at', limit: '5' });
    expect(a.binding).toBe(b.binding);
    expect(a.binding).not.toBe(c.binding);
    expect(a.binding).not.toBe(d.binding);
  });
});

describe('the single resource query', () => {
  it('takes fields only', async () => {
    expect(requestedFields((await validated({}, ResourceFieldsQueryDto)).fields)).toBeNull();
    expect([...(requestedFields((await validated({ fields: 'name' }, ResourceFieldsQueryDto)).fields) ?? [])]).toEqual(['name']);
    expect(await problems({ page: '1' }, ResourceFieldsQueryDto)).toEqual([{ field: 'page', message: 'is not a known query parameter' }]);
  });
});

describe('the delete query', () => {
  it('reads hard=true|false', async () => {
    expect((await validated({}, DeleteResourceQueryDto)).hard).toBeUndefined();
    expect((await validated({ hard: 'true' }, DeleteResourceQueryDto)).hard).toBe('true');
    expect((await validated({ hard: 'false' }, DeleteResourceQueryDto)).hard).toBe('false');
    expect(await problems({ hard: '1' }, DeleteResourceQueryDto)).toEqual([{ field: 'hard', message: 'must be true or false' }]);
  });
});
