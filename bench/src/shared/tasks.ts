/**
 * The MCP tasks of the toolwright bench server (`TASKS`, off unless set; see
 * `servers/toolwright.ts`) and of `npm run bench:tasks`: one more tool, `report`, that runs as a
 * task when the client asks for one, and where the tasks live.
 */

/** Where the server keeps its tasks: in its own memory, or in the Redis at `REDIS_URL`. */
export type TasksMode = 'memory' | 'redis';

/** The tool that may run as a task (`task: 'optional'`): input `{ text }`, output `{ text }`. */
export const REPORT_TOOL = 'report';

/**
 * The polling interval the server tells its clients, in milliseconds: the least it takes, as the
 * bench's drivers poll again as soon as an answer arrives.
 */
export const TASK_POLL_INTERVAL_MS = 1;

/** `TASKS` from the environment: `memory`, `redis`, or `undefined` (no tasks: unset or empty). */
export function tasksModeFromEnv(env: NodeJS.ProcessEnv = process.env): TasksMode | undefined {
  const raw = env.TASKS;
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'memory' || raw === 'redis') return raw;
  throw new Error(`TASKS must be "memory" or "redis" (or unset), got "${raw}".`);
}
