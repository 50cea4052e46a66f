import { randomInt } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { RunningApi, startApiReplica } from '@app/testing';

const REPLICA_STARTUP_TIMEOUT_MS = 240_000;

interface ReplicaPair {
  replicas: RunningApi[];
  /** One client per replica, both from the same client IP. */
  clients: TestAgent[];
  stop(): Promise<void>;
}

/**
 * Two API processes against one PostgreSQL and one Redis, rate limited as production runs,
 * with a client IP of the suite's own (X-Forwarded-For is trusted for one hop here).
 */
async function startReplicaPair(): Promise<ReplicaPair> {
  const env = { RATE_LIMIT_ENABLED: 'true', TRUST_PROXY_HOPS: '1' };
  const replicas = await Promise.all([startApiReplica(env), startApiReplica(env)]);
  const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;
  return {
    replicas,
    clients: replicas.map((replica) => request.agent(replica.url).set('X-Forwarded-For', ip)),
    stop: async () => {
      await Promise.all(replicas.map((replica) => replica.stop()));
    },
  };
}

/** A replica pair started before the suite's tests and stopped after them; read `clients` in a test. */
export function replicaPairForSuite(): { clients: TestAgent[] } {
  const suite = { clients: [] as TestAgent[] };
  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startReplicaPair();
    suite.clients = pair.clients;
  }, REPLICA_STARTUP_TIMEOUT_MS);
  afterAll(async () => {
    await pair?.stop();
  });
  return suite;
}
