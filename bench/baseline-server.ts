/**
 * The benchmark's baseline: a minimal Node HTTP server with `pg` that runs the same SQL as the
 * service for the measured routes, with no framework, no authentication and no validation.
 * The owner is fixed by BENCH_OWNER_ID; the SQL is `bare-queries.ts`, shared with the Nest floor.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { toResourceView } from '../apps/api/src/resources/resource.view';
import { cursorPage, findResource, insertResources, offsetPage, ResourceInput } from './bare-queries';
import { BENCH_MEMORY_PATH } from './process-memory';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const owner = process.env.BENCH_OWNER_ID ?? '';

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')));
    req.on('error', reject);
  });
}

function list(url: URL): Promise<unknown> {
  const limit = Number(url.searchParams.get('limit') ?? 0);
  if (limit > 0) return cursorPage(pool, owner, limit, url.searchParams.get('cursor'));
  return offsetPage(pool, owner, Number(url.searchParams.get('page') ?? 1), Number(url.searchParams.get('per_page') ?? 20));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://baseline');
  const single = /^\/v2\/resources\/(res_[0-9A-Z]{26})$/.exec(url.pathname);
  if (req.method === 'GET' && single) {
    const record = await findResource(pool, owner, single[1]);
    return record ? send(res, 200, { data: record }) : send(res, 404, { error: { code: 'resource_not_found' } });
  }
  if (req.method === 'GET' && url.pathname === '/v2/resources') return send(res, 200, await list(url));
  if (req.method === 'POST' && url.pathname === '/v2/resources') {
    const [record] = await insertResources(pool, owner, [(await readBody(req)) as ResourceInput]);
    return send(res, 201, { data: toResourceView(record) });
  }
  if (req.method === 'POST' && url.pathname === '/v2/resources/bulk') {
    const records = await insertResources(pool, owner, ((await readBody(req)) as { resources: ResourceInput[] }).resources);
    return send(res, 201, { data: records.map(toResourceView), meta: { count: records.length } });
  }
  if (req.method === 'GET' && url.pathname === `/${BENCH_MEMORY_PATH}`) return send(res, 200, process.memoryUsage());
  send(res, 404, { error: { code: 'not_found' } });
}

createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { error: { code: 'internal_server_error' } }));
}).listen(Number(process.env.PORT ?? 3901), '127.0.0.1', () => process.stdout.write('baseline ready\n'));
