import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  presentationOf,
  type AfterToolCallEvent,
  type ToolErrorEvent,
} from '../../lib/core/index.js';

const presented = (mcp: (output: { n: number }) => { content: { type: string; text: string }[] }) =>
  defineRuntimeTool({
    name: 'shown',
    description: 'A tool with an MCP presenter',
    identity: { serviceName: 'demo', action: 'shown', method: 'GET' },
    input: z.object({ n: z.number() }),
    output: z.object({ n: z.number() }),
    present: { mcp },
    handler: ({ input }) => ({ n: input.n }),
  });

describe('presenters run inside the call', () => {
  it('keeps the presentation beside a success, and only when the call asks for it', async () => {
    const mcp = jest.fn((output: { n: number }) => ({
      content: [{ type: 'text', text: `n is ${output.n}` }],
    }));
    const invoker = createToolInvoker([presented(mcp)]);

    const asked = await invoker.invoke('shown', { n: 2 }, { transport: 'MCP', present: 'mcp' });
    expect(asked).toEqual({ ok: true, data: { n: 2 } });
    expect(presentationOf(asked)).toEqual({ content: [{ type: 'text', text: 'n is 2' }] });

    const plain = await invoker.invoke('shown', { n: 3 }, { transport: 'MCP' });
    expect(presentationOf(plain)).toBeUndefined();
    expect(mcp).toHaveBeenCalledTimes(1);
  });

  it('makes a presenter that throws a failure that hooks and events see', async () => {
    const thrown = new Error('template broke at /srv/app/view.ts');
    const errors: ToolErrorEvent[] = [];
    const after: AfterToolCallEvent[] = [];
    const events: unknown[] = [];
    const invoker = createToolInvoker(
      [
        presented(() => {
          throw thrown;
        }),
      ],
      {
        hooks: {
          onToolError: (o) => void errors.push(o),
          afterToolCall: (o) => void after.push(o),
        },
        onCallFinished: (event) => events.push(event),
      },
    );

    const result = await invoker.invoke('shown', { n: 1 }, { transport: 'MCP', present: 'mcp' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(errors.map((o) => o.error)).toEqual([thrown]);
    expect(after[0]).toMatchObject({ result, error: thrown });
    expect(events).toEqual([
      expect.objectContaining({ ok: false, errorCode: 'INTERNAL_SERVER_ERROR' }),
    ]);
  });
});
