import { describe, expect, it } from '@jest/globals';
import type { ToolQuestion } from '../../lib/core/asking.js';
import { InMemoryInstanceBus, type InstanceBus } from '../../lib/core/instance-bus.js';
import { CancellableCalls } from '../../lib/mcp/eras/2025-11-25/cancellation.js';
import {
  LegacyElicitation,
  MAX_QUESTIONS_PER_CALLER,
} from '../../lib/mcp/eras/2025-11-25/asking.js';
import { initializeMessage } from '../fixtures/mcp-http.js';

/**
 * Two instances sharing one bus, as two processes share Redis: what one instance receives for
 * a call the other runs reaches that call, and only that call.
 */

/** A bus whose every operation fails, as one whose Redis is away. */
const brokenBus: InstanceBus = {
  publish: () => Promise.reject(new Error('Redis did not answer a PUBLISH within 2000 ms.')),
  subscribe: () => Promise.reject(new Error('Redis did not answer a SUBSCRIBE within 2000 ms.')),
  remember: () => Promise.reject(new Error('Redis did not answer a SET within 2000 ms.')),
  recall: () => Promise.reject(new Error('Redis did not answer a GET within 2000 ms.')),
  rememberIfAbsent: () =>
    Promise.reject(new Error('Redis did not answer a SET NX within 2000 ms.')),
};

/**
 * A call registered with its own controller, once its caller's identity is known: its signal,
 * and the function that forgets it.
 */
async function tracked(calls: CancellableCalls, caller: string | undefined, requestId: unknown) {
  const controller = new AbortController();
  const identity = Promise.resolve(caller);
  const done = calls.track(identity, requestId, controller);
  await identity;
  return { signal: controller.signal, done };
}

describe('a 2025-era cancellation that lands on another instance', () => {
  async function instances() {
    const bus = new InMemoryInstanceBus();
    const [a, b] = [new CancellableCalls(bus), new CancellableCalls(bus)];
    await Promise.all([a.listen(), b.listen()]);
    return { a, b };
  }

  it('aborts the call on the instance that runs it, with the client’s reason', async () => {
    const { a, b } = await instances();
    const call = await tracked(a, 'alice', 7);
    await b.cancel('alice', 7, 'user pressed stop');
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe('user pressed stop');
  });

  it('leaves another caller’s call with the same id, and another id, running', async () => {
    const { a, b } = await instances();
    const bobs = await tracked(a, 'bob', 7);
    const other = await tracked(a, 'alice', 8);
    await b.cancel('alice', 7, 'stop');
    expect([bobs.signal.aborted, other.signal.aborted]).toEqual([false, false]);
  });

  it('ignores a cancellation of an id two indistinguishable callers both have in flight', async () => {
    const { a, b } = await instances();
    const first = await tracked(a, 'alice', 7);
    const second = await tracked(a, 'alice', 7);
    await b.cancel('alice', 7, 'stop');
    expect([first.signal.aborted, second.signal.aborted]).toEqual([false, false]);
    second.done();
    await b.cancel('alice', 7, 'stop');
    expect(first.signal.aborted).toBe(true);
  });

  it('a call that ended is forgotten: a late cancellation aborts nothing', async () => {
    const { a, b } = await instances();
    const call = await tracked(a, 'alice', 7);
    call.done();
    expect(a.size).toBe(0);
    await b.cancel('alice', 7, 'stop');
    expect(call.signal.aborted).toBe(false);
  });

  it('a call whose request names no caller cannot be cancelled, and a cancellation from nobody cancels nothing', async () => {
    const { a, b } = await instances();
    const anonymous = await tracked(a, undefined, 7);
    expect(a.size).toBe(0);
    const alices = await tracked(a, 'alice', 7);
    await b.cancel(undefined, 7, 'stop');
    await a.cancel(undefined, 7, 'stop');
    expect([anonymous.signal.aborted, alices.signal.aborted]).toEqual([false, false]);
  });

  it('a message on the bus that is not JSON is logged, and the next one still heard', async () => {
    const bus = new InMemoryInstanceBus();
    const errors: string[] = [];
    const a = new CancellableCalls(bus, { error: (message: string) => errors.push(message) });
    await a.listen();
    const call = await tracked(a, 'alice', 7);
    await bus.publish('toolwright:mcp:cancellations', 'not json');
    expect(errors).toEqual([expect.stringContaining('could not be read')]);
    await new CancellableCalls(bus).cancel('alice', 7, 'stop');
    expect(call.signal.aborted).toBe(true);
  });

  it('a call that ends before its caller is known is never registered', async () => {
    const calls = new CancellableCalls();
    let identify!: (identity: string) => void;
    const forget = calls.track(
      new Promise<string>((resolve) => (identify = resolve)),
      7,
      new AbortController(),
    );
    forget();
    identify('alice');
    await Promise.resolve();
    expect(calls.size).toBe(0);
  });

  it('the caller crosses the bus as a digest, never as its credential', async () => {
    const bus = new InMemoryInstanceBus();
    const published: string[] = [];
    await bus.subscribe('toolwright:mcp:cancellations', (message) => published.push(message));
    await new CancellableCalls(bus).cancel('Bearer secret-token', 7, 'stop');
    expect(published).toHaveLength(1);
    expect(published[0]).not.toContain('secret-token');
    expect(JSON.parse(published[0])).toEqual({
      who: expect.stringMatching(/^[\w-]{43}$/),
      requestId: 7,
      reason: 'stop',
    });
  });

  it('a bus that cannot take it rejects, with its reason', async () => {
    await expect(new CancellableCalls(brokenBus).cancel('alice', 7)).rejects.toThrow(
      'Redis did not answer a PUBLISH',
    );
  });
});

describe('a 2025-era question whose declaration and answer land on other instances', () => {
  const question: ToolQuestion = {
    kind: 'confirm',
    message: 'Close T-1?',
    call: { name: 'desk_close' } as ToolQuestion['call'],
  };
  const initialize = (capabilities: object) => initializeMessage(capabilities);

  async function instances() {
    const bus = new InMemoryInstanceBus();
    const [a, b] = [
      new LegacyElicitation(5_000, bus, console),
      new LegacyElicitation(5_000, bus, console),
    ];
    await Promise.all([a.listen(), b.listen()]);
    return { a, b };
  }

  /** Asks on `a`; resolves to the question's answer promise and the id it was sent with. */
  async function ask(on: LegacyElicitation, who: string) {
    let id = '';
    const answer = on.ask(question, who, new AbortController().signal, async (message) => {
      id = message.id as string;
    });
    await Promise.resolve();
    return { answer, id };
  }

  it('an initialize on one instance lets the other ask', async () => {
    const { a, b } = await instances();
    await b.remember('alice', initialize({ elicitation: {} }));
    expect(await a.canAsk('alice')).toBe(true);
    expect(await a.canAsk('bob')).toBe(false);
  });

  it('an answer posted to the other instance settles the question where it was asked', async () => {
    const { a, b } = await instances();
    const { answer, id } = await ask(a, 'alice');
    await b.settle({ jsonrpc: '2.0', id, result: { action: 'accept' } }, 'alice');
    await expect(answer).resolves.toEqual({ action: 'accept', content: {} });
    expect(a.size).toBe(0);
  });

  it('an answer from another caller settles nothing, on either instance', async () => {
    const { a, b } = await instances();
    const { answer, id } = await ask(a, 'alice');
    const forged = { jsonrpc: '2.0', id, result: { action: 'accept' } };
    await b.settle(forged, 'mallory');
    await a.settle(forged, 'mallory');
    expect(a.size).toBe(1);
    await b.settle({ jsonrpc: '2.0', id, result: { action: 'decline' } }, 'alice');
    await expect(answer).resolves.toEqual({ action: 'decline' });
  });

  it('a message that is not an answer to one of its questions is not taken', async () => {
    const { b } = await instances();
    expect(b.settle({ jsonrpc: '2.0', id: 'someone-else-1', result: {} }, 'alice')).toBe(false);
    expect(b.settle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'alice')).toBe(false);
  });

  it('a request that names no caller notes no declaration and settles nothing', async () => {
    const { a, b } = await instances();
    await b.remember(undefined, initialize({ elicitation: {} }));
    const { answer, id } = await ask(a, 'alice');
    await expect(
      b.settle({ jsonrpc: '2.0', id, result: { action: 'accept' } }, undefined),
    ).resolves.toBeUndefined();
    await a.settle({ jsonrpc: '2.0', id, result: { action: 'accept' } }, undefined);
    expect(a.size).toBe(1);
    await a.settle({ jsonrpc: '2.0', id, result: { action: 'decline' } }, 'alice');
    await expect(answer).resolves.toEqual({ action: 'decline' });
  });

  it(`a caller has at most ${MAX_QUESTIONS_PER_CALLER} questions waiting; others still ask`, async () => {
    const { a } = await instances();
    const asked = await Promise.all(
      Array.from({ length: MAX_QUESTIONS_PER_CALLER }, () => ask(a, 'alice')),
    );
    await expect(
      a.ask(question, 'alice', new AbortController().signal, async () => undefined),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const bobs = await ask(a, 'bob');
    expect(a.size).toBe(MAX_QUESTIONS_PER_CALLER + 1);
    // One answered: alice may ask again.
    await a.settle({ jsonrpc: '2.0', id: asked[0].id, result: { action: 'cancel' } }, 'alice');
    await expect(asked[0].answer).resolves.toEqual({ action: 'cancel' });
    const again = await ask(a, 'alice');
    for (const { id } of [...asked.slice(1), bobs, again]) {
      const who = id === bobs.id ? 'bob' : 'alice';
      await a.settle({ jsonrpc: '2.0', id, result: { action: 'cancel' } }, who);
    }
    expect(a.size).toBe(0);
  });

  it('a message on the bus that is not JSON is logged, and the next one still heard', async () => {
    const bus = new InMemoryInstanceBus();
    const errors: string[] = [];
    const questions = new LegacyElicitation(5_000, bus, {
      error: (message: string) => errors.push(message),
    });
    await questions.listen();
    await bus.publish('toolwright:mcp:answers', 'not json');
    expect(errors).toEqual([expect.stringContaining('could not be read')]);
    const { answer, id } = await ask(questions, 'alice');
    await new LegacyElicitation(5_000, bus, console).settle(
      { jsonrpc: '2.0', id, result: { action: 'accept' } },
      'alice',
    );
    await expect(answer).resolves.toEqual({ action: 'accept', content: {} });
  });

  it('a bus that cannot pass the answer on rejects; one that cannot note the declaration logs it', async () => {
    const errors: string[] = [];
    const questions = new LegacyElicitation(5_000, brokenBus, {
      error: (message: string) => errors.push(message),
    });
    await expect(
      questions.settle({ jsonrpc: '2.0', id: 'tw-elicit-1', result: { action: 'accept' } }, 'a'),
    ).rejects.toThrow('Redis did not answer a PUBLISH');
    await expect(questions.remember('a', initialize({ elicitation: {} }))).resolves.toBe(undefined);
    expect(errors).toEqual([expect.stringContaining('could not be noted on the instance bus')]);
    await expect(questions.canAsk('a')).rejects.toThrow('Redis did not answer a GET');
  });
});
