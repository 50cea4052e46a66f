import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedRequest {
  /** The path and query asked for. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type ReceiverHandler = (request: ReceivedRequest, res: ServerResponse) => void;

export interface HttpsReceiver {
  port: number;
  /** The self-signed certificate (PEM) to trust; also written to `certFile` for NODE_EXTRA_CA_CERTS. */
  cert: Buffer;
  certFile: string;
  /** Every request received, in order. */
  received: ReceivedRequest[];
  /** Replaces how the receiver answers (200 "ok" by default). */
  respond(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

export interface HttpsReceiverOptions {
  /** Host names its certificate is for besides 127.0.0.1 and localhost (names a test's own DNS server points at 127.0.0.1). */
  hostnames?: string[];
}

/** A real HTTPS webhook receiver on 127.0.0.1 with a certificate made by openssl for this run. */
export async function startHttpsReceiver(options: HttpsReceiverOptions = {}): Promise<HttpsReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'rms-receiver-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost']
      .concat(['-addext', `subjectAltName=${['IP:127.0.0.1', 'DNS:localhost', ...(options.hostnames ?? []).map((name) => `DNS:${name}`)].join(',')}`])
      .concat(['-keyout', keyFile, '-out', certFile]),
    { stdio: 'ignore' },
  );
  const cert = readFileSync(certFile);
  const received: ReceivedRequest[] = [];
  let handler: ReceiverHandler = (_request, res) => void res.writeHead(200).end('ok');
  const server = createServer({ key: readFileSync(keyFile), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      handler(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cert,
    certFile,
    received,
    respond: (next) => {
      handler = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
