/** What an app tells `startTracing` about itself. */
export interface TracingSetup {
  /** `service.name`, unless OTEL_SERVICE_NAME (or `service.name` in OTEL_RESOURCE_ATTRIBUTES) names another. */
  serviceName: string;
  /** Hides the credentials in a request's URL; the server span records the query as it returns it. */
  redactUrl?: (url: string) => string;
}
