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
import { OrganizationRepository, OrganizationRole, UserRepository, VisibleOrganization } from '@app/database';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { AddMemberDto, CreateOrganizationDto, UpdateOrganizationDto } from './dto/organization.dto';
import { can, OrganizationAction } from './organization.policy';
import { MemberView, OrganizationView, toMemberView, toOrganizationView } from './organization.view';

const UNIQUE_VIOLATION = '23505';
const DEFAULT_PER_PAGE = 20;

function slugTaken(slug: string): ConflictError {
  return new ConflictError(`The slug ${slug} is already taken.`, [{ field: 'slug', message: 'is already taken' }]);
}

async function uniqueSlug<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (slug !== undefined && (error as { code?: string }).code === UNIQUE_VIOLATION) throw slugTaken(slug);
    throw error;
  }
}

/** Organizations and their members (decisions 8). Who may do what is asked of the policy. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly users: UserRepository,
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

  /** Refused while any resource, even a soft-deleted one, still belongs to the organization. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.authorize(auth, id, 'delete', manager);
      if (await this.organizations.ownsResources(manager, id)) {
        throw new ConflictError(
          `Organization ${id} still owns resources; move or hard-delete them first (soft-deleted ones too).`,
        );
      }
      await this.organizations.delete(manager, id);
    });
  }

  async listMembers(auth: AuthContext, id: string, query: OffsetPageQuery, basePath: string): Promise<Paginated<MemberView>> {
    await this.authorize(auth, id, 'read');
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { total, members } = await this.organizations.pageMembers(id, (page - 1) * perPage, perPage);
    return new Paginated(members.map(toMemberView), { ...offsetMeta(basePath, {}, page, perPage, total) });
  }

  async addMember(auth: AuthContext, id: string, input: AddMemberDto): Promise<MemberView> {
    return this.dataSource.transaction(async (manager) => {
      const organization = await this.authorize(auth, id, 'manage_members', manager);
      if (input.role === 'owner') this.assertMay(auth, 'manage_owners', organization.callerRole, 'Only an owner can add an owner.');
      const user = isId('usr', input.user_id) ? await this.users.findById(input.user_id, manager) : null;
      if (!user) {
        throw new AppError('resource_not_found', `User ${input.user_id} was not found.`, [
          { field: 'user_id', message: 'is not a known user' },
        ]);
      }
      if (!(await this.organizations.insertMember(manager, id, user.id, input.role))) {
        throw new ConflictError(`User ${user.id} is already a member of organization ${id}.`, [
          { field: 'user_id', message: 'is already a member' },
        ]);
      }
      const member = await this.organizations.findMember(manager, id, user.id);
      if (!member) throw new Error('The member just added is missing.');
      return toMemberView(member);
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
