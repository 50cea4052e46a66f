import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { HOST_RESOLUTION_DEADLINE_MS, HostResolution, isLoopbackName, isRefusedAddress, RefusedTargetError, WebhookHostResolver } from '@app/common';

/**
 * The worker could not look the host up in time for reasons of its own (the owner's lookups are
 * at their cap, or no resolver was free): the delivery is put off, and nothing counts against it.
 */
export class LookupPutOffError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LookupPutOffError';
  }
}

export interface WebhookHostLookupOptions {
  /** Lookups in flight at once for the webhooks of one owner. */
  perOwner: number;
  /** Development and tests only: private and loopback addresses are connected to. */
  allowPrivateTargets: boolean;
}

const LOOPBACK: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * The `lookup` of each new connection to a webhook host, for one owner at a time: resolved off the
 * thread pool within HOST_RESOLUTION_DEADLINE_MS (`WebhookHostResolver`), judged, and handed to
 * the socket as the addresses it connects to, so that what was checked is what is connected to.
 * An owner has at most `perOwner` names being resolved at once (connections to one name share its
 * resolution), so that one account's DNS that never answers holds few resolvers and deliveries.
 */
export class WebhookHostLookup {
  /** The resolutions in flight of each owner, by host name. */
  private readonly inFlight = new Map<string, Map<string, Promise<HostResolution>>>();

  constructor(
    private readonly resolver: Pick<WebhookHostResolver, 'resolve'>,
    private readonly options: WebhookHostLookupOptions,
  ) {}

  /** The lookup to give the connections made for `ownerId`'s webhooks. */
  forOwner(ownerId: string): LookupFunction {
    return (hostname, options, callback) => {
      this.addresses(ownerId, hostname).then(
        (addresses) => {
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
          if (wanted.length === 0) callback(new HostNotFoundError(), []);
          else if (options.all) callback(null, wanted);
          else callback(null, wanted[0].address, wanted[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
  }

  /** The checked addresses of `hostname`; rejects with what the connection attempt should fail with. */
  private async addresses(ownerId: string, hostname: string): Promise<LookupAddress[]> {
    if (isLoopbackName(hostname)) {
      if (this.options.allowPrivateTargets) return LOOPBACK;
      throw new RefusedTargetError();
    }
    const resolution = await this.resolution(ownerId, hostname);
    switch (resolution.outcome) {
      case 'resolved':
        if (!this.options.allowPrivateTargets && resolution.addresses.some((entry) => isRefusedAddress(entry.address))) {
          throw new RefusedTargetError();
        }
        return resolution.addresses;
      case 'no-address':
        throw new HostNotFoundError();
      case 'unanswered':
        throw new HostUnansweredError();
      case 'saturated':
        throw new LookupPutOffError('no DNS resolver of the worker was free in time');
    }
  }

  /** The owner's resolution of `hostname` in flight, or a new one while the owner is under its cap. */
  private resolution(ownerId: string, hostname: string): Promise<HostResolution> {
    const owned = this.inFlight.get(ownerId) ?? new Map<string, Promise<HostResolution>>();
    const known = owned.get(hostname);
    if (known) return known;
    if (owned.size >= this.options.perOwner) {
      return Promise.reject(new LookupPutOffError(`the owner's ${this.options.perOwner} host lookups at once are all in flight`));
    }
    const resolution = this.resolver.resolve(hostname).finally(() => {
      owned.delete(hostname);
      if (owned.size === 0) this.inFlight.delete(ownerId);
    });
    owned.set(hostname, resolution);
    this.inFlight.set(ownerId, owned);
    return resolution;
  }
}

/** DNS says the host has no address. Names none, like RefusedTargetError. */
class HostNotFoundError extends Error {
  readonly code = 'ENOTFOUND';

  constructor() {
    super('the host has no address in DNS');
    this.name = 'HostNotFoundError';
  }
}

/** The host's DNS failed, or did not answer in time: the receiver's to fix, so the attempt counts. */
class HostUnansweredError extends Error {
  readonly code = 'ETIMEOUT';

  constructor() {
    super(`the host's DNS failed or did not answer within ${HOST_RESOLUTION_DEADLINE_MS / 1000} seconds`);
    this.name = 'HostUnansweredError';
  }
}
