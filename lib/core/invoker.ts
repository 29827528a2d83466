import type { ToolAsk } from './asking.js';
import { ToolCatalog, type ClassToolBinder } from './catalog.js';
import { invokerOf, type InvokerSettings } from './catalog-invoker.js';
import { Drain } from './drain.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError, type ErrorMapper } from './errors.js';
import {
  composeHooks,
  type ToolCallEvent,
  type ToolGuard,
  type ToolHooks,
  type ToolLogger,
  type UnexpectedErrorLevel,
} from './hooks.js';
import type { ToolDescriptor } from './manifest.js';
import type { OperationDescriptor, PromptGet, ResourceRead } from './operations.js';
import type { ToolCollection } from './registry.js';
import type { ToolResult } from './result.js';
import type { CompiledTool, RunnerSettings } from './runner.js';
import { ToolTelemetry, type ToolTelemetryOptions } from './telemetry.js';
import type {
  ToolContext,
  ToolLogLevel,
  ToolProgress,
  ToolSource,
  ToolTransport,
} from './types.js';

export type { BoundClassTool, ClassToolBinder } from './catalog.js';

/** Options of {@link createToolInvoker}. */
export interface ToolInvokerOptions {
  /** Observers of every call, in order. */
  hooks?: ToolHooks | readonly ToolHooks[];
  /** Guards for every call, before each tool's own. */
  guards?: readonly ToolGuard[];
  /** Nesting beyond this depth fails with `RECURSION_LIMIT`. Default 8. */
  maxDepth?: number;
  /**
   * Maps thrown values the core does not know to a `ToolError`; a list is consulted in order,
   * the first `ToolError` winning. A mapper that throws, or answers anything but a `ToolError`
   * or `undefined`, is logged and passed over.
   */
  mapError?: ErrorMapper | readonly ErrorMapper[];
  /** Where swallowed hook failures and unexpected failures are reported. Default `console`. */
  logger?: ToolLogger;
  /**
   * The level at which a call's unexpected failure is logged (with the tool, the call id and the
   * stack; never the arguments or the context), or `false` for none. Unexpected: anything the
   * caller sees as `INTERNAL_SERVER_ERROR` — a thrown value no mapper made a `ToolError`, or an
   * output that does not match its schema. Default `'error'`.
   *
   * @example
   * createToolInvoker(registry, { logUnexpectedErrors: 'warn' });
   */
  logUnexpectedErrors?: UnexpectedErrorLevel;
  /** The ambient context of the current request; the caller's explicit context is merged over it. */
  resolveContext?: RunnerSettings['resolveContext'];
  /** Called once per finished call, before the caller's promise settles. */
  onCallFinished?: (event: ToolCallEvent) => void;
  /** Binds class tools; by default each class is instantiated once with `new`. */
  bind?: ClassToolBinder;
  /**
   * OpenTelemetry spans and metrics of every call, emitted when the application registers an
   * SDK (`@opentelemetry/api` is an optional peer; without an SDK nothing is created). `false`
   * turns them off. See docs/observability.md.
   *
   * @example
   * createToolInvoker(registry, {
   *   telemetry: { attributes: (context) => ({ 'app.tenant.id': context.tenantId as string }) },
   * });
   */
  telemetry?: ToolTelemetryOptions | false;
  /**
   * Warns (through `logger.warn`) at composition about each tool whose annotations lack a
   * `title`, or a `destructiveHint` while it is not read-only: some assistant directories
   * require them. The method-derived defaults still apply. @default false
   *
   * @example
   * createToolInvoker(registry, { lintAnnotations: true });
   */
  lintAnnotations?: boolean;
}

/** Options of one call. */
export interface InvokeOptions {
  /** Required: the exposure policy of this call. A tool not exposed here does not exist for it. */
  transport: ToolTransport;
  /**
   * Who started the call, for audit and for the answer to an unknown name. `'internal'` (the
   * default) is the application's own code, for which an unknown name is a programming error:
   * still a `NOT_FOUND`, but a request it reaches is answered 500 without the closest names;
   * pass another source (`'rest'`, say) when the name comes from your own caller, who then gets
   * the `NOT_FOUND` with the closest names.
   */
  source?: ToolSource;
  /** Merged over the context resolved from the current request, if any. */
  context?: ToolContext;
  /** Cancels the call: the result is `REQUEST_ABORTED` and the handler's signal fires. */
  signal?: AbortSignal;
  /** Receives the handler's `reportProgress` updates. */
  onProgress?: (progress: ToolProgress) => unknown;
  /** Receives the handler's `log` messages. */
  onLog?: (level: ToolLogLevel, message: string, data?: unknown) => unknown;
  /**
   * Runs the tool's presenter for this surface on a success, inside the call: read it with
   * `presentationOf(result)`; a presenter that throws makes the call an `INTERNAL_SERVER_ERROR`.
   */
  present?: 'mcp' | 'agent';
  /** The model's id of this tool call, when a model asked for it: the span's `gen_ai.tool.call.id`. */
  toolCallId?: string;
  /**
   * The OpenTelemetry `Context` the call's span is a child of (a job's context extracted from its
   * message, say). Default: the enclosing call's span, or the active context.
   */
  traceContext?: unknown;
  /**
   * Answers the questions the tool asks (`confirm`, `elicit`) — by asking the user. Without it, a
   * call whose handler asks fails with `USER_INPUT_UNAVAILABLE`. Calls made inside this one ask
   * through it too.
   *
   * @example
   * invoker.invoke(
   *   'tickets_close',
   *   { id: 'T-1' },
   *   { transport: 'AGENT', ask: async () => ({ action: 'accept' }) },
   * );
   */
  ask?: ToolAsk;
}

/**
 * Runs tools by name through the canonical runner.
 *
 * @example
 * const result = await invoker.invoke(
 *   'billing_get_invoice',
 *   { id: 'inv_1' },
 *   { transport: 'AGENT' },
 * );
 */
export interface ToolInvoker {
  /**
   * Runs a tool; every outcome of a found tool is a `ToolResult`. An unknown name rejects with a
   * `NOT_FOUND` `ToolError` listing the closest names, before anything runs. When the
   * application's own code chose it (`source` left at `'internal'`) it is a programming error:
   * `ToolErrorFilter` answers it 500 without listing any tool, and a tool whose handler lets it
   * escape fails with `INTERNAL_SERVER_ERROR` (logged).
   */
  invoke<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<T>>;
  /** Like `invoke`, but resolves to the data or rejects with the call's `ToolError`. */
  invokeOrThrow<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<T>;
  /** The names exposed on a transport: sorted, frozen, the same array on every call. */
  names(transport: ToolTransport): readonly string[];
  /** One frozen descriptor per tool exposed on a transport, in declaration order. */
  manifest(transport: ToolTransport): readonly ToolDescriptor[];
  /**
   * The descriptors a caller may see on a transport: the manifest filtered by the guards'
   * `canList` for the call's context (resolved as a call's would be). The manifest itself when
   * no guard filters listings.
   */
  visible(
    transport: ToolTransport,
    options?: { context?: ToolContext },
  ): Promise<readonly ToolDescriptor[]>;
  /**
   * The descriptor of the tool exposed under a name on a transport (identity, schemas,
   * annotations, transports), or `undefined` when there is none.
   *
   * @example
   * invoker.find('billing_get_invoice', 'MCP')?.inputSchema;
   */
  find(name: string, transport: ToolTransport): ToolDescriptor | undefined;
  /**
   * Reads a resource through the canonical runner: the resource of that URI, else the first
   * resource template that matches it (its variables parsed by the template's schema). Every
   * outcome of a found resource is a `ToolResult` of `{ contents }`. A URI nothing serves
   * rejects as an unknown tool name does (`NOT_FOUND`, a programming error for
   * `source: 'internal'`).
   *
   * @example
   * const read = await invoker.readResource('kb://articles/reset-password', { transport: 'AGENT' });
   * if (read.ok) console.log(read.data.contents[0]);
   */
  readResource(uri: string, options: InvokeOptions): Promise<ToolResult<ResourceRead>>;
  /**
   * Gets a prompt's messages through the canonical runner, its arguments parsed by its schema.
   * An unknown name rejects as for `invoke`.
   *
   * @example
   * const prompt = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, { transport: 'AGENT' });
   */
  getPrompt(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<PromptGet>>;
  /**
   * The resources (with the resource templates) or the prompts exposed on a transport, in
   * declaration order: frozen, the same array on every call.
   *
   * @example
   * invoker.operations('MCP', 'resource').map((d) => d.name); // ['handbook', 'kb-article']
   */
  operations(transport: ToolTransport, kind: 'resource' | 'prompt'): readonly OperationDescriptor[];
  /**
   * The resources or prompts a caller may see on a transport: filtered by the scopes they
   * require and the guards' `canList`, as `visible` filters tools.
   */
  visibleOperations(
    transport: ToolTransport,
    kind: 'resource' | 'prompt',
    options?: { context?: ToolContext },
  ): Promise<readonly OperationDescriptor[]>;
  /**
   * Suggestions for an argument of a prompt or resource template (by name), from its
   * `complete` declaration: at most 100, none for one the caller may not see or that declares
   * none. A completer that throws is logged and suggests nothing.
   *
   * @example
   * await invoker.complete('kb-article', { name: 'slug', value: 're' }, { transport: 'MCP' }); // ['reset-password']
   */
  complete(
    name: string,
    argument: { name: string; value: string },
    options: {
      transport: ToolTransport;
      context?: ToolContext;
      arguments?: Readonly<Record<string, string>>;
    },
  ): Promise<readonly string[]>;
  /**
   * Shuts down gracefully: new calls answer `SERVICE_UNAVAILABLE` (retryable), running calls get
   * `graceMs` (default 10 s) to finish, then the handlers still running have their signal aborted.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Compiles tools once into an immutable catalog (name → tool per transport) and runs them through
 * the canonical runner. Takes a registry builder, its `build()` result, or a list of runtime tools
 * and tool classes.
 *
 * @example
 * const invoker = createToolInvoker([pingTool], { hooks: { afterToolCall: (o) => log(o) } });
 * await invoker.invoke('health_ping', {}, { transport: 'AGENT' }); // { ok: true, data: { pong: true } }
 */
export function createToolInvoker(
  collection: ToolCollection,
  options: ToolInvokerOptions = {},
): ToolInvoker {
  const maxDepth = options.maxDepth ?? 8;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new ToolsConfigurationError(CORE_MESSAGES.maxDepth(options.maxDepth));
  }
  const catalog = new ToolCatalog(collection, { guards: options.guards, bind: options.bind });
  return invokerOf(catalog, runnerSettings(options, maxDepth, catalog));
}

/** What every call of the invoker runs with, fixed once. */
function runnerSettings(
  options: ToolInvokerOptions,
  maxDepth: number,
  catalog: ToolCatalog,
): InvokerSettings {
  const drain = new Drain();
  const logger = options.logger ?? console;
  if (options.lintAnnotations) lintAnnotations(catalog.compiled, logger);
  const telemetry =
    options.telemetry !== false ? new ToolTelemetry(options.telemetry ?? {}, logger) : undefined;
  return Object.freeze({
    drain,
    hooks: composeHooks(options.hooks),
    maxDepth,
    mappers: Object.freeze(
      options.mapError === undefined ? [] : [options.mapError].flat(),
    ) as readonly ErrorMapper[],
    logger,
    telemetry,
    logUnexpected: options.logUnexpectedErrors ?? 'error',
    resolveContext: options.resolveContext,
    onCallFinished: options.onCallFinished,
  });
}

/** Warns about the tools whose annotations some assistant directories require and lack. */
function lintAnnotations(compiled: readonly CompiledTool[], logger: ToolLogger): void {
  for (const { kind, spec } of compiled) {
    if (kind !== 'tool') continue;
    const { title, readOnlyHint, destructiveHint } = spec.annotations;
    const missing = [
      ...(title === undefined ? ['title'] : []),
      ...(readOnlyHint === undefined ? ['readOnlyHint'] : []),
      ...(readOnlyHint !== true && destructiveHint === undefined ? ['destructiveHint'] : []),
    ];
    if (missing.length === 0) continue;
    (logger.warn ?? logger.error).call(
      logger,
      `[toolwright] Tool "${spec.name}" (${spec.origin}) has no annotations.${missing.join(', annotations.')}: ` +
        'some assistant directories require them. Declare them in `annotations`.',
    );
  }
}
