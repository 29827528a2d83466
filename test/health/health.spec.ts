/**
 * Health and readiness of the tools module (ToolsHealthModule): liveness stays up; readiness
 * turns down once the application starts shutting down and while the configured Redis does not
 * answer, which is pinged at most once per interval whatever the number of probes. The drain
 * is logged: its start with the calls in flight, its end with the calls cut off.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { defineRuntimeTool, ToolInvoker, ToolsModule } from '../../lib/index.js';
import { ToolsHealthIndicator, ToolsHealthModule } from '../../lib/nest/health/index.js';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { redisClient, startRedis, type RedisServer } from '../fixtures/redis.js';
import { deferred, Latches, waitFor } from '../fixtures/timing.js';

/** `health_hold` runs until the test releases its key; `started` resolves when it runs. */
function holdTool(started: Latches, release: Latches) {
  return defineRuntimeTool({
    description: 'Hold until released',
    identity: { serviceName: 'health', action: 'hold', method: 'GET' },
    input: z.object({ key: z.string() }),
    handler: async ({ input, signal }) => {
      started.get(input.key).resolve();
      await Promise.race([
        release.get(input.key).promise,
        new Promise((resolve) => signal.addEventListener('abort', resolve)),
      ]);
      return { released: input.key };
    },
  });
}

async function probe(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as any };
}

describe.each(ADAPTERS)('ToolsHealthModule routes (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('answers live and ready, with terminus-shaped bodies, and no redis part without Redis', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({ registry: [], mcp: false }),
          ToolsHealthModule.forRoot({ path: 'health' }),
        ],
      },
      adapter,
    );
    expect(await probe(`${url}/health/live`)).toEqual({
      status: 200,
      body: {
        status: 'ok',
        info: { toolwright: { status: 'up' } },
        error: {},
        details: { toolwright: { status: 'up' } },
      },
    });
    const ready = await probe(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.details).toEqual({ toolwright: { status: 'up', draining: false } });
  });

  it('turns unready (503) once the application starts draining; liveness stays up', async () => {
    const started = new Latches();
    const release = new Latches();
    const logger = new RecordingLogger();
    const { app, url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [holdTool(started, release)],
            shutdownGraceMs: 10 * 60_000,
          }),
          ToolsHealthModule.forRoot({ path: 'health' }),
        ],
      },
      adapter,
      { logger },
    );
    const invoker = app.get(ToolInvoker);
    const call = invoker.invoke('health_hold', { key: 'a' }, { transport: 'AGENT' });
    await started.get('a').promise;
    expect((await probe(`${url}/health/ready`)).status).toBe(200);

    const closed = app.close();
    apps.forget(app);
    let ready: Awaited<ReturnType<typeof probe>> | undefined;
    expect(
      await waitFor(async () => (ready = await probe(`${url}/health/ready`)).status === 503),
    ).toBe(true);
    expect(ready!.body).toMatchObject({
      status: 'error',
      error: { toolwright: { status: 'down', draining: true } },
    });
    expect((await probe(`${url}/health/live`)).status).toBe(200);
    release.get('a').resolve();
    await expect(call).resolves.toMatchObject({ ok: true });
    await closed;
  });
});

describe('draining is logged through the module’s logger', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  async function boot(shutdownGraceMs: number) {
    const started = new Latches();
    const release = new Latches();
    const logger = new RecordingLogger();
    const app = await apps.init(
      {
        imports: [ToolsModule.forRoot({ registry: [holdTool(started, release)], shutdownGraceMs })],
      },
      'express',
      { logger },
    );
    apps.forget(app);
    const invoker = app.get(ToolInvoker);
    const hold = (key: string) => invoker.invoke('health_hold', { key }, { transport: 'AGENT' });
    return { app, logger, started, release, hold };
  }

  const drainLines = (logger: RecordingLogger) =>
    logger.lines
      .filter(({ args }) => /^Drain/.test(String(args[0])))
      .map(({ level, args }) => ({ level, text: String(args[0]), context: args[1] }));

  it('says when it starts, how many calls are in flight, and when every one finished', async () => {
    const { app, logger, started, release, hold } = await boot(10 * 60_000);
    const calls = [hold('a'), hold('b')];
    await Promise.all([started.get('a').promise, started.get('b').promise]);
    const closed = app.close();
    expect(await waitFor(() => drainLines(logger).length === 1)).toBe(true);
    expect(drainLines(logger)).toEqual([
      {
        level: 'log',
        text: 'Draining: 2 calls in flight have 600000 ms to finish; new calls are refused.',
        context: 'ToolsModule',
      },
    ]);
    release.get('a').resolve();
    release.get('b').resolve();
    await Promise.all(calls);
    await closed;
    expect(await waitFor(() => drainLines(logger).length === 2)).toBe(true);
    expect(drainLines(logger)[1]).toMatchObject({
      level: 'log',
      text: expect.stringMatching(/^Drained in \d+ ms: every call in flight finished\.$/),
      context: 'ToolsModule',
    });
    // Once: the second shutdown hook joins the drain, it does not log it again.
    expect(drainLines(logger)).toHaveLength(2);
  });

  it('says how many calls the grace period cut off', async () => {
    const { app, logger, started, hold } = await boot(0);
    const call = hold('a');
    await started.get('a').promise;
    await app.close();
    await expect(call).resolves.toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });
    expect(await waitFor(() => drainLines(logger).length === 2)).toBe(true);
    expect(drainLines(logger)).toEqual([
      {
        level: 'log',
        text: 'Draining: 1 call in flight has 0 ms to finish; new calls are refused.',
        context: 'ToolsModule',
      },
      {
        level: 'warn',
        text: expect.stringMatching(
          /^Drained in \d+ ms: the grace period \(0 ms\) ran out with 1 call still running, cut off: their signal was aborted and their callers answered SERVICE_UNAVAILABLE\.$/,
        ),
        context: 'ToolsModule',
      },
    ]);
  });

  it('says so when no call was in flight', async () => {
    const { app, logger } = await boot(1000);
    await app.close();
    expect(await waitFor(() => drainLines(logger).length === 2)).toBe(true);
    expect(drainLines(logger)[0].text).toBe('Draining: no calls in flight; new calls are refused.');
  });
});

describe('readiness with a configured Redis', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const apps = new TestApps();

  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(() => apps.closeAll());
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    await server.stop();
  });

  /** An app whose bus and task store share one client; its PINGs are counted. */
  async function boot(redisIntervalMs: number) {
    const redis = redisClient(server.url);
    clients.push(redis);
    let pings = 0;
    const ping = redis.ping.bind(redis) as () => Promise<string>;
    (redis as unknown as { ping: () => Promise<string> }).ping = () => {
      pings++;
      return ping();
    };
    const prefix = `health-${Date.now()}:`;
    const listening = await apps.listen({
      imports: [
        ToolsModule.forRoot({
          registry: [],
          mcp: {
            bus: new RedisInstanceBus({
              redis,
              prefix,
              commandTimeoutMs: 10_000,
              onError: () => undefined,
            }),
            tasks: { store: new RedisTaskStore({ redis, prefix, commandTimeoutMs: 10_000 }) },
          },
        }),
        ToolsHealthModule.forRoot({ path: '/health', redisIntervalMs }),
      ],
    });
    return { ...listening, pings: () => pings };
  }

  it('is down while Redis does not answer and up again once it does; liveness stays up', async () => {
    const { url } = await boot(0);
    const ready = await probe(`${url}/health/ready`);
    expect(ready).toMatchObject({ status: 200 });
    expect(ready.body.details.toolwright).toEqual({ status: 'up', draining: false, redis: 'up' });

    await server.stop();
    let down: Awaited<ReturnType<typeof probe>> | undefined;
    expect(
      await waitFor(async () => (down = await probe(`${url}/health/ready`)).status === 503),
    ).toBe(true);
    expect(down!.body.error.toolwright).toMatchObject({
      status: 'down',
      draining: false,
      redis: 'down',
      message: expect.stringMatching(/^Redis does not answer: /),
    });
    expect((await probe(`${url}/health/live`)).status).toBe(200);

    await server.start();
    expect(
      await waitFor(async () => (await probe(`${url}/health/ready`)).status === 200, 20_000),
    ).toBe(true);
  });

  it('pings Redis at most once per interval, however many probes come', async () => {
    const { url, pings } = await boot(10 * 60_000);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => probe(`${url}/health/ready`)),
    );
    for (let i = 0; i < 10; i++) answers.push(await probe(`${url}/health/ready`));
    expect(answers.every(({ status }) => status === 200)).toBe(true);
    // The bus and the task store are pinged once each, by the first probe.
    expect(pings()).toBe(2);
  });

  it('pings again for each probe past the interval', async () => {
    const { url, pings } = await boot(0);
    for (let i = 0; i < 3; i++) await probe(`${url}/health/ready`);
    expect(pings()).toBe(6);
  });
});

describe('ToolsHealthIndicator for @nestjs/terminus', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('answers HealthIndicatorResult objects under the key it is given', async () => {
    const app = await apps.init({
      imports: [ToolsModule.forRoot({ registry: [] }), ToolsHealthModule.forRoot()],
    });
    const indicator = app.get(ToolsHealthIndicator);
    expect(indicator.isLive('tools')).toEqual({ tools: { status: 'up' } });
    await expect(indicator.isReady('tools')).resolves.toEqual({
      tools: { status: 'up', draining: false },
    });
    const done = deferred();
    void app.close().then(() => done.resolve());
    apps.forget(app);
    await done.promise;
    await expect(indicator.isReady('tools')).resolves.toMatchObject({
      tools: { status: 'down', draining: true },
    });
  });
});
