import { PATH_METADATA } from '@nestjs/common/constants';
import { Queue } from 'bullmq';
import { CORE_SCHEMA, load, loadAll, mergeTag } from 'js-yaml';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig, loadConfig } from '@app/config';
import { connectRedis } from '@app/database';
import { queueOptions } from '@app/queue';
import { HealthController } from '../apps/api/src/health/health.controller';
import { PrivateRedis, PROJECT_ROOT } from '@app/testing';

const KUBERNETES_DIR = join(PROJECT_ROOT, 'deploy/kubernetes');
/** What every secret value of the templates holds instead of a real one. */
const PLACEHOLDER = 'REPLACE-ME';

/** The part of a Kubernetes object these checks read; kubernetes-models checks the whole. */
interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    ports?: { name?: string; port: number; targetPort?: number | string }[];
    strategy?: { rollingUpdate?: { maxSurge?: number | string } };
    template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    podSelector?: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: NetworkPolicyRule[];
    egress?: NetworkPolicyRule[];
  };
}

/** A rule of a NetworkPolicy: its peers (`from` for ingress, `to` for egress) and ports. */
interface NetworkPolicyRule {
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
  ports?: { protocol?: string; port?: number | string }[];
}

interface NetworkPolicyPeer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: SecurityContext;
  containers: Container[];
  volumes?: { name: string; emptyDir?: object; configMap?: { name: string }; secret?: { secretName: string } }[];
}

interface Probe {
  httpGet?: { path: string; port: number | string };
  tcpSocket?: { port: number | string };
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext?: SecurityContext;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface ComposeService {
  image?: string;
  command?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string | number>;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * Every object of the manifests under deploy/kubernetes (`*.yaml`, which `kubectl apply -f` takes)
 * and of the secret templates (`*.yaml.example`, which it leaves), with the file it came from.
 */
function kubernetesObjects(): { file: string; object: KubernetesObject }[] {
  return readdirSync(KUBERNETES_DIR)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yaml.example'))
    .flatMap((file) =>
      loadAll(readFileSync(join(KUBERNETES_DIR, file), 'utf8'))
        .filter((object) => object !== null)
        .map((object) => ({ file, object: object as KubernetesObject })),
    );
}

/** Each object's schema error (null when valid), from kubernetes-models in a Node process of its own. */
function schemaErrors(objects: KubernetesObject[]): (string | null)[] {
  const validator = spawnSync(process.execPath, [join(__dirname, 'deployment-manifests.schemas.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (validator.status !== 0) throw new Error(`the schema check failed: ${validator.stderr}`);
  return JSON.parse(validator.stdout) as (string | null)[];
}

/** Milliseconds of a Compose duration such as `30s`, `1m30s` or `1500ms`. */
function durationMs(duration: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)];
  if (parts.map(([part]) => part).join('') !== duration) throw new Error(`not a duration: ${duration}`);
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * units[unit], 0);
}

/** The value Compose gives a variable written `${NAME:-default}` when NAME is unset, or the literal value. */
function composeDefault(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  const interpolated = /^\$\{\w+:-(.*)\}$/.exec(String(value));
  return interpolated ? interpolated[1] : String(value);
}

/** Seconds a preStop `sleep N` holds the container before SIGTERM; none without a preStop. */
function preStopSeconds(container: Container): number {
  const command = container.lifecycle?.preStop?.exec?.command;
  if (command === undefined) return 0;
  expect(command).toEqual(['sleep', expect.stringMatching(/^\d+$/)]);
  return Number(command[1]);
}

/** A value of docker-compose.yml with its `${NAME}`, `${NAME:-default}` and `${NAME:?message}` filled from `variables`. */
function interpolate(value: string | number, variables: Record<string, string>): string {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, fallback?: string) => {
    if (name in variables) return variables[name];
    if (kind === '-') return fallback ?? '';
    throw new Error(`docker-compose.yml needs ${name}: ${fallback ?? ''}`);
  });
}

/** Whether every label a selector asks for is one of `labels`. */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  return Object.entries(selector ?? {}).every(([name, value]) => labels[name] === value);
}

describe('deployment files', () => {
  const objects = kubernetesObjects();
  const find = (kind: string, name: string): KubernetesObject => {
    const found = objects.filter(({ object }) => object.kind === kind && object.metadata.name === name);
    if (found.length !== 1) throw new Error(`deploy/kubernetes has ${found.length} objects ${kind} ${name}, not one`);
    return found[0].object;
  };
  const settings = find('ConfigMap', 'rms-config');
  const secrets = find('Secret', 'rms-secrets');
  /** The environment envFrom gives the API, the worker and the migration Job, with a JWT_SECRET of a valid length. */
  const podEnvironment = { ...settings.data, ...secrets.stringData, JWT_SECRET: 'x'.repeat(32) };
  const config: AppConfig = loadConfig(podEnvironment);
  const pgbouncerIni = find('ConfigMap', 'rms-pgbouncer').data?.['pgbouncer.ini'] ?? '';
  const pgbouncerSetting = (name: string): string | undefined => new RegExp(`^${name} = (.+)$`, 'm').exec(pgbouncerIni)?.[1];
  const workloads = objects.filter(({ object }) => ['Deployment', 'Job'].includes(object.kind)).map(({ object }) => object);
  const policies = objects.filter(({ object }) => object.kind === 'NetworkPolicy').map(({ object }) => object);
  const podLabels = (workload: KubernetesObject): Record<string, string> => workload.spec?.template?.metadata?.labels ?? {};
  /** The NetworkPolicy of one component: the one whose selector names that component and selects its pods. */
  const componentPolicy = (workload: KubernetesObject): KubernetesObject[] =>
    policies.filter((policy) => {
      const selector = policy.spec?.podSelector?.matchLabels;
      return selector?.['app.kubernetes.io/component'] !== undefined && selects(selector, podLabels(workload));
    });
  const container = (deployment: KubernetesObject): Container => {
    const containers = deployment.spec?.template?.spec.containers ?? [];
    expect(containers).toHaveLength(1);
    return containers[0];
  };

  describe('Kubernetes manifests (deploy/kubernetes)', () => {
    it('are each a valid object of its kind, by the Kubernetes API schemas', () => {
      const errors = schemaErrors(objects.map(({ object }) => object));
      const invalid = objects
        .map(({ file, object }, index) => ({ object: `${file}: ${object.kind} ${object.metadata?.name}`, error: errors[index] }))
        .filter(({ error }) => error !== null);
      expect(invalid).toEqual([]);
      expect(objects.map(({ object }) => `${object.kind} ${object.metadata.name}`).sort()).toEqual([
        'ConfigMap rms-config',
        'ConfigMap rms-pgbouncer',
        'Deployment rms-api',
        'Deployment rms-pgbouncer',
        'Deployment rms-worker',
        'Job rms-migrate',
        'NetworkPolicy rms-api',
        'NetworkPolicy rms-default-deny',
        'NetworkPolicy rms-migrate',
        'NetworkPolicy rms-pgbouncer',
        'NetworkPolicy rms-worker',
        'Secret rms-pgbouncer-users',
        'Secret rms-postgres-ca',
        'Secret rms-secrets',
        'Service rms-api',
        'Service rms-pgbouncer',
      ]);
    });

    describe.each(workloads.map((workload) => [`${workload.kind} ${workload.metadata.name}`, workload] as const))('%s', (_, workload) => {
      const pod = workload.spec?.template?.spec;
      const containers = pod?.containers ?? [];

      it('runs each container as non-root, on a read-only root with a writable /tmp, without privilege escalation or capabilities, under RuntimeDefault seccomp', () => {
        expect(containers.length).toBeGreaterThan(0);
        for (const { name, securityContext, volumeMounts } of containers) {
          const effective: SecurityContext = { ...pod?.securityContext, ...securityContext };
          expect({ name, ...effective }).toMatchObject({
            name,
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          });
          expect(effective.capabilities?.add).toBeUndefined();
          expect(effective.runAsUser).not.toBe(0);
          const tmp = volumeMounts?.find((mount) => mount.mountPath === '/tmp');
          expect(pod?.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
        }
      });

      it(`sets each container's resources${workload.kind === 'Deployment' ? ', liveness and readiness probes' : ''}`, () => {
        for (const container of containers) {
          expect(container.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
          expect(container.resources?.limits?.memory).toEqual(expect.any(String));
          if (workload.kind === 'Deployment') {
            expect(container.livenessProbe).toBeDefined();
            expect(container.readinessProbe).toBeDefined();
          }
        }
      });

      it('names each image by digest', () => {
        for (const { image } of containers) expect(image).toMatch(/^[^\s@]+@sha256:[0-9a-f]{64}$/);
      });

      it('is fenced in by a NetworkPolicy of its own, inside a default deny', () => {
        const own = componentPolicy(workload);
        expect(own.map((policy) => policy.metadata.name)).toEqual([workload.metadata.name]);
        expect([...(own[0].spec?.policyTypes ?? [])].sort()).toEqual(['Egress', 'Ingress']);
        const denyAll = policies.filter(
          (policy) => policy.spec?.ingress === undefined && policy.spec?.egress === undefined && selects(policy.spec?.podSelector?.matchLabels, podLabels(workload)),
        );
        expect(denyAll.map((policy) => [...(policy.spec?.policyTypes ?? [])].sort())).toEqual([['Egress', 'Ingress']]);
      });
    });

    it('let only the API and the worker reach PgBouncer, nothing reach the migration, and only monitoring the worker', () => {
      const ingress = (name: string): NetworkPolicyRule[] => componentPolicy(find('Deployment', name))[0]?.spec?.ingress ?? [];
      const components = (rules: NetworkPolicyRule[]): string[] =>
        rules.flatMap((rule) => rule.from ?? [{}]).map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] ?? 'anyone');
      expect(components(ingress('rms-pgbouncer')).sort()).toEqual(['api', 'worker']);
      expect(ingress('rms-pgbouncer').flatMap((rule) => rule.from ?? []).every((peer) => peer.namespaceSelector === undefined && peer.ipBlock === undefined)).toBe(true);
      expect(componentPolicy(find('Job', 'rms-migrate'))[0]?.spec?.ingress ?? []).toEqual([]);
      const workerPeers = ingress('rms-worker').flatMap((rule) => rule.from ?? [{}]);
      expect(workerPeers.length).toBeGreaterThan(0);
      for (const peer of workerPeers) expect(peer.namespaceSelector ?? peer.podSelector).toBeDefined();
      // The API is the public one, on its HTTP port alone.
      expect(ingress('rms-api').flatMap((rule) => rule.ports ?? [{}])).toEqual([{ protocol: 'TCP', port: 'http' }]);
    });

    it("verify PostgreSQL's certificate from PgBouncer against a mounted CA", () => {
      expect(pgbouncerSetting('server_tls_sslmode')).toBe('verify-full');
      const caFile = pgbouncerSetting('server_tls_ca_file') ?? '';
      const pgbouncer = find('Deployment', 'rms-pgbouncer').spec?.template?.spec;
      const mount = container(find('Deployment', 'rms-pgbouncer')).volumeMounts?.find((candidate) => caFile.startsWith(`${candidate.mountPath}/`));
      const volume = pgbouncer?.volumes?.find((candidate) => candidate.name === mount?.name);
      expect(volume?.secret?.secretName).toBe('rms-postgres-ca');
      expect(find('Secret', 'rms-postgres-ca').stringData).toHaveProperty([caFile.slice((mount?.mountPath.length ?? 0) + 1)]);
    });

    it('reach Redis over TLS with a password', () => {
      const redis = new URL(config.REDIS_URL);
      expect(redis.protocol).toBe('rediss:');
      expect(redis.password).toBe(PLACEHOLDER);
    });

    it('give every setting a name libs/config knows and a value it accepts, and hold no real secret', () => {
      for (const name of [...Object.keys(settings.data ?? {}), ...Object.keys(secrets.stringData ?? {})]) {
        expect({ name, known: name in config }).toEqual({ name, known: true });
      }
      // Applying the manifests never overwrites the real secrets with the templates.
      for (const secret of objects.filter(({ object }) => object.kind === 'Secret')) {
        expect(secret.file).toMatch(/\.yaml\.example$/);
        for (const value of Object.values(secret.object.stringData ?? {})) expect(value).toContain(PLACEHOLDER);
      }
      // The template's JWT_SECRET is refused, so that no process runs with it.
      expect(() => loadConfig({ ...podEnvironment, JWT_SECRET: secrets.stringData?.JWT_SECRET })).toThrow(/JWT_SECRET must be at least 32 characters/);
    });

    it('select their own pods, and route Services to a named container port', () => {
      for (const { object } of objects.filter(({ object: candidate }) => ['Deployment', 'Job'].includes(candidate.kind))) {
        const labels = object.spec?.template?.metadata?.labels ?? {};
        expect(labels).toMatchObject(object.spec?.selector?.matchLabels ?? {});
      }
      for (const [service, deployment] of [
        ['rms-api', 'rms-api'],
        ['rms-pgbouncer', 'rms-pgbouncer'],
      ]) {
        const { spec } = find('Service', service);
        expect(find('Deployment', deployment).spec?.template?.metadata?.labels).toMatchObject(spec?.selector ?? { missing: 'selector' });
        const portNames = (container(find('Deployment', deployment)).ports ?? []).map((port) => port.name);
        for (const port of spec?.ports ?? []) expect(portNames).toContain(port.targetPort);
      }
    });

    it('start the API and the worker from the image entry, with the settings, and probe what each serves', () => {
      const api = container(find('Deployment', 'rms-api'));
      const worker = container(find('Deployment', 'rms-worker'));
      const health = (method: 'live' | 'ready'): string => {
        const handler = Object.getOwnPropertyDescriptor(HealthController.prototype, method)?.value as object;
        return `/${Reflect.getMetadata(PATH_METADATA, HealthController)}/${Reflect.getMetadata(PATH_METADATA, handler)}`;
      };

      expect(api.args).toEqual(['api']);
      expect(api.ports).toEqual([{ name: 'http', containerPort: config.PORT }]);
      expect(api.startupProbe?.httpGet).toEqual({ path: health('live'), port: 'http' });
      expect(api.livenessProbe?.httpGet).toEqual({ path: health('live'), port: 'http' });
      expect(api.readinessProbe?.httpGet).toEqual({ path: health('ready'), port: 'http' });

      expect(worker.args).toEqual(['worker']);
      expect(worker.ports).toEqual([{ name: 'metrics', containerPort: config.WORKER_METRICS_PORT }]);
      for (const probe of [worker.startupProbe, worker.livenessProbe, worker.readinessProbe]) {
        expect(probe?.httpGet).toEqual({ path: '/health', port: 'metrics' });
      }
      for (const pod of [api, worker, container(find('Job', 'rms-migrate'))]) {
        expect(pod.envFrom).toEqual([{ configMapRef: { name: 'rms-config' } }, { secretRef: { name: 'rms-secrets' } }]);
      }
    });

    it('stop the API only after it has left the endpoints (SHUTDOWN_DELAY_MS, and a preStop if any) and drained (SHUTDOWN_GRACE_MS)', () => {
      const api = find('Deployment', 'rms-api');
      const graceMs = (api.spec?.template?.spec.terminationGracePeriodSeconds ?? 30) * 1000;
      const inServiceMs = preStopSeconds(container(api)) * 1000 + config.shutdownDelayMs;
      // Endpoints and load balancers take a moment to let a terminating pod go; it must still serve meanwhile.
      expect(inServiceMs).toBeGreaterThanOrEqual(5000);
      expect(graceMs).toBeGreaterThan(inServiceMs + config.SHUTDOWN_GRACE_MS);
    });

    it('run the migration as a Job of the image CLI, on the server itself, not through the pooler', () => {
      const migrate = container(find('Job', 'rms-migrate'));
      expect(migrate.args).toEqual(['cli', 'db:prepare']);
      const entry = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
      for (const command of ['api', 'worker', 'cli']) expect(entry).toContain(`\n  ${command})\n`);
      const cliCommands = readdirSync(join(PROJECT_ROOT, 'apps/api/src/cli'))
        .filter((file) => file.endsWith('.command.ts'))
        .flatMap((file) => [...readFileSync(join(PROJECT_ROOT, 'apps/api/src/cli', file), 'utf8').matchAll(/@Command\(\{\s*name: '([^']+)'/g)].map(([, name]) => name));
      expect(cliCommands).toContain('db:prepare');
      expect(new URL(config.databaseDirectUrl).port).not.toBe('6432');
    });

    it('pool requests through PgBouncer in transaction mode, with room for every API and worker connection', () => {
      const ini = pgbouncerIni;
      const setting = pgbouncerSetting;
      expect(setting('pool_mode')).toBe('transaction');
      // The server cancels first (the role's statement_timeout, and the client 1 s later); the pooler's bound comes last.
      expect(Number(setting('query_timeout')) * 1000).toBeGreaterThan(config.DATABASE_STATEMENT_TIMEOUT_MS + 1000);
      const pgbouncer = find('Service', 'rms-pgbouncer');
      const database = new URL(config.DATABASE_URL);
      expect({ host: database.hostname, port: Number(database.port) }).toEqual({ host: 'rms-pgbouncer', port: pgbouncer.spec?.ports?.[0].port });
      expect(ini).toMatch(new RegExp(`^${database.pathname.slice(1)} = host=`, 'm'));
      // A rolling update runs one surge pod of each beside the others.
      const processes = ['rms-api', 'rms-worker']
        .map((name) => find('Deployment', name).spec)
        .reduce((total, spec) => total + (spec?.replicas ?? 1) + Number(spec?.strategy?.rollingUpdate?.maxSurge ?? 1), 0);
      expect(Number(setting('max_client_conn'))).toBeGreaterThanOrEqual(processes * config.DATABASE_POOL_SIZE);
    });
  });

  describe('Dockerfile', () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');

    it('builds and runs on Node 24 LTS, the runtime the project pins', () => {
      const images = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map(([, image]) => image).filter((image) => image.startsWith('node:'));
      expect(images.length).toBeGreaterThanOrEqual(2);
      for (const image of images) expect(image).toMatch(/^node:24-[a-z]+-slim$/);
      const pinned = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.node;
      expect(pinned).toMatch(/^24\./);
    });

    it('starts the API with the Node flags of npm run start:api', () => {
      const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
      expect(dockerfile).toContain(`exec ${scripts['start:api']} ;;`);
    });
  });

  describe('docker-compose.yml', () => {
    const compose = load(readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), {
      schema: CORE_SCHEMA.withTags(mergeTag),
    }) as ComposeFile;
    const { api, worker, redis, postgres } = compose.services;
    /** What an operator sets in the shell or .env before `docker compose up`. */
    const variables = { JWT_SECRET: 'x'.repeat(32), POSTGRES_PASSWORD: 'postgres-password-1', REDIS_PASSWORD: 'redis-password-1' };

    it('keeps Redis, and so the queues, on a volume with the append-only file', () => {
      const command = redis.command ?? [];
      expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
      expect(command[command.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
      const [volume, mountedAt] = (redis.volumes ?? [])[0]?.split(':') ?? [];
      expect(mountedAt).toBe('/data');
      expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    });

    it('gives the API longer than its wait and drain, and the worker as long, before SIGKILL', () => {
      const drainMs = Number(composeDefault(api.environment?.SHUTDOWN_GRACE_MS) ?? new AppConfig().SHUTDOWN_GRACE_MS);
      const unset = loadConfig({ NODE_ENV: composeDefault(api.environment?.NODE_ENV), JWT_SECRET: 'x'.repeat(32) });
      const waitMs = Number(composeDefault(api.environment?.SHUTDOWN_DELAY_MS) ?? unset.shutdownDelayMs);
      for (const service of [api, worker]) {
        expect(durationMs(service.stop_grace_period ?? '10s')).toBeGreaterThan(waitMs + drainMs);
      }
    });

    it('publishes every port on loopback only', () => {
      const published = Object.values(compose.services).flatMap((service) => service.ports ?? []);
      expect(published.length).toBeGreaterThan(0);
      for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    });

    it('asks PostgreSQL for a password (scram-sha-256) rather than trusting the network, and the services give it', () => {
      expect(postgres.environment?.POSTGRES_HOST_AUTH_METHOD).toBe('scram-sha-256');
      expect(postgres.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
      const database = new URL(interpolate(api.environment?.DATABASE_URL ?? '', variables));
      expect(decodeURIComponent(database.password)).toBe(variables.POSTGRES_PASSWORD);
    });

    it('asks Redis for a password, which REDIS_URL carries to the API, the worker and their queues', async () => {
      const command = redis.command ?? [];
      expect(command[command.indexOf('--requirepass') + 1]).toMatch(/^\$\{REDIS_PASSWORD:\?.+\}$/);
      const environment = Object.fromEntries(Object.entries(api.environment ?? {}).map(([name, value]) => [name, interpolate(value, variables)]));
      const composeUrl = new URL(environment.REDIS_URL);
      expect(decodeURIComponent(composeUrl.password)).toBe(variables.REDIS_PASSWORD);

      // The same URL, at a redis-server of the test's own that requires that password.
      const server = await PrivateRedis.start(variables.REDIS_PASSWORD);
      const local = new URL(composeUrl);
      local.hostname = '127.0.0.1';
      local.port = String(server.port);
      const redisConfig = loadConfig({ ...environment, REDIS_URL: local.toString(), REDIS_PREFIX: `${process.env.REDIS_PREFIX}:compose` });
      const client = connectRedis(redisConfig, { maxRetriesPerRequest: 1 });
      const queue = new Queue('compose-password', queueOptions(redisConfig, null));
      const anonymous = connectRedis(loadConfig({ ...environment, REDIS_URL: `redis://127.0.0.1:${server.port}` }), { maxRetriesPerRequest: 1 });
      try {
        expect(await client.ping()).toBe('PONG');
        await queue.add('probe', {});
        expect(await queue.getJobCounts('waiting')).toMatchObject({ waiting: 1 });
        await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);
      } finally {
        anonymous.disconnect();
        client.disconnect();
        await queue.close();
        await server.stop();
      }
    });

    it("checks the worker's health on its metrics port", () => {
      const port = composeDefault(worker.environment?.WORKER_METRICS_PORT);
      expect(port).toMatch(/^\d+$/);
      expect(worker.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/health`);
      // The worker's environment extends the API's rather than replacing it.
      expect(worker.environment).toMatchObject(api.environment ?? {});
    });
  });
});
