import { RequestOptions } from 'node:http';
import { Attributes } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import { configuredPropagator } from './configured-propagator';
import { configuredSampler } from './configured-sampler';
import { EdgePropagator } from './edge-propagator';
import { otlpProtobufTraceExporterFromEnv } from './otlp-trace-exporter';
import { SamplingFirst } from './sampling-first';
import type { TracingSetup } from './tracing-setup';

/** What `startTracingSdk` started: the SDK, and the sampling it was given, for the server span to ask first. */
export interface RunningSdk {
  sdk: { shutdown(): Promise<void> };
  sampling: SamplingFirst;
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

/**
 * The Node SDK with the one instrumentation a trace needs: outgoing HTTP (a webhook delivery's
 * request, which carries a `traceparent`). Incoming requests are the app's own server span
 * (`serverSpanMiddleware`), which continues a caller's trace only when the setup trusts callers;
 * SQL and Redis commands are its own spans too (`inDatabaseSpan`), made only inside a recorded
 * span. Exporter, protocol, sampler, propagators and resource attributes come from the standard
 * OTEL_* variables; the sampler is read here (`configuredSampler`) so that the server span asks
 * it before making anything (`SamplingFirst`). With an exporter and no span processor given,
 * NodeSDK exports through a BatchSpanProcessor (OTEL_BSP_*); over OTLP/HTTP in protobuf, the
 * default, through the service's serializer (`OtlpProtobufTraceExporter`). Only traces: metrics
 * stay Prometheus's and logs stdout's.
 */
export function startTracingSdk(setup: TracingSetup): RunningSdk {
  const propagator = configuredPropagator();
  const { sampler, rootRatio } = configuredSampler();
  const sampling = new SamplingFirst(sampler, rootRatio);
  const sdk = new NodeSDK({
    textMapPropagator: setup.trustInboundContext || !propagator ? propagator : new EdgePropagator(propagator),
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: setup.serviceName })),
    traceExporter: otlpProtobufTraceExporterFromEnv(),
    sampler: sampling.sampler,
    idGenerator: sampling.idGenerator,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Building every request's attributes before the sampler is asked cost an unsampled request
      // nearly what a sampled one costs (docs/performance.md#tracing).
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, startOutgoingSpanHook: originOnly }),
    ],
  });
  sdk.start();
  return { sdk, sampling };
}
