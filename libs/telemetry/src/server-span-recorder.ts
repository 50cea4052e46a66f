import type { IncomingMessage, ServerResponse } from 'node:http';
import { Attributes, context, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PEER_PORT,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { callerSpanContext } from './edge-propagator';
import type { ServerSpanMiddleware, ServerSpanSource } from './server-span-source';
import { tracer } from './spans';
import { withUnrecordedTrace } from './trace-context';
import { tracingSampling, tracingSetup } from './tracing';

/** Probes and scrapes: a span each would bury the requests. */
const UNTRACED_PATH = /^\/(health|metrics)(\/|\?|$)/;

/** The methods `http.request.method` names; any other is `_OTHER`, as the conventions say. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE']);

/** `host[:port]` or `[ipv6][:port]`, as a Host header names the server. */
const HOST_HEADER = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/;

/**
 * The HTTP semantic conventions' attributes of a server span known when the request arrives,
 * written into one object: a sampled request builds them once, and nothing is copied.
 */
function requestAttributes(req: IncomingMessage, method: string, clientAddress: string | undefined): Attributes {
  const attributes: Attributes = {};
  const upper = method.toUpperCase();
  if (KNOWN_METHODS.has(upper)) {
    attributes[ATTR_HTTP_REQUEST_METHOD] = upper;
  } else {
    attributes[ATTR_HTTP_REQUEST_METHOD] = '_OTHER';
    attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method;
  }
  attributes[ATTR_URL_SCHEME] = 'http';
  addUrl(attributes, req.url ?? '/');
  addServer(attributes, req.headers.host);
  attributes[ATTR_CLIENT_ADDRESS] = clientAddress;
  attributes[ATTR_NETWORK_PEER_ADDRESS] = req.socket.remoteAddress;
  attributes[ATTR_NETWORK_PEER_PORT] = req.socket.remotePort;
  attributes[ATTR_NETWORK_PROTOCOL_VERSION] = req.httpVersion;
  attributes[ATTR_USER_AGENT_ORIGINAL] = req.headers['user-agent'];
  return attributes;
}

/** The path and, as `redactUrl` leaves it, the query; no query at all without `redactUrl`, since it may hold credentials. */
function addUrl(attributes: Attributes, url: string): void {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) {
    attributes[ATTR_URL_PATH] = url;
    return;
  }
  attributes[ATTR_URL_PATH] = url.slice(0, queryAt);
  const redactUrl = tracingSetup()?.redactUrl;
  if (!redactUrl) return;
  const redacted = redactUrl(url);
  attributes[ATTR_URL_QUERY] = redacted.slice(redacted.indexOf('?') + 1);
}

/** The server's name and port as the Host header gives them. */
function addServer(attributes: Attributes, host: string | undefined): void {
  const match = host ? HOST_HEADER.exec(host) : null;
  if (!match) return;
  const [, ipv6, name, port] = match;
  attributes[ATTR_SERVER_ADDRESS] = ipv6 ?? name;
  if (port) attributes[ATTR_SERVER_PORT] = Number(port);
}

/** Names the span `METHOD /route` once the route is known, records the answer and ends it; a 5xx is an error. */
function endServerSpan(span: Span, method: string, route: string | undefined, status: number): void {
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (route !== undefined) {
    span.setAttribute(ATTR_HTTP_ROUTE, route);
    span.updateName(`${method} ${route}`);
  }
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * The middleware `serverSpanMiddleware` returns while tracing is on. The SDK's sampler decides
 * first, before the tracer is called (`SamplingFirst`): an unsampled request gets only a span
 * context (its trace id, a span id, the not-sampled flag), kept aside (`withUnrecordedTrace`)
 * rather than made active, and nothing else. A sampled one gets a span with its attributes, a
 * link to the span a caller sent (`EdgePropagator`), and is the active span of everything the
 * request does.
 */
export function recordServerSpans<Req extends IncomingMessage, Res extends ServerResponse>(source: ServerSpanSource<Req, Res>): ServerSpanMiddleware<Req, Res> {
  const serverTracer = tracer();
  const sampling = tracingSampling();
  if (!sampling) throw new Error('recordServerSpans is for a process whose tracing has started');
  return (req, res, next) => {
    if (UNTRACED_PATH.test(req.url ?? '')) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = sampling.startSpan(serverTracer, method, SpanKind.SERVER, parent);
    if (!span.isRecording()) return context.with(withUnrecordedTrace(parent, span.spanContext()), next);
    span.setAttributes(requestAttributes(req, method, source.clientAddressOf(req)));
    const caller = callerSpanContext(parent);
    if (caller) span.addLink({ context: caller });
    res.once('close', () => endServerSpan(span, method, source.routeOf(req, res), res.statusCode));
    context.with(trace.setSpan(parent, span), next);
  };
}
