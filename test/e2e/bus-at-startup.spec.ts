/**
 * A Nest application whose instance bus does not answer at bootstrap (any bus; the Redis one is
 * tried against a real Redis in test/redis/unreachable-at-startup.spec.ts): it starts, logs one
 * error, tries again every second, quietly, and once the bus answers it has subscribed every
 * channel; it stops trying when it closes.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineRuntimeTool, InMemoryInstanceBus, ToolsModule } from '../../lib/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { sleep, waitFor } from '../fixtures/timing.js';

const close = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ confirm }) => ({ closed: await confirm('Close it?') }),
});

const CHANNELS = ['toolwright:mcp:answers', 'toolwright:mcp:cancellations'];

/** The module of an application on `bus`, with a `requestState` key as several instances have. */
const appModule = (bus: InMemoryInstanceBus) => ({
  imports: [
    ToolsModule.forRoot({
      registry: [close],
      mcp: { bus, requestState: { key: 'k'.repeat(32) } },
    }),
  ],
});

/** An in-memory bus that refuses its first `failures` SUBSCRIBEs, and records the others. */
class UnreachableBus extends InMemoryInstanceBus {
  attempts = 0;
  readonly subscribed = new Set<string>();

  constructor(private failures: number) {
    super();
  }

  override async subscribe(channel: string, listener: (message: string) => void) {
    this.attempts++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('Redis did not answer a SUBSCRIBE within 2000 ms.');
    }
    this.subscribed.add(channel);
    const stop = await super.subscribe(channel, listener);
    return async () => {
      this.subscribed.delete(channel);
      await stop();
    };
  }
}

describe('an instance bus that does not answer at bootstrap', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it.each(ADAPTERS)(
    'the application starts, logs it once, and subscribes every channel once the bus answers (%s)',
    async (adapter) => {
      // Both channels fail at bootstrap, and both again at the first retry.
      const bus = new UnreachableBus(4);
      const logger = new RecordingLogger();
      await apps.listen(appModule(bus), adapter, { logger });
      const complaints = () => logger.complaints.map(({ level, args }) => `${level} ${args[0]}`);
      expect(complaints()).toEqual([
        'error The MCP endpoint could not subscribe to its instance bus: Redis did not answer a ' +
          'SUBSCRIBE within 2000 ms. It serves requests meanwhile (what must cross instances is ' +
          'refused or not heard) and subscribes as soon as the bus answers. Set ' +
          'mcp.busRequired: true to refuse to start instead.',
      ]);
      expect(bus.subscribed.size).toBe(0);

      expect(await waitFor(() => logger.about('subscribed to its instance bus').length > 0)).toBe(
        true,
      );
      expect([...bus.subscribed].sort()).toEqual(CHANNELS);
      expect(logger.about('still unreachable')).toHaveLength(1);
      expect(complaints()).toHaveLength(1);
    },
  );

  it('stops trying when the application closes', async () => {
    const bus = new UnreachableBus(Infinity);
    const { app } = await apps.listen(appModule(bus));
    apps.forget(app);
    await app.close();
    const attempts = bus.attempts;
    // Longer than the pause between two attempts: none comes after the close.
    await sleep(1500);
    expect(bus.attempts).toBe(attempts);
  });
});
