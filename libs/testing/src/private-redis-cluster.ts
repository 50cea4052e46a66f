import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './private-servers';
import { waitUntil } from './wait-until';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: `masters` redis-server processes in cluster mode on spare
 * ports, joined by `redis-cli --cluster create` with no replicas, in a temporary folder.
 */
export class PrivateRedisCluster {
  private constructor(
    readonly ports: readonly number[],
    private readonly nodes: readonly ChildProcess[],
    private readonly root: string,
  ) {}

  static async start(masters = 3): Promise<PrivateRedisCluster> {
    const root = mkdtempSync(join(tmpdir(), 'rms-redis-cluster-'));
    const ports: number[] = [];
    for (let index = 0; index < masters; index += 1) ports.push(await freePort());
    const nodes = ports.map((port) =>
      spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--save', '', '--appendonly', 'no'],
        { cwd: root, stdio: 'ignore' },
      ),
    );
    const cluster = new PrivateRedisCluster(ports, nodes, root);
    try {
      await waitUntil(async () => {
        const answers = await Promise.all(ports.map((port) => cluster.cli(port, 'ping')));
        return answers.every((answer) => answer === 'PONG') || undefined;
      }, 15_000);
      await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
      await waitUntil(async () => {
        const states = await Promise.all(ports.map((port) => cluster.cli(port, 'cluster', 'info')));
        return states.every((info) => info.includes('cluster_state:ok')) || undefined;
      }, 15_000);
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** The seeds as REDIS_CLUSTER_NODES takes them. */
  get seeds(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  /** What `redis-cli -p <port> <args>` prints, trimmed; empty when the node does not answer. */
  async cli(port: number, ...args: string[]): Promise<string> {
    try {
      return (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();
    } catch {
      return '';
    }
  }

  /** Every key of every node that matches `pattern`. */
  async keys(pattern: string): Promise<string[]> {
    return [...(await this.keysByNode(pattern)).values()].flat();
  }

  /** The keys that match `pattern` on each node, by the node's port. */
  async keysByNode(pattern: string): Promise<Map<number, string[]>> {
    const perNode = await Promise.all(this.ports.map((port) => this.cli(port, '--scan', '--pattern', pattern)));
    return new Map(this.ports.map((port, index) => [port, perNode[index] === '' ? [] : perNode[index].split('\n')]));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (node.exitCode !== null || node.signalCode !== null) return;
        const exited = once(node, 'exit');
        node.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(this.root, { recursive: true, force: true });
  }
}
