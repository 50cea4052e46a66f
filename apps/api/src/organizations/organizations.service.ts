import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  AppError,
  AuthContext,
  ConflictError,
  InsufficientPermissionsError,
  isId,
  newId,
  offsetMeta,
  Paginated,
  ResourceNotFoundError,
} from '@app/common';
import { OrganizationRole } from '@app/database';
import { OrganizationRepository, VisibleOrganization } from './organization.repository';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { UserIdentities, UserIdentity } from '../users/user-identities.service';
import { AddMemberDto, CreateOrganizationDto, UpdateOrganizationDto } from './dto/organization.dto';
import { can, OrganizationAction } from './organization.policy';
import { MemberView, OrganizationView, toMemberView, toOrganizationView } from './organization.view';

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DEFAULT_PER_PAGE = 20;

function slugTaken(slug: string): ConflictError {
  return new ConflictError(`The slug ${slug} is already taken.`, [{ field: 'slug', message: 'is already taken' }]);
}

/** A member's account: organization_members references users, so every member has one. */
function accountOf(users: ReadonlyMap<string, UserIdentity>, userId: string): UserIdentity {
  const user = users.get(userId);
  if (!user) throw new Error(`Member ${userId} has no account.`);
  return user;
}

async function uniqueSlug<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (slug !== undefined && (error as { code?: string }).code === UNIQUE_VIOLATION) throw slugTaken(slug);
    throw error;
  }
}

/** Organizations and their members (docs/api.md#organizations). Who may do what is asked of the policy. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly users: UserIdentities,
  ) {}

  async list(auth: AuthContext, query: OffsetPageQuery, basePath: string): Promise<Paginated<OrganizationView>> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { total, organizations } = await this.organizations.pageVisible(auth, (page - 1) * perPage, perPage);
    return new Paginated(organizations.map(toOrganizationView), { ...offsetMeta(basePath, {}, page, perPage, total) });
  }

  /** The creator becomes the first owner. */
  async create(auth: AuthContext, input: CreateOrganizationDto): Promise<OrganizationView> {
    if (await this.organizations.slugTaken(input.slug)) throw slugTaken(input.slug);
    const created = await uniqueSlug(input.slug, () =>
      this.dataSource.transaction((manager) =>
        this.organizations.insertWithOwner(manager, { id: newId('org'), name: input.name, slug: input.slug }, auth.userId),
      ),
    );
    return toOrganizationView(created);
  }

  async get(auth: AuthContext, id: string): Promise<OrganizationView> {
    return toOrganizationView(await this.authorize(auth, id, 'read'));
  }

  async update(auth: AuthContext, id: string, changes: UpdateOrganizationDto): Promise<OrganizationView> {
    const updated = await uniqueSlug(changes.slug, () =>
      this.dataSource.transaction(async (manager) => {
        const organization = await this.authorize(auth, id, 'update', manager);
        if (changes.slug !== undefined && (await this.organizations.slugTaken(changes.slug, id, manager))) {
          throw slugTaken(changes.slug);
        }
        if (changes.name === undefined && changes.slug === undefined) return organization;
        return this.organizations.update(manager, id, changes);
      }),
    );
    return toOrganizationView(updated);
  }

  /**
   * Refused while any resource, even a soft-deleted one, still belongs to the organization: the
   * resources' foreign key refuses the delete, under concurrent creates too.
   */
  async delete(auth: AuthContext, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.authorize(auth, id, 'delete', manager);
      try {
        await this.organizations.delete(manager, id);
      } catch (error) {
        if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
        throw new ConflictError(
          `Organization ${id} still owns resources; move or hard-delete them first (soft-deleted ones too).`,
        );
      }
    });
  }

  async listMembers(auth: AuthContext, id: string, query: OffsetPageQuery, basePath: string): Promise<Paginated<MemberView>> {
    await this.authorize(auth, id, 'read');
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { total, members } = await this.organizations.pageMembers(id, (page - 1) * perPage, perPage);
    const users = await this.users.byId(members.map((member) => member.userId));
    return new Paginated(
      members.map((member) => toMemberView(member, accountOf(users, member.userId))),
      { ...offsetMeta(basePath, {}, page, perPage, total) },
    );
  }

  async addMember(auth: AuthContext, id: string, input: AddMemberDto): Promise<MemberView> {
    // Read before the transaction, so that the request holds one connection at a time; an
    // unknown user is still reported after the organization's own 404 and 403.
    const users = isId('usr', input.user_id) ? await this.users.byId([input.user_id]) : new Map<string, UserIdentity>();
    const user = users.get(input.user_id);
    return this.dataSource.transaction(async (manager) => {
      const organization = await this.authorize(auth, id, 'manage_members', manager);
      if (input.role === 'owner') this.assertMay(auth, 'manage_owners', organization.callerRole, 'Only an owner can add an owner.');
      if (!user) {
        throw new AppError('resource_not_found', `User ${input.user_id} was not found.`, [
          { field: 'user_id', message: 'is not a known user' },
        ]);
      }
      const member = await this.organizations.insertMember(manager, id, user.id, input.role);
      if (!member) {
        throw new ConflictError(`User ${user.id} is already a member of organization ${id}.`, [
          { field: 'user_id', message: 'is already a member' },
        ]);
      }
      return toMemberView(member, user);
    });
  }

  /** Members may remove themselves; the last owner stays. */
  async removeMember(auth: AuthContext, id: string, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // The organization's row lock serializes member removals, so two owners cannot both leave.
      const organization = await this.authorize(auth, id, 'read', manager, true);
      const member = await this.organizations.findMember(manager, id, userId);
      if (userId !== auth.userId) {
        this.assertMay(auth, 'manage_members', organization.callerRole, 'Only an owner or admin can remove members.');
      }
      if (!member) throw new ResourceNotFoundError('Member', userId);
      if (member.role === 'owner' && userId !== auth.userId) {
        this.assertMay(auth, 'manage_owners', organization.callerRole, 'Only an owner can remove an owner.');
      }
      if (member.role === 'owner' && (await this.organizations.countOwners(manager, id)) === 1) {
        throw new ConflictError(`User ${userId} is the last owner of organization ${id}; add another owner first.`);
      }
      await this.organizations.deleteMember(manager, id, userId);
    });
  }

  /**
   * The organization, if the caller may see it (else 404, whatever the id looks like) and may
   * do `action` there (else 403).
   */
  private async authorize(
    auth: AuthContext,
    id: string,
    action: OrganizationAction,
    manager?: EntityManager,
    lock = false,
  ): Promise<VisibleOrganization> {
    const organization = isId('org', id) ? await this.organizations.findVisible(auth, id, manager, lock) : null;
    if (!organization) throw new ResourceNotFoundError('Organization', id);
    this.assertMay(auth, action, organization.callerRole, `Your role in organization ${id} does not allow this.`);
    return organization;
  }

  private assertMay(auth: AuthContext, action: OrganizationAction, role: OrganizationRole | null, message: string): void {
    if (!can(auth, action, role)) throw new InsufficientPermissionsError(message);
  }
}
