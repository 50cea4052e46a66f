import { OtlpProtobufTraceExporter, otlpProtobufTraceExporterFromEnv } from './otlp-trace-exporter';

const VARIABLES = ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] as const;

describe('otlpProtobufTraceExporterFromEnv', () => {
  const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  async function exporterFor(env: Partial<Record<(typeof VARIABLES)[number], string>>) {
    for (const name of VARIABLES) delete process.env[name];
    Object.assign(process.env, env);
    const exporter = otlpProtobufTraceExporterFromEnv();
    await exporter?.shutdown();
    return exporter;
  }

  it.each([
    ['nothing set (NodeSDK: OTLP over HTTP in protobuf)', {}],
    ['OTEL_TRACES_EXPORTER=otlp', { OTEL_TRACES_EXPORTER: 'otlp' }],
    ['OTEL_TRACES_EXPORTER= otlp , otlp', { OTEL_TRACES_EXPORTER: ' otlp , otlp' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }],
    ['the traces protocol http/protobuf over a general grpc', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }],
  ])("is the service's OTLP/protobuf exporter with %s", async (_, env) => {
    expect(await exporterFor(env)).toBeInstanceOf(OtlpProtobufTraceExporter);
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL=http/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL=grpc', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['the traces protocol http/json over a general http/protobuf', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }],
    ['OTEL_TRACES_EXPORTER=zipkin', { OTEL_TRACES_EXPORTER: 'zipkin' }],
    ['OTEL_TRACES_EXPORTER=console', { OTEL_TRACES_EXPORTER: 'console' }],
    ['OTEL_TRACES_EXPORTER=otlp,console', { OTEL_TRACES_EXPORTER: 'otlp,console' }],
  ])('leaves %s to NodeSDK', async (_, env) => {
    expect(await exporterFor(env)).toBeUndefined();
  });
});
