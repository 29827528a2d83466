import { MCP_MESSAGES } from '../../mcp.messages.js';
import type { McpEra, McpEraSettings } from '../era.js';
import { callRound, McpAsking } from './asking.js';
import { modernCapabilities } from './capabilities.js';
import { modernCancellation } from './cancellation.js';
import { registerModernTasks, startModernTask } from './tasks.js';

/**
 * The 2026-07-28 revision: questions through multi round-trip input (a sealed `requestState`),
 * cancellation by closing the request, tasks through the tasks extension.
 */
export function modernEra(settings: McpEraSettings): McpEra {
  const { tasks, logger } = settings;
  const asking = settings.asks
    ? new McpAsking(settings.requestState, settings.cancellation?.bus, logger)
    : undefined;
  if (asking?.ownKey && settings.scaled) {
    logger.warn?.(MCP_MESSAGES.requestStateOwnKey());
  }
  return {
    name: 'modern',
    capabilities: modernCapabilities(settings.capabilities, tasks !== undefined),
    // A sealed requestState is checked by the SDK before the handler runs (-32602 when it fails).
    serverOptions: asking ? { requestState: { verify: asking.verify } } : {},
    wrapsOutputSchema: false,
    // The tasks extension leaves the choice to the server per call, and the SDK's 2026 codec
    // drops the field.
    listsTaskSupport: false,
    register(server) {
      if (tasks) registerModernTasks(server, tasks, settings.owner);
    },
    ...(tasks && {
      startTask: (server, ctx, params) => startModernTask(settings, tasks, server, ctx, params),
    }),
    ...(asking && {
      asking: (_server, ctx, params) =>
        callRound(asking, settings.identity, ctx, params, !!settings.spec(params.name)?.asks),
    }),
    cancellable: modernCancellation,
  };
}
