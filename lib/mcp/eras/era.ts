import type {
  InputRequiredResult,
  McpRequestContext,
  Server,
  ServerContext,
  ServerOptions,
} from '@modelcontextprotocol/server';
import type { ToolAsk } from '../../core/asking.js';
import type { CallerSignal } from '../../core/handler-wait.js';
import type { ToolLogger } from '../../core/hooks.js';
import type { ToolSpec } from '../../core/runtime-tool.js';
import type { McpRequestStateOptions } from '../asking.js';
import type { McpTasks } from '../tasks.js';
import type { McpCallAnswer, McpCallChannel, McpServerFactoryOptions } from '../tool-surface.js';

/** The protocol era a request is served on, as the SDK names it. */
export type Era = McpRequestContext['era'];

/** The params of a `tools/call` as its handler reads them. */
export interface McpToolCallParams {
  readonly name: string;
  readonly arguments?: unknown;
  /** The task a 2025-11-25 client asks the call to run as. */
  readonly task?: { readonly ttl?: unknown };
  readonly _meta?: Record<string, unknown>;
}

/** How one `tools/call` on the SDK's path asks the user (see {@link McpEra.asking}). */
export interface McpCallAsking {
  /** How the call's questions reach the client; `undefined` when the client cannot answer them. */
  readonly ask?: ToolAsk;
  /**
   * Once the call has run: the result that answers the request in place of the call's (the
   * 2026-07-28 `input_required` of a call that ended on an open question), or `undefined`.
   */
  inputRequired?(): Promise<InputRequiredResult | undefined>;
}

/** How a cancellation reaches one call in flight (see {@link McpEra.cancellable}). */
export interface McpCallCancellation {
  /** The signal the call runs with. */
  readonly signal: CallerSignal;
  /** The call waits on something: a cancellation may reach it from now on. */
  waits(): void;
  /** The call ended: nothing cancels it any more. */
  ended(): void;
}

/**
 * One protocol revision as the tool surface serves it: what its servers declare, how its
 * clients list tools, and how a call asks, is cancelled and runs as a task. The surface picks
 * the era of each request and lists and calls the same way on every one.
 */
export interface McpEra {
  /** The SDK's name of the era, which requests are routed by. */
  readonly name: Era;
  /** The server capabilities of the revision: tools and logging, operations, tasks. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** What the revision adds to a request's server options (the 2026 `requestState` check). */
  readonly serverOptions: Pick<ServerOptions, 'requestState'>;
  /**
   * Whether a tool's non-object `outputSchema` is listed wrapped as `{ result }` (a 2025-era
   * output schema must have an object root; the SDK wraps such a tool's results the same way).
   */
  readonly wrapsOutputSchema: boolean;
  /** Whether a tool's `tools/list` entry says whether it runs as a task (`execution.taskSupport`). */
  readonly listsTaskSupport: boolean;
  /** Registers the revision's own methods on a request's server: tasks, cancellations. */
  register(server: Server): void;
  /**
   * Starts a `tools/call` as a task when the revision and the client ask for one: resolves to
   * the task's handle, answered as it is, or `undefined` for a call that runs as usual. Rejects
   * with the revision's error for a call that cannot run as it asks. Absent without tasks.
   */
  startTask?(
    server: Server,
    ctx: ServerContext,
    params: McpToolCallParams,
  ): Promise<Record<string, unknown> | undefined>;
  /**
   * How a `tools/call` on the SDK's path asks the user, or `undefined` when it does not. Absent
   * when no tool asks.
   */
  asking?(
    server: Server,
    ctx: ServerContext,
    params: McpToolCallParams,
  ): Promise<McpCallAsking | undefined>;
  /**
   * How a cancellation reaches a call beside its channel's signal: absent when the revision's
   * clients cancel by closing the request (which aborts that signal). Runs on every call,
   * direct or not, before anything of it.
   */
  cancellable?(channel: McpCallChannel): McpCallCancellation;
}

/** What the tool surface gives the eras it serves. */
export interface McpEraSettings {
  readonly logger: ToolLogger;
  /** The capabilities every revision declares: tools, logging, and what the operations call for. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly requestState?: McpRequestStateOptions;
  /** Stateless 2025-era serving (see {@link McpServerFactoryOptions.cancellation}). */
  readonly cancellation?: McpServerFactoryOptions['cancellation'];
  readonly tasks?: McpTasks;
  /** The endpoint may be one of several instances (a per-process state key is worth a warning). */
  readonly scaled?: boolean;
  /** Whether some tool asks the user. */
  readonly asks: boolean;
  /** The spec of a tool exposed on MCP, by name. */
  spec(name: string): ToolSpec | undefined;
  /** Who is calling (see {@link McpServerFactoryOptions.identity}); never rejects. */
  identity(): Promise<string | undefined>;
  /** The owner of the tasks the current request creates or reads; `-32600` for nobody. */
  owner(): Promise<string>;
  /** Runs one `tools/call` through the canonical runner (see `McpToolSurface.call`). */
  call(
    era: Era,
    name: string,
    args: unknown,
    channel: McpCallChannel,
  ): McpCallAnswer | Promise<McpCallAnswer>;
}
