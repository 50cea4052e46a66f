import { ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { isLoopbackHttpUrl, isRefusedAddress, RefusedTargetError } from '@app/common';
import type { DeliveryAttempt } from '@app/database';
import { boundedHeaders } from './attempt-headers';
import { WebhookAgents } from './webhook-agents';
import { LookupPutOffError } from './webhook-host-lookup';

/** Names the sender to receivers and their firewalls, as Stripe's and GitHub's webhooks do. */
export const WEBHOOK_USER_AGENT = 'ResourceManagementService-Webhooks/1.0';

/** How much of a response body an attempt keeps. */
const RESPONSE_BODY_LIMIT = 1024;

/** What an attempt keeps of the receiver's answer. */
interface Answer {
  headers: Record<string, string>;
  body: string;
}

export interface SendOptions {
  /** 2xx within this time is success (5 seconds, docs/api.md#webhook-delivery). */
  timeoutMs: number;
  /** The connections, kept per origin, and whether private addresses are refused. */
  agents: WebhookAgents;
  /** Resolves and checks the host of each new connection (the webhook owner's `WebhookHostLookup`). */
  lookup: LookupFunction;
}

/** An attempt made: what the receiver answered, or why no answer came. */
export type SentAttempt = DeliveryAttempt & { succeeded: boolean };

/** No attempt was made, for a reason of the worker's own (said in `putOff`): the delivery waits for a later turn. */
export interface PutOff {
  putOff: string;
}

/**
 * Whether a url may be sent to before any connection: http only to a loopback host where
 * WEBHOOK_ALLOW_LOOPBACK_HTTP admits it, and https not to a refused IP literal, since Node
 * connects to a literal without calling the owner's `lookup`.
 */
function isAllowedTarget(target: URL, agents: WebhookAgents): boolean {
  if (target.protocol === 'http:') return agents.allowLoopbackHttp && isLoopbackHttpUrl(target);
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return agents.allowPrivateTargets || !(isIP(literal) && isRefusedAddress(literal));
}

/**
 * POSTs one delivery and describes the attempt, with the headers sent and answered; never
 * throws. Redirects are not followed (a 3xx is a failure), and the address connected to is
 * checked, not only the name. When the lookup is put off, nothing was sent and no attempt made.
 */
export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SentAttempt | PutOff> {
  const attemptedAt = new Date();
  const started = process.hrtime.bigint();
  let requestHeaders: Record<string, string> | null = null;
  const finish = (statusCode: number | null, error: string | null, answer: Answer | null) => ({
    attempted_at: attemptedAt.toISOString(),
    status_code: statusCode,
    duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
    error,
    response_body: answer?.body ?? null,
    request_headers: requestHeaders,
    response_headers: answer?.headers ?? null,
    succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300,
  });
  // A url stored before the API refused its form (a zone id, say) is a failed attempt, not a thrown job.
  if (!URL.canParse(url)) return finish(null, 'The webhook url cannot be parsed.', null);
  const target = new URL(url);
  if (!isAllowedTarget(target, options.agents)) return finish(null, new RefusedTargetError().message, null);
  const agent = options.agents.for(target);
  const request = target.protocol === 'http:' ? httpRequest : httpsRequest;
  // An http target is a loopback one (isAllowedTarget): the system's lookup, which knows localhost, is the right one.
  const lookup = target.protocol === 'http:' ? undefined : options.lookup;
  return new Promise((resolve) => {
    let settled = false;
    let current: ClientRequest | undefined;
    const end = (result: SentAttempt | PutOff): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const settle = (statusCode: number | null, error: string | null, answer: Answer | null): void => end(finish(statusCode, error, answer));
    const send = (): void => {
      const req = request(
        target,
        { method: 'POST', agent, lookup, headers: { 'User-Agent': WEBHOOK_USER_AGENT, ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = (): void =>
            settle(res.statusCode ?? null, null, {
              headers: boundedHeaders(res.headers),
              body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
            });
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_BODY_LIMIT) {
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('error', done);
        },
      );
      current = req;
      // Kept once they went out (the request was written, or answered early: whichever comes
      // first), not when the connection failed; Node adds Host among them, and only Connection after.
      const recordSentHeaders = (): void => {
        req.off('finish', recordSentHeaders).off('response', recordSentHeaders);
        requestHeaders = boundedHeaders(req.getHeaders());
      };
      req.on('finish', recordSentHeaders).on('response', recordSentHeaders);
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed while idle fails before any answer: the request
        // goes again on another connection rather than counting as a failed attempt.
        if (req.reusedSocket && error.code === 'ECONNRESET' && !settled) send();
        else if (error instanceof LookupPutOffError) end({ putOff: error.message });
        else settle(null, error.message, null);
      });
      req.end(body);
    };
    const timer = setTimeout(() => {
      settle(null, `no answer within ${options.timeoutMs} ms`, null);
      current?.destroy();
    }, options.timeoutMs);
    send();
  });
}
