import Redis, { Cluster, RedisOptions } from 'ioredis';
import { AppConfig } from '@app/config';

/**
 * A connection to the deployment's Redis: the single server of REDIS_URL, or the cluster of
 * REDIS_CLUSTER_NODES. Both speak the same commands; a cluster client routes each to the node
 * of its key's slot and follows MOVED and ASK while slots move.
 */
export type RedisClient = Redis | Cluster;

/** Credentials and TLS of the first seed that names them, for every node of the cluster. */
function securityOf(seeds: readonly URL[]): RedisOptions {
  const secured = seeds.find((seed) => seed.username !== '' || seed.password !== '' || seed.protocol === 'rediss:');
  if (!secured) return {};
  return {
    ...(secured.username !== '' && { username: decodeURIComponent(secured.username) }),
    ...(secured.password !== '' && { password: decodeURIComponent(secured.password) }),
    ...(secured.protocol === 'rediss:' && { tls: {} }),
  };
}

/**
 * Opens a client with `options` for every connection it makes. On a cluster, `keyPrefix` is the
 * cluster client's, the rest apply to each node; keys a script or pipeline uses together must
 * share a slot (a `{hash tag}`), which the callers see to.
 */
export function connectRedis(config: AppConfig, options: RedisOptions = {}): RedisClient {
  const seeds = config.redisClusterSeeds;
  return seeds ? connectRedisCluster(seeds, options) : new Redis(config.REDIS_URL, options);
}

/** A cluster client from its seeds (AppConfig.redisClusterSeeds), `options` as connectRedis takes them. */
export function connectRedisCluster(seeds: readonly URL[], options: RedisOptions = {}): Cluster {
  const { keyPrefix, ...nodeOptions } = options;
  return new Cluster(
    seeds.map((seed) => ({ host: seed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(seed.port) })),
    { keyPrefix, redisOptions: { ...nodeOptions, ...securityOf(seeds) } },
  );
}
