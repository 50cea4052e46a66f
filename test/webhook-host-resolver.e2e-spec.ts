import { HOST_RESOLUTION_DEADLINE_MS, WebhookHostResolver } from '@app/common';
import { FakeDnsServer, startFakeDnsServer } from './webhook-dns-server';

/** Room for a loaded 2-core machine on top of the deadline itself. */
const SLACK_MS = 1500;
/** Two timers of the same length, set a moment apart, may fire in the same turn of the event loop. */
const TIMER_GRANULARITY_MS = 5;

/**
 * The resolver the API checks webhook hosts with and the worker connects through, against a DNS
 * server of the test's own on 127.0.0.1: what it answers, and whose fault running out of time is.
 */
describe('WebhookHostResolver', () => {
  let dns: FakeDnsServer;

  beforeAll(async () => {
    dns = await startFakeDnsServer({
      records: { 'both.hooks.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'], 'empty.hooks.test': [] },
      silentSuffixes: ['silent.test'],
    });
  });
  afterAll(() => dns?.close());

  const resolver = (concurrency: number) => new WebhookHostResolver({ servers: [dns.address], concurrency });

  it('answers the A and AAAA addresses of a name, and says when it has none', async () => {
    const hosts = resolver(2);
    expect(await hosts.resolve('both.hooks.test')).toEqual({
      outcome: 'resolved',
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    expect(await hosts.resolve('empty.hooks.test')).toEqual({ outcome: 'no-address' });
    expect(await hosts.resolve('nowhere.hooks.test')).toEqual({ outcome: 'no-address' });
  });

  it('blames DNS that had the whole deadline, and itself when a resolution waited for a free resolver first', async () => {
    const hosts = resolver(1);
    const started = performance.now();
    const [first, second] = await Promise.all([hosts.resolve('one.silent.test'), hosts.resolve('two.silent.test')]);
    expect(performance.now() - started).toBeLessThan(HOST_RESOLUTION_DEADLINE_MS + SLACK_MS);
    expect(first).toEqual({ outcome: 'unanswered' });
    expect(second).toEqual({ outcome: 'saturated' });
    // The second waited for the one resolver, busy until the first's deadline: it asked DNS, if at
    // all, only once the resolver came free in the instant its own deadline also ran out.
    const asked = dns.questions.filter((question) => question.name === 'two.silent.test').map((question) => question.receivedAt - started);
    expect(asked.filter((after) => after < HOST_RESOLUTION_DEADLINE_MS - TIMER_GRANULARITY_MS)).toEqual([]);
    // The resolver, cancelled at its deadline, works again.
    expect(await hosts.resolve('both.hooks.test')).toMatchObject({ outcome: 'resolved' });
  });

  it("judges a url's host for the API: public, refused (a refused address, loopback, no address) or unanswered", async () => {
    const hosts = resolver(2);
    expect(await hosts.check('both.hooks.test')).toBe('public');
    expect(await hosts.check('[2606:2800:220:1:248:1893:25c8:1946]')).toBe('public');
    expect(await hosts.check('127.0.0.1')).toBe('refused');
    expect(await hosts.check('api.localhost')).toBe('refused');
    expect(await hosts.check('empty.hooks.test')).toBe('refused');
    expect(await hosts.check('check.silent.test')).toBe('unanswered');
  });
});
