import { randomBytes } from 'node:crypto';
import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { EVENT_KINDS, EventKind, isEventKind } from '@app/common';
import { unwrap } from '@rms/client';
import { connectToApi, describeApiFailure } from './api-connection';
import { CommandFailure } from './command-failure';
import { WebhookForwarder } from './webhook-forwarder';

interface ListenOptions {
  forwardTo: string;
  events?: string;
  apiUrl: string;
  apiKey?: string;
  email?: string;
  password?: string;
}

const DEFAULT_API_URL = 'http://localhost:3000';

function forwardTarget(value: string): URL {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new CommandFailure(`--forward-to must be an http(s) URL, such as http://localhost:4000/hooks; got ${value}`);
  }
  return new URL(value);
}

function eventKinds(value: string | undefined): EventKind[] {
  if (value === undefined) return [...EVENT_KINDS];
  const kinds = value.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !isEventKind(kind));
  if (unknown.length > 0) throw new CommandFailure(`--events: unknown event kinds ${unknown.join(', ')}; known: ${EVENT_KINDS.join(', ')}`);
  return kinds.filter(isEventKind);
}

/** Resolves with the first SIGINT or SIGTERM: Ctrl-C, or the terminal or a supervisor stopping the command. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

const print = (line: string): void => void process.stdout.write(`${line}\n`);

@SubCommand({
  name: 'listen',
  description:
    'Receive webhook deliveries on this machine: a webhook to a local receiver, which verifies each delivery and forwards it ' +
    'to --forward-to; removed on Ctrl-C. The API must allow http loopback targets (NODE_ENV=development does).',
})
export class WebhooksListenCommand extends CommandRunner {
  async run(_params: string[], options: ListenOptions): Promise<void> {
    const forwardTo = forwardTarget(options.forwardTo);
    const events = eventKinds(options.events);
    const api = await connectToApi(options);
    // The secret is made here rather than by the API, so that the receiver can verify from its first delivery on.
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const forwarder = new WebhookForwarder({ forwardTo, secret, print });
    const stopped = stopSignal();
    try {
      const url = await forwarder.listen();
      const body = { url, events, secret, description: `webhooks listen, forwarding to ${forwardTo.href}` };
      const { data: webhook } = await unwrap(api.api.POST('/v2/webhooks', { body })).catch((error: unknown) => {
        throw describeApiFailure(error, options.apiUrl, 'create the webhook');
      });
      print(`Webhook ${webhook.id} receives ${events.join(', ')} at ${url}`);
      print(`Forwarding each delivery to ${forwardTo.href}; its signing secret is ${secret}`);
      print('Ready. Ctrl-C removes the webhook and stops.');
      await stopped;
      await unwrap(api.api.DELETE('/v2/webhooks/{id}', { params: { path: { id: webhook.id } } })).catch((error: unknown) => {
        throw describeApiFailure(error, options.apiUrl, `remove the webhook ${webhook.id}`);
      });
      print(`Removed webhook ${webhook.id}`);
    } finally {
      await forwarder.close();
    }
  }

  @Option({ flags: '--forward-to <url>', description: 'Your endpoint, which receives each delivery as the service sent it', required: true })
  parseForwardTo(value: string): string {
    return value;
  }

  @Option({ flags: '--events <kinds>', description: `Comma-separated event kinds (default: all of ${EVENT_KINDS.join(', ')})` })
  parseEvents(value: string): string {
    return value;
  }

  @Option({ flags: '--api-url <url>', description: 'Origin of the running API', defaultValue: DEFAULT_API_URL })
  parseApiUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--api-key <key>', description: 'An API key of the account with the write:webhooks scope (or set RMS_API_KEY)' })
  parseApiKey(value: string): string {
    return value;
  }

  @Option({ flags: '--email <email>', description: 'Log in as this account instead of an API key (with --password)' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--password <password>', description: 'Password of the --email account' })
  parsePassword(value: string): string {
    return value;
  }
}
