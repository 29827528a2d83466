/**
 * MCP tasks as a client drives them, in stateless POSTs to the `report` tool of a toolwright
 * bench server started with `TASKS` (`shared/tasks.ts`):
 *
 * - 2025-11-25: `tools/call` with `params.task: {}` answers `{ task: { taskId, status, … } }`;
 *   then `tasks/get` until `completed`, then `tasks/result` (the `CallToolResult`);
 * - 2026-07-28: `tools/call` from a client whose `_meta` envelope declares the tasks extension
 *   answers `{ resultType: 'task', taskId, status, … }`; `tasks/get` inlines the `result` once
 *   `completed`.
 *
 * Every answer is checked: a result, the task asked about, the text the call was given.
 */
import { Agent } from 'node:http';
import { REPORT_TOOL } from '../shared/tasks.js';
import { post, type RawResponse } from './http-client.js';
import {
  ACCEPT,
  BenchFailure,
  checkEchoed,
  CLIENT_INFO,
  describe,
  idOf,
  MODERN_VERSION,
  resultOf,
  type Era,
  type ReplayRequest,
} from './mcp.js';

/** The revision whose tasks a 2025-era request uses. */
export const TASKS_VERSION_2025 = '2025-11-25';
/** The protocol version of each era's requests. */
export const ERA_VERSION: Record<Era, string> = {
  '2025': TASKS_VERSION_2025,
  '2026': MODERN_VERSION,
};
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How long a driver polls a task before it calls the run failed. */
const TASK_DEADLINE_MS = 10_000;

/**
 * A JSON-RPC request of an era. A 2026-07-28 request carries the routing headers and the `_meta`
 * envelope, whose client capabilities declare the tasks extension unless `declareTasks` is false.
 */
function request(
  era: Era,
  id: number,
  method: string,
  params: Record<string, unknown>,
  declareTasks = true,
): ReplayRequest {
  const base = { 'content-type': 'application/json', accept: ACCEPT };
  if (era === '2025') {
    return {
      headers: { ...base, 'mcp-protocol-version': TASKS_VERSION_2025 },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    };
  }
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': declareTasks
      ? { extensions: { [TASKS_EXTENSION]: {} } }
      : {},
  };
  return {
    headers: {
      ...base,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': method,
      'mcp-name': String(params.name ?? params.taskId),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  };
}

/** A `tools/call` of `report` that runs no task (a 2026-07-28 client that declares no tasks). */
export const plainCall = (era: Era, id: number, text: string) =>
  request(era, id, 'tools/call', { name: REPORT_TOOL, arguments: { text } }, false);

/** A `tools/call` of `report` that asks for a task. */
export const taskCall = (era: Era, id: number, text: string) =>
  request(era, id, 'tools/call', {
    name: REPORT_TOOL,
    arguments: { text },
    ...(era === '2025' && { task: {} }),
  });

/** `tasks/get` of a task. */
export const getTask = (era: Era, id: number, taskId: string) =>
  request(era, id, 'tasks/get', { taskId });

/** `tasks/result` of a task (2025-11-25). */
const taskResult = (id: number, taskId: string) => request('2025', id, 'tasks/result', { taskId });

/** What a task handle says: the task's id, its status and the polling interval it advises. */
export interface TaskHandle {
  readonly taskId: string;
  readonly status: string;
  readonly pollIntervalMs: unknown;
}

/** The task handle a task-augmented `tools/call` answered; a `BenchFailure` for anything else. */
export function handleOf(era: Era, response: RawResponse, id: unknown, what: string): TaskHandle {
  const result = resultOf(response, id, what);
  const task = era === '2025' ? result.task : result.resultType === 'task' ? result : undefined;
  if (
    typeof task?.taskId !== 'string' ||
    (task.status !== 'working' && task.status !== 'completed')
  ) {
    throw new BenchFailure(`${what}: not a working task's handle — ${describe(response)}`);
  }
  return {
    taskId: task.taskId,
    status: task.status,
    pollIntervalMs: era === '2025' ? task.pollInterval : task.pollIntervalMs,
  };
}

/**
 * The status a `tasks/get` answered for `taskId`: `working` or `completed` (and then, on
 * 2026-07-28, the inlined result must carry `text`); a `BenchFailure` for anything else.
 */
export function statusOf(
  era: Era,
  response: RawResponse,
  id: unknown,
  taskId: string,
  text: string,
  what: string,
): 'working' | 'completed' {
  const result = resultOf(response, id, what);
  const { status } = result;
  if (result.taskId !== taskId || (status !== 'working' && status !== 'completed')) {
    throw new BenchFailure(
      `${what}: not task ${taskId} working or completed — ${describe(response)}`,
    );
  }
  if (era === '2026' && status === 'completed') {
    if (result.resultType !== 'complete') {
      throw new BenchFailure(`${what}: resultType is not "complete" — ${describe(response)}`);
    }
    checkEchoed(result.result, text, `${what}, the inlined result`, response);
  }
  return status;
}

/** Numbers 1, 2, 3… */
function counter(): () => number {
  let last = 0;
  return () => ++last;
}

/** Sends a request through `agent` and resolves to its answer with the request's id. */
async function send(url: string, agent: Agent | false, sent: ReplayRequest) {
  const response = await post(url, sent.headers, sent.body, 10_000, agent);
  return { response, id: idOf(sent) };
}

/**
 * One task's whole life, driven as fast as the answers come (the advised polling interval is
 * not waited out): the task-augmented call, `tasks/get` until `completed`, and on 2025-11-25
 * `tasks/result`. Resolves to the task's handle and the number of requests it took. Without
 * `agent`, each request goes on a fresh connection; `nextId` numbers the requests (from 1 when
 * absent).
 */
export async function roundTrip(
  url: string,
  era: Era,
  text: string,
  what: string,
  { agent = false, nextId = counter() }: { agent?: Agent | false; nextId?: () => number } = {},
): Promise<{ handle: TaskHandle; requests: number }> {
  const called = await send(url, agent, taskCall(era, nextId(), text));
  const handle = handleOf(era, called.response, called.id, `${what}, tools/call`);
  const { taskId } = handle;
  let requests = 1;
  const deadline = Date.now() + TASK_DEADLINE_MS;
  for (;;) {
    const got = await send(url, agent, getTask(era, nextId(), taskId));
    requests++;
    if (statusOf(era, got.response, got.id, taskId, text, `${what}, tasks/get`) === 'completed') {
      break;
    }
    if (Date.now() > deadline) {
      throw new BenchFailure(`${what}: task ${taskId} still working after ${TASK_DEADLINE_MS} ms`);
    }
  }
  if (era === '2025') {
    const ended = await send(url, agent, taskResult(nextId(), taskId));
    requests++;
    const result = resultOf(ended.response, ended.id, `${what}, tasks/result`);
    checkEchoed(result, text, `${what}, tasks/result`, ended.response);
  }
  return { handle, requests };
}

/** What {@link driveRoundTrips} did. */
export interface Driven {
  readonly roundTrips: number;
  readonly requests: number;
}

/**
 * `drivers` concurrent sequential drivers, each on its own keep-alive connection, each running
 * {@link roundTrip} after round trip (every one with its own text) until `seconds` have passed;
 * the first wrong answer fails the run once every driver stopped.
 */
export async function driveRoundTrips(
  url: string,
  era: Era,
  drivers: number,
  seconds: number,
  what: string,
): Promise<Driven> {
  const until = Date.now() + seconds * 1000;
  let failed = false;
  let roundTrips = 0;
  let requests = 0;
  const agents = Array.from(
    { length: drivers },
    () => new Agent({ keepAlive: true, maxSockets: 1 }),
  );
  const drive = async (agent: Agent, driver: number) => {
    const nextId = counter();
    try {
      for (let n = 0; !failed && Date.now() < until; n++) {
        const text = `task ${driver}.${n}`;
        const took = await roundTrip(url, era, text, what, { agent, nextId });
        requests += took.requests;
        roundTrips++;
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  try {
    const ended = await Promise.allSettled(agents.map(drive));
    const failure = ended.find((one) => one.status === 'rejected');
    if (failure) throw failure.reason;
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return { roundTrips, requests };
}
