/** The surfaces a tool can be exposed on. A call names one; a tool not exposed there does not exist for it. */
export type ToolTransport = 'MCP' | 'AGENT' | 'CLI';

/** Every transport, in a stable order. */
export const TOOL_TRANSPORTS: readonly ToolTransport[] = Object.freeze(['MCP', 'AGENT', 'CLI']);

/** Transports a tool is exposed on when it does not say: CLI is always opt-in. */
export const DEFAULT_TRANSPORTS: readonly ToolTransport[] = Object.freeze(['MCP', 'AGENT']);

/**
 * The semantic verb of a tool. It sets the default MCP annotations:
 * `GET` is read-only, `DELETE` destructive, `PUT` idempotent.
 */
export type ToolMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const TOOL_METHODS: readonly ToolMethod[] = Object.freeze([
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/** Who a tool is: attribution for hooks, events and audit. */
export interface ToolIdentity {
  readonly serviceName: string;
  readonly action: string;
  readonly method: ToolMethod;
  readonly scope?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** MCP tool annotations: hints for clients, never enforced. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * Where a call came from, for audit. Open-ended: `'internal'` for in-process calls,
 * `'mcp'`, `'agent'`, `'cli'`, or any string of the application's.
 */
export type ToolSource = 'internal' | 'mcp' | 'agent' | 'cli' | (string & {});

/**
 * What a call runs: a tool, a resource read (a resource or a resource template), or a prompt
 * get. Every kind goes through the same pipeline, hooks and events.
 */
export type ToolOperation = 'tool' | 'resource' | 'prompt';

/**
 * Whether MCP clients may run a tool as a task (a call answered at once with a handle the client
 * polls, for work that outlives a request): `optional` lets the client choose, `required` makes
 * every MCP call a task. Other surfaces call the tool as usual.
 */
export type ToolTaskSupport = 'optional' | 'required';

/**
 * The identity of one running call, as `currentToolCall()` and the handler's `call` see it.
 *
 * @example
 * const call = currentToolCall();
 * logger.log(`${call?.name} at depth ${call?.depth}`);
 */
export interface ToolCallInfo {
  /** Unique per call. */
  readonly id: string;
  /** The tool's, resource's or prompt's name. */
  readonly name: string;
  /** What the call runs. */
  readonly kind: ToolOperation;
  /** The URI read, for a resource read. */
  readonly uri?: string;
  readonly transport: ToolTransport;
  readonly source: ToolSource;
  /** 0 for a top-level call, parent depth + 1 for a call made inside another call. */
  readonly depth: number;
  /** The id of the enclosing call, when this call runs inside another. */
  readonly parentId?: string;
}

/** A progress update a handler reports; on MCP it becomes `notifications/progress`. */
export interface ToolProgress {
  progress?: number;
  total?: number;
  message?: string;
}

/** Log levels a handler may use; on MCP they become `notifications/message`. */
export type ToolLogLevel = 'debug' | 'info' | 'warning' | 'error';

/**
 * The logger a handler receives. It never throws. `warn` is `warning` under the name Nest's
 * `Logger` gives it.
 */
export type ToolLog = {
  readonly [L in ToolLogLevel]: (message: string, data?: unknown) => void;
} & { readonly warn: (message: string, data?: unknown) => void };

/** A plain object of context values. */
export type ToolContext = Record<string, unknown>;

/** A constructor, as the registry and the Nest layer see tool, hook and guard classes. */
export type Class<T = object> = abstract new (...args: any[]) => T;
