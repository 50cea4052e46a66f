import { PATH_METADATA } from '@nestjs/common/constants';
import { CORE_SCHEMA, load, loadAll, mergeTag } from 'js-yaml';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig, loadConfig } from '@app/config';
import { HealthController } from '../apps/api/src/health/health.controller';
import { PROJECT_ROOT } from '@app/testing';

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
  };
}

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
}

interface Probe {
  httpGet?: { path: string; port: number | string };
  tcpSocket?: { port: number | string };
}

interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}

interface ComposeService {
  command?: string[];
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
        'Secret rms-pgbouncer-users',
        'Secret rms-secrets',
        'Service rms-api',
        'Service rms-pgbouncer',
      ]);
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
      const ini = find('ConfigMap', 'rms-pgbouncer').data?.['pgbouncer.ini'] ?? '';
      const setting = (name: string): string | undefined => new RegExp(`^${name} = (.+)$`, 'm').exec(ini)?.[1];
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

  describe('docker-compose.yml', () => {
    const compose = load(readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), {
      schema: CORE_SCHEMA.withTags(mergeTag),
    }) as ComposeFile;
    const { api, worker, redis } = compose.services;

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

    it("checks the worker's health on its metrics port", () => {
      const port = composeDefault(worker.environment?.WORKER_METRICS_PORT);
      expect(port).toMatch(/^\d+$/);
      expect(worker.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/health`);
      // The worker's environment extends the API's rather than replacing it.
      expect(worker.environment).toMatchObject(api.environment ?? {});
    });
  });
});
