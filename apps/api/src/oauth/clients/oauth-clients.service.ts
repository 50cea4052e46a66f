import { Injectable } from '@nestjs/common';
import { AuthContext, isId, newId, offsetMeta, Paginated, PER_PAGE_DEFAULT, ResourceNotFoundError } from '@app/common';
import { OAuthClientRepository } from '../oauth-client.repository';
import { hashSecret, newOpaqueSecret } from '../../auth/opaque-secret';
import { OffsetPageQuery } from '../../platform/pagination/offset-page.query';
import { CreateOAuthClientDto } from './dto/create-oauth-client.dto';
import { CreatedOAuthClientView, OAuthClientView, toOAuthClientView } from './oauth-client.view';

export const CLIENT_SECRET_PREFIX = 'ocs_';

@Injectable()
export class OAuthClientsService {
  constructor(private readonly clients: OAuthClientRepository) {}

  /** Registers a client for the caller; a confidential client's secret is in this answer only. */
  async create(auth: AuthContext, input: CreateOAuthClientDto): Promise<CreatedOAuthClientView> {
    const confidential = input.confidential ?? true;
    const secret = confidential ? `${CLIENT_SECRET_PREFIX}${newOpaqueSecret()}` : null;
    const client = await this.clients.insert({
      id: newId('cli'),
      ownerId: auth.userId,
      name: input.name.trim(),
      redirectUris: input.redirect_uris,
      scopes: input.scopes,
      confidential,
      secretHash: secret === null ? null : hashSecret(secret),
    });
    const view = toOAuthClientView(client);
    return secret === null ? view : { ...view, client_secret: secret };
  }

  async list(auth: AuthContext, query: OffsetPageQuery, basePath: string): Promise<Paginated<OAuthClientView>> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? PER_PAGE_DEFAULT;
    const [clients, total] = await this.clients.listOwned(auth.userId, (page - 1) * perPage, perPage);
    return new Paginated(clients.map(toOAuthClientView), { ...offsetMeta(basePath, {}, page, perPage, total) });
  }

  async get(auth: AuthContext, id: string): Promise<OAuthClientView> {
    const client = isId('cli', id) ? await this.clients.findOwned(auth.userId, id) : null;
    if (!client) throw new ResourceNotFoundError('OAuth client', id);
    return toOAuthClientView(client);
  }

  /** Deletes one of the caller's clients; its codes and tokens stop working with it. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    if (!isId('cli', id) || !(await this.clients.deleteOwned(auth.userId, id))) {
      throw new ResourceNotFoundError('OAuth client', id);
    }
  }
}
