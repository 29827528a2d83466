/**
 * OpenTelemetry for the help desk sample (see docs/observability.md). Imported first by main.ts,
 * it starts the OpenTelemetry Node SDK when one of these is set, and does nothing otherwise (no
 * SDK module is even loaded):
 *
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` (e.g. `http://localhost:4318`): traces and metrics go over
 *   OTLP, configured by the standard `OTEL_*` variables (`OTEL_SERVICE_NAME`,
 *   `OTEL_METRICS_EXPORTER=none` for a backend without metrics, …).
 * - `HELPDESK_TRACE=1`: each finished span is printed as one line on stderr, and nothing is
 *   exported. stdout keeps the sample's own output.
 *
 * The SDK registers the AsyncLocalStorage context manager and the W3C trace-context and baggage
 * propagators, which toolwright uses to parent its spans and to read `params._meta.traceparent`.
 * The HTTP instrumentation adds a span per HTTP request, the parent of toolwright's MCP span
 * (unless the client sent its own trace context in `_meta`). Once the application has closed,
 * the SDK is shut down, which flushes what is still buffered.
 */
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

const otlp = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
const print = process.env.HELPDESK_TRACE === '1';

async function startTelemetry(): Promise<void> {
  const [{ NodeSDK }, { HttpInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
  ]);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'helpdesk-sample',
    instrumentations: [new HttpInstrumentation()],
    // Printing: one line per span, no metrics, no logs. Otherwise every signal is configured
    // from the OTEL_* variables (OTLP over HTTP by default).
    ...(print && {
      spanProcessors: [new SpanPrinter()],
      metricReaders: [],
      logRecordProcessors: [],
    }),
  });
  sdk.start();
  shutDownOnExit(() => sdk.shutdown());
}

/**
 * Shuts the SDK down (flushing what is buffered) once the application is done: when the event
 * loop runs dry, or on SIGINT or SIGTERM. Nest's shutdown hooks close the app on the signal
 * first, then raise it again (or let the loop run dry): this listener then acts alone.
 */
function shutDownOnExit(shutdown: () => Promise<void>): void {
  let done: Promise<void> | undefined;
  const flush = () =>
    (done ??= shutdown().catch((error: unknown) => {
      process.stderr.write(`OpenTelemetry shutdown failed: ${String(error)}\n`);
    }));
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return; // the application is still closing
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    void flush().finally(() => process.kill(process.pid, signal));
  };
  process.once('beforeExit', () => void flush());
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** `SpanKind` by value. */
const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
/** `SpanStatusCode.ERROR`. */
const ERROR = 2;

/** The attributes printed after a span's name, when it has them. */
const SHOWN = [
  'http.response.status_code',
  'jsonrpc.request.id',
  'mcp.protocol.version',
  'toolwright.transport',
  'toolwright.source',
  'toolwright.call.depth',
  'error.type',
];

/**
 * Prints each span as it ends, on one line of stderr:
 *
 *   [otel] <trace id> <span id> <parent span id or -> <kind> <duration> <name> <attributes> <events>
 *
 * A child ends before its parent, so its line comes first; the name is indented by the span's
 * depth below the first span of its trace in this process.
 */
class SpanPrinter implements SpanProcessor {
  private readonly depths = new Map<string, number>();

  onStart(span: Span): void {
    const parent = span.parentSpanContext?.spanId;
    const depth = parent === undefined ? 0 : (this.depths.get(parent) ?? -1) + 1;
    this.depths.set(span.spanContext().spanId, depth);
  }

  onEnd(span: ReadableSpan): void {
    const { traceId, spanId } = span.spanContext();
    const depth = this.depths.get(spanId) ?? 0;
    this.depths.delete(spanId);
    const [seconds, nanos] = span.duration;
    const ms = (seconds * 1e3 + nanos / 1e6).toFixed(1);
    const attributes = SHOWN.filter((key) => span.attributes[key] !== undefined).map(
      (key) => `${key}=${String(span.attributes[key])}`,
    );
    const events = span.events.map((event) => event.name);
    const status =
      span.status.code === ERROR
        ? [`ERROR${span.status.message ? `: ${span.status.message}` : ''}`]
        : [];
    const line = [
      '[otel]',
      traceId,
      spanId,
      span.parentSpanContext?.spanId ?? '-',
      (KINDS[span.kind] ?? String(span.kind)).padEnd(8),
      `${ms}ms`.padStart(9),
      `${'  '.repeat(depth)}${span.name}`,
      ...attributes,
      ...(events.length > 0 ? [`events=${events.join(',')}`] : []),
      ...status,
    ];
    process.stderr.write(`${line.join(' ')}\n`);
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}

// Last: the class above is initialised only once its declaration has run.
if (print || otlp) await startTelemetry();
