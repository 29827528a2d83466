/**
 * The toolwright benchmark server (`npm run bench:server`): a Nest app with `ToolsModule` at
 * `/mcp` serving `echo` and `tool_0 … tool_49` (see `shared/tools.ts`), and beside them 10
 * resources, 5 resource templates and 10 prompts (see `shared/operations.ts`).
 *
 * Environment: `PORT` (default 3400; 0 picks a free port), `ADAPTER` (`express`, the default, or
 * `fastify`), `TOOLS` (total tools, echo included; default 51), `HOST` (default 127.0.0.1),
 * `OPERATIONS` (`0` serves the tools alone).
 * `AUTH_ISSUER` (an issuer URL) turns `mcp.auth` on: every request to `/mcp` needs a bearer JWT
 * of that issuer, verified against the keys its metadata names, for the audience `AUTH_RESOURCE`
 * (default `http://127.0.0.1:<PORT>/mcp`); `AUTH_SCOPES` (space-separated) is advertised.
 * `TELEMETRY=memory` registers an OpenTelemetry SDK with in-memory exporters before the library
 * is loaded (`shared/otel.ts`), so that every request gets its spans and histogram records; on
 * SIGUSR2 the server flushes it and prints a `BENCH_TELEMETRY {…}` line with what it exported.
 * `TASKS` turns MCP tasks on (`shared/tasks.ts`): one more tool, `report` (input `{ text }`,
 * output `{ text }`, `task: 'optional'`), with clients told to poll every millisecond; `memory`
 * keeps the tasks in an `InMemoryTaskStore`, `redis` in a `RedisTaskStore` with a
 * `RedisInstanceBus` (`toolwright/redis`, `ioredis` from the repository's node_modules) on the
 * Redis at `REDIS_URL`. Unset, the server is as without it.
 * It loads the library's build (`dist/index.js`), so run `npm run build` first, and Nest from the
 * repository's node_modules, the copy the build itself resolves (bench/ installs no Nest of its own).
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { z } from 'zod';
import type * as Toolwright from '../../../dist/index.js';
import type * as ToolwrightRedis from '../../../dist/redis/index.js';
import { libraryEntry } from '../shared/paths.js';
import { adapterFromEnv, createBenchApp } from '../shared/nest-app.js';
import { announceReady, exitOnSignals, portFromEnv } from '../shared/ready.js';
import {
  benchPrompts,
  benchResources,
  benchTemplates,
  operationsFromEnv,
  promptText,
  recordText,
} from '../shared/operations.js';
import {
  REPORT_TOOL,
  TASK_POLL_INTERVAL_MS,
  tasksModeFromEnv,
  type TasksMode,
} from '../shared/tasks.js';
import {
  answer,
  BENCH_BODY_LIMIT,
  benchInput,
  benchOutput,
  benchTools,
  toolCountFromEnv,
} from '../shared/tools.js';

const setupStart = performance.now();

const telemetryMode = process.env.TELEMETRY;
if (telemetryMode !== undefined && telemetryMode !== '' && telemetryMode !== 'memory') {
  throw new Error(`TELEMETRY must be "memory" (or unset), got "${telemetryMode}".`);
}
// Registered before the library is loaded and the app created, as an application would.
if (telemetryMode === 'memory') {
  const { answerTelemetryProbes, registerTelemetry } = await import('../shared/otel.js');
  // The exporter keeps at most 4,096 spans, as an exporter that ships them would keep none: a
  // second's worth of retained spans would put the in-memory store's garbage on the server's bill.
  answerTelemetryProbes(registerTelemetry({ answerAtOnce: true }), libraryEntry());
}
const telemetryMs = performance.now() - setupStart;

const {
  ToolsModule,
  defineRuntimeTool,
  defineResource,
  defineResourceTemplate,
  definePrompt,
  InMemoryTaskStore,
} = (await import(libraryEntry())) as typeof Toolwright;
const importMs = performance.now() - setupStart - telemetryMs;

const tasksMode = tasksModeFromEnv();

/**
 * The endpoint's `tasks` and `bus` options for the store `mode` names. Every connection of the
 * bench is one caller, whose live tasks may number as many as the connections.
 */
async function taskEndpoint(mode: TasksMode): Promise<Partial<Toolwright.McpOptions>> {
  const polling = { pollIntervalMs: TASK_POLL_INTERVAL_MS, maxLiveTasks: 10_000 };
  const caller = { identify: () => 'bench' };
  if (mode === 'memory') {
    return { ...caller, tasks: { ...polling, store: new InMemoryTaskStore() } };
  }
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('TASKS=redis needs REDIS_URL (redis://127.0.0.1:<port>).');
  const { Redis } = await import('ioredis');
  const { RedisInstanceBus, RedisTaskStore } = (await import(
    libraryEntry('redis/index.js')
  )) as typeof ToolwrightRedis;
  const redis = new Redis(url);
  redis.on('error', (error) => console.error(`Redis: ${error.message}`));
  return {
    ...caller,
    tasks: { ...polling, store: new RedisTaskStore({ redis }) },
    bus: new RedisInstanceBus({ redis }),
  };
}
const taskOptions = tasksMode && (await taskEndpoint(tasksMode));

const adapter = adapterFromEnv();
const count = toolCountFromEnv();
const host = process.env.HOST ?? '127.0.0.1';
const issuer = process.env.AUTH_ISSUER;
const auth = issuer
  ? {
      issuers: issuer,
      resource: process.env.AUTH_RESOURCE ?? `http://${host}:${portFromEnv(3400)}/mcp`,
      scopesSupported: (process.env.AUTH_SCOPES ?? '').split(' ').filter(Boolean),
    }
  : undefined;

const defineStart = performance.now();
const output = benchOutput(z);
const tools = benchTools(count).map((spec) =>
  defineRuntimeTool({
    name: spec.name,
    description: spec.description,
    identity: { serviceName: 'bench', action: spec.name, method: 'GET' },
    input: benchInput(z, spec),
    output,
    handler: ({ input }) => answer(input),
  }),
);

const report = tasksMode
  ? [
      defineRuntimeTool({
        name: REPORT_TOOL,
        description: 'Report the text back, as a task when the client asks for one',
        identity: { serviceName: 'bench', action: REPORT_TOOL, method: 'GET' },
        input: z.object({ text: z.string() }),
        output,
        task: 'optional',
        handler: ({ input }) => answer(input),
      }),
    ]
  : [];

const resources = benchResources().map((spec) =>
  defineResource({
    uri: spec.uri,
    name: spec.name,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    read: () => spec.text,
  }),
);
const templates = benchTemplates().map((spec) =>
  defineResourceTemplate({
    uriTemplate: spec.uriTemplate,
    name: spec.name,
    description: spec.description,
    mimeType: spec.mimeType,
    variables: z.object({ [spec.variable]: z.string() }),
    read: ({ input }) => recordText(spec.name, String(input[spec.variable])),
  }),
);
const topic = z.string().describe('What to summarise');
const tone = z.string().optional().describe('How the summary should sound');
const prompts = benchPrompts().map((spec) =>
  definePrompt({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    args: spec.withTone ? z.object({ topic, tone }) : z.object({ topic }),
    get: ({ input }) => promptText(spec.name, input),
  }),
);
const operations = operationsFromEnv() ? [...resources, ...templates, ...prompts] : [];

class AppModule {}
Module({
  imports: [
    ToolsModule.forRoot({
      registry: [...tools, ...report, ...operations],
      mcp: {
        path: '/mcp',
        serverInfo: { name: 'toolwright-bench', version: '0.0.0' },
        // The Host check compares names, not ports: 127.0.0.1:<port> passes.
        allowedHosts: ['127.0.0.1', 'localhost'],
        maxBodyBytes: BENCH_BODY_LIMIT,
        ...(auth && { auth }),
        ...taskOptions,
      },
    }),
  ],
})(AppModule);

const defineMs = performance.now() - defineStart;
const initStart = performance.now();
const app = await createBenchApp(AppModule, adapter, BENCH_BODY_LIMIT);
// init compiles the registry and prepares the MCP endpoint (tools/list entries included).
await app.init();
const initMs = performance.now() - initStart;
exitOnSignals(() => app.close());
await app.listen(portFromEnv(3400), host);
announceReady(
  `toolwright-${adapter}${auth ? '-auth' : ''}${telemetryMode === 'memory' ? '-otel' : ''}` +
    (tasksMode ? `-tasks-${tasksMode}` : ''),
  app.getHttpServer().address(),
  count + report.length,
  setupStart,
  {
    ...(telemetryMode === 'memory' && { telemetry: telemetryMs }),
    import: importMs,
    define: defineMs,
    init: initMs,
  },
);
