/**
 * The OpenTelemetry SDK of the telemetry specs: an in-memory span exporter and metric reader,
 * registered globally for one spec file (each Jest file has its own global), and readers of
 * what they recorded — span trees, span summaries and histogram points.
 */
import { createRequire } from 'node:module';
import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  MetricReader,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';

/** The instrumentation scope of every span and instrument toolwright makes. */
export const SCOPE = 'toolwright';

/** The package's version, read here from package.json: the scope's version must be it. */
export const PACKAGE_VERSION: string = createRequire(import.meta.url)('../../package.json').version;

/** A reader the specs collect from themselves; delta, so that each collection holds only what is new. */
class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One histogram data point: its attributes and its value. */
export interface HistogramPoint {
  attributes: Attributes;
  value: Histogram;
}

/** A histogram as collected: its descriptor and its points. */
export interface CollectedHistogram {
  unit: string;
  description: string;
  /** The version of the instrumentation scope that recorded it. */
  scopeVersion?: string;
  points: HistogramPoint[];
}

export interface TestTelemetry {
  readonly tracerProvider: TracerProvider;
  readonly exporter: InMemorySpanExporter;
  readonly meterProvider: MeterProvider;
  /** Every span finished so far (flushed first: the simple processor exports asynchronously). */
  spans(): Promise<ReadableSpan[]>;
  /** Only the spans toolwright made (not the HTTP instrumentation's, nor the test's own). */
  toolwrightSpans(): Promise<ReadableSpan[]>;
  /**
   * The toolwright histograms recorded since the last collection (or reset), by name; one that
   * recorded nothing is absent. Each
   * collection takes everything recorded so far: collect once, then read every histogram of it.
   */
  histograms(): Promise<Map<string, CollectedHistogram>>;
  /** Forgets the spans and metrics recorded so far. */
  reset(): Promise<void>;
  /** Unregisters the SDK and shuts it down. */
  shutdown(): Promise<void>;
}

export interface RegisterOptions {
  /** Register a tracer provider. Default true. */
  tracing?: boolean;
  /** Register a meter provider. Default true. */
  metrics?: boolean;
}

/**
 * Registers an SDK globally: the async-hooks context manager, the W3C propagator, a tracer
 * provider exporting to memory and a meter provider read on demand.
 */
export function registerTelemetry(options: RegisterOptions = {}): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (options.tracing !== false) trace.setGlobalTracerProvider(tracerProvider);
  if (options.metrics !== false) metrics.setGlobalMeterProvider(meterProvider);

  const spans = async () => {
    await tracerProvider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return {
    tracerProvider,
    exporter,
    meterProvider,
    spans,
    toolwrightSpans: async () =>
      (await spans()).filter((span) => span.instrumentationScope.name === SCOPE),
    async histograms() {
      const { resourceMetrics } = await reader.collect();
      const collected = new Map<string, CollectedHistogram>();
      for (const { scope, metric } of resourceMetrics.scopeMetrics
        .filter(({ scope }) => scope.name === SCOPE)
        .flatMap(({ scope, metrics }) => metrics.map((metric) => ({ scope, metric })))) {
        if (metric.dataPointType !== DataPointType.HISTOGRAM) {
          throw new Error(`${metric.descriptor.name} is not a histogram`);
        }
        // A delta collection may list an instrument with nothing new: it recorded nothing.
        if (metric.dataPoints.length === 0) continue;
        collected.set(metric.descriptor.name, {
          unit: metric.descriptor.unit,
          description: metric.descriptor.description,
          scopeVersion: scope.version,
          points: metric.dataPoints.map(({ attributes, value }) => ({ attributes, value })),
        });
      }
      return collected;
    },
    async reset() {
      await tracerProvider.forceFlush();
      exporter.reset();
      await reader.collect();
    },
    async shutdown() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The HTTP server spans of `@opentelemetry/instrumentation-http`.

/**
 * Applies `@opentelemetry/instrumentation-http`'s patch of `node:http` (incoming requests only)
 * and returns its removal. Its require hook never fires under Jest — Jest's ESM modules do not
 * load `http` through Node's `Module.prototype.require`, and Jest hands the hook a stand-in
 * `module` — so the instrumentation's own module definition is applied by hand to the real
 * `node:http` exports, which is the object the hook would patch. `Server.prototype.emit` is
 * process-wide: call the removal in `afterAll`, or later spec files in the worker would be traced.
 */
export function instrumentHttp(): () => void {
  const http = createRequire(import.meta.url)('node:http');
  const instrumentation = new HttpInstrumentation({
    enabled: false,
    disableOutgoingRequestInstrumentation: true,
  });
  instrumentation.setTracerProvider(trace.getTracerProvider());
  const definition = instrumentation.getModuleDefinitions().find(({ name }) => name === 'http');
  if (!definition?.patch || !definition.unpatch) throw new Error('no http module definition');
  definition.patch(http, process.versions.node);
  if (String(http.Server.prototype.emit).includes('incomingRequest') === false) {
    throw new Error('node:http was not patched');
  }
  return () => definition.unpatch!(http, process.versions.node);
}

// ---------------------------------------------------------------------------------------------
// Reading spans.

export const spanId = (span: ReadableSpan) => span.spanContext().spanId;
export const traceId = (span: ReadableSpan) => span.spanContext().traceId;
export const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The one span of a name; fails when there is none or more than one. */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) {
    throw new Error(
      `expected one span "${name}", found ${found.length} among ${JSON.stringify(spans.map((span) => span.name))}`,
    );
  }
  return found[0];
}

/**
 * The spans as an indented tree (two spaces a level), children in start order: what a trace
 * viewer shows. A span whose parent is not among them is a root (a remote parent is marked).
 */
export function tree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map(spanId));
  const byStart = [...spans].sort((a, b) => compareTime(a.startTime, b.startTime));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of byStart) {
      const own = parentId(span);
      const isChild = parent === undefined ? own === undefined || !ids.has(own) : own === parent;
      if (!isChild) continue;
      const remote =
        parent === undefined && span.parentSpanContext?.isRemote ? ' (remote parent)' : '';
      lines.push(`${'  '.repeat(depth)}${span.name}${remote}`);
      walk(spanId(span), depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function compareTime(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** What a span says, for exact comparison: name, kind, status, attributes, events and links. */
export function summary(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    status: span.status,
    attributes: span.attributes,
    events: span.events.map(({ name, attributes }) => ({ name, attributes: attributes ?? {} })),
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
    })),
  };
}

/** Everything a span carries, as text: for "this secret appears nowhere" checks. */
export function spanText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    status: span.status,
    attributes: span.attributes,
    events: span.events,
    links: span.links,
  });
}

// ---------------------------------------------------------------------------------------------
// Remote trace contexts.

/** A sampled remote span context, as a client's `traceparent` carries it. */
export function remoteSpanContext(seed: number): SpanContext {
  const hex = (length: number) => seed.toString(16).padStart(length, '0');
  return {
    traceId: `${'a'.repeat(32 - 8)}${hex(8)}`,
    spanId: `${'b'.repeat(16 - 8)}${hex(8)}`,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  };
}

/** The W3C `traceparent` of a span context. */
export const traceparentOf = (span: SpanContext) =>
  `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`;

/** A context whose span is a remote one (a job's context extracted from its message, say). */
export const remoteContext = (span: SpanContext): Context =>
  trace.setSpanContext(ROOT_CONTEXT, span);

/** A logger for invokers under test: records instead of printing. */
export function recordingLogger() {
  const lines: Array<{ level: string; message: string; error?: unknown }> = [];
  const at = (level: string) => (message: string, error?: unknown) =>
    void lines.push({ level, message, error });
  return { lines, logger: { error: at('error'), warn: at('warn'), debug: at('debug') } };
}
