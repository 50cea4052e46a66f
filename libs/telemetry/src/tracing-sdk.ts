import { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Attributes, context, Span } from '@opentelemetry/api';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME, ATTR_URL_FULL, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import { configuredPropagator } from './configured-propagator';
import { callerSpanContext, EdgePropagator } from './edge-propagator';
import type { TracingSetup } from './tracing-setup';

/** Probes and scrapes: a span each would bury the requests. */
const UNTRACED_PATH = /^\/(health|metrics)(\/|\?|$)/;

/** The query of an incoming request as `redactUrl` leaves it, over what the instrumentation recorded. */
function redactedQuery(request: IncomingMessage, redactUrl: TracingSetup['redactUrl']): Attributes {
  const url = request.url ?? '';
  if (!redactUrl || !url.includes('?')) return {};
  const redacted = redactUrl(url);
  return { [ATTR_URL_QUERY]: redacted.slice(redacted.indexOf('?') + 1) };
}

/**
 * The origin alone of an outgoing request: a webhook url's path and query are often its secret
 * (a chat service's incoming-webhook url, a token parameter), and traces leave the service.
 */
function originOnly(options: RequestOptions): Attributes {
  const hostname = options.hostname ?? options.host ?? 'localhost';
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return { [ATTR_URL_FULL]: `${options.protocol ?? 'http:'}//${host}${options.port ? `:${options.port}` : ''}` };
}

/** Links an incoming request's span, which starts a new trace, to the span its caller sent. */
function linkCallerSpan(span: Span, request: ClientRequest | IncomingMessage): void {
  const caller = request instanceof IncomingMessage ? callerSpanContext(context.active()) : undefined;
  if (caller) span.addLink({ context: caller });
}

/**
 * The Node SDK with the instrumentations of what the apps use: HTTP in and out (incoming spans
 * start a trace linked to a caller's `traceparent`, or continue it when the setup trusts
 * callers; outgoing requests carry one), Express routes, pg and
 * ioredis. Exporter, protocol, sampler, propagators and resource attributes come from the
 * standard OTEL_* variables. Only traces: metrics stay Prometheus's and logs stdout's.
 */
export function startTracingSdk(setup: TracingSetup): NodeSDK {
  const propagator = configuredPropagator();
  const sdk = new NodeSDK({
    textMapPropagator: setup.trustInboundContext || !propagator ? propagator : new EdgePropagator(propagator),
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: setup.serviceName })),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATH.test(request.url ?? ''),
        startIncomingSpanHook: (request) => redactedQuery(request, setup.redactUrl),
        startOutgoingSpanHook: originOnly,
        requestHook: linkCallerSpan,
      }),
      // Routes and handlers; the app's middleware is anonymous functions, whose spans say nothing.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Queries and commands outside any span (pool checks, BullMQ's polling, heartbeats) would
      // each be a trace of its own.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: keys name sessions and revocations, which are credentials.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  return sdk;
}
