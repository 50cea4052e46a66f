import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiKeysService } from '../../api-keys/api-keys.service';
import { queryInteger } from '@app/common';
import type { CreatedApiKeyView } from '../../api-keys/api-key.view';
import { CreateApiKeyDto, RollApiKeyDto } from '../../api-keys/dto/create-api-key.dto';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { FormSubmissions } from '../access/form-submissions';
import { ShownOnce } from '../access/shown-once';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { checkAs, FormFields, listOf, optionalTextOf, pageOf, textOf, validAs } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { consolePaths, withNotice } from '../console-paths';
import { seeOther, sendPage } from '../rendering/page-response';
import { ApiKeyForm, apiKeysPage, createdApiKeyPage, rolledApiKeyPage } from './api-key.pages';

/** API keys: list, create (the secret shown once) and revoke, through ApiKeysService as the API does. */
@ConsolePages('api-keys')
export class ApiKeyPagesController {
  constructor(
    private readonly apiKeys: ApiKeysService,
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
    const values = { name: textOf(form, 'name'), scopes: listOf(form, 'scopes'), expires_at: optionalTextOf(form, 'expires_at') };
    const checked = await checkAs(CreateApiKeyDto, values);
    if (!checked.valid) {
      sendPage(res, await this.listPage(user, {}, { values, problems: checked.problems }));
      return;
    }
    const created = await this.submissions.once(user, form, consolePaths.apiKeys, async () => {
      const key = await this.apiKeys.create(user.auth, checked.value);
      await this.shownOnce.hold(user, consolePaths.apiKeyCreated(key.id), key);
      return consolePaths.apiKeyCreated(key.id);
    });
    seeOther(res, created);
  }

  /** The new key with its secret, once; seen again, the list says the secret is not shown twice. */
  @Get(':id/created')
  async created(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const key = await this.shownOnce.take<CreatedApiKeyView>(user, consolePaths.apiKeyCreated(id));
    if (key) sendPage(res, createdApiKeyPage(user, key));
    else seeOther(res, withNotice(consolePaths.apiKeys, 'shown'));
  }

  @Post(':id/revoke')
  async revoke(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.apiKeys.revoke(user.auth, id);
    seeOther(res, withNotice(consolePaths.apiKeys, 'revoked'));
  }

  /** Rolls a key once per form, then redirects to the one page that shows the new secret. */
  @Post(':id/roll')
  async roll(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = req.body as FormFields;
    const input = await validAs(RollApiKeyDto, { expires_in: queryInteger(textOf(form, 'expires_in')) });
    const rolled = await this.submissions.once(user, form, consolePaths.apiKeys, async () => {
      const key = await this.apiKeys.roll(user.auth, id, input);
      await this.shownOnce.hold(user, consolePaths.apiKeyRolled(key.id), key);
      return consolePaths.apiKeyRolled(key.id);
    });
    seeOther(res, rolled);
  }

  /** The rolled key with its new secret, once; seen again, the list says so. */
  @Get(':id/rolled')
  async rolled(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const key = await this.shownOnce.take<CreatedApiKeyView>(user, consolePaths.apiKeyRolled(id));
    if (key) sendPage(res, rolledApiKeyPage(user, key));
    else seeOther(res, withNotice(consolePaths.apiKeys, 'secret-gone'));
  }

  private async listPage(user: SignedInUser, query: Record<string, unknown>, form?: ApiKeyForm): Promise<RenderedPage> {
    const page = await pageOf(query);
    const keys = await this.apiKeys.list(user.auth, page, consolePaths.apiKeys);
    return apiKeysPage(user, { keys: keys.data, meta: keys.meta, notice: query.notice, form }, form ? 400 : 200);
  }
}
