import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type LoggingLevel,
  type McpRequestContext,
  type McpServerFactory,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import type { ToolLogger } from '../core/hooks.js';
import type { ToolInvoker } from '../core/invoker.js';
import type { ToolDescriptor } from '../core/manifest.js';
import { unknownToolMessage } from '../core/naming.js';
import { toFailure, type ToolResult } from '../core/result.js';
import type { ToolContext, ToolLogLevel, ToolProgress } from '../core/types.js';
import { toCallToolResult } from './call-tool-result.js';
import type { InFlightCalls } from './in-flight-calls.js';
import type { ResolvedMcpOptions } from './mcp-options.interface.js';

type Era = McpRequestContext['era'];

/**
 * The `tools/list` entry of a tool, per era. A 2025-era `outputSchema` must have an object root,
 * so a non-object output schema is advertised wrapped as `{ result }` there — the same wrap the
 * SDK applies to such a tool's `structuredContent` on that era.
 */
export function toMcpTool(descriptor: ToolDescriptor, era: Era): Tool {
  const { title, ...hints } = descriptor.annotations;
  const output = descriptor.outputSchema;
  const outputSchema =
    output === undefined || era === 'modern' || output.type === 'object'
      ? output
      : wrapResult(output);
  return {
    name: descriptor.name,
    ...(title !== undefined && { title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema as Tool['inputSchema'],
    ...(outputSchema !== undefined && { outputSchema: outputSchema as Tool['outputSchema'] }),
    annotations: { ...(title !== undefined && { title }), ...hints },
  };
}

function wrapResult(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema, ...rest } = schema;
  return {
    ...($schema !== undefined && { $schema }),
    type: 'object',
    properties: { result: rest },
    required: ['result'],
  };
}

/** Options of {@link createMcpServerFactory}. */
export interface McpServerFactoryOptions {
  readonly invoker: ToolInvoker;
  readonly options: Pick<ResolvedMcpOptions, 'serverInfo' | 'instructions'>;
  readonly logger: ToolLogger;
  /** Context for calls that have no request to resolve one from (stdio). */
  readonly context?: ToolContext;
  /**
   * Cross-request cancellation for stateless 2025-era serving: who is calling (for the current
   * request), and the calls in flight in this process.
   */
  readonly cancellation?: { readonly caller: () => string; readonly calls: InFlightCalls };
}

const LOG_LEVELS: Readonly<Record<ToolLogLevel, LoggingLevel>> = {
  debug: 'debug',
  info: 'info',
  warning: 'warning',
  error: 'error',
};

/**
 * The per-request MCP server: `tools/list` from entries prepared once per era (filtered only by
 * `canList`), `tools/call` through the canonical runner with `transport: 'MCP'`, `source: 'mcp'`,
 * progress and log notifications on the request's own stream, and the request's cancellation.
 */
export function createMcpServerFactory(settings: McpServerFactoryOptions): McpServerFactory {
  const { invoker, options, logger, context, cancellation } = settings;
  const prepared = {
    modern: new Map(invoker.manifest('MCP').map((d) => [d, toMcpTool(d, 'modern')])),
    legacy: new Map(invoker.manifest('MCP').map((d) => [d, toMcpTool(d, 'legacy')])),
  };
  const fullList = {
    modern: Object.freeze([...prepared.modern.values()]),
    legacy: Object.freeze([...prepared.legacy.values()]),
  };
  const capabilities = { tools: { listChanged: false }, logging: {} };

  const listTools = async (era: Era) => {
    const visible = await invoker.visible('MCP', { context });
    const tools =
      visible === invoker.manifest('MCP')
        ? fullList[era]
        : visible.map((descriptor) => prepared[era].get(descriptor)!);
    return { tools: tools as Tool[] };
  };

  const callTool = async (
    server: Server,
    era: Era,
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    ctx: ServerContext,
  ): Promise<CallToolResult> => {
    const tool = invoker.find(params.name, 'MCP');
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        unknownToolMessage(String(params.name), invoker.names('MCP')),
      );
    }
    // A 2026-era client cancels by closing the request; a 2025-era one by a separate notification.
    const tracked =
      era === 'legacy' && cancellation
        ? cancellation.calls.track(cancellation.caller(), ctx.mcpReq.id)
        : undefined;
    let result: ToolResult;
    try {
      result = await invoker.invoke(params.name, params.arguments ?? {}, {
        transport: 'MCP',
        source: 'mcp',
        context,
        signal: tracked ? AbortSignal.any([ctx.mcpReq.signal, tracked.signal]) : ctx.mcpReq.signal,
        onProgress: progressSink(
          ctx,
          params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken,
        ),
        onLog: (level, message, data) =>
          ctx.mcpReq.log(LOG_LEVELS[level], data === undefined ? message : { message, data }),
      });
    } finally {
      tracked?.done();
    }
    let answer: CallToolResult;
    try {
      answer = toCallToolResult(result, tool.spec);
    } catch (error) {
      logger.error(`[toolwright] MCP presenter failed for "${params.name}":`, error);
      answer = toCallToolResult(
        {
          ok: false,
          error: toFailure(
            new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }),
          ),
        },
        tool.spec,
      );
    }
    return server.projectCallToolResult(answer, tool.descriptor.outputSchema);
  };

  return ({ era }) => {
    const server = new Server(options.serverInfo, {
      capabilities,
      ...(options.instructions !== undefined && { instructions: options.instructions }),
    });
    server.setRequestHandler('tools/list', () => listTools(era));
    server.setRequestHandler('tools/call', (request, ctx) =>
      callTool(server, era, request.params as never, ctx),
    );
    if (cancellation && era === 'legacy') {
      server.setNotificationHandler('notifications/cancelled', (notification) =>
        cancellation.calls.cancel(
          cancellation.caller(),
          notification.params?.requestId,
          notification.params?.reason,
        ),
      );
    }
    return server;
  };
}

/**
 * Sends `notifications/progress` when the request carries a progress token. A missing
 * `progress` sends the next ordinal (from 1); a value that does not increase on the last one
 * sent is dropped (the spec requires increasing progress). The first value may be 0.
 */
function progressSink(ctx: ServerContext, token: unknown) {
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  let last: number | undefined;
  return (update: ToolProgress) => {
    const progress = update.progress ?? (last ?? 0) + 1;
    if (last !== undefined && progress <= last) return;
    last = progress;
    return ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(update.total !== undefined && { total: update.total }),
        ...(update.message !== undefined && { message: update.message }),
      },
    });
  };
}
