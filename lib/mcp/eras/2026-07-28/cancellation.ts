import type { McpEra } from '../era.js';

/**
 * How a 2026-07-28 call is cancelled: its client closes the request (the revision has no
 * `notifications/cancelled` for a call), which aborts the call's own signal (the SDK's
 * `ctx.mcpReq.signal`, or the endpoint's disconnect signal on the direct path). No call is
 * tracked, so the era adds no cancellation of its own; a task is cancelled by `tasks/cancel`.
 */
export const modernCancellation: McpEra['cancellable'] = undefined;
