import { createRequire } from 'node:module';
import * as OpenTelemetryApi from '@opentelemetry/api';
import type {
  Attributes,
  AttributeValue,
  Context,
  Histogram,
  Meter,
  Span,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { report } from './call-sinks.js';
import type { ToolLogger } from './hooks.js';
import type { ToolResult } from './result.js';
import type {
  ToolCallInfo,
  ToolContext,
  ToolLogLevel,
  ToolProgress,
  ToolTransport,
} from './types.js';

/**
 * What toolwright records in the traces and metrics of an application that registers an
 * OpenTelemetry SDK (see docs/observability.md). Without an SDK nothing is created at all.
 */
export interface ToolTelemetryOptions {
  /** Record each call's arguments as `gen_ai.tool.call.arguments` (JSON). Personal data: default `false`. */
  recordArguments?: boolean;
  /** Record each successful call's data as `gen_ai.tool.call.result` (JSON). Personal data: default `false`. */
  recordResults?: boolean;
  /**
   * Extra attributes of a call's `execute_tool` span, read from its resolved context (a tenant,
   * a region). Nothing of the principal is recorded unless this function picks it. A function
   * that throws is logged and recorded nothing.
   */
  attributes?: (context: ToolContext, call: ToolCallInfo) => ToolSpanAttributes | undefined;
}

/** Attribute values {@link ToolTelemetryOptions.attributes} may return; `undefined` ones are left out. */
export type ToolSpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The OpenTelemetry API (a dependency, imported statically: no top-level await, so that a
 * CommonJS application can `require` the package). Every copy of the API 1.x shares the global
 * registration, so the application's SDK is seen whichever copy it registered through.
 */
export const otel: typeof OpenTelemetryApi = OpenTelemetryApi;

/** The instrumentation scope of every span and instrument. */
const SCOPE = 'toolwright';

/**
 * `gen_ai.tool.type` of every tool: the model fills in the arguments of a predefined function
 * and the application runs it (not a provider-hosted `extension`, nor a `datastore`).
 */
export const TOOL_TYPE = 'function';

/** toolwright's tool-call duration histogram, on every surface, with finer low buckets. */
export const TOOL_DURATION_METRIC = 'toolwright.tool.call.duration';
/** The GenAI conventions' tool-call duration histogram. */
export const EXECUTE_TOOL_DURATION_METRIC = 'gen_ai.execute_tool.duration';
/** The bucket boundaries the GenAI conventions give `gen_ai.execute_tool.duration`. */
export const EXECUTE_TOOL_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);
/** The MCP conventions' server operation histogram. */
export const MCP_DURATION_METRIC = 'mcp.server.operation.duration';
/** The bucket boundaries the MCP conventions give `mcp.server.operation.duration`. */
export const MCP_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);
/** Finer at the low end: an in-process call often takes well under 10 ms. */
const TOOL_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
]);

/** The tracer and instruments of the providers registered now; each absent when none is. */
export interface Instruments {
  readonly tracer?: Tracer;
  readonly toolDuration?: Histogram;
  readonly executeToolDuration?: Histogram;
  readonly mcpDuration?: Histogram;
}

// Read once, when a provider first asks for the scope: `null` until then. A CommonJS-safe read
// (no top-level await, no JSON import), from lib/ and dist/ alike: both are two levels below the
// package root. A bundle that moved the file finds another package.json, or none: no version.
let scopeVersion: string | undefined | null = null;

/** The version of the instrumentation scope: the package's, when its package.json is found. */
function instrumentationVersion(): string | undefined {
  if (scopeVersion === null) {
    try {
      const manifest = createRequire(import.meta.url)('../../package.json') as {
        name?: unknown;
        version?: unknown;
      };
      scopeVersion =
        manifest.name === SCOPE && typeof manifest.version === 'string'
          ? manifest.version
          : undefined;
    } catch {
      scopeVersion = undefined;
    }
  }
  return scopeVersion;
}

const NO_INSTRUMENTS: Instruments = Object.freeze({});

// The API's own no-op providers: what the global accessors answer while no SDK is registered.
const NOOP_TRACER_PROVIDER = new otel.ProxyTracerProvider().getDelegate();
const NOOP_METER = otel.createNoopMeter();

// Built once per registered provider, so that an SDK registered after the invoker was made (or
// replaced in a test) is picked up, and a call costs two global lookups when nothing changed.
let tracing: { provider?: TracerProvider; tracer?: Tracer } = {};
let metering: Omit<Instruments, 'tracer'> & { provider?: unknown } = {};
let current: Instruments = NO_INSTRUMENTS;

/**
 * Where every copy of the API (1.x) registers the global providers: `trace` and `metrics` are
 * set there only when an SDK registers them. Reading it first makes a call without an SDK cost
 * one property lookup, where the API's accessors check versions and hand back proxies.
 */
const GLOBAL_API = Symbol.for('opentelemetry.js.api.1');

/** The tracer and instruments of the registered SDK, or none (nothing is created without one). */
export function currentInstruments(): Instruments {
  const registered = (globalThis as Record<symbol, { trace?: unknown; metrics?: unknown }>)[
    GLOBAL_API
  ];
  if (registered?.trace === undefined && registered?.metrics === undefined) {
    return NO_INSTRUMENTS;
  }
  const proxy = otel.trace.getTracerProvider() as TracerProvider & {
    getDelegate?(): TracerProvider;
  };
  const provider = proxy.getDelegate?.() ?? proxy;
  const meterProvider = otel.metrics.getMeterProvider();
  if (provider === tracing.provider && meterProvider === metering.provider) return current;
  if (provider !== tracing.provider) {
    tracing = {
      provider,
      ...(provider !== NOOP_TRACER_PROVIDER && {
        tracer: provider.getTracer(SCOPE, instrumentationVersion()),
      }),
    };
  }
  if (meterProvider !== metering.provider) metering = instrumentsOf(meterProvider);
  const { tracer } = tracing;
  const { toolDuration, executeToolDuration, mcpDuration } = metering;
  current =
    tracer || toolDuration
      ? Object.freeze({ tracer, toolDuration, executeToolDuration, mcpDuration })
      : NO_INSTRUMENTS;
  return current;
}

function instrumentsOf(provider: {
  getMeter(name: string, version?: string): Meter;
}): typeof metering {
  const meter = provider.getMeter(SCOPE, instrumentationVersion());
  if (meter === NOOP_METER) return { provider };
  return {
    provider,
    toolDuration: meter.createHistogram(TOOL_DURATION_METRIC, {
      description: 'Duration of a tool call through the toolwright runner, on every surface.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...TOOL_DURATION_BUCKETS] },
    }),
    executeToolDuration: meter.createHistogram(EXECUTE_TOOL_DURATION_METRIC, {
      description: 'The duration of a single tool execution.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...EXECUTE_TOOL_DURATION_BUCKETS] },
    }),
    mcpDuration: meter.createHistogram(MCP_DURATION_METRIC, {
      description:
        'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] },
    }),
  };
}

/** A value as the JSON string an attribute records, or `undefined` when it has none. */
export function jsonAttribute(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** What a call's span reads of the request a surface made (the runner's `CallRequest`). */
export interface TracedRequest {
  readonly args: unknown;
  /** The model's tool-call id, when an agent started the call. */
  readonly toolCallId?: string;
  /** An explicit parent (the MCP request's span); else the parent call's span or the active context. */
  readonly traceContext?: unknown;
}

/**
 * The telemetry of one invoker: its options, and the span and duration of each call. Made only
 * when telemetry is on and the API is installed; each call then costs a look at the registered
 * providers, and nothing more while none is.
 */
export class ToolTelemetry {
  constructor(
    readonly options: ToolTelemetryOptions,
    private readonly logger: ToolLogger,
  ) {}

  /**
   * The span and duration of a call, or `undefined` when no SDK is registered (then nothing is
   * allocated). `parentSpan`: the span of the call this one runs inside. Never throws: an SDK
   * that fails to start a span is logged, and the call runs untraced.
   */
  startCall(
    call: ToolCallInfo,
    description: string,
    request: TracedRequest,
    parentSpan: Span | undefined,
  ): CallTelemetry | undefined {
    const instruments = currentInstruments();
    if (instruments === NO_INSTRUMENTS) return undefined;
    try {
      return new CallTelemetry(this, instruments, call, description, request, parentSpan);
    } catch (error) {
      this.failed(call.name, error);
      return undefined;
    }
  }

  /** Reports an SDK failure; telemetry never changes a call's outcome. */
  failed(name: string, error: unknown): void {
    report(this.logger, 'telemetry', name, error);
  }

  /** The extra attributes of a call, from its resolved context; a throw is logged. */
  contextAttributes(context: ToolContext, call: ToolCallInfo): Attributes | undefined {
    const pick = this.options.attributes;
    if (!pick) return undefined;
    try {
      return definedAttributes(pick(context, call));
    } catch (error) {
      report(this.logger, 'telemetry attributes', call.name, error);
      return undefined;
    }
  }
}

function definedAttributes(attributes: ToolSpanAttributes | undefined): Attributes | undefined {
  if (!attributes) return undefined;
  const defined: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) defined[key] = value as AttributeValue;
  }
  return defined;
}

/** One call's `execute_tool` span (when a tracer is registered) and its duration. */
export class CallTelemetry {
  readonly span?: Span;
  /** The context the call runs in: its span's, for what the handler traces itself. */
  readonly context?: Context;

  constructor(
    private readonly telemetry: ToolTelemetry,
    private readonly instruments: Instruments,
    private readonly call: ToolCallInfo,
    description: string,
    request: TracedRequest,
    parentSpan: Span | undefined,
  ) {
    const { tracer } = instruments;
    if (!tracer) return;
    const { toolCallId, args } = request;
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.type': TOOL_TYPE,
      'gen_ai.tool.call.id': toolCallId ?? call.id,
      'gen_ai.tool.description': description,
      'toolwright.call.id': call.id,
      'toolwright.transport': call.transport,
      'toolwright.source': call.source,
      'toolwright.call.depth': call.depth,
    };
    if (telemetry.options.recordArguments) {
      const json = jsonAttribute(args ?? {});
      if (json !== undefined) attributes['gen_ai.tool.call.arguments'] = json;
    }
    const parent = parentContext(request.traceContext, parentSpan);
    const span = tracer.startSpan(
      `execute_tool ${call.name}`,
      { kind: otel.SpanKind.INTERNAL, attributes },
      parent,
    );
    this.span = span;
    this.context = otel.trace.setSpan(parent, span);
  }

  /** Adds the application's attributes once the call's context is resolved. */
  resolved(context: ToolContext): void {
    const { span } = this;
    if (!span?.isRecording()) return;
    const extra = this.telemetry.contextAttributes(context, this.call);
    if (!extra) return;
    try {
      span.setAttributes(extra);
    } catch (error) {
      this.telemetry.failed(this.call.name, error);
    }
  }

  /** A progress report as a span event, then the surface's sink. */
  progressSink(
    sink: ((progress: ToolProgress) => unknown) | undefined,
  ): ((progress: ToolProgress) => unknown) | undefined {
    const { span } = this;
    if (!span) return sink;
    return (progress) => {
      span.addEvent(
        'toolwright.progress',
        definedAttributes({
          'toolwright.progress.value': progress.progress,
          'toolwright.progress.total': progress.total,
          'toolwright.progress.message': progress.message,
        }),
      );
      return sink?.(progress);
    };
  }

  /** A handler log line as a span event (its level and message, not its data), then the sink. */
  logSink(
    sink: ((level: ToolLogLevel, message: string, data?: unknown) => unknown) | undefined,
  ): ((level: ToolLogLevel, message: string, data?: unknown) => unknown) | undefined {
    const { span } = this;
    if (!span) return sink;
    return (level, message, data) => {
      span.addEvent('toolwright.log', {
        'toolwright.log.level': level,
        'toolwright.log.message': String(message),
      });
      return sink?.(level, message, data);
    };
  }

  /**
   * Ends the span with the call's outcome and records its duration: a failure sets status
   * ERROR and `error.type` to its code, with its public message only (never a stack). A round
   * that stopped at a question (`INPUT_REQUIRED`) is not a failure.
   */
  end(result: ToolResult | undefined, durationMs: number): void {
    try {
      this.record(result, durationMs);
    } catch (error) {
      this.telemetry.failed(this.call.name, error);
    }
  }

  private record(result: ToolResult | undefined, durationMs: number): void {
    const { span } = this;
    const { call } = this;
    // A round that stopped at a question to the user is not a failure.
    const errorType =
      result === undefined
        ? '_OTHER'
        : result.ok || result.error.code === 'INPUT_REQUIRED'
          ? undefined
          : result.error.code;
    if (span) {
      if (errorType !== undefined) {
        span.setAttribute('error.type', errorType);
        span.setStatus({
          code: otel.SpanStatusCode.ERROR,
          ...(result && !result.ok && { message: result.error.message }),
        });
      } else if (result?.ok && this.telemetry.options.recordResults && span.isRecording()) {
        const json = jsonAttribute(result.data);
        if (json !== undefined) span.setAttribute('gen_ai.tool.call.result', json);
      }
      span.end();
    }
    const { toolDuration, executeToolDuration } = this.instruments;
    const seconds = durationMs / 1000;
    if (toolDuration) {
      const attributes = durationAttributes(call);
      toolDuration.record(seconds, withErrorType(attributes, errorType));
    }
    if (executeToolDuration) {
      const attributes = executeToolAttributes(call.name);
      executeToolDuration.record(seconds, withErrorType(attributes, errorType));
    }
  }
}

function withErrorType(attributes: Attributes, errorType: string | undefined): Attributes {
  return errorType === undefined ? attributes : { ...attributes, 'error.type': errorType };
}

// The duration attributes of a successful call, one frozen object per tool and transport: the
// same values on every call, made once. The tool names are the registry's (a name no tool has
// never reaches the runner), so the series stay bounded.
const durationAttributesOf = new Map<string, Map<ToolTransport, Attributes>>();
const executeToolAttributesOf = new Map<string, Attributes>();

function durationAttributes(call: ToolCallInfo): Attributes {
  let byTransport = durationAttributesOf.get(call.name);
  if (!byTransport) durationAttributesOf.set(call.name, (byTransport = new Map()));
  let attributes = byTransport.get(call.transport);
  if (!attributes) {
    attributes = Object.freeze({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'toolwright.transport': call.transport,
    });
    byTransport.set(call.transport, attributes);
  }
  return attributes;
}

/** The attributes the GenAI conventions give `gen_ai.execute_tool.duration`, per tool. */
function executeToolAttributes(name: string): Attributes {
  let attributes = executeToolAttributesOf.get(name);
  if (!attributes) {
    attributes = Object.freeze({ 'gen_ai.tool.name': name, 'gen_ai.tool.type': TOOL_TYPE });
    executeToolAttributesOf.set(name, attributes);
  }
  return attributes;
}

/**
 * A call's parent: the explicit one (an MCP request's span), else the active context, with the
 * enclosing call's span put in when the active context is not inside that call's trace (no
 * context manager is registered, or something on the way lost the async context).
 */
function parentContext(parent: unknown, parentSpan: Span | undefined): Context {
  // An explicit parent that is not a Context (`null` from a message that carried none) is ignored.
  if (typeof (parent as Context | null | undefined)?.getValue === 'function') {
    return parent as Context;
  }
  const active = otel.context.active();
  if (!parentSpan) return active;
  const inside = otel.trace.getSpanContext(active);
  return inside?.traceId === parentSpan.spanContext().traceId
    ? active
    : otel.trace.setSpan(active, parentSpan);
}

/** Runs `fn(arg)` with `context` active (for the spans the handler makes itself). */
export function withTraceContext<A, T>(context: Context, fn: (arg: A) => T, arg: A): T {
  return otel.context.with(context, fn, undefined, arg);
}
