import { OnApplicationShutdown } from '@nestjs/common';
import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';

/** Origins whose connections are kept; the least recently used beyond this are closed. */
const MAX_ORIGINS = 500;
/**
 * Idle kept connections close after this long: under Node's 5-second server default, so a
 * receiver rarely closes one just as it is reused.
 */
const IDLE_SOCKET_MS = 4_000;
/** Connections to one origin at once; the worker's concurrency bounds it anyway. */
const MAX_SOCKETS_PER_ORIGIN = 64;

export interface WebhookAgentOptions {
  /** Development and tests only: skip the refusal of private addresses. */
  allowPrivateTargets: boolean;
  /** Development only: send `http://` urls whose host is loopback (WEBHOOK_ALLOW_LOOPBACK_HTTP). */
  allowLoopbackHttp?: boolean;
  /** Extra trusted certificates (tests' self-signed receiver). */
  ca?: string | Buffer;
}

/**
 * One keep-alive HTTPS agent per webhook origin, so consecutive deliveries reuse a TLS
 * connection instead of a handshake each. The agents have no `lookup` of their own: each request
 * brings its owner's (`WebhookHostLookup`), which every new connection resolves and checks its
 * address through; a kept connection stays on the address checked when it opened.
 */
export class WebhookAgents implements OnApplicationShutdown {
  private readonly agents = new Map<string, HttpAgent>();

  constructor(readonly options: WebhookAgentOptions) {}

  get allowPrivateTargets(): boolean {
    return this.options.allowPrivateTargets;
  }

  get allowLoopbackHttp(): boolean {
    return this.options.allowLoopbackHttp === true;
  }

  /** The agent of the url's origin, made on first use. */
  for(target: URL): HttpAgent {
    const origin = target.origin;
    const known = this.agents.get(origin);
    if (known) {
      // Map order is insertion order: re-inserting keeps the least recently used first.
      this.agents.delete(origin);
      this.agents.set(origin, known);
      return known;
    }
    const connections = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxSockets: MAX_SOCKETS_PER_ORIGIN };
    // An http origin is a loopback one (sendWebhook sends no other), so it needs no CA either.
    const agent = target.protocol === 'http:' ? new HttpAgent(connections) : new Agent({ ...connections, ca: this.options.ca });
    this.agents.set(origin, agent);
    if (this.agents.size > MAX_ORIGINS) {
      const [oldest, evicted] = this.agents.entries().next().value as [string, HttpAgent];
      this.agents.delete(oldest);
      evicted.destroy();
    }
    return agent;
  }

  onApplicationShutdown(): void {
    this.destroy();
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
