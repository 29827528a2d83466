/**
 * A call's answer goes out after the notifications it sent: a client drops a progress
 * notification that reaches it after the response to its request (both SDK clients do).
 */
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { McpToolSurface } from '../../lib/mcp/tool-surface.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const work = defineRuntimeTool({
  description: 'Works in one step',
  identity: { serviceName: 'jobs', action: 'work', method: 'POST' },
  input: z.object({}),
  handler: ({ reportProgress, log }) => {
    reportProgress({ progress: 1, total: 1 });
    log.info('done');
    return { done: true };
  },
});

describe('the notifications of a call', () => {
  it('are sent before its answer, however long sending them takes', async () => {
    const surface = new McpToolSurface({
      invoker: createToolInvoker([work]),
      options: { serverInfo: { name: 't', version: '1' } },
      logger: { error: () => undefined },
    });
    const order: string[] = [];
    const sending = [deferred(), deferred()];
    let sent = 0;
    const answer = Promise.resolve(
      surface.call(
        'legacy',
        'jobs_work',
        {},
        {
          requestId: 1,
          signal: new AbortController().signal,
          progressToken: 'p',
          notify: (method) => {
            const { promise } = sending[sent++];
            return promise.then(() => void order.push(method));
          },
        },
      ),
    ).then(() => void order.push('answer'));
    // Let the call run as far as it can while both notifications are still being sent.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(order).toEqual([]);
    sending[1].resolve();
    sending[0].resolve();
    await answer;
    expect(order).toEqual(['notifications/message', 'notifications/progress', 'answer']);
  });
});
