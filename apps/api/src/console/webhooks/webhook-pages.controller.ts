import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { EventPayload, queryInteger, ResourceNotFoundError, ValidationError } from '@app/common';
import { EventsService } from '../../events/events.service';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { CreateWebhookDto } from '../../webhooks/dto/create-webhook.dto';
import { DeliveryListQuery } from '../../webhooks/dto/delivery-list.query';
import { RecoverWebhookDto } from '../../webhooks/dto/recover-webhook.dto';
import { RotateWebhookSecretDto } from '../../webhooks/dto/rotate-webhook-secret.dto';
import { TestWebhookDto } from '../../webhooks/dto/test-webhook.dto';
import { UpdateWebhookDto } from '../../webhooks/dto/update-webhook.dto';
import type { CreatedWebhookView, RotatedSecretView } from '../../webhooks/webhook.view';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { FormSubmissions } from '../access/form-submissions';
import { ShownOnce } from '../access/shown-once';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { checkAs, FormFields, listOf, optionalTextOf, pageOf, textOf, validAs } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { consolePaths, withNotice } from '../console-paths';
import { seeOther, sendPage } from '../rendering/page-response';
import { rotatedSecretPage } from './webhook-lifecycle.pages';
import { createdWebhookPage, deliveryPage, WebhookFormState, webhookPage, webhooksPage } from './webhook.pages';

/**
 * Webhooks and their delivery timelines, through WebhooksService as the API does: a webhook of
 * another user is a 404 here as there.
 */
@ConsolePages('webhooks')
export class WebhookPagesController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly events: EventsService,
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
    const values = { url: textOf(form, 'url')?.trim(), description: optionalTextOf(form, 'description'), events: listOf(form, 'events') };
    const checked = await checkAs(CreateWebhookDto, values);
    if (!checked.valid) {
      sendPage(res, await this.listPage(user, {}, { values, problems: checked.problems }));
      return;
    }
    let created: string;
    try {
      created = await this.submissions.once(user, form, consolePaths.webhooks, async () => {
        const webhook = await this.webhooks.create(user.auth, checked.value);
        await this.shownOnce.hold(user, consolePaths.webhookCreated(webhook.id), webhook);
        return consolePaths.webhookCreated(webhook.id);
      });
    } catch (error) {
      // The service's own refusal of a URL (a private host, a name that does not resolve) is about the form.
      if (!(error instanceof ValidationError)) throw error;
      sendPage(res, await this.listPage(user, {}, { values, problems: error.details ?? [] }));
      return;
    }
    seeOther(res, created);
  }

  /** The new webhook with its signing secret, once; seen again, the webhook's own page, which never shows it. */
  @Get(':id/created')
  async created(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const webhook = await this.shownOnce.take<CreatedWebhookView>(user, consolePaths.webhookCreated(id));
    if (webhook) sendPage(res, createdWebhookPage(user, webhook));
    else seeOther(res, withNotice(consolePaths.webhook(id), 'shown'));
  }

  @Get(':id')
  async show(@SignedIn() user: SignedInUser, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    sendPage(res, await this.webhookPage(user, id, query));
  }

  @Post(':id')
  async update(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = req.body as FormFields;
    const description = optionalTextOf(form, 'description');
    // A form without the URL field (one made before it had it) leaves the URL as it is.
    const values = { url: textOf(form, 'url')?.trim(), description: description ?? null, events: listOf(form, 'events') };
    const shown = { url: values.url, description, events: values.events };
    const checked = await checkAs(UpdateWebhookDto, values);
    if (!checked.valid) {
      sendPage(res, await this.webhookPage(user, id, {}, { values: shown, problems: checked.problems }));
      return;
    }
    try {
      await this.webhooks.update(user.auth, id, checked.value);
    } catch (error) {
      // The service's own refusal of a URL (a private host, a name that does not resolve) is about the form.
      if (!(error instanceof ValidationError)) throw error;
      sendPage(res, await this.webhookPage(user, id, {}, { values: shown, problems: error.details ?? [] }));
      return;
    }
    seeOther(res, withNotice(consolePaths.webhook(id), 'saved'));
  }

  @Post(':id/enable')
  async enable(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.webhooks.update(user.auth, id, { status: 'enabled' });
    seeOther(res, withNotice(consolePaths.webhook(id), 'enabled'));
  }

  @Post(':id/test')
  async test(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const input = await validAs(TestWebhookDto, { event_type: textOf(req.body as FormFields, 'event_type') });
    await this.webhooks.test(user.auth, id, input.event_type);
    seeOther(res, withNotice(consolePaths.webhook(id), 'test-sent'));
  }

  @Post(':id/pause')
  async pause(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.webhooks.update(user.auth, id, { status: 'paused' });
    seeOther(res, withNotice(consolePaths.webhook(id), 'paused'));
  }

  @Post(':id/resume')
  async resume(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.webhooks.update(user.auth, id, { status: 'enabled' });
    seeOther(res, withNotice(consolePaths.webhook(id), 'resumed'));
  }

  /** Rotates the secret once per form, then redirects to the one page that shows the new one. */
  @Post(':id/rotate')
  async rotate(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = req.body as FormFields;
    const input = await validAs(RotateWebhookSecretDto, { expires_in: queryInteger(textOf(form, 'expires_in')) });
    const rotated = await this.submissions.once(user, form, consolePaths.webhook(id), async () => {
      const view = await this.webhooks.rotateSecret(user.auth, id, input);
      await this.shownOnce.hold(user, consolePaths.webhookRotated(id), view);
      return consolePaths.webhookRotated(id);
    });
    seeOther(res, rotated);
  }

  /** The new signing secret, once; seen again, the webhook's own page says so. */
  @Get(':id/rotated')
  async rotated(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const webhook = await this.webhooks.get(user.auth, id);
    const rotated = await this.shownOnce.take<RotatedSecretView>(user, consolePaths.webhookRotated(id));
    if (rotated) sendPage(res, rotatedSecretPage(user, webhook, rotated));
    else seeOther(res, withNotice(consolePaths.webhook(id), 'secret-gone'));
  }

  /** "Send failed deliveries again since ...": a disabled webhook is enabled first, as the page says. */
  @Post(':id/recover')
  async recover(@SignedIn() user: SignedInUser, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const input = await validAs(RecoverWebhookDto, { since: textOf(req.body as FormFields, 'since')?.trim() });
    const webhook = await this.webhooks.get(user.auth, id);
    if (webhook.status === 'disabled') await this.webhooks.update(user.auth, id, { status: 'enabled' });
    await this.webhooks.recover(user.auth, id, input);
    seeOther(res, withNotice(consolePaths.webhook(id), 'recovered'));
  }

  @Post(':id/delete')
  async remove(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.webhooks.remove(user.auth, id);
    seeOther(res, withNotice(consolePaths.webhooks, 'deleted'));
  }

  @Get(':id/deliveries/:deliveryId')
  async delivery(
    @SignedIn() user: SignedInUser,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const webhook = await this.webhooks.get(user.auth, id);
    const { delivery, body } = await this.webhooks.getDeliveryRequest(user.auth, id, deliveryId);
    const event = await this.visibleEvent(user, delivery.event_id);
    sendPage(res, deliveryPage(user, { webhook, delivery, body, event, notice: query.notice }));
  }

  @Post(':id/deliveries/:deliveryId/retry')
  async retry(@SignedIn() user: SignedInUser, @Param('id') id: string, @Param('deliveryId') deliveryId: string, @Res() res: Response): Promise<void> {
    await this.webhooks.retry(user.auth, id, deliveryId);
    seeOther(res, withNotice(consolePaths.delivery(id, deliveryId), 'retried'));
  }

  private async listPage(user: SignedInUser, query: Record<string, unknown>, form?: WebhookFormState): Promise<RenderedPage> {
    const page = await pageOf(query);
    const webhooks = await this.webhooks.list(user.auth, page, consolePaths.webhooks);
    const health = await this.webhooks.health(user.auth, webhooks.data.map(({ id }) => id));
    return webhooksPage(user, { webhooks: webhooks.data, health, meta: webhooks.meta, notice: query.notice, form }, form ? 400 : 200);
  }

  private async webhookPage(user: SignedInUser, id: string, query: Record<string, unknown>, form?: WebhookFormState): Promise<RenderedPage> {
    const webhook = await this.webhooks.get(user.auth, id);
    const page = await pageOf(query);
    const status = query.status === '' ? undefined : query.status;
    const { status: deliveryStatus } = await validAs(DeliveryListQuery, { status }, 'query');
    const deliveries = await this.webhooks.listDeliveries(user.auth, id, { ...page, status: deliveryStatus }, consolePaths.webhook(id));
    const health = await this.webhooks.health(user.auth, [webhook.id]);
    return webhookPage(
      user,
      { webhook, health: health.get(webhook.id), deliveries: deliveries.data, deliveriesMeta: deliveries.meta, deliveryStatus, notice: query.notice, form },
      form ? 400 : 200,
    );
  }

  /** The event a delivery carried, when it is a stored one the user can see; a test's sample is not. */
  private async visibleEvent(user: SignedInUser, eventId: string): Promise<EventPayload | null> {
    try {
      return await this.events.get(user.auth, eventId);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) return null;
      throw error;
    }
  }
}
