/**
 * The OpenTelemetry SDK of the `-otel` targets (`TELEMETRY=memory`, see `servers/toolwright.ts`)
 * and of `BENCH_OTEL=1 npm run bench:core`: what an application registers to get toolwright's
 * spans and metrics, with in-memory exporters so that nothing leaves the process.
 *
 * - traces: `@opentelemetry/sdk-trace`'s `TracerProvider` with a `BatchSpanProcessor` (its
 *   defaults: batches of 512, a queue of 2,048, 5 s delay) over an `InMemorySpanExporter`;
 * - context: `@opentelemetry/context-async-hooks`' `AsyncLocalStorageContextManager`;
 * - propagation: `@opentelemetry/core`'s `W3CTraceContextPropagator`;
 * - metrics: `@opentelemetry/sdk-metrics`' `MeterProvider` with a `PeriodicExportingMetricReader`
 *   (every second) over an `InMemoryMetricExporter` (cumulative).
 *
 * The exporters are emptied every second (an unref'd interval), so memory stays flat under load,
 * and count what they were given first: the spans by kind, and the records of toolwright's two
 * histograms (their cumulative data points' counts at the last export). That count is how the
 * harness knows the SDK really produced what is measured.
 *
 * The packages are devDependencies of the repository root, resolved from its node_modules like
 * Nest (bench/ installs none of them), so `@opentelemetry/api` here is the copy the library's
 * build imports: one module instance, one global registration.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  ExportResultCode,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import {
  TELEMETRY_PREFIX,
  TELEMETRY_SIGNAL,
  type ApiCopies,
  type TelemetryCounts,
  type TelemetryLine,
} from './ready.js';

export type { TelemetryCounts } from './ready.js';

/** toolwright's histograms (`lib/core/telemetry.ts`). */
const TOOL_DURATION_METRIC = 'toolwright.tool.call.duration';
const MCP_DURATION_METRIC = 'mcp.server.operation.duration';

const RESET_MS = 1000;
const METRIC_INTERVAL_MS = 1000;
/** With `answerAtOnce`, the most spans the exporter keeps before it empties itself. */
const KEEP_SPANS = 4096;

export interface BenchTelemetry {
  counts(): TelemetryCounts;
  /** Exports what the span processor and the metric reader hold, then resolves. */
  flush(): Promise<void>;
  /** Registers the SDK's providers, context manager and propagator as the global ones. */
  enable(): void;
  /** Unregisters them: the API answers with its no-op implementations again, as without an SDK. */
  disable(): void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

class CountingSpanExporter extends InMemorySpanExporter {
  constructor(
    private readonly tally: Mutable<TelemetryCounts>,
    private readonly answerAtOnce: boolean,
  ) {
    super();
  }

  override export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      if (span.kind === SpanKind.SERVER) this.tally.serverSpans++;
      else if (span.name.startsWith('execute_tool ')) this.tally.toolSpans++;
      else this.tally.otherSpans++;
    }
    if (!this.answerAtOnce) return super.export(spans, done);
    if (this.getFinishedSpans().length >= KEEP_SPANS) this.reset();
    this.getFinishedSpans().push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }
}

class CountingMetricExporter extends InMemoryMetricExporter {
  constructor(private readonly tally: Mutable<TelemetryCounts>) {
    super(AggregationTemporality.CUMULATIVE);
  }

  override export(resource: ResourceMetrics, done: (result: ExportResult) => void): void {
    for (const scope of resource.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.dataPointType !== DataPointType.HISTOGRAM) continue;
        const records = metric.dataPoints.reduce((sum, point) => sum + point.value.count, 0);
        // Cumulative: each export carries every record since the start.
        if (metric.descriptor.name === TOOL_DURATION_METRIC) {
          this.tally.toolDurations = Math.max(this.tally.toolDurations, records);
        } else if (metric.descriptor.name === MCP_DURATION_METRIC) {
          this.tally.mcpDurations = Math.max(this.tally.mcpDurations, records);
        }
      }
    }
    super.export(resource, done);
  }
}

/**
 * Builds the SDK and registers it (see the top of this file). `answerAtOnce`: the span exporter
 * answers each batch before it returns, where `InMemorySpanExporter` answers on a timer, and
 * empties itself past 4,096 spans. For a loop that never yields to the event loop (bench:core's
 * slices): the processor exports one batch at a time and waits for the answer, so with a timer
 * that never fires it would drop every span past its queue of 2,048, and the interval that
 * empties the exporters would never run either.
 */
export function registerTelemetry(options: { answerAtOnce?: boolean } = {}): BenchTelemetry {
  const tally: Mutable<TelemetryCounts> = {
    serverSpans: 0,
    toolSpans: 0,
    otherSpans: 0,
    toolDurations: 0,
    mcpDurations: 0,
  };
  const spanExporter = new CountingSpanExporter(tally, options.answerAtOnce ?? false);
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: spanExporter })],
  });
  const metricExporter = new CountingMetricExporter(tally);
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis: METRIC_INTERVAL_MS,
        exportTimeoutMillis: METRIC_INTERVAL_MS,
      }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager();
  const propagator = new W3CTraceContextPropagator();
  setInterval(() => {
    spanExporter.reset();
    metricExporter.reset();
  }, RESET_MS).unref();

  const telemetry: BenchTelemetry = {
    counts: () => ({ ...tally }),
    async flush() {
      await tracerProvider.forceFlush();
      await meterProvider.forceFlush();
    },
    enable() {
      const registered = [
        context.setGlobalContextManager(contextManager.enable()),
        trace.setGlobalTracerProvider(tracerProvider),
        propagation.setGlobalPropagator(propagator),
        metrics.setGlobalMeterProvider(meterProvider),
      ];
      if (registered.includes(false)) {
        throw new Error('bench: another OpenTelemetry SDK is registered already.');
      }
    },
    disable() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
  telemetry.enable();
  return telemetry;
}

/** A package's folder and version, as `from` resolves it (CommonJS resolution, same folders). */
function packageAt(from: string | URL, name: string): { dir: string; version: string } {
  let dir = dirname(createRequire(from).resolve(name));
  while (!dir.endsWith(join('node_modules', name))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`bench: ${name} resolves outside a node_modules folder`);
    dir = parent;
  }
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { dir, version };
}

/**
 * Where this module's `@opentelemetry/api` and the library's come from (`library`: the
 * library's entry file): the same folder means one module instance.
 */
export function apiCopies(library: string | URL): ApiCopies {
  return {
    bench: packageAt(import.meta.url, '@opentelemetry/api'),
    library: packageAt(library, '@opentelemetry/api'),
  };
}

/**
 * For a benchmark server: on {@link TELEMETRY_SIGNAL}, flushes and prints one
 * `BENCH_TELEMETRY {…}` line ({@link TelemetryLine}) with the counts, and where both copies of
 * the API come from.
 */
export function answerTelemetryProbes(telemetry: BenchTelemetry, library: string | URL): void {
  const api = apiCopies(library);
  const print = (line: TelemetryLine) => console.log(`${TELEMETRY_PREFIX}${JSON.stringify(line)}`);
  process.on(TELEMETRY_SIGNAL, () => {
    telemetry.flush().then(
      () => print({ ...telemetry.counts(), api }),
      (error: unknown) => print({ error: String(error), api }),
    );
  });
}
