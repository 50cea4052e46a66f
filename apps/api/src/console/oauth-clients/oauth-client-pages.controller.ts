import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { CreateOAuthClientDto } from '../../oauth/clients/dto/create-oauth-client.dto';
import type { CreatedOAuthClientView } from '../../oauth/clients/oauth-client.view';
import { OAuthClientsService } from '../../oauth/clients/oauth-clients.service';
import { FormSubmissions } from '../access/form-submissions';
import { ShownOnce } from '../access/shown-once';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { checkAs, FormFields, listOf, pageOf, textOf } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { consolePaths, withNotice } from '../console-paths';
import { seeOther, sendPage } from '../rendering/page-response';
import { CLIENT_TYPES, createdOAuthClientPage, OAuthClientForm, oauthClientsPage } from './oauth-client.pages';

/** OAuth clients: list, register (a confidential client's secret shown once) and delete. */
@ConsolePages('oauth-clients')
export class OAuthClientPagesController {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly submissions: FormSubmissions,
    private readonly shownOnce: ShownOnce,
  ) {}

  @Get()
  async list(@SignedIn() user: SignedInUser, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    sendPage(res, await this.listPage(user, query));
  }

  @Post()
  async create(@SignedIn() user: SignedInUser, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = req.body as FormFields;
    const redirectUris = textOf(form, 'redirect_uris') ?? '';
    const type = textOf(form, 'confidential') ?? CLIENT_TYPES.confidential;
    const values = {
      name: textOf(form, 'name'),
      // One URI per line, as the textarea shows them.
      redirect_uris: redirectUris.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ''),
      scopes: listOf(form, 'scopes'),
      confidential: type === CLIENT_TYPES.public ? false : type === CLIENT_TYPES.confidential ? true : type,
    };
    const checked = await checkAs(CreateOAuthClientDto, values);
    if (!checked.valid) {
      const state = { values: { name: values.name, redirectUris, scopes: values.scopes, type }, problems: checked.problems };
      sendPage(res, await this.listPage(user, {}, state));
      return;
    }
    const created = await this.submissions.once(user, form, consolePaths.oauthClients, async () => {
      const client = await this.clients.create(user.auth, checked.value);
      await this.shownOnce.hold(user, consolePaths.oauthClientCreated(client.id), client);
      return consolePaths.oauthClientCreated(client.id);
    });
    seeOther(res, created);
  }

  /** The new client with its secret, once; seen again, the list says the secret is not shown twice. */
  @Get(':id/created')
  async created(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const client = await this.shownOnce.take<CreatedOAuthClientView>(user, consolePaths.oauthClientCreated(id));
    if (client) sendPage(res, createdOAuthClientPage(user, client));
    else seeOther(res, withNotice(consolePaths.oauthClients, 'shown'));
  }

  @Post(':id/delete')
  async remove(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.clients.delete(user.auth, id);
    seeOther(res, withNotice(consolePaths.oauthClients, 'deleted'));
  }

  private async listPage(user: SignedInUser, query: Record<string, unknown>, form?: OAuthClientForm): Promise<RenderedPage> {
    const clients = await this.clients.list(user.auth, await pageOf(query), consolePaths.oauthClients);
    return oauthClientsPage(user, { clients: clients.data, meta: clients.meta, notice: query.notice, form }, form ? 400 : 200);
  }
}
