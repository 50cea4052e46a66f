import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  AppError,
  AuthContext,
  EventKind,
  FieldProblem,
  InsufficientPermissionsError,
  isId,
  newId,
  offsetMeta,
  OffsetMeta,
  Paginated,
  PreconditionFailedError,
  ResourceNotFoundError,
  ValidationError,
} from '@app/common';
import { EventOutbox, NewEvent } from '@app/database';
import { ResourceField, ResourceListRow, ResourceRecord, ResourceRepository, ResourceScope } from './resource.repository';
import { CreateResourceDto } from './dto/create-resource.dto';
import { METADATA_KEYS_MAX } from './dto/resource-field.validators';
import { ReplaceResourceDto } from './dto/replace-resource.dto';
import { PatchResourceDto, UpdateResourceDto } from './dto/update-resource.dto';
import { ifMatchSatisfied } from './entity-tag';
import { changedFields, mergeMetadata, ResourceContent } from './resource-content';
import { MembershipReader } from '../organizations/membership-reader.service';
import { SignedCursorCodec } from '../platform/pagination/signed-cursor.codec';
import { can, ResourceAction } from './resource.policy';
import { ResourceListQuery } from './resource-list-query';
import {
  ResourceFieldsView,
  ResourceListItemView,
  ResourceView,
  toResourceFieldsView,
  toResourceListItemView,
  toResourceView,
} from './resource.view';

/** Path of the listing, as offset links show it. */
const LIST_PATH = '/v2/resources';

/** A view and the version its ETag comes from. */
export interface VersionedView<T> {
  view: T;
  version: number;
}

export type ResourceListEntry = ResourceListItemView | ResourceFieldsView;

/** Offset links with brackets and commas left readable (`filter[status]=active,archived`). */
function readableLinks(meta: OffsetMeta): OffsetMeta {
  const readable = (link: string): string => link.replace(/%5B/g, '[').replace(/%5D/g, ']').replace(/%2C/g, ',');
  const { first, prev, next, last } = meta.links;
  return {
    ...meta,
    links: { first: readable(first), prev: prev && readable(prev), next: next && readable(next), last: readable(last) },
  };
}

/** The actions asked of a resource that exists; `create_in` is asked of an organization (assertCanCreateIn). */
type ActionOnResource = Exclude<ResourceAction, 'create_in'>;

/** The 403 for each action on a resource the caller can see, worded after its rule (docs/api.md#resource-access). */
const REFUSALS: Record<ActionOnResource, () => AppError> = {
  write: () =>
    new InsufficientPermissionsError('Only the owner of this resource or an owner, admin or member of its organization may change it.'),
  hard_delete: () =>
    new InsufficientPermissionsError('Only the owner of this resource or an owner or admin of its organization may hard-delete it.'),
  move_out: () =>
    new AppError(
      'insufficient_permissions',
      'Only the owner of this resource or an owner or admin of its organization may move it out of that organization.',
      [{ field: 'organization_id', message: 'moving the resource out of its organization needs the rights hard-deleting it there needs' }],
    ),
};

function notFound(id: string): ResourceNotFoundError {
  return new ResourceNotFoundError('Resource', id);
}

function resourceEvent(type: EventKind, record: ResourceRecord, previousData: Record<string, unknown> | null): NewEvent {
  return {
    type,
    object: { ...toResourceView(record) },
    previousData,
    ownerId: record.owner_id,
    organizationId: record.organization_id,
  };
}

/** Problems of `ids` in a bulk update: each must be a non-empty string, and appear once. */
export function bulkIdProblems(ids: readonly unknown[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const firstIndex = new Map<string, number>();
  ids.forEach((id, index) => {
    const field = `ids[${index}]`;
    if (typeof id !== 'string' || id.length === 0) {
      problems.push({ field, message: 'must be a resource id (res_...)' });
    } else if (firstIndex.has(id)) {
      problems.push({ field, message: `repeats ids[${firstIndex.get(id)}]; ids must be distinct` });
    } else {
      firstIndex.set(id, index);
    }
  });
  return problems;
}

/** The content a PATCH (or a bulk update) leads to, from the current content. */
export function patchedContent(current: ResourceContent, patch: UpdateResourceDto): ResourceContent {
  return {
    name: patch.name ?? current.name,
    description: patch.description === undefined ? current.description : patch.description,
    type: patch.type ?? current.type,
    status: patch.status ?? current.status,
    tags: patch.tags ?? current.tags,
    metadata:
      patch.metadata === undefined
        ? current.metadata
        : patch.metadata === null
          ? {}
          : mergeMetadata(current.metadata, patch.metadata),
  };
}

/** The content a PUT leads to: omitted optional fields take their defaults, status is kept. */
export function replacedContent(current: ResourceContent, input: ReplaceResourceDto): ResourceContent {
  return {
    name: input.name,
    description: input.description ?? null,
    type: input.type ?? 'standard',
    status: current.status,
    tags: input.tags ?? [],
    metadata: input.metadata ?? {},
  };
}

function assertMetadataSize(content: ResourceContent, field: string, id: string): void {
  const keys = Object.keys(content.metadata).length;
  if (keys > METADATA_KEYS_MAX) {
    throw ValidationError.field(field, `would leave ${id} with ${keys} keys after merging; at most ${METADATA_KEYS_MAX} are allowed`);
  }
}

@Injectable()
export class ResourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly resources: ResourceRepository,
    private readonly outbox: EventOutbox,
    private readonly cursors: SignedCursorCodec,
    private readonly memberships: MembershipReader,
  ) {}

  /** The caller and their organization roles: what lists and writes of resources are checked against. */
  private async scopeOf(auth: AuthContext): Promise<ResourceScope> {
    return { auth, roles: await this.memberships.rolesOf(auth.userId) };
  }

  async get(auth: AuthContext, id: string, fields: ReadonlySet<ResourceField> | null): Promise<VersionedView<ResourceFieldsView>> {
    const record = isId('res', id) ? await this.resources.findVisible(auth, id) : null;
    if (!record) throw notFound(id);
    return { view: fields ? toResourceFieldsView(record, fields) : toResourceView(record), version: record.version };
  }

  async list(auth: AuthContext, query: ResourceListQuery): Promise<Paginated<ResourceListEntry>> {
    const scope = await this.scopeOf(auth);
    const fields = query.fields;
    const toView = (row: ResourceListRow): ResourceListEntry =>
      fields ? toResourceFieldsView(row, fields) : toResourceListItemView(row);
    const pagination = query.pagination;
    if (pagination.style === 'offset') {
      const { page, perPage } = pagination;
      const { total, rows } = await this.resources.pageByOffset(scope, query.spec, (page - 1) * perPage, perPage);
      return new Paginated(rows.map(toView), { ...readableLinks(offsetMeta(LIST_PATH, query.linkQuery, page, perPage, total)) });
    }

    const binding = `${auth.userId}|${query.binding}`;
    const start = pagination.cursor ? this.cursors.decode(pagination.cursor, binding) : null;
    const backward = start?.backward ?? false;
    const page = await this.resources.pageByKeyset(scope, query.spec, {
      position: start?.position ?? null,
      backward,
      limit: pagination.limit,
    });
    const position = (row: ResourceListRow): string[] => [
      ...query.spec.sort.map((key) => row[key.field] as string),
      row.id,
    ];
    const first = page.rows[0];
    const last = page.rows[page.rows.length - 1];
    const moreAfter = backward ? page.hasBehind : page.hasMore;
    const moreBefore = backward ? page.hasMore : page.hasBehind;
    const next = last && moreAfter ? this.cursors.encode({ position: position(last), backward: false }, binding) : null;
    const prev = first && moreBefore ? this.cursors.encode({ position: position(first), backward: true }, binding) : null;
    return new Paginated(page.rows.map(toView), {
      // has_more looks in the direction the page was read: forward by `next`, backward by `prev`.
      cursor: { next, prev, has_more: backward ? prev !== null : next !== null },
      limit: pagination.limit,
    });
  }

  async create(auth: AuthContext, input: CreateResourceDto): Promise<VersionedView<ResourceView>> {
    const [record] = await this.insert(auth, [input]);
    return { view: toResourceView(record), version: record.version };
  }

  /** All or nothing: one statement for the rows, one for their events. */
  async createMany(auth: AuthContext, inputs: CreateResourceDto[]): Promise<ResourceView[]> {
    const records = await this.insert(auth, inputs);
    return records.map(toResourceView);
  }

  replace(
    auth: AuthContext,
    id: string,
    input: ReplaceResourceDto,
    ifMatch: string | undefined,
  ): Promise<VersionedView<ResourceView>> {
    return this.write(auth, id, ifMatch, (current) => replacedContent(current, input));
  }

  update(
    auth: AuthContext,
    id: string,
    patch: PatchResourceDto,
    ifMatch: string | undefined,
  ): Promise<VersionedView<ResourceView>> {
    return this.write(
      auth,
      id,
      ifMatch,
      (current) => {
        const content = patchedContent(current, patch);
        assertMetadataSize(content, 'metadata', id);
        return content;
      },
      patch.organization_id,
    );
  }

  /** The same changes to every listed resource, atomically; one event per changed resource. */
  async updateMany(auth: AuthContext, ids: string[], updates: UpdateResourceDto): Promise<ResourceView[]> {
    const problems = bulkIdProblems(ids);
    if (Object.values(updates).every((value) => value === undefined)) {
      problems.push({ field: 'updates', message: 'must set at least one of name, description, type, status, tags, metadata' });
    }
    if (problems.length > 0) throw new ValidationError(problems);

    const now = new Date().toISOString();
    const scope = await this.scopeOf(auth);
    const records = await this.dataSource.transaction(async (manager) => {
      // Ids of the wrong shape cannot exist; they are reported as not found with the rest.
      const wellFormed = ids.filter((id) => isId('res', id));
      const locked = new Map((await this.resources.lockManyVisible(manager, auth, wellFormed)).map((row) => [row.id, row]));
      const missing = ids.flatMap((id, index) => (locked.has(id) ? [] : [{ field: `ids[${index}]`, message: `${id} was not found` }]));
      if (missing.length > 0) {
        const names = ids.filter((id) => !locked.has(id));
        const what = names.length === 1 ? `Resource ${names[0]} was` : `Resources ${names.join(', ')} were`;
        throw new AppError('resource_not_found', `${what} not found; nothing was changed.`, missing);
      }
      const denied = ids.flatMap((id, index) =>
        can(scope, 'write', locked.get(id) as ResourceRecord) ? [] : [{ field: `ids[${index}]`, message: `${id} may not be changed by you` }],
      );
      if (denied.length > 0) throw new AppError('insufficient_permissions', 'You may not change every listed resource; nothing was changed.', denied);

      const results: ResourceRecord[] = [];
      const changed: Array<{ record: ResourceRecord; previous: Record<string, unknown> }> = [];
      for (const id of ids) {
        const current = locked.get(id) as ResourceRecord;
        const content = patchedContent(current, updates);
        assertMetadataSize(content, 'updates.metadata', id);
        const previous = changedFields(current, content);
        if (Object.keys(previous).length === 0) {
          results.push(current);
          continue;
        }
        const record = { ...current, ...content, updated_at: now, version: current.version + 1 };
        changed.push({ record, previous });
        results.push(record);
      }
      await this.saveChanges(manager, changed);
      return results;
    });
    return records.map(toResourceView);
  }

  /** Soft delete by default; `hard` removes the row, also of a soft-deleted resource. */
  async remove(auth: AuthContext, id: string, hard: boolean, ifMatch: string | undefined): Promise<void> {
    if (!isId('res', id)) throw notFound(id);
    const scope = await this.scopeOf(auth);
    await this.dataSource.transaction(async (manager) => {
      const current = await this.resources.lockVisible(manager, auth, id, { includeDeleted: hard });
      if (!current) throw notFound(id);
      this.assertMay(scope, hard ? 'hard_delete' : 'write', current);
      if (!ifMatchSatisfied(ifMatch, current.version)) throw new PreconditionFailedError();
      if (current.deleted_at !== null) {
        // Already announced as deleted by its soft delete.
        await this.resources.hardDelete(manager, id);
        return;
      }
      const now = new Date().toISOString();
      const deleted: ResourceRecord = { ...current, deleted_at: now, updated_at: now, version: current.version + 1 };
      if (hard) await this.resources.hardDelete(manager, id);
      else await this.resources.softDelete(manager, id, now);
      await this.outbox.append(manager, [resourceEvent('resource.deleted', deleted, null)]);
    });
  }

  private async insert(auth: AuthContext, inputs: CreateResourceDto[]): Promise<ResourceRecord[]> {
    // Memberships matter only to creates inside an organization; a personal create reads none.
    if (inputs.some((input) => input.organization_id)) {
      const scope = await this.scopeOf(auth);
      inputs.forEach((input, index) => {
        if (input.organization_id) this.assertCanCreateIn(scope, input.organization_id, inputs.length > 1 ? index : null);
      });
    }
    const now = Date.now();
    const at = new Date(now).toISOString();
    const records = inputs.map(
      (input): ResourceRecord => ({
        id: newId('res', now),
        name: input.name,
        description: input.description ?? null,
        type: input.type ?? 'standard',
        status: 'active',
        metadata: input.metadata ?? {},
        tags: input.tags ?? [],
        owner_id: auth.userId,
        organization_id: input.organization_id ?? null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
        version: 1,
      }),
    );
    await this.dataSource.transaction(async (manager) => {
      await this.resources.insert(manager, records);
      await this.outbox.append(
        manager,
        records.map((record) => resourceEvent('resource.created', record, null)),
      );
    });
    return records;
  }

  /**
   * Locks the resource, checks permission and If-Match, applies the change and its event.
   * `moveTo` (PATCH only) names the organization to move the resource to, null for none.
   */
  private async write(
    auth: AuthContext,
    id: string,
    ifMatch: string | undefined,
    change: (current: ResourceRecord) => ResourceContent,
    moveTo?: string | null,
  ): Promise<VersionedView<ResourceView>> {
    if (!isId('res', id)) throw notFound(id);
    const scope = await this.scopeOf(auth);
    const record = await this.dataSource.transaction(async (manager) => {
      const current = await this.resources.lockVisible(manager, auth, id);
      if (!current) throw notFound(id);
      this.assertMay(scope, 'write', current);
      const moving = moveTo !== undefined && moveTo !== current.organization_id;
      // Every permission before If-Match, as on delete: a refusal does not depend on the version sent.
      if (moving) this.assertMayMove(scope, current, moveTo);
      if (!ifMatchSatisfied(ifMatch, current.version)) throw new PreconditionFailedError();
      const content = change(current);
      const previous: Record<string, unknown> = changedFields(current, content);
      if (moving) previous.organization_id = current.organization_id;
      if (Object.keys(previous).length === 0) return current;
      const organizationId = moving ? moveTo : current.organization_id;
      const updated = { ...current, ...content, organization_id: organizationId, updated_at: new Date().toISOString(), version: current.version + 1 };
      if (moving) await this.resources.move(manager, id, organizationId);
      await this.saveChanges(manager, [{ record: updated, previous }]);
      return updated;
    });
    return { view: toResourceView(record), version: record.version };
  }

  private async saveChanges(
    manager: EntityManager,
    changes: Array<{ record: ResourceRecord; previous: Record<string, unknown> }>,
  ): Promise<void> {
    if (changes.length === 0) return;
    await this.resources.updateContent(
      manager,
      changes.map(({ record }) => record),
    );
    await this.outbox.append(
      manager,
      changes.map(({ record, previous }) => resourceEvent('resource.updated', record, previous)),
    );
  }

  private assertMay(scope: ResourceScope, action: ActionOnResource, record: ResourceRecord): void {
    if (!can(scope, action, record)) throw REFUSALS[action]();
  }

  /**
   * Moving takes the resource away from every member of its organization, as a hard delete
   * there would, and puts it where the caller could create it.
   */
  private assertMayMove(scope: ResourceScope, current: ResourceRecord, moveTo: string | null): void {
    this.assertMay(scope, 'move_out', current);
    if (moveTo !== null) this.assertCanCreateIn(scope, moveTo, null);
  }

  /**
   * A resource may be created in an organization where the caller is at least `member`; a
   * `viewer` gets 403, anyone else (platform admins included) 404, as if it did not exist.
   */
  private assertCanCreateIn(scope: ResourceScope, organizationId: string, index: number | null): void {
    const field = index === null ? 'organization_id' : `resources[${index}].organization_id`;
    if (can(scope, 'create_in', { owner_id: null, organization_id: organizationId })) return;
    if (scope.roles.has(organizationId)) {
      throw new AppError('insufficient_permissions', `A viewer cannot create resources in organization ${organizationId}.`, [
        { field, message: 'allows you to read only' },
      ]);
    }
    throw new AppError('resource_not_found', `Organization ${organizationId} was not found.`, [
      { field, message: 'was not found' },
    ]);
  }
}
