/**
 * A 2026-07-28 `requestState` answers one round, whichever instance takes it: two instances
 * share a sealing key and an instance bus (as two processes share Redis), and a state spent on
 * one is refused on the other (`-32602`), so that a replayed answer never runs the round's work
 * twice. A bus that cannot say whether the state was spent refuses the round with `-32603`.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolInvoker } from '../../lib/core/index.js';
import { InMemoryInstanceBus, type InstanceBus } from '../../lib/core/instance-bus.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { closeRound, deskClose } from '../fixtures/desk-close.js';
import { identifyByAuthorization } from '../fixtures/mcp-http.js';

const KEY = 'a shared key of at least 32 bytes, for every instance';

const { tool: close, closed, runs } = deskClose();

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});

/** An instance sealing with the shared key, on `bus`; resolves to its URL. */
async function instance(bus: InstanceBus, errors: string[] = []): Promise<string> {
  const handler = createMcpHttpHandler(createToolInvoker([close]), {
    requestState: { key: KEY },
    identify: identifyByAuthorization,
    bus,
    logger: { error: (message: string) => void errors.push(message) },
  });
  await handler.ready();
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** The `requestState` of the first round of closing `id`. */
async function stateOf(url: string, id: string): Promise<string> {
  const first = await closeRound(url, id);
  expect(first.result).toMatchObject({ resultType: 'input_required' });
  return first.result.requestState;
}

const REFUSED = {
  code: -32602,
  message: 'Invalid or expired requestState',
  data: { reason: 'invalid_request_state' },
};

describe('a requestState spent on one instance', () => {
  it('is refused on the other before the handler runs: the ticket is closed once', async () => {
    const bus = new InMemoryInstanceBus();
    const [a, b] = [await instance(bus), await instance(bus)];
    const state = await stateOf(a, 'T-1');
    expect((await closeRound(a, 'T-1', state)).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: '{"closed":true}' }],
    });
    expect((await closeRound(b, 'T-1', state)).error).toEqual(REFUSED);
    expect((await closeRound(a, 'T-1', state)).error).toEqual(REFUSED);
    expect(closed.filter((id) => id === 'T-1')).toHaveLength(1);
    // The first round and its answer: the replays ran nothing.
    expect(runs.filter((id) => id === 'T-1')).toHaveLength(2);
  });

  it('of two instances taking one state at the same time, one closes the ticket', async () => {
    const bus = new InMemoryInstanceBus();
    const [a, b] = [await instance(bus), await instance(bus)];
    const state = await stateOf(b, 'T-2');
    const answers = await Promise.all([closeRound(a, 'T-2', state), closeRound(b, 'T-2', state)]);
    expect(answers.filter((answer) => answer.error !== undefined)).toEqual([
      expect.objectContaining({ error: REFUSED }),
    ]);
    expect(closed.filter((id) => id === 'T-2')).toHaveLength(1);
  });
});

describe('a bus that cannot say whether a state was spent', () => {
  it('refuses the round with -32603, and the ticket stays open until a retry the bus answers', async () => {
    const errors: string[] = [];
    let reachable = false;
    const away = new (class extends InMemoryInstanceBus {
      override rememberIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
        if (reachable) return super.rememberIfAbsent(key, value, ttlMs);
        return Promise.reject(new Error('Redis did not answer a SET NX within 2000 ms.'));
      }
    })();
    const url = await instance(away, errors);
    const state = await stateOf(url, 'T-3');
    expect((await closeRound(url, 'T-3', state)).error).toEqual({
      code: -32603,
      message: 'The requestState could not be checked; retry the request.',
    });
    expect(closed).not.toContain('T-3');
    expect(errors).toContain(
      '[toolwright] MCP: the instance bus could not note a spent requestState:',
    );
    // The state was not spent: once the bus answers, the retry takes it.
    reachable = true;
    expect((await closeRound(url, 'T-3', state)).error).toBeUndefined();
    expect(closed.filter((id) => id === 'T-3')).toHaveLength(1);
  });
});
