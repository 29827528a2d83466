import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/index.js';

describe('smoke', () => {
  it('invokes', async () => {
    const tool = defineRuntimeTool({
      description: 'x',
      identity: { serviceName: 's', action: 'a', method: 'GET' },
      input: z.object({ n: z.number() }),
      handler: ({ input }) => input.n * 2,
    });
    const invoker = createToolInvoker([tool]);
    await expect(invoker.invoke('s_a', { n: 2 }, { transport: 'MCP' })).resolves.toEqual({
      ok: true,
      data: 4,
    });
  });
});
