import type { LookupAddress } from 'node:dns';
import type { LookupOptions } from 'node:dns';
import { HostResolution, RefusedTargetError } from '@app/common';
import { LookupPutOffError, WebhookHostLookup } from './webhook-host-lookup';

const PUBLIC: LookupAddress[] = [
  { address: '93.184.216.34', family: 4 },
  { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
];

/** A resolver whose answers the test gives, one pending promise per name asked. */
function scriptedResolver() {
  const pending = new Map<string, (resolution: HostResolution) => void>();
  const asked: string[] = [];
  return {
    asked,
    answer: (name: string, resolution: HostResolution) => pending.get(name)?.(resolution),
    resolve: (name: string) => {
      asked.push(name);
      return new Promise<HostResolution>((resolve) => pending.set(name, resolve));
    },
  };
}

interface LookedUp {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

describe('WebhookHostLookup', () => {
  const lookupWith = (lookup: WebhookHostLookup, owner: string, hostname: string, options: LookupOptions = { all: true }) =>
    new Promise<LookedUp>((resolve) => lookup.forOwner(owner)(hostname, options, (error, address, family) => resolve({ error, address, family })));

  it('hands the socket the addresses it checked: all of them, the first, or those of the family asked for', async () => {
    const resolver = scriptedResolver();
    const lookup = new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets: false });
    const answers = [
      lookupWith(lookup, 'usr_a', 'hooks.example.com'),
      lookupWith(lookup, 'usr_a', 'hooks.example.com', {}),
      lookupWith(lookup, 'usr_a', 'hooks.example.com', { family: 6, all: true }),
    ];
    resolver.answer('hooks.example.com', { outcome: 'resolved', addresses: PUBLIC });
    expect(await Promise.all(answers)).toEqual([
      { error: null, address: PUBLIC },
      { error: null, address: '93.184.216.34', family: 4 },
      { error: null, address: [PUBLIC[1]] },
    ]);
    // Connections to one name at once share its resolution.
    expect(resolver.asked).toEqual(['hooks.example.com']);
  });

  it('refuses a name with any refused address (DNS rebinding) with an error that names none, unless private targets are allowed', async () => {
    const rebound: LookupAddress[] = [PUBLIC[0], { address: '::ffff:0:a00:7', family: 6 }];
    for (const allowPrivateTargets of [false, true]) {
      const resolver = scriptedResolver();
      const lookup = new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets });
      const answer = lookupWith(lookup, 'usr_a', 'rebound.example.com');
      resolver.answer('rebound.example.com', { outcome: 'resolved', addresses: rebound });
      const { error, address } = await answer;
      if (allowPrivateTargets) expect(address).toEqual(rebound);
      else {
        expect(error).toBeInstanceOf(RefusedTargetError);
        expect(error?.message).not.toMatch(/93\.184|a00|10\.0\.0\.7/);
      }
    }
  });

  it.each(['localhost', 'api.localhost'])('refuses the loopback name %s without asking DNS, or connects it to loopback when allowed', async (name) => {
    const resolver = scriptedResolver();
    expect((await lookupWith(new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets: false }), 'usr_a', name)).error).toBeInstanceOf(RefusedTargetError);
    const allowed = await lookupWith(new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets: true }), 'usr_a', name, { family: 4, all: true });
    expect(allowed).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }] });
    expect(resolver.asked).toEqual([]);
  });

  it('fails the connection, counting against the host, when DNS has no address or does not answer', async () => {
    const resolver = scriptedResolver();
    const lookup = new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets: false });
    const missing = lookupWith(lookup, 'usr_a', 'missing.example.com');
    const silent = lookupWith(lookup, 'usr_a', 'silent.example.com');
    resolver.answer('missing.example.com', { outcome: 'no-address' });
    resolver.answer('silent.example.com', { outcome: 'unanswered' });
    expect((await missing).error).toMatchObject({ code: 'ENOTFOUND', message: 'the host has no address in DNS' });
    expect((await silent).error).toMatchObject({ code: 'ETIMEOUT', message: expect.stringMatching(/DNS failed or did not answer within 2 seconds/) });
    for (const { error } of [await missing, await silent]) expect(error).not.toBeInstanceOf(LookupPutOffError);
  });

  it("puts a lookup off when the worker had no resolver free in time: the worker's doing, not the host's", async () => {
    const resolver = scriptedResolver();
    const lookup = new WebhookHostLookup(resolver, { perOwner: 4, allowPrivateTargets: false });
    const answer = lookupWith(lookup, 'usr_a', 'late.example.com');
    resolver.answer('late.example.com', { outcome: 'saturated' });
    expect((await answer).error).toBeInstanceOf(LookupPutOffError);
  });

  it("caps each owner's names in flight, puts off the owner's next name, and leaves other owners alone", async () => {
    const resolver = scriptedResolver();
    const lookup = new WebhookHostLookup(resolver, { perOwner: 2, allowPrivateTargets: false });
    const held = [lookupWith(lookup, 'usr_slow', 'a.slow.test'), lookupWith(lookup, 'usr_slow', 'b.slow.test')];
    expect((await lookupWith(lookup, 'usr_slow', 'c.slow.test')).error).toBeInstanceOf(LookupPutOffError);
    // Another connection to a name already in flight joins it rather than taking a place.
    const joined = lookupWith(lookup, 'usr_slow', 'a.slow.test');
    const other = lookupWith(lookup, 'usr_other', 'hooks.example.com');
    resolver.answer('hooks.example.com', { outcome: 'resolved', addresses: PUBLIC });
    expect((await other).address).toEqual(PUBLIC);
    expect(resolver.asked).toEqual(['a.slow.test', 'b.slow.test', 'hooks.example.com']);
    // Once one of its resolutions ends, the owner has a place again.
    resolver.answer('a.slow.test', { outcome: 'unanswered' });
    await Promise.all([held[0], joined]);
    const next = lookupWith(lookup, 'usr_slow', 'c.slow.test');
    resolver.answer('c.slow.test', { outcome: 'resolved', addresses: PUBLIC });
    expect((await next).error).toBeNull();
    resolver.answer('b.slow.test', { outcome: 'unanswered' });
    await held[1];
  });
});
