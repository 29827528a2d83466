/**
 * Nothing a client does ends the process. Generated scenarios (fast-check) over both eras, both
 * adapters, the direct and the SDK path, stdio, with and without tasks and Redis: the client
 * drops the connection, cancels, lets the tool time out, or answers twice, at a random point
 * of a call that asks, reports progress or runs as a task — with a handler that honours its
 * signal or ignores it. After every scenario: no `uncaughtException` or `unhandledRejection`
 * happened, the next request to the same server is answered, and `afterToolCall` ran exactly
 * once for every call the scenario started.
 *
 * Raw requests (test/fixtures/mcp-peers.ts) put a drop or an answer at an exact point; the
 * official clients (SDK 1.x for 2025, 2.x for 2026) cancel, as an application would, and send
 * the next request. Stdio is served in-process over a linked pair, so that a fault there is this
 * process's. Each fault is pinned on the scenario that caused it (test/fixtures/process-faults.ts),
 * for fast-check to report and shrink. The reproductions run first whatever the seed;
 * the generated runs are bounded and seeded: FC_RUNS and FC_SEED override both.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { serveAppStdio, ToolsModule } from '../../lib/index.js';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import { ADAPTERS, TestApps, type AdapterName } from '../fixtures/apps.js';
import { CallLedger, disconnectTools, type Work } from '../fixtures/disconnect-tools.js';
import {
  ERAS,
  MODERN_META,
  MODERN_VERSION,
  eraHeaders,
  post,
  type Era,
} from '../fixtures/mcp-http.js';
import { openRequest, responseTo, StdioPeer } from '../fixtures/mcp-peers.js';
import { ProcessFaults } from '../fixtures/process-faults.js';
import { redisClient, sharedRedis } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

// ---------------------------------------------------------------------------------------------
// The scenario space.

const KINDS = ['asks', 'progress', 'task'] as const;
const ACTIONS = ['drop', 'cancel', 'timeout', 'second answer'] as const;
const STORES = ['memory', 'redis'] as const;
/** The points of a call at which the client acts (see each kind's script). */
const POINTS = 4;

type Kind = (typeof KINDS)[number];
type Action = (typeof ACTIONS)[number];
type Store = (typeof STORES)[number];

interface Scenario {
  readonly transport: 'http' | 'stdio';
  /** HTTP only: stdio is served by the Express app. */
  readonly adapter: AdapterName;
  /** HTTP only: where tasks, 2025-era answers and declarations live (stdio keeps none). */
  readonly store: Store;
  readonly era: Era;
  readonly kind: Kind;
  /** Whether the endpoint answers without the SDK: only a plain call over HTTP can. */
  readonly path: 'direct' | 'sdk';
  readonly action: Action;
  readonly point: number;
  /** The handler ignores its signal (always, for a timeout). */
  readonly stubborn: boolean;
}

const httpScenario = fc.record({
  transport: fc.constant('http' as const),
  adapter: fc.constantFrom(...ADAPTERS),
  store: fc.constantFrom(...STORES),
  era: fc.constantFrom(...ERAS),
  kind: fc.constantFrom(...KINDS),
  path: fc.constantFrom('direct' as const, 'sdk' as const),
  action: fc.constantFrom(...ACTIONS),
  point: fc.nat({ max: POINTS - 1 }),
  stubborn: fc.boolean(),
});

/** Stdio serves no tasks: a call there asks or reports progress. */
const stdioScenario = fc.record({
  transport: fc.constant('stdio' as const),
  adapter: fc.constant('express' as const),
  store: fc.constant('memory' as const),
  era: fc.constantFrom(...ERAS),
  kind: fc.constantFrom('asks' as const, 'progress' as const),
  path: fc.constant('sdk' as const),
  action: fc.constantFrom(...ACTIONS),
  point: fc.nat({ max: POINTS - 1 }),
  stubborn: fc.boolean(),
});

/** A second answer needs a question: a call that asks, or a 2026-era task (2025 tasks ask nothing). */
const answerable = (s: Scenario) => s.kind === 'asks' || (s.kind === 'task' && s.era === 'modern');

const scenarios: fc.Arbitrary<Scenario> = fc
  .oneof({ arbitrary: httpScenario, weight: 3 }, { arbitrary: stdioScenario, weight: 1 })
  .filter((s) => s.action !== 'second answer' || answerable(s))
  .map((s) => ({
    ...s,
    // A call that asks or runs as a task goes through the SDK; so does one with a progress token.
    path: s.transport === 'http' && s.kind === 'progress' ? s.path : 'sdk',
    stubborn: s.stubborn || s.action === 'timeout',
  }));

/** The reproductions, run first whatever the seed. */
const REPRODUCTIONS: Scenario[] = [
  // A 2025-era client that declared elicitation closes the connection while asked.
  {
    transport: 'http',
    adapter: 'express',
    store: 'memory',
    era: 'legacy',
    kind: 'asks',
    path: 'sdk',
    action: 'drop',
    point: 1,
    stubborn: false,
  },
  // A task's question asked once its signal is aborted, with a task store that does I/O.
  {
    transport: 'http',
    adapter: 'fastify',
    store: 'redis',
    era: 'modern',
    kind: 'task',
    path: 'sdk',
    action: 'timeout',
    point: 0,
    stubborn: true,
  },
];

const NUM_RUNS = Number(process.env.FC_RUNS ?? 100);
const SEED = Number(process.env.FC_SEED ?? 20_260_728);

/** How long a call may take to finish after the scenario: a ceiling against hangs only. */
const SETTLE_MS = 8_000;
/** How long a 2025-era question waits for its answer, and a 2026-era `requestState` lives. */
const QUESTION_TTL_SECONDS = 3;

// ---------------------------------------------------------------------------------------------
// The apps: one per adapter and store, booted once; stdio is served by the Express one.

const ledger = new CallLedger();
const faults = new ProcessFaults();
const apps = new TestApps();
const urls = new Map<string, string>();
const serverOf = (s: Scenario) => urls.get(`${s.adapter}/${s.store}`)!;
let stdioApp: INestApplication;

/** The caller, as the application resolves it: a principal named by the `x-user` header. */
const identityFromHeader = (request: { headers: Record<string, string | undefined> }) => {
  const user = request.headers['x-user'];
  return user === undefined
    ? {}
    : { principal: { subject: user, clientId: 'disconnect-scenarios', scopes: [] } };
};
const STDIO_CONTEXT = {
  principal: { subject: 'stdio', clientId: 'disconnect-scenarios', scopes: [] },
};

/** The instance buses and task stores of the Redis apps, each on a connection of its own. */
class RedisPlumbing {
  private readonly clients: Redis[] = [];
  private release?: () => Promise<void>;
  private url?: string;
  private readonly prefix = `disconnect-${process.pid}-${Math.random().toString(36).slice(2)}:`;

  async start(): Promise<void> {
    ({ url: this.url, release: this.release } = await sharedRedis());
  }

  private client(): Redis {
    const client = redisClient(this.url!);
    this.clients.push(client);
    return client;
  }

  bus = () => new RedisInstanceBus({ redis: this.client(), prefix: this.prefix });
  taskStore = () => new RedisTaskStore({ redis: this.client(), prefix: this.prefix });

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.quit().catch(() => undefined)));
    await this.release?.();
  }
}
const redis = new RedisPlumbing();

function appModule(store: Store) {
  return {
    imports: [
      ToolsModule.forRoot({
        registry: disconnectTools(ledger),
        hooks: [ledger.hooks],
        context: identityFromHeader,
        mcp: {
          requestState: {
            key: 'disconnect scenarios: one key of at least 32 bytes',
            ttlSeconds: QUESTION_TTL_SECONDS,
          },
          tasks: {
            pollIntervalMs: 20,
            ...(store === 'redis' && { store: redis.taskStore() }),
          },
          ...(store === 'redis' && { bus: redis.bus() }),
        },
        // A call a failing scenario left hanging must not hold the close for long.
        shutdownGraceMs: 500,
      }),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Sessions: the scenario's raw client, over HTTP or stdio, on either era.

const LEGACY_PROTOCOL = '2025-11-25';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = { name: 'disconnect-scenarios', version: '1.0.0' };

interface Declares {
  readonly elicitation?: boolean;
  readonly tasks?: boolean;
  /** More `_meta` keys (a progress token). */
  readonly meta?: Record<string, unknown>;
}

/** A request whose answer the scenario reads as it comes, and may walk away from. */
interface Pending {
  response(): Promise<any>;
  /** A message the server wrote for it (a question, a progress notification). */
  find(match: (message: any) => boolean): Promise<any>;
  drop(): void;
}

/** The scenario's raw client: one caller, one era, over HTTP or stdio. */
interface Session {
  readonly era: Era;
  open(method: string, params: Record<string, unknown>, declares?: Declares): Pending;
  request(method: string, params: Record<string, unknown>, declares?: Declares): Promise<any>;
  /** A message nothing answers: a notification, or the answer to the server's question. */
  send(message: object): Promise<void>;
  /** Whether the connection still serves (a dropped stdio connection does not). */
  readonly connected: boolean;
  close(): Promise<void>;
}

/** The params of a request of the era: a 2026 request carries the per-request envelope. */
function enveloped(era: Era, params: Record<string, unknown>, declares: Declares = {}) {
  const capabilities = {
    ...(declares.elicitation && { elicitation: {} }),
    ...(declares.tasks && { extensions: { [TASKS_EXTENSION]: {} } }),
  };
  const meta =
    era === 'modern'
      ? { ...MODERN_META, [CLIENT_CAPABILITIES]: capabilities, ...declares.meta }
      : { ...declares.meta };
  return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
}

let requestIds = 0;
const nextId = () => `r${++requestIds}`;

class HttpSession implements Session {
  readonly connected = true;

  constructor(
    readonly era: Era,
    private readonly url: string,
    private readonly user: string,
  ) {}

  private headers(method: string | undefined, params: Record<string, unknown> = {}) {
    const name = (params.name ?? params.taskId) as string | undefined;
    return {
      ...eraHeaders(this.era, method, name),
      'mcp-protocol-version': this.era === 'legacy' ? LEGACY_PROTOCOL : MODERN_VERSION,
      'x-user': this.user,
    };
  }

  open(method: string, params: Record<string, unknown>, declares?: Declares): Pending {
    const id = nextId();
    const body = { jsonrpc: '2.0', id, method, params: enveloped(this.era, params, declares) };
    const request = openRequest(this.url, JSON.stringify(body), this.headers(method, params));
    return {
      response: () => request.inbox.find(responseTo(id)),
      find: (match) => request.inbox.find(match),
      drop: () => request.drop(),
    };
  }

  request(method: string, params: Record<string, unknown>, declares?: Declares) {
    return this.open(method, params, declares).response();
  }

  async send(message: object): Promise<void> {
    await post(
      this.url,
      JSON.stringify(message),
      this.headers((message as { method?: string }).method),
    );
  }

  async close(): Promise<void> {}
}

class StdioSession implements Session {
  private dropped = false;

  private constructor(
    readonly era: Era,
    private readonly peer: StdioPeer,
    private readonly served: { close(): Promise<void> },
  ) {}

  static async connect(era: Era): Promise<StdioSession> {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const served = serveAppStdio(stdioApp, { transport: server, context: STDIO_CONTEXT });
    const peer = new StdioPeer(client);
    await peer.start();
    return new StdioSession(era, peer, served);
  }

  get connected(): boolean {
    return !this.dropped && !this.peer.inbox.done;
  }

  open(method: string, params: Record<string, unknown>, declares?: Declares): Pending {
    const id = nextId();
    const { inbox } = this.peer;
    const from = inbox.messages.length;
    void this.peer.send({
      jsonrpc: '2.0',
      id,
      method,
      params: enveloped(this.era, params, declares),
    });
    return {
      response: () => inbox.find(responseTo(id), undefined, from),
      find: (match) => inbox.find(match, undefined, from),
      drop: () => {
        this.dropped = true;
        void this.peer.close();
      },
    };
  }

  request(method: string, params: Record<string, unknown>, declares?: Declares) {
    return this.open(method, params, declares).response();
  }

  send(message: object): Promise<void> {
    return this.peer.send(message);
  }

  async close(): Promise<void> {
    await this.peer.close();
    await this.served.close().catch(() => undefined);
  }
}

/**
 * A raw session of the scenario's caller on its server (over stdio, a connection of its own);
 * a 2025-era client opens with `initialize`, declaring what `declares` says, as every client does.
 */
async function sessionOf(
  { s, user }: { s: Scenario; user: string },
  declares: Declares = {},
): Promise<Session> {
  const session =
    s.transport === 'http'
      ? new HttpSession(s.era, serverOf(s), user)
      : await StdioSession.connect(s.era);
  if (s.era === 'legacy') {
    await session.request('initialize', {
      protocolVersion: LEGACY_PROTOCOL,
      capabilities: declares.elicitation ? { elicitation: {} } : {},
      clientInfo: CLIENT_INFO,
    });
    await session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  return session;
}

// ---------------------------------------------------------------------------------------------
// Official clients: they cancel, and send the next request.

interface OfficialClient {
  callTool(
    name: string,
    args: object,
    options: { signal?: AbortSignal; onprogress?: () => void },
  ): Promise<any>;
  close(): Promise<void>;
}

/**
 * The era's official client, on the scenario's server (over stdio, a connection of its own);
 * `answer` makes it declare elicitation and answer questions with it.
 */
async function officialClient(
  s: Scenario,
  user: string,
  answer?: () => Promise<Record<string, unknown>>,
): Promise<OfficialClient> {
  const capabilities = answer ? { elicitation: {} } : {};
  let transport: unknown;
  let served: { close(): Promise<void> } | undefined;
  if (s.transport === 'http') {
    const url = new URL(serverOf(s));
    const requestInit = { headers: { 'x-user': user } };
    transport =
      s.era === 'legacy'
        ? new TransportV1(url, { requestInit })
        : new TransportV2(url, { requestInit });
  } else {
    const [client, server] = InMemoryTransport.createLinkedPair();
    served = serveAppStdio(stdioApp, { transport: server, context: STDIO_CONTEXT });
    transport = client;
  }
  const closeServed = () => served?.close().catch(() => undefined);
  if (s.era === 'legacy') {
    const client = new ClientV1(CLIENT_INFO, { capabilities });
    if (answer) client.setRequestHandler(ElicitRequestSchema, () => answer() as never);
    await client.connect(transport as never);
    return {
      callTool: (name, args, options) =>
        client.callTool({ name, arguments: args as never }, undefined, options),
      close: async () => {
        await client.close();
        await closeServed();
      },
    };
  }
  const client = new ClientV2(CLIENT_INFO, {
    capabilities,
    versionNegotiation: { mode: { pin: MODERN_VERSION } },
  });
  if (answer) client.setRequestHandler('elicitation/create', () => answer() as never);
  await client.connect(transport as never);
  return {
    callTool: (name, args, options) =>
      client.callTool({ name, arguments: args as never }, options as never),
    close: async () => {
      await client.close();
      await closeServed();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The scripts: what the client does, per kind of call and era.

/** One scenario being played: its call's marker, its caller, what went wrong on the way. */
interface Play {
  readonly s: Scenario;
  readonly marker: string;
  readonly user: string;
  readonly problems: string[];
}

/** What a script leaves for the checks. */
interface Played {
  /** The session or official client whose connection the next request may reuse. */
  readonly session?: Session;
  readonly client?: OfficialClient;
  /** Whether the server surely took the call (the script waited on the call itself). */
  readonly taken: boolean;
}

/** Waits until the ledger says `check` of the call; a problem when it never does. */
async function reach(play: Play, what: string, check: () => boolean): Promise<void> {
  if (!(await waitFor(check, SETTLE_MS))) play.problems.push(`the call never ${what}`);
}

const reachStep = (play: Play, step: number) =>
  reach(play, `reached step ${step}`, () => ledger.steps(play.marker) >= step);
const reachWorkAfterAnswer = (play: Play) =>
  reach(play, 'worked on after the answer', () => ledger.workedAfterAnswer(play.marker));

const isQuestion = (message: any) => message.method === 'elicitation/create';
const brief = (value: unknown) => JSON.stringify(value)?.slice(0, 400) ?? String(value);
const ACCEPTED = { q0: { action: 'accept' } };

/** A `tools/call` response's tool envelope: whether it is an error, and its JSON text. */
function toolOutcome(response: any): { isError: boolean; json: any } {
  const result = response?.result;
  const text = result?.content?.find?.((block: { type: string }) => block.type === 'text')?.text;
  try {
    return { isError: result?.isError === true, json: text && JSON.parse(text) };
  } catch {
    return { isError: result?.isError === true, json: text };
  }
}

function expectTimedOut(play: Play, response: unknown, where: string): void {
  const { isError, json } = toolOutcome(response);
  if (!isError || json?.error !== 'REQUEST_TIMEOUT') {
    play.problems.push(`${where}: expected REQUEST_TIMEOUT, got ${brief(response)}`);
  }
}

/**
 * A call that reports progress (`drop_work`): eight steps. The point is the step the handler
 * has reached when the client acts (0: as soon as the request is sent).
 */
async function progressCall(play: Play): Promise<Played> {
  const { s, marker } = play;
  const name = s.action === 'timeout' ? 'drop_work_slow' : 'drop_work';
  const args: Work = { marker, before: 8, ask: false, after: 0, stubborn: s.stubborn };
  if (s.action === 'cancel') {
    return cancelThroughClient(play, name, args, {
      act: async (abort) => {
        await reachStep(play, s.point);
        abort();
      },
    });
  }
  const session = await sessionOf(play);
  const meta = s.path === 'sdk' ? { progressToken: marker } : {};
  const call = session.open('tools/call', { name, arguments: args }, { meta });
  if (s.action === 'drop') {
    if (s.point > 0) await reachStep(play, s.point);
    call.drop();
    return { session, taken: s.point > 0 };
  }
  expectTimedOut(play, await call.response().catch(String), 'the slow call');
  return { session, taken: true };
}

/**
 * A call that asks (`drop_ask`): a step, the question, three steps. On the 2025 era the
 * question comes on the call's own stream: 0 acts as soon as the call is sent, 1 once asked, 2
 * once answered, 3 once the handler worked on after the answer. On the 2026 era each round is a
 * request of its own: 0 acts during the first, 1 between the rounds, 2 as the second is sent, 3
 * once the handler worked on in it. Timing out at 0 happens before the question (a stubborn
 * handler asks after it), at any other point while the question waits or after its answer.
 */
async function askingCall(play: Play): Promise<Played> {
  const { s, marker } = play;
  const timeout = s.action === 'timeout';
  const name = timeout ? 'drop_ask_slow' : 'drop_ask';
  const args: Work = {
    marker,
    before: timeout ? (s.point === 0 ? 8 : 0) : 1,
    ask: true,
    after: timeout && s.point > 0 ? 8 : 3,
    stubborn: s.stubborn,
  };
  if (s.action === 'cancel') {
    return cancelThroughClient(play, name, args, {
      // At 1 the user walks away from the question, and the application cancels the call.
      answer: async (abort) => {
        if (s.point !== 1) return { action: 'accept' };
        abort();
        return { action: 'cancel' };
      },
      act: async (abort) => {
        if (s.point === 1) return;
        if (s.point === 2) {
          await reach(play, 'was answered', () =>
            ledger.of(marker).runs.some((run) => run.answered),
          );
        }
        if (s.point === 3) await reachWorkAfterAnswer(play);
        abort();
      },
    });
  }
  const declares = { elicitation: true, meta: { progressToken: marker } };
  const session = await sessionOf(play, declares);
  const call = (extra: Record<string, unknown> = {}) =>
    session.open('tools/call', { name, arguments: args, ...extra }, declares);
  return s.era === 'legacy'
    ? askingOnTheStream(play, session, call())
    : askingInRounds(play, session, call);
}

/** The 2025 era: the question on the call's stream, the answer a message of its own. */
async function askingOnTheStream(play: Play, session: Session, call: Pending): Promise<Played> {
  const { s } = play;
  const question = () => call.find(isQuestion);
  const answer = (asked: { id: unknown }, action = 'accept') =>
    session.send({ jsonrpc: '2.0', id: asked.id, result: { action } });
  if (s.action === 'drop') {
    if (s.point >= 1) {
      const asked = await question();
      if (s.point >= 2) await answer(asked);
      if (s.point === 3) await reachWorkAfterAnswer(play);
    }
    call.drop();
    return { session, taken: s.point > 0 };
  }
  if (s.action === 'timeout') {
    if (s.point > 0) await question().catch(() => undefined);
    expectTimedOut(play, await call.response().catch(String), 'the unanswered call');
    return { session, taken: true };
  }
  // Answered twice: at once (0, 2) or one after the other (1, 3); at 2 and 3 once more at the end.
  const asked = await question();
  if (s.point % 2 === 0) await Promise.all([answer(asked, 'accept'), answer(asked, 'decline')]);
  else {
    await answer(asked);
    await answer(asked);
  }
  const response = await call.response().catch(String);
  if (s.point >= 2) await answer(asked);
  const { isError, json } = toolOutcome(response);
  if (isError || typeof json?.confirmed !== 'boolean') {
    play.problems.push(`the answered call: ${brief(response)}`);
  }
  return { session, taken: true };
}

/** The 2026 era: the first round ends with the question, the second carries its answer. */
async function askingInRounds(
  play: Play,
  session: Session,
  call: (extra?: Record<string, unknown>) => Pending,
): Promise<Played> {
  const { s } = play;
  const first = call();
  if (s.action === 'drop' && s.point === 0) {
    first.drop();
    return { session, taken: false };
  }
  const round = await first.response().catch(String);
  if (s.action === 'timeout' && s.point === 0) {
    expectTimedOut(play, round, 'the first round');
    return { session, taken: true };
  }
  const requestState = round?.result?.requestState;
  if (round?.result?.resultType !== 'input_required' || typeof requestState !== 'string') {
    play.problems.push(`the first round did not ask: ${brief(round)}`);
    return { session, taken: true };
  }
  const answering = { requestState, inputResponses: ACCEPTED };
  if (s.action === 'drop') {
    if (s.point === 1) return { session, taken: true };
    const second = call(answering);
    if (s.point === 3) await reachWorkAfterAnswer(play);
    second.drop();
    return { session, taken: true };
  }
  if (s.action === 'timeout') {
    expectTimedOut(play, await call(answering).response().catch(String), 'the second round');
    return { session, taken: true };
  }
  // The second round sent twice, at once (0, 2) or one after the other (1, 3): one is answered.
  const replay = () => call(answering).response().catch(String);
  const replies =
    s.point % 2 === 0 ? await Promise.all([replay(), replay()]) : [await replay(), await replay()];
  const completed = replies.filter((reply) => toolOutcome(reply).json?.confirmed === true);
  const refused = replies.filter((reply) => reply?.error?.code === -32602);
  if (completed.length !== 1 || refused.length !== 1) {
    play.problems.push(
      `a replayed round: expected one answer and one -32602, got ${brief(replies)}`,
    );
  }
  return { session, taken: true };
}

/** What a task looks like to `tasks/get`, on either era. */
interface TaskView {
  status?: string;
  result?: unknown;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

/** A client's requests about one task (`tasks/get`, `tasks/update`, `tasks/cancel`, `tasks/result`). */
class TaskRequests {
  constructor(
    private readonly play: Play,
    private readonly session: Session,
    private readonly taskId: string,
  ) {}

  private readonly declares = { tasks: true, elicitation: true };

  request(method: string, extra: Record<string, unknown> = {}): Promise<any> {
    return this.session.request(method, { taskId: this.taskId, ...extra }, this.declares);
  }

  /** A request about the task, dropped as soon as it is sent. */
  dropped(method: string, extra: Record<string, unknown> = {}): void {
    this.session.open(method, { taskId: this.taskId, ...extra }, this.declares).drop();
  }

  open(method: string): Pending {
    return this.session.open(method, { taskId: this.taskId }, this.declares);
  }

  answer(): Promise<unknown> {
    return this.request('tasks/update', { inputResponses: ACCEPTED }).catch(String);
  }

  async get(): Promise<TaskView | undefined> {
    return (await this.request('tasks/get').catch(String))?.result;
  }

  /** Polls the task until `done` holds or it ends; answers its question when `answering`. */
  async until(done: (task: TaskView | undefined) => boolean, answering = false) {
    let task: TaskView | undefined;
    const reached = await waitFor(async () => {
      task = await this.get();
      if (answering && task?.status === 'input_required') await this.answer();
      return done(task) || TERMINAL.includes(task?.status ?? '');
    }, SETTLE_MS);
    if (!reached) this.play.problems.push(`the task never moved on: ${brief(task)}`);
    return task;
  }

  asking = () => this.until((task) => task?.status === 'input_required');
  ended = (answering = false) => this.until(() => false, answering);
}

/**
 * A call of a tool that runs as a task (`drop_task`), over HTTP. On 2025 the task asks nothing
 * (the era cannot) and works five steps; on 2026 it works three, asks (the question is the
 * task's `inputRequests`, answered by `tasks/update`), and works two. Points: 0 acts on the
 * request that creates the task, 1 right after its handle, 2 once the task works (2025) or asks
 * (2026), 3 once it worked on further. A client whose request was dropped comes back and sees
 * the task through.
 */
async function taskCall(play: Play): Promise<Played> {
  const { s, marker } = play;
  const timeout = s.action === 'timeout';
  const modern = s.era === 'modern';
  // A client that dropped the creating request cannot answer a question of the task it made.
  const ask = modern && !(s.action === 'drop' && s.point === 0);
  const args: Work = {
    marker,
    // Timing out: during the steps before the question (always, on 2025), or while it waits.
    before: timeout ? (s.point === 0 || !ask ? 8 : 0) : 3,
    ask,
    after: 2,
    stubborn: s.stubborn,
  };
  const session = await sessionOf(play);
  const create = session.open(
    'tools/call',
    {
      name: timeout ? 'drop_task_slow' : 'drop_task',
      arguments: args,
      ...(!modern && { task: { ttl: 60_000 } }),
    },
    { tasks: true, elicitation: true },
  );
  if (s.action === 'drop' && s.point === 0) {
    create.drop();
    return { session, taken: false };
  }
  const handle = await create.response().catch(String);
  const taskId: unknown = modern ? handle?.result?.taskId : handle?.result?.task?.taskId;
  if (typeof taskId !== 'string') {
    play.problems.push(`no task handle: ${brief(handle)}`);
    return { session, taken: false };
  }
  const task = new TaskRequests(play, session, taskId);
  if (s.action === 'drop') await dropAboutTask(play, task);
  if (s.action === 'cancel') await cancelTask(play, task);
  if (s.action === 'second answer') {
    await task.asking();
    if (s.point % 2 === 0) await Promise.all([task.answer(), task.answer()]);
    else {
      await task.answer();
      await task.answer();
    }
  }
  const final = await task.ended(s.action === 'drop' || s.action === 'second answer');
  if (s.action === 'second answer' && s.point >= 2) await task.answer();
  if (timeout && final?.status !== undefined) {
    const result = modern
      ? final.result
      : (await task.request('tasks/result').catch(String))?.result;
    expectTimedOut(play, { result }, 'the slow task');
  }
  return { session, taken: true };
}

/** A request about the task dropped: 2026 `tasks/get` or `tasks/update`, 2025 `tasks/result`. */
async function dropAboutTask(play: Play, task: TaskRequests): Promise<void> {
  const { s } = play;
  if (s.era === 'legacy') {
    if (s.point >= 2) await reachStep(play, s.point - 1);
    return task.dropped('tasks/result');
  }
  if (s.point === 1) return task.dropped('tasks/get');
  await task.asking();
  if (s.point === 2) return task.dropped('tasks/update', { inputResponses: ACCEPTED });
  await task.answer();
  await reachWorkAfterAnswer(play);
  task.dropped('tasks/get');
}

/**
 * `tasks/cancel`: at 1 right after the handle, at 2 once the task worked a step (2025, with a
 * `tasks/result` waiting) or asks (2026), at 3 once it worked on after the answer (2026) or
 * ended (2025: cancelling a terminal task is refused).
 */
async function cancelTask(play: Play, task: TaskRequests): Promise<void> {
  const { s } = play;
  const legacy = s.era === 'legacy';
  const waiting = legacy && s.point === 2 ? task.open('tasks/result') : undefined;
  if (s.point === 1) await reachStep(play, 1);
  if (s.point === 2 && legacy) await reachStep(play, 2);
  if (s.point >= 2 && !legacy) await task.asking();
  if (s.point === 3 && legacy) await task.ended();
  if (s.point === 3 && !legacy) {
    await task.answer();
    await reachWorkAfterAnswer(play);
  }
  await task.request('tasks/cancel').catch(String);
  await waiting?.response().catch(String);
}

/**
 * Cancels a call through the era's official client, as an application would: `act` (and, for
 * a call that asks, the client's `answer` to the question) aborts the call's signal at the
 * scenario's point. The 2025 client sends `notifications/cancelled`; the 2026 client drops its
 * request (over stdio it sends the notification too).
 */
async function cancelThroughClient(
  play: Play,
  name: string,
  args: Work,
  script: {
    act: (abort: () => void) => Promise<void>;
    answer?: (abort: () => void) => Promise<Record<string, unknown>>;
  },
): Promise<Played> {
  const { s } = play;
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('The user cancelled.'));
  const client = await officialClient(s, play.user, script.answer && (() => script.answer!(abort)));
  const called = client
    .callTool(name, args, {
      signal: controller.signal,
      // A progress token takes a plain call off the direct path.
      ...(s.path === 'sdk' && { onprogress: () => {} }),
    })
    .catch(() => undefined);
  if (s.point === 0) abort();
  else await script.act(abort);
  await called;
  return { client, taken: s.point > 0 };
}

// ---------------------------------------------------------------------------------------------
// The property.

let scenarioCount = 0;

/**
 * Plays one scenario, then checks the property: no fault reached the process, every call the
 * scenario started was reported to `afterToolCall` exactly once, and the next request is
 * answered. Throws every problem found, for fast-check to report with the scenario.
 */
async function check(s: Scenario): Promise<void> {
  const marker = `m${++scenarioCount}`;
  const play: Play = {
    s,
    marker,
    user: `user-${marker}`,
    // A fault no earlier scenario saw comes first (it surfaced late).
    problems: faults.take().map((fault) => `before this scenario: ${fault}`),
  };
  const { problems } = play;
  let played: Played | undefined;
  try {
    const script = { progress: progressCall, asks: askingCall, task: taskCall }[s.kind];
    played = await script(play);
  } catch (error) {
    problems.push(`the scenario failed: ${(error as Error)?.stack ?? String(error)}`);
  }
  problems.push(...(await reportedOnce(s, marker, played)));
  problems.push(...(await nextRequest(play, played)));
  await played?.session?.close();
  await played?.client?.close().catch(() => undefined);
  problems.push(...faults.take());
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

/**
 * `afterToolCall` ran exactly once for every call of the marker, once they finished (a dropped
 * call finishes on its own time: waited for, with a ceiling). Answered twice, the call completed
 * once.
 */
async function reportedOnce(s: Scenario, marker: string, played?: Played): Promise<string[]> {
  const problems: string[] = [];
  const settled = await waitFor(() => ledger.settled(marker), SETTLE_MS);
  const calls = ledger.of(marker);
  if (!settled) problems.push(`calls still unfinished: ${brief(calls)}`);
  const reported = new Map<string, number>();
  for (const { id } of calls.after) reported.set(id, (reported.get(id) ?? 0) + 1);
  for (const id of new Set([...calls.before, ...reported.keys()])) {
    const times = reported.get(id) ?? 0;
    if (times !== 1) problems.push(`afterToolCall ran ${times} times for call ${id}`);
  }
  if (played?.taken && calls.before.length === 0) {
    problems.push('the call never reached the runner');
  }
  if (s.action === 'second answer' && calls.after.filter(({ ok }) => ok).length !== 1) {
    problems.push(`answered twice, the call completed ${brief(calls.after)}`);
  }
  return problems;
}

/**
 * The next request to the same server: a raw `tools/list` (over stdio on the scenario's own
 * connection, unless it was dropped) and a plain call through the era's official client (the
 * scenario's own, when it used one), each answered, the call's `afterToolCall` run once.
 */
async function nextRequest(play: Play, played: Played | undefined): Promise<string[]> {
  const { s, user } = play;
  const marker = `${play.marker}-next`;
  const problems: string[] = [];
  const session =
    s.transport === 'http'
      ? await sessionOf(play)
      : played?.session?.connected
        ? played.session
        : undefined;
  if (session) {
    const listed = await session.request('tools/list', {}).catch(String);
    if (!listed?.result?.tools?.some((tool: { name: string }) => tool.name === 'drop_ping')) {
      problems.push(`the next tools/list: ${brief(listed)}`);
    }
  }
  try {
    const client = played?.client ?? (await officialClient(s, user));
    try {
      const pong = await client.callTool('drop_ping', { marker }, {});
      if (toolOutcome({ result: pong }).json?.pong !== marker) {
        problems.push(`the next call: ${brief(pong)}`);
      }
    } finally {
      if (!played?.client) await client.close();
    }
  } catch (error) {
    problems.push(`the next call failed: ${(error as Error)?.message ?? String(error)}`);
  }
  const reported = ledger.of(marker).after.length;
  if (reported !== 1) problems.push(`the next call's afterToolCall ran ${reported} times`);
  return problems;
}

describe('nothing a client does ends the process', () => {
  beforeAll(async () => {
    faults.install();
    await redis.start();
    for (const adapter of ADAPTERS) {
      for (const store of STORES) {
        const { app, url } = await apps.listen(appModule(store), adapter);
        urls.set(`${adapter}/${store}`, `${url}/mcp`);
        if (adapter === 'express' && store === 'memory') stdioApp = app;
      }
    }
  });
  afterAll(async () => {
    await apps.closeAll();
    await redis.stop();
    faults.uninstall();
  });

  it('drops, cancellations, timeouts and second answers at any point leave it serving, each call reported once', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, (scenario) => check(scenario)),
      {
        numRuns: NUM_RUNS,
        seed: SEED,
        examples: REPRODUCTIONS.map((scenario) => [scenario]),
        interruptAfterTimeLimit: 150_000,
        markInterruptAsFailure: true,
      },
    );
    expect(faults.take()).toEqual([]);
  }, 240_000);
});
