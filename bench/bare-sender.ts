/**
 * The delivery benchmark's bare sender: the least a webhook sender can do with the service's
 * tables, to price the service's delivery pipeline (outbox relay, BullMQ, Nest) against. No
 * framework, queue or relay: the deliveries are written with their event (the benchmark does
 * the fan-out in the event's transaction), and each process
 *   - claims due deliveries with `FOR UPDATE SKIP LOCKED`, moving their due time a lease ahead
 *     (so that a claim is one short statement, not a transaction held through the POST),
 *   - signs each body with the worker's own `signatureHeaders`,
 *   - POSTs it over the worker's kept-alive HTTPS agents (`WebhookAgents`, the same settings),
 *   - appends the attempt (the same fields and bounded headers the worker records) and marks the
 *     delivery done, in one UPDATE per delivery, as the worker's `recordAttempt` does.
 * It reads the worker's settings (`loadConfig`): WEBHOOK_DELIVERY_CONCURRENCY deliveries in flight,
 * a pool of DATABASE_POOL_SIZE connections, woken by the `events_committed` notification of each
 * commit and polling every WEBHOOK_RELAY_INTERVAL_MS, as the worker's relay is. It prints `ready`
 * once listening, and stops on SIGTERM after the deliveries in flight.
 */
import { request } from 'node:https';
import { Client, Pool } from 'pg';
import { loadConfig } from '@app/config';
import type { DeliveryAttempt } from '@app/database';
import { boundedHeaders } from '../apps/worker/src/delivery/attempt-headers';
import { WebhookAgents } from '../apps/worker/src/delivery/webhook-agents';
import { signatureHeaders } from '../apps/worker/src/delivery/webhook-signature';

/** 2xx within this time is success, as in the worker. */
const DELIVERY_TIMEOUT_MS = 5000;
/** A claimed delivery is due again after this long, should its sender die before recording it. */
const CLAIM_LEASE_MS = 60_000;
const RESPONSE_BODY_LIMIT = 1024;

const config = loadConfig(process.env);
const concurrency = config.WEBHOOK_DELIVERY_CONCURRENCY;
const pool = new Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE });
const agents = new WebhookAgents({ allowPrivateTargets: config.allowPrivateWebhookTargets });

interface ClaimedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  body: string;
  url: string;
  secret: string;
}

const CLAIM = `
  UPDATE webhook_deliveries d
     SET next_attempt_at = now() + $2 * interval '1 millisecond'
    FROM webhooks w
   WHERE d.id IN (SELECT id FROM webhook_deliveries
                   WHERE status = 'pending' AND next_attempt_at <= now()
                   ORDER BY next_attempt_at
                   LIMIT $1
                     FOR UPDATE SKIP LOCKED)
     AND w.id = d.webhook_id
  RETURNING d.id, d.event_id, d.event_type, d.body, w.url, w.secret`;

const RECORD = `
  UPDATE webhook_deliveries
     SET attempts = attempts || $2::jsonb, status = $3, next_attempt_at = NULL, updated_at = now()
   WHERE id = $1`;

/** POSTs one body; resolves with the attempt as the worker records it. */
function post(delivery: ClaimedDelivery): Promise<DeliveryAttempt & { succeeded: boolean }> {
  const attemptedAt = new Date();
  const started = process.hrtime.bigint();
  const target = new URL(delivery.url);
  const headers = signatureHeaders(
    delivery.secret,
    { id: delivery.event_id, type: delivery.event_type },
    delivery.body,
    Math.floor(attemptedAt.getTime() / 1000),
  );
  return new Promise((resolve) => {
    let requestHeaders: Record<string, string> | null = null;
    let settled = false;
    const settle = (statusCode: number | null, error: string | null, answer: { headers: Record<string, string>; body: string } | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        attempted_at: attemptedAt.toISOString(),
        status_code: statusCode,
        duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        error,
        response_body: answer?.body ?? null,
        request_headers: requestHeaders,
        response_headers: answer?.headers ?? null,
        succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300,
      });
    };
    const req = request(
      target,
      { method: 'POST', agent: agents.for(target), headers: { ...headers, 'Content-Length': String(Buffer.byteLength(delivery.body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          settle(res.statusCode ?? null, null, {
            headers: boundedHeaders(res.headers),
            body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
          }),
        );
      },
    );
    req.on('finish', () => (requestHeaders = boundedHeaders(req.getHeaders())));
    req.on('error', (error) => settle(null, error.message, null));
    const timer = setTimeout(() => {
      settle(null, `no answer within ${DELIVERY_TIMEOUT_MS} ms`, null);
      req.destroy();
    }, DELIVERY_TIMEOUT_MS);
    req.end(delivery.body);
  });
}

async function deliver(delivery: ClaimedDelivery): Promise<void> {
  const { succeeded, ...attempt } = await post(delivery);
  // No retry schedule: the benchmark's receiver answers 200, and a failure shows in its count.
  await pool.query(RECORD, [delivery.id, JSON.stringify([attempt]), succeeded ? 'succeeded' : 'failed']);
}

let inFlight = 0;
let claiming = false;
/** A wake-up came while claiming: claim again once the current claim returns. */
let wokenWhileClaiming = false;
/** The last claim found fewer due deliveries than it asked for: wait for a commit or the poll. */
let drained = false;
let stopping = false;

/** Claims deliveries for every free slot, one claim at a time, and sends them. */
async function fill(): Promise<void> {
  if (claiming) {
    wokenWhileClaiming = true;
    return;
  }
  claiming = true;
  try {
    do {
      wokenWhileClaiming = false;
      while (!stopping && inFlight < concurrency) {
        const wanted = concurrency - inFlight;
        const { rows } = await pool.query<ClaimedDelivery>(CLAIM, [wanted, CLAIM_LEASE_MS]);
        for (const delivery of rows) {
          inFlight += 1;
          deliver(delivery)
            .catch((error: Error) => process.stderr.write(`recording ${delivery.id} failed: ${error.message}\n`))
            .finally(() => {
              inFlight -= 1;
              // Freed slots are claimed for while work remains; an empty queue waits for a wake-up.
              if (!drained) void fill();
            });
        }
        drained = rows.length < wanted;
        if (drained) break;
      }
    } while (wokenWhileClaiming && !stopping);
  } catch (error) {
    process.stderr.write(`claim failed: ${(error as Error).message}\n`);
  } finally {
    claiming = false;
  }
}

function wake(): void {
  drained = false;
  void fill();
}

async function main(): Promise<void> {
  const listener = new Client({ connectionString: config.databaseDirectUrl });
  await listener.connect();
  listener.on('notification', wake);
  await listener.query('LISTEN events_committed');
  const poll = setInterval(wake, config.WEBHOOK_RELAY_INTERVAL_MS);
  process.once('SIGTERM', () => {
    stopping = true;
    clearInterval(poll);
    const idle = setInterval(() => {
      if (inFlight > 0 || claiming) return;
      clearInterval(idle);
      agents.destroy();
      void Promise.all([listener.end(), pool.end()]).then(() => process.exit(0));
    }, 20);
  });
  process.stdout.write('ready\n');
  wake();
}

main().catch((error: Error) => {
  process.stderr.write(`bare sender failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
