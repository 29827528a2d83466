/**
 * The MCP endpoint's instance bus in a Nest application: taken from `mcp.bus` or from
 * `forRootAsync`'s factory as `mcp.bus`, subscribed at bootstrap (with `mcp.busRequired`, an
 * application whose bus cannot subscribe does not start; see bus-at-startup.spec.ts for the
 * default), unsubscribed at close, and left alone by an application context that serves no HTTP.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  InMemoryInstanceBus,
  defineRuntimeTool,
  ToolsConfigurationError,
  ToolsModule,
} from '../../lib/index.js';
import type { ToolsModuleFactoryOptions } from '../../lib/nest/interfaces/tools-module-options.interface.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import type { InstanceBus } from '../../lib/core/instance-bus.js';
import { TestApps } from '../fixtures/apps.js';

const close = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ confirm }) => ({ closed: await confirm('Close it?') }),
});

/** An in-memory bus that records its subscriptions as they start and end. */
class RecordingBus extends InMemoryInstanceBus {
  readonly record: string[] = [];

  override async subscribe(channel: string, listener: (message: string) => void) {
    this.record.push(`+${channel}`);
    const stop = await super.subscribe(channel, listener);
    return async () => {
      this.record.push(`-${channel}`);
      await stop();
    };
  }
}

const CHANNELS = ['toolwright:mcp:answers', 'toolwright:mcp:cancellations'];

describe('the instance bus of a Nest application', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it.each(['express', 'fastify'] as const)(
    'is subscribed at bootstrap and unsubscribed at close (%s)',
    async (adapter) => {
      const bus = new RecordingBus();
      const { app } = await apps.listen(
        { imports: [ToolsModule.forRoot({ registry: [close], mcp: { bus } })] },
        adapter,
      );
      expect([...bus.record].sort()).toEqual(CHANNELS.map((channel) => `+${channel}`));
      apps.forget(app);
      await app.close();
      expect(bus.record.filter((entry) => entry.startsWith('-')).sort()).toEqual(
        CHANNELS.map((channel) => `-${channel}`),
      );
    },
  );

  it('comes from forRootAsync as mcp.bus', async () => {
    const bus = new RecordingBus();
    await apps.listen({
      imports: [
        ToolsModule.forRootAsync({ registry: [close], useFactory: () => ({ mcp: { bus } }) }),
      ],
    });
    expect([...bus.record].sort()).toEqual(CHANNELS.map((channel) => `+${channel}`));
  });

  it("comes with the route given directly: mcp.path from forRootAsync's factory is a bootstrap error", async () => {
    await expect(
      apps.init({
        imports: [
          ToolsModule.forRootAsync({
            registry: [close],
            useFactory: () =>
              ({
                mcp: { bus: new InMemoryInstanceBus(), path: '/mcp' },
              }) as ToolsModuleFactoryOptions,
          }),
        ],
      }),
    ).rejects.toThrow(new ToolsConfigurationError(MESSAGES.staticFromFactory(['mcp.path'])));
  });

  it("the tasks likewise: mcp: false from forRootAsync's factory is a bootstrap error", async () => {
    await expect(
      apps.init({
        imports: [
          ToolsModule.forRootAsync({
            registry: [close],
            useFactory: () => ({ mcp: false }) as unknown as ToolsModuleFactoryOptions,
          }),
        ],
      }),
    ).rejects.toThrow(new ToolsConfigurationError(MESSAGES.staticFromFactory(['mcp: false'])));
  });

  it('with mcp.busRequired, a bus that cannot subscribe keeps the application from starting, with its reason', async () => {
    const unreachable: InstanceBus = {
      ...new InMemoryInstanceBus(),
      publish: () => Promise.resolve(),
      remember: () => Promise.resolve(),
      recall: () => Promise.resolve(undefined),
      rememberIfAbsent: () => Promise.resolve(true),
      subscribe: () =>
        Promise.reject(new Error('Redis did not answer a SUBSCRIBE within 2000 ms.')),
    };
    await expect(
      apps.listen({
        imports: [
          ToolsModule.forRoot({ registry: [close], mcp: { bus: unreachable, busRequired: true } }),
        ],
      }),
    ).rejects.toThrow('Redis did not answer a SUBSCRIBE within 2000 ms.');
  });

  it('when one subscription fails, the others are ended: nothing stays subscribed', async () => {
    const bus = new (class extends RecordingBus {
      override async subscribe(channel: string, listener: (message: string) => void) {
        if (channel === 'toolwright:mcp:answers') {
          throw new Error('Redis did not answer a SUBSCRIBE within 2000 ms.');
        }
        return super.subscribe(channel, listener);
      }
    })();
    await expect(
      apps.listen({
        imports: [ToolsModule.forRoot({ registry: [close], mcp: { bus, busRequired: true } })],
      }),
    ).rejects.toThrow('Redis did not answer a SUBSCRIBE within 2000 ms.');
    expect(bus.record).toEqual(['+toolwright:mcp:cancellations', '-toolwright:mcp:cancellations']);
  });

  it('is left alone by an application context, which serves no MCP', async () => {
    const bus = new RecordingBus();
    const { NestFactory } = await import('@nestjs/core');
    const { Module } = await import('@nestjs/common');
    @Module({ imports: [ToolsModule.forRoot({ registry: [close], mcp: { bus } })] })
    class WorkerModule {}
    const context = await NestFactory.createApplicationContext(WorkerModule, {
      logger: false,
      abortOnError: false,
    });
    await context.close();
    expect(bus.record).toEqual([]);
  });
});
