/** What an app tells `startTracing` about itself. */
export interface TracingSetup {
  /** `service.name`, unless OTEL_SERVICE_NAME (or `service.name` in OTEL_RESOURCE_ATTRIBUTES) names another. */
  serviceName: string;
  /** Hides the credentials in a request's URL; the server span records the query as it returns it. */
  redactUrl?: (url: string) => string;
  /**
   * Continues the trace context an incoming request carries (`traceparent`, `tracestate`,
   * `baggage`), for a process whose callers are all trusted gateways; otherwise each request
   * starts a new trace, linked to the caller's span.
   */
  trustInboundContext?: boolean;
}
