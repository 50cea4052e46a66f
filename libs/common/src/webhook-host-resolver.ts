import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackName, isRefusedAddress } from './webhook-target';

/** Longest the resolution of a webhook host takes, the wait for a free resolver included. */
export const HOST_RESOLUTION_DEADLINE_MS = 2000;

/** Answers that say a name has no address (of that family, or at all), as opposed to DNS failing. */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND', 'EBADNAME']);

/**
 * What resolving a host name came to: its addresses (some came back), `no-address` (DNS says
 * it has none), `unanswered` (DNS failed, or did not answer within the deadline while it had
 * all of it) or `saturated` (no resolver of this process was free in time, or one freed up too
 * late for DNS to answer): the last is this process's doing, not the host's.
 */
export type HostResolution =
  | { outcome: 'resolved'; addresses: LookupAddress[] }
  | { outcome: 'no-address' }
  | { outcome: 'unanswered' }
  | { outcome: 'saturated' };

/**
 * What a webhook host is: `public` (every address it has is allowed), `refused` (a refused
 * address, a loopback name, or no address at all) or `unanswered` (DNS failed or ran out of time).
 */
export type TargetCheck = 'public' | 'refused' | 'unanswered';

export interface WebhookHostResolverOptions {
  /** DNS servers (`ip`, `ip:port`, `[ipv6]:port`); unset, the system's. */
  servers?: string[];
  /**
   * Resolutions in flight at once. More wait, within their own deadline, for a resolver to free
   * up: a burst is served late rather than refused, and slow names hold at most this many
   * resolvers and sockets.
   */
  concurrency: number;
}

/**
 * Resolves webhook hosts with c-ares (`dns.Resolver`), not `dns.lookup`: getaddrinfo runs on
 * libuv's four-thread pool, which argon2 and every other process's lookup share, so a few hosts on
 * a slow DNS server would stall logins in the API and every other webhook's connection in the
 * worker. c-ares answers from the event loop and is cancelled at the deadline. It reads neither
 * /etc/hosts nor the search list: a name only they know is an internal name, and does not resolve.
 * The API checks hosts with it at create and update, the worker at each new connection.
 */
export class WebhookHostResolver {
  /** Each resolution has a resolver of its own, so cancelling it at its deadline cancels nothing else. */
  private readonly idle: Resolver[] = [];
  private created = 0;
  private readonly waiting: ((resolver: Resolver) => void)[] = [];

  constructor(private readonly options: WebhookHostResolverOptions) {}

  /** Judges a URL's hostname (an IP literal, bracketed or not, or a name) within the deadline. */
  async check(hostname: string): Promise<TargetCheck> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) return isRefusedAddress(host) ? 'refused' : 'public';
    if (isLoopbackName(host)) return 'refused';
    const resolution = await this.resolve(host);
    switch (resolution.outcome) {
      case 'resolved':
        return resolution.addresses.some((entry) => isRefusedAddress(entry.address)) ? 'refused' : 'public';
      // A name without addresses reads like a private one: answering differently would tell which internal names exist.
      case 'no-address':
        return 'refused';
      case 'unanswered':
      case 'saturated':
        return 'unanswered';
    }
  }

  /**
   * The A and AAAA addresses of a name, within HOST_RESOLUTION_DEADLINE_MS. A family that failed
   * to answer does not hold back the other's addresses; what they are worth is the caller's to judge.
   */
  async resolve(name: string): Promise<HostResolution> {
    const deadline = AbortSignal.timeout(HOST_RESOLUTION_DEADLINE_MS);
    const acquired = await this.acquire(deadline);
    if (!acquired) return { outcome: 'saturated' };
    const { resolver, waited } = acquired;
    const cancel = (): void => resolver.cancel();
    deadline.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
      const addresses = [...addressesOf(v4, 4), ...addressesOf(v6, 6)];
      if (addresses.length > 0) return { outcome: 'resolved', addresses };
      const failed = [v4, v6].some((answer) => answer.status === 'rejected' && !saysNoAddress(answer.reason));
      if (!failed) return { outcome: 'no-address' };
      // DNS that had less than the whole deadline, for want of a free resolver, is not at fault.
      return { outcome: deadline.aborted && waited ? 'saturated' : 'unanswered' };
    } finally {
      deadline.removeEventListener('abort', cancel);
      this.release(resolver);
    }
  }

  /** An idle resolver (made while fewer than `concurrency` exist), or null when none frees up before the deadline. */
  private acquire(deadline: AbortSignal): Promise<{ resolver: Resolver; waited: boolean } | null> {
    const idle = this.idle.pop() ?? (this.created < this.options.concurrency ? this.newResolver() : undefined);
    if (idle) return Promise.resolve({ resolver: idle, waited: false });
    return new Promise((resolve) => {
      const giveUp = (): void => {
        this.waiting.splice(this.waiting.indexOf(take), 1);
        resolve(null);
      };
      const take = (resolver: Resolver): void => {
        deadline.removeEventListener('abort', giveUp);
        resolve({ resolver, waited: true });
      };
      this.waiting.push(take);
      deadline.addEventListener('abort', giveUp, { once: true });
    });
  }

  private newResolver(): Resolver {
    this.created += 1;
    // Two tries of half the deadline each: one lost UDP packet does not fail the resolution.
    const resolver = new Resolver({ timeout: HOST_RESOLUTION_DEADLINE_MS / 2, tries: 2 });
    if (this.options.servers) resolver.setServers(this.options.servers);
    return resolver;
  }

  /** Hands the resolver to the longest waiting resolution, or puts it back. */
  private release(resolver: Resolver): void {
    const next = this.waiting.shift();
    if (next) next(resolver);
    else this.idle.push(resolver);
  }
}

function addressesOf(answer: PromiseSettledResult<string[]>, family: 4 | 6): LookupAddress[] {
  return answer.status === 'fulfilled' ? answer.value.map((address) => ({ address, family })) : [];
}

function saysNoAddress(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && NO_ADDRESS.has(code);
}
