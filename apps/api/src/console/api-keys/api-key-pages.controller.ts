import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiKeysService } from '../../api-keys/api-keys.service';
import { CreateApiKeyDto, RollApiKeyDto } from '../../api-keys/dto/create-api-key.dto';
import { queryInteger } from '@app/common';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { ShownOnceSecrets } from '../access/shown-once-secrets';
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
    private readonly shownOnce: ShownOnceSecrets,
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
    sendPage(res, createdApiKeyPage(user, await this.apiKeys.create(user.auth, checked.value)));
  }

  @Post(':id/revoke')
  async revoke(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.apiKeys.revoke(user.auth, id);
    seeOther(res, withNotice(consolePaths.apiKeys, 'revoked'));
  }

  /** Rolls a key, then redirects to the one page that shows the new secret. */
  @Post(':id/roll')
  async roll(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const input = await validAs(RollApiKeyDto, { expires_in: queryInteger(textOf(req.body as FormFields, 'expires_in')) });
    const rolled = await this.apiKeys.roll(user.auth, id, input);
    const token = await this.shownOnce.keep(user.auth.userId, { id: rolled.id, name: rolled.name, secret: rolled.key ?? '' });
    seeOther(res, consolePaths.apiKeyRolled(token));
  }

  @Get('rolled/:token')
  async rolled(@SignedIn() user: SignedInUser, @Param('token') token: string, @Res() res: Response): Promise<void> {
    const shown = await this.shownOnce.take(user.auth.userId, token);
    if (!shown) {
      seeOther(res, withNotice(consolePaths.apiKeys, 'secret-gone'));
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    sendPage(res, rolledApiKeyPage(user, shown));
  }

  private async listPage(user: SignedInUser, query: Record<string, unknown>, form?: ApiKeyForm): Promise<RenderedPage> {
    const page = await pageOf(query);
    const keys = await this.apiKeys.list(user.auth, page, consolePaths.apiKeys);
    return apiKeysPage(user, { keys: keys.data, meta: keys.meta, notice: query.notice, form }, form ? 400 : 200);
  }
}
