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

function methodAttributes(method: string): Attributes {
  const upper = method.toUpperCase();
  if (KNOWN_METHODS.has(upper)) return { [ATTR_HTTP_REQUEST_METHOD]: upper };
  return { [ATTR_HTTP_REQUEST_METHOD]: '_OTHER', [ATTR_HTTP_REQUEST_METHOD_ORIGINAL]: method };
}

function serverAttributes(host: string | undefined): Attributes {
  const match = host ? HOST_HEADER.exec(host) : null;
  if (!match) return {};
  const [, ipv6, name, port] = match;
  return { [ATTR_SERVER_ADDRESS]: ipv6 ?? name, ...(port ? { [ATTR_SERVER_PORT]: Number(port) } : {}) };
}

/** The path and, as `redactUrl` leaves it, the query; no query at all without `redactUrl`, since it may hold credentials. */
function urlAttributes(url: string): Attributes {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return { [ATTR_URL_PATH]: url };
  const redactUrl = tracingSetup()?.redactUrl;
  const path = { [ATTR_URL_PATH]: url.slice(0, queryAt) };
  if (!redactUrl) return path;
  const redacted = redactUrl(url);
  return { ...path, [ATTR_URL_QUERY]: redacted.slice(redacted.indexOf('?') + 1) };
}

/** The HTTP semantic conventions' attributes of a server span known when the request arrives. */
function requestAttributes(req: IncomingMessage, method: string, clientAddress: string | undefined): Attributes {
  return {
    ...methodAttributes(method),
    [ATTR_URL_SCHEME]: 'http',
    ...urlAttributes(req.url ?? '/'),
    ...serverAttributes(req.headers.host),
    [ATTR_CLIENT_ADDRESS]: clientAddress,
    [ATTR_NETWORK_PEER_ADDRESS]: req.socket.remoteAddress,
    [ATTR_NETWORK_PEER_PORT]: req.socket.remotePort,
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'],
  };
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
