import type { McpEra, McpEraSettings } from '../era.js';
import { legacyAsk, LegacyElicitation, type LegacyAsking } from './asking.js';
import { legacyCapabilities } from './capabilities.js';
import { cancellableCall, registerCancellation } from './cancellation.js';
import { registerLegacyTasks, startLegacyTask } from './tasks.js';

/** The 2025-11-25 era as the tool surface serves it, over stateless HTTP or a stdio connection. */
export interface LegacyEra extends McpEra {
  /**
   * Questions to clients served statelessly (HTTP), when some tool asks: the endpoint feeds it
   * the `initialize` requests and the answer POSTs.
   */
  readonly elicitation?: LegacyElicitation;
}

/**
 * The 2025-11-25 revision (and the 2025 ones before it): questions through `elicitation/create`
 * requests, cancellation by `notifications/cancelled`, tasks through `params.task` and the
 * `tasks/*` methods.
 */
export function legacyEra(settings: McpEraSettings): LegacyEra {
  const { cancellation, tasks, logger, identity } = settings;
  const waitMs = (settings.requestState?.ttlSeconds ?? 600) * 1000;
  const elicitation =
    settings.asks && cancellation
      ? new LegacyElicitation(waitMs, cancellation.bus, logger)
      : undefined;
  const asking: LegacyAsking = { elicitation, waitMs, logger, identity };
  return {
    name: 'legacy',
    capabilities: legacyCapabilities(settings.capabilities, tasks !== undefined),
    serverOptions: {},
    wrapsOutputSchema: true,
    listsTaskSupport: true,
    elicitation,
    register(server) {
      if (tasks) registerLegacyTasks(server, tasks, settings.owner);
      if (cancellation) registerCancellation(server, cancellation.calls, identity, logger);
    },
    ...(tasks && {
      startTask: (server, _ctx, params) => startLegacyTask(settings, tasks, server, params),
    }),
    ...(settings.asks && {
      asking: async (server, ctx, params) =>
        settings.spec(params.name)?.asks
          ? { ask: await legacyAsk(asking, server, ctx) }
          : undefined,
    }),
    ...(cancellation && {
      cancellable: (channel) => cancellableCall(cancellation.calls, identity, channel),
    }),
  };
}
