/**
 * A Nest application whose Redis (the MCP instance bus) cannot be reached when it starts, on
 * Express and Fastify. By default it starts all the same, logs one error that says what happens
 * and which option changes it, serves MCP meanwhile, and subscribes once Redis is up; with
 * `mcp.busRequired` it refuses to start, with an error that names the option. Neither prints a
 * line per attempt to reconnect, nor leaves a rejection unhandled (the suite's process guard
 * would fail this file).
 */
import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { defineRuntimeTool, ToolsConfigurationError, ToolsModule } from '../../lib/index.js';
import { RedisInstanceBus } from '../../lib/redis/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { rpc } from '../fixtures/mcp-http.js';
import { redisClient, stoppedRedis, type RedisServer } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});

describe.each(ADAPTERS)('an application whose Redis is away at startup (%s)', (adapter) => {
  const apps = new TestApps();
  const clients: Redis[] = [];
  let redis: RedisServer;
  let logger: RecordingLogger;
  let printed: ReturnType<typeof jest.spyOn>;

  /** The application's module: its bus on `redis`, which fails a command after 500 ms. */
  const appModule = (busRequired?: boolean) => {
    const client = redisClient(redis.url);
    clients.push(client);
    const bus = new RedisInstanceBus({ redis: client, commandTimeoutMs: 500 });
    return { imports: [ToolsModule.forRoot({ registry: [ping], mcp: { bus, busRequired } })] };
  };

  /** What toolwright logged as an error or a warning, each line as one text. */
  const complaints = () => logger.complaints.map(({ args }) => String(args[0]));

  beforeEach(async () => {
    redis = await stoppedRedis();
    logger = new RecordingLogger();
    // Everything printed on stderr: the bus's own reports, and ioredis's unhandled errors.
    printed = jest.spyOn(console, 'error');
  });
  afterEach(async () => {
    await apps.closeAll();
    for (const client of clients.splice(0)) client.disconnect();
    await redis.stop();
    printed.mockRestore();
  });

  it('starts, says so in one line, serves MCP, and subscribes once Redis is up', async () => {
    const { url } = await apps.listen(appModule(), adapter, { logger });
    expect(complaints()).toEqual([
      expect.stringMatching(
        /^The MCP endpoint could not subscribe to its instance bus: Redis did not answer a SUBSCRIBE within 500 ms \(connect ECONNREFUSED [^)]+\)\. .*Set mcp\.busRequired: true to refuse to start instead\.$/,
      ),
    ]);

    const called = await rpc(`${url}/mcp`, 'legacy', 'tools/call', {
      name: 'health_ping',
      arguments: {},
    });
    expect(called.result?.structuredContent ?? JSON.parse(called.result.content[0].text)).toEqual({
      pong: true,
    });

    // It keeps trying, quietly: a debug line per attempt, no other complaint.
    expect(await waitFor(() => logger.about('still unreachable').length >= 2)).toBe(true);
    expect(complaints()).toHaveLength(1);

    await redis.start();
    expect(await waitFor(() => logger.about('subscribed to its instance bus').length > 0)).toBe(
      true,
    );
    const observer = redisClient(redis.url);
    clients.push(observer);
    expect(await observer.pubsub('CHANNELS', 'toolwright:mcp:*')).toEqual(
      expect.arrayContaining(['toolwright:mcp:cancellations']),
    );
    expect(logger.about('subscribed to its instance bus')).toHaveLength(1);
    expect(complaints()).toHaveLength(1);
    expect(printed).not.toHaveBeenCalled();
  });

  it('with mcp.busRequired, refuses to start with an error that names the option', async () => {
    const app = await apps.create(appModule(true), adapter, { logger });
    const started = app.listen(0, '127.0.0.1');
    await expect(started).rejects.toThrow(ToolsConfigurationError);
    await expect(started).rejects.toThrow(
      /^The MCP endpoint could not subscribe to its instance bus, and mcp\.busRequired is true: Redis did not answer a SUBSCRIBE within 500 ms \(connect ECONNREFUSED [^)]+\)\. Make the bus reachable/,
    );
    expect(printed).not.toHaveBeenCalled();
  });
});
