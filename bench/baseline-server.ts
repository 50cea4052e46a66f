/**
 * The benchmark's baseline: a minimal Node HTTP server with `pg` that runs the same SQL as the
 * service for the measured routes, with no framework, no authentication and no validation.
 * The owner is fixed by BENCH_OWNER_ID; the reads are `bare-queries.ts`, shared with the Nest floor.
 */
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { cursorPage, findResource, offsetPage } from './bare-queries';

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

const newId = (prefix: string): string => `${prefix}_${randomBytes(13).toString('hex').slice(0, 26).toUpperCase()}`;

interface Input {
  name: string;
  description?: string;
  type?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
}

async function insert(inputs: Input[]): Promise<unknown[]> {
  const now = new Date().toISOString();
  const rows = inputs.map((input) => ({
    id: newId('res'),
    name: input.name.trim(),
    description: input.description ?? null,
    type: input.type ?? 'standard',
    status: 'active',
    metadata: input.metadata ?? {},
    tags: input.tags ?? [],
    owner_id: owner,
    organization_id: null,
    created_at: now,
  }));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO resources
         (id, owner_id, organization_id, name, description, type, status, metadata, tags, version, created_at, updated_at)
       SELECT id, owner_id, organization_id, name, description, type, status, metadata, tags, 1, created_at, created_at
       FROM jsonb_to_recordset($1::jsonb)
         AS x(id text, name text, description text, type text, status text, metadata jsonb, tags jsonb,
              owner_id text, organization_id text, created_at timestamptz)`,
      [JSON.stringify(rows)],
    );
    await client.query(
      `INSERT INTO events (id, type, data, previous_data, owner_id, organization_id)
       SELECT id, type, data, previous_data, owner_id, organization_id
       FROM jsonb_to_recordset($1::jsonb)
         AS x(id text, type text, data jsonb, previous_data jsonb, owner_id text, organization_id text)`,
      [
        JSON.stringify(
          rows.map((row) => ({
            id: newId('evt'),
            type: 'resource.created',
            data: { object: row },
            previous_data: null,
            owner_id: owner,
            organization_id: null,
          })),
        ),
      ],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  return rows.map((row) => ({ ...row, updated_at: row.created_at, deleted_at: null }));
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
    const [record] = await insert([(await readBody(req)) as Input]);
    return send(res, 201, { data: record });
  }
  if (req.method === 'POST' && url.pathname === '/v2/resources/bulk') {
    const records = await insert(((await readBody(req)) as { resources: Input[] }).resources);
    return send(res, 201, { data: records, meta: { count: records.length } });
  }
  send(res, 404, { error: { code: 'not_found' } });
}

createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { error: { code: 'internal_server_error' } }));
}).listen(Number(process.env.PORT ?? 3901), '127.0.0.1', () => process.stdout.write('baseline ready\n'));
