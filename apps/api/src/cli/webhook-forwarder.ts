import { createServer, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, request as httpRequest, Server, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '@rms/client';

/** Headers about one connection rather than the delivery (RFC 9110 §7.6.1); the forward makes its own. */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
/** The worker waits 5 seconds for an answer (docs/api.md#webhook-delivery); the forwarded URL gets as long. */
const FORWARD_TIMEOUT_MS = 5_000;
/** Where the worker posts, on the receiver's port. */
const RECEIVER_PATH = '/webhooks';

/** What the forwarded URL answered, or why it did not. */
type ForwardOutcome = { status: number; headers: IncomingHttpHeaders; body: Buffer; ms: number } | { error: string; ms: number };

export interface WebhookForwarderOptions {
  /** Where each verified delivery goes, with its headers and body as received. */
  forwardTo: URL;
  /** The webhook's signing secret, which every delivery must verify against. */
  secret: string;
  /** Writes one line for the person watching. */
  print: (line: string) => void;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CONNECTION_HEADERS.has(name)));
}

/**
 * A small HTTP receiver on a free loopback port: it checks each delivery's signatures with the
 * SDK's verifier, prints it, forwards it unchanged to the developer's own endpoint, and answers
 * the worker with that endpoint's answer, so that the deliveries log and the retries see what
 * the endpoint did.
 */
export class WebhookForwarder {
  private readonly server: Server;

  constructor(private readonly options: WebhookForwarderOptions) {
    this.server = createServer((req, res) => {
      this.receive(req, res).catch((error: unknown) => {
        this.options.print(`${new Date().toISOString()}  could not handle a delivery: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  }

  /** Starts listening on 127.0.0.1 and resolves with the URL the webhook should target. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${RECEIVER_PATH}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const arrived = new Date().toISOString();
    let event: { id: string; type: string };
    try {
      event = await verifyWebhook(body, req.headers, this.options.secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      // Anything on this machine can post to the port: an unsigned request is not passed on.
      this.options.print(`${arrived}  refused a request that is not a signed delivery of this webhook: ${error.message}`);
      res.writeHead(401).end();
      return;
    }
    this.options.print(`${arrived}  ${event.type}  ${event.id}  signature verified`);
    const outcome = await this.forward(req.headers, body);
    const target = this.options.forwardTo.href;
    if ('error' in outcome) {
      this.options.print(`${new Date().toISOString()}  ${event.id}  POST ${target} failed: ${outcome.error} (${outcome.ms} ms)`);
      res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`Forwarding to ${target} failed: ${outcome.error}`);
      return;
    }
    this.options.print(`${new Date().toISOString()}  ${event.id}  POST ${target} answered ${outcome.status} (${outcome.ms} ms)`);
    const contentType = outcome.headers['content-type'];
    res.writeHead(outcome.status, contentType ? { 'Content-Type': contentType } : {}).end(outcome.body);
  }

  private forward(headers: IncomingHttpHeaders, body: Buffer): Promise<ForwardOutcome> {
    const started = Date.now();
    const send = this.options.forwardTo.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const request = send(this.options.forwardTo, { method: 'POST', headers: forwardedHeaders(headers), timeout: FORWARD_TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - started }));
        res.on('error', (error) => resolve({ error: error.message, ms: Date.now() - started }));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${FORWARD_TIMEOUT_MS} ms`)));
      request.on('error', (error) => resolve({ error: error.message, ms: Date.now() - started }));
      request.end(body);
    });
  }
}
