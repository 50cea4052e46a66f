import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { isRefusedAddress, RefusedTargetError } from '@app/common';
import type { DeliveryAttempt } from '@app/database';
import { WebhookAgents } from './webhook-agents';

/** How much of a response body an attempt keeps. */
const RESPONSE_BODY_LIMIT = 1024;

export interface SendOptions {
  /** 2xx within this time is success (5 seconds, decisions 11). */
  timeoutMs: number;
  /** The connections, kept per origin, and whether private addresses are refused. */
  agents: WebhookAgents;
}

/**
 * POSTs one delivery and describes the attempt; never throws. Redirects are not followed
 * (a 3xx is a failure), and the address connected to is checked, not only the name.
 */
export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<DeliveryAttempt & { succeeded: boolean }> {
  const attemptedAt = new Date();
  const started = process.hrtime.bigint();
  const finish = (statusCode: number | null, error: string | null, responseBody: string | null) => ({
    attempted_at: attemptedAt.toISOString(),
    status_code: statusCode,
    duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
    error,
    response_body: responseBody,
    succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300,
  });
  // A url stored before the API refused its form (a zone id, say) is a failed attempt, not a thrown job.
  if (!URL.canParse(url)) return finish(null, 'The webhook url cannot be parsed.', null);
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node connects to an IP literal without calling `lookup`, so literals are judged here.
  if (!options.agents.allowPrivateTargets && isIP(literal) && isRefusedAddress(literal)) {
    return finish(null, new RefusedTargetError().message, null);
  }
  const agent = options.agents.for(target);
  return new Promise((resolve) => {
    let settled = false;
    let current: ClientRequest | undefined;
    const settle = (statusCode: number | null, error: string | null, responseBody: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(statusCode, error, responseBody));
    };
    const send = (): void => {
      const req = request(
        target,
        { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = (): void =>
            settle(res.statusCode ?? null, null, Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'));
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
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed while idle fails before any answer: the request
        // goes again on another connection rather than counting as a failed attempt.
        if (req.reusedSocket && error.code === 'ECONNRESET' && !settled) send();
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
