import type { AuthContext } from '@app/common';
import type { EventOutbox } from '@app/database';
import type { KeysetPage, KeysetPageRequest, ResourceRepository } from './resource.repository';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import type { MembershipReader } from '../organizations/membership-reader.service';
import { SignedCursorCodec } from '../platform/pagination/signed-cursor.codec';
import { toResourceListQuery } from './resource-list-query';
import { ResourceContent } from './resource-content';
import { bulkIdProblems, patchedContent, replacedContent, ResourcesService } from './resources.service';

const current: ResourceContent = {
  name: 'Current',
  description: 'text',
  type: 'premium',
  status: 'archived',
  metadata: { a: 1, b: 2 },
  tags: ['x'],
};

describe('patchedContent', () => {
  it('keeps what the patch leaves out and merges metadata', () => {
    expect(patchedContent(current, { name: 'New', metadata: { b: null, c: 3 } })).toEqual({
      ...current,
      name: 'New',
      metadata: { a: 1, c: 3 },
    });
  });

  it('clears description and metadata with null', () => {
    expect(patchedContent(current, { description: null, metadata: null })).toMatchObject({ description: null, metadata: {} });
  });
});

describe('replacedContent', () => {
  it('resets omitted optional fields and keeps the status', () => {
    expect(replacedContent(current, { name: 'Whole' })).toEqual({
      name: 'Whole',
      description: null,
      type: 'standard',
      status: 'archived',
      tags: [],
      metadata: {},
    });
  });
});

describe('bulkIdProblems', () => {
  it('names repeats and non-strings by index', () => {
    expect(bulkIdProblems(['res_a', 'res_b', 'res_a', 3, ''])).toEqual([
      { field: 'ids[2]', message: 'repeats ids[0]; ids must be distinct' },
      { field: 'ids[3]', message: 'must be a resource id (res_...)' },
      { field: 'ids[4]', message: 'must be a resource id (res_...)' },
    ]);
    expect(bulkIdProblems(['res_a', 'res_b'])).toEqual([]);
  });
});

describe('ResourcesService.list (cursor meta)', () => {
  const auth = { userId: 'usr_1', role: 'user' } as AuthContext;
  const cursors = new SignedCursorCodec(Object.assign(new AppConfig(), { JWT_SECRET: 's'.repeat(40) }));
  const row = (n: number) => ({ id: `res_${n}`, name: `n${n}`, type: 'standard' as const, status: 'active' as const, created_at: `t${n}`, updated_at: `t${n}` });

  function serviceAnswering(page: KeysetPage, seen: KeysetPageRequest[]): ResourcesService {
    const repository = {
      pageByKeyset: (_scope: unknown, _spec: unknown, request: KeysetPageRequest) => {
        seen.push(request);
        return Promise.resolve(page);
      },
    } as unknown as ResourceRepository;
    const memberships = { rolesOf: () => Promise.resolve(new Map()) } as unknown as MembershipReader;
    return new ResourcesService({} as DataSource, repository, {} as EventOutbox, cursors, memberships);
  }

  it('gives next but no prev on the first page', async () => {
    const seen: KeysetPageRequest[] = [];
    const service = serviceAnswering({ rows: [row(1), row(2)], hasMore: true, hasBehind: false }, seen);
    const result = await service.list(auth, toResourceListQuery({ limit: 2 }));
    expect(seen).toEqual([{ position: null, backward: false, limit: 2 }]);
    expect(result.meta).toEqual({ cursor: { next: expect.any(String), prev: null, has_more: true }, limit: 2 });
  });

  it('reads backward from a prev cursor; has_more then looks backward', async () => {
    const seen: KeysetPageRequest[] = [];
    const query = toResourceListQuery({ limit: 2 });
    const prev = cursors.encode({ position: ['t5', 'res_5'], backward: true }, `usr_1|${query.binding}`);
    const service = serviceAnswering({ rows: [row(3), row(4)], hasMore: false, hasBehind: true }, seen);
    const result = await service.list(auth, toResourceListQuery({ limit: 2, cursor: prev }));
    expect(seen).toEqual([{ position: ['t5', 'res_5'], backward: true, limit: 2 }]);
    expect(result.meta).toEqual({ cursor: { next: expect.any(String), prev: null, has_more: false }, limit: 2 });
    const next = (result.meta as { cursor: { next: string } }).cursor.next;
    expect(cursors.decode(next, `usr_1|${query.binding}`)).toEqual({ position: ['t4', 'res_4'], backward: false });
  });

  it('gives neither cursor on an empty page', async () => {
    const service = serviceAnswering({ rows: [], hasMore: false, hasBehind: false }, []);
    const result = await service.list(auth, toResourceListQuery({ limit: 2 }));
    expect(result.data).toEqual([]);
    expect(result.meta).toEqual({ cursor: { next: null, prev: null, has_more: false }, limit: 2 });
  });
});
