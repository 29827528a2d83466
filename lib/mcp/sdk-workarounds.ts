/**
 * Every place the endpoint leans on the MCP SDK beyond its documented surface, each said with
 * what it relies on and why. `test/mcp/sdk-internals.spec.ts` checks each reliance against the
 * installed SDK, and names the one that no longer holds.
 *
 * 1. **`Server._wrapHandler`**, the protected hook every `setRequestHandler` registration goes
 *    through (the SDK's `Protocol` calls it with the method and the handler, and dispatches
 *    what it returns). {@link SurfaceServer} overrides it to answer only the errors a handler
 *    means (the SDK would answer any error's own message), and to let a task's handle past
 *    the `tools/call` result check.
 * 2. **The `tools/call` result check lets a throw pass unchanged.** The SDK's `Server` checks a
 *    `tools/call` handler's result as a `CallToolResult` of the served era, which a task's
 *    handle is not: the 2025 era refuses a `CreateTaskResult` (`-32602`), the 2026 era adds an
 *    empty `content` to a `resultType: "task"`. What the handler throws, it rethrows as it is.
 *    So a handle made by {@link createdTask} is thrown past the check as a {@link TaskCreated}
 *    and answered as it is, after the SDK's own checks of the request.
 * 3. **`inputResponses` are lifted out of any request.** The SDK moves the `inputResponses` of
 *    every client request's params to `ctx.mcpReq.inputResponses` (its documentation speaks
 *    of multi round-trip retries only); a 2026-07-28 `tasks/update` carries its answers there
 *    (see {@link taskUpdateResponses}).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import type { ToolLogger } from '../core/hooks.js';
import type { McpTransportSpans } from './telemetry.js';

/** A registered request handler as `Server._wrapHandler` takes and returns it. */
type RequestHandler = Parameters<Server['_wrapHandler']>[1];

/**
 * An SDK server whose transport's requests each get a server span, and whose handlers answer
 * only the errors they mean: a `ProtocolError` as it is; anything else (a bug, a stack that ran
 * out) is logged and answered `-32603 "Internal error"`, its text kept in the process. (The SDK
 * would answer the error's own message.) A `tools/call` handler may answer a task's handle
 * (see {@link createdTask}).
 */
export class SurfaceServer extends Server {
  constructor(
    private readonly spans: McpTransportSpans | undefined,
    private readonly logger: Pick<ToolLogger, 'error'>,
    ...args: ConstructorParameters<typeof Server>
  ) {
    super(...args);
  }

  override connect(transport: Transport): Promise<void> {
    this.spans?.watch(transport);
    return super.connect(transport);
  }

  /**
   * Reliance 1 and 2 (see the file's head): every handler answers only the errors it means,
   * and a handle made by {@link createdTask} is answered as it is.
   */
  protected override _wrapHandler(
    method: string,
    handler: RequestHandler,
  ): ReturnType<Server['_wrapHandler']> {
    const answered: RequestHandler = async (request, ctx) => {
      try {
        return await handler(request, ctx);
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        this.logger.error(`[toolwright] MCP ${method} failed:`, error);
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
      }
    };
    if (method !== 'tools/call') return super._wrapHandler(method, answered);
    const checked = super._wrapHandler(method, async (request, ctx) => {
      const result = await answered(request, ctx);
      if (isCreatedTask(result)) throw new TaskCreated(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await checked(request, ctx);
      } catch (error) {
        if (error instanceof TaskCreated) return error.result;
        throw error;
      }
    };
  }
}

/**
 * Marks a task's handle (see {@link createdTask}): a symbol key, which no serialisation sends and
 * which the object carries itself, so nothing outside the answer remembers it.
 */
const CREATED_TASK = Symbol('toolwright.createdTask');

function isCreatedTask(result: unknown): boolean {
  return typeof result === 'object' && result !== null && Object.hasOwn(result, CREATED_TASK);
}

/** Carries a task's handle past the SDK's check of a `tools/call` result (reliance 2). */
export class TaskCreated {
  constructor(readonly result: Awaited<ReturnType<RequestHandler>>) {}
}

/** Marks a `tools/call` answer as a task's handle, which a {@link SurfaceServer} sends as it is. */
export function createdTask<T extends object>(result: T): T {
  Object.defineProperty(result, CREATED_TASK, { value: true });
  return result;
}

/**
 * The answers a 2026-07-28 `tasks/update` carries (reliance 3): the bare responses the SDK
 * lifted out of its params, by key.
 */
export function taskUpdateResponses(ctx: ServerContext): Record<string, unknown> {
  return ctx.mcpReq.inputResponses ?? {};
}
