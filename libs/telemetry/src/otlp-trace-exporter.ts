import { getStringFromEnv, getStringListFromEnv } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { OtlpTraceProtobufSerializer } from './otlp-trace-serializer';

/** The component type of OpenTelemetry's own OTLP/HTTP protobuf span exporter, in its self-observability metrics. */
const OTLP_HTTP_SPAN_EXPORTER = 'otlp_http_span_exporter';

/**
 * OpenTelemetry's OTLP/HTTP protobuf span exporter (`@opentelemetry/exporter-trace-otlp-proto`)
 * with the service's serializer: the same transport, retries, OTEL_EXPORTER_OTLP_* settings and
 * bytes on the wire, made in a fraction of the instructions (docs/performance.md, "Tracing").
 */
export class OtlpProtobufTraceExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor() {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        new OtlpTraceProtobufSerializer(),
        OTLP_HTTP_SPAN_EXPORTER,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}

/**
 * The exporter for what the environment asks, when that is NodeSDK's default: OTLP
 * (OTEL_TRACES_EXPORTER unset or `otlp`) over HTTP in protobuf (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
 * else OTEL_EXPORTER_OTLP_PROTOCOL, unset or `http/protobuf`). Undefined for anything else (gRPC,
 * JSON, Zipkin, the console, several exporters), which NodeSDK sets up from the same variables.
 */
export function otlpProtobufTraceExporterFromEnv(): SpanExporter | undefined {
  const exporters = [...new Set(getStringListFromEnv('OTEL_TRACES_EXPORTER') ?? [])].filter((name) => name !== 'null');
  if (exporters.length > 1 || (exporters.length === 1 && exporters[0] !== 'otlp')) return undefined;
  const protocol = (getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL'))?.trim();
  return !protocol || protocol === 'http/protobuf' ? new OtlpProtobufTraceExporter() : undefined;
}
