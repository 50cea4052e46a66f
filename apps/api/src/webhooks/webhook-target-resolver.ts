import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { isLoopbackName, isRefusedAddress } from '@app/common';
import { AppConfig } from '@app/config';

/** Longest a webhook create or update waits for its host's addresses, the wait for a free resolver included. */
export const TARGET_RESOLUTION_DEADLINE_MS = 2000;
/**
 * Resolutions in flight at once in one API process. More wait, within their own deadline, for a
 * resolver to free up: a burst of creates is served late rather than refused, and slow names
 * hold at most this many resolvers and sockets.
 */
export const CONCURRENT_RESOLUTIONS = 8;

/** Answers that say a name has no address (of that family, or at all), as opposed to DNS failing. */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND', 'EBADNAME']);

/**
 * What a webhook host is: `public` (every address it has is allowed), `refused` (a refused
 * address, a loopback name, or no address at all) or `unanswered` (DNS failed or ran out of time).
 */
export type TargetCheck = 'public' | 'refused' | 'unanswered';

/**
 * Resolves webhook hosts with c-ares (`dns.Resolver`), not `dns.lookup`: getaddrinfo runs on
 * libuv's thread pool, which argon2 shares, so a few hosts on a slow DNS server would stall every
 * login of the process. c-ares answers from the event loop and is cancelled at the deadline.
 * It reads neither /etc/hosts nor the search list: a name only they know is an internal name and
 * is refused as unresolvable, and one they map elsewhere is judged again by the worker's
 * connect-time guard, which uses the system resolver.
 */
@Injectable()
export class WebhookTargetResolver {
  /** Each resolution has a resolver of its own, so cancelling it at its deadline cancels nothing else. */
  private readonly idle: Resolver[];
  private readonly waiting: ((resolver: Resolver) => void)[] = [];

  constructor(config: AppConfig) {
    this.idle = Array.from({ length: CONCURRENT_RESOLUTIONS }, () => {
      // Two tries of half the deadline each: one lost UDP packet does not fail the check.
      const resolver = new Resolver({ timeout: TARGET_RESOLUTION_DEADLINE_MS / 2, tries: 2 });
      const servers = config.webhookDnsServers;
      if (servers) resolver.setServers(servers);
      return resolver;
    });
  }

  /** Judges a URL's hostname (an IP literal, bracketed or not, or a name) within the deadline. */
  async check(hostname: string): Promise<TargetCheck> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) return isRefusedAddress(host) ? 'refused' : 'public';
    if (isLoopbackName(host)) return 'refused';
    const deadline = AbortSignal.timeout(TARGET_RESOLUTION_DEADLINE_MS);
    const resolver = await this.acquire(deadline);
    if (!resolver) return 'unanswered';
    const cancel = (): void => resolver.cancel();
    deadline.addEventListener('abort', cancel, { once: true });
    try {
      return judge(await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]));
    } finally {
      deadline.removeEventListener('abort', cancel);
      this.release(resolver);
    }
  }

  /** An idle resolver, or null when none frees up before the deadline. */
  private acquire(deadline: AbortSignal): Promise<Resolver | null> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    return new Promise((resolve) => {
      const giveUp = (): void => {
        this.waiting.splice(this.waiting.indexOf(take), 1);
        resolve(null);
      };
      const take = (resolver: Resolver): void => {
        deadline.removeEventListener('abort', giveUp);
        resolve(resolver);
      };
      this.waiting.push(take);
      deadline.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Hands the resolver to the longest waiting check, or puts it back. */
  private release(resolver: Resolver): void {
    const next = this.waiting.shift();
    if (next) next(resolver);
    else this.idle.push(resolver);
  }
}

/**
 * Public only when some address came back and none is refused. A name without addresses is
 * `refused`, like a private one: answering differently would tell which internal names exist.
 * A family that failed to answer does not hold back the other's public answer, since the worker
 * checks every address again when it connects.
 */
function judge(answers: PromiseSettledResult<string[]>[]): TargetCheck {
  const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  if (addresses.some((address) => isRefusedAddress(address))) return 'refused';
  if (addresses.length > 0) return 'public';
  const failed = answers.some((answer) => answer.status === 'rejected' && !saysNoAddress(answer.reason));
  return failed ? 'unanswered' : 'refused';
}

function saysNoAddress(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && NO_ADDRESS.has(code);
}
