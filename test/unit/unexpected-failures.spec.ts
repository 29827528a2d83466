/**
 * The habits of other MCP libraries the core recognises, and where unexpected failures are
 * logged: a handler that returns an MCP result is warned about once per tool, an output that
 * does not match its schema names the fix, and `logUnexpectedErrors` picks the level.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, type ToolLogger } from '../../lib/core/index.js';
import { makeLogger, makeTool } from './support.js';

const MCP_RESULT = { content: [{ type: 'text', text: 'hello' }] };
const FIX =
  'toolwright builds the MCP result (content and structuredContent) from the data a handler ' +
  'returns: return the data itself, and to choose the content blocks a model reads, declare an ' +
  'output schema and a present.mcp presenter';

describe('a handler that returns an MCP result', () => {
  it('is warned about once per tool when the tool has no output schema, and its result is its data', async () => {
    const logger = makeLogger();
    const invoker = createToolInvoker(
      [
        makeTool({ action: 'one', handler: () => MCP_RESULT }),
        makeTool({ action: 'two', handler: () => MCP_RESULT }),
        makeTool({ action: 'data', handler: () => ({ content: [], text: 'not a result' }) }),
      ],
      { logger },
    );
    for (const name of ['test_one', 'test_one', 'test_two', 'test_data']) {
      const result = await invoker.invoke(name, {}, { transport: 'MCP' });
      expect(result.ok).toBe(true);
    }
    expect(logger.warn.mock.calls).toEqual([
      [
        `[toolwright] Tool "test_one" returned an MCP result ({ content: [...] }), which is sent as its data: ${FIX}.`,
      ],
      [
        `[toolwright] Tool "test_two" returned an MCP result ({ content: [...] }), which is sent as its data: ${FIX}.`,
      ],
    ]);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('fails its output schema with a log line that names the fix', async () => {
    const logger = makeLogger();
    const invoker = createToolInvoker(
      [makeTool({ output: z.object({ text: z.string() }), handler: () => MCP_RESULT })],
      { logger },
    );
    const result = await invoker.invoke('test_run', {}, { transport: 'MCP' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(logger.error.mock.calls).toEqual([
      [
        expect.stringMatching(
          /^\[toolwright\] Tool "test_run" failed unexpectedly: its output does not match its output schema \(it returned an MCP result: toolwright builds .* present\.mcp presenter\) \(call /,
        ),
        expect.any(z.ZodError),
      ],
    ]);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});

describe('logUnexpectedErrors', () => {
  const boom = new Error('boom');
  const failing = makeTool({
    handler: () => {
      throw boom;
    },
  });

  it.each([
    ['error (the default)', undefined, 'error'],
    ['warn', 'warn', 'warn'],
    ['debug', 'debug', 'debug'],
  ] as const)('logs at %s', async (_label, level, method) => {
    const logger = { ...makeLogger(), debug: jest.fn<NonNullable<ToolLogger['debug']>>() };
    const invoker = createToolInvoker([failing], { logger, logUnexpectedErrors: level });
    await invoker.invoke('test_run', { secret: 'x' }, { transport: 'MCP', context: { key: 'k' } });
    const calls = {
      error: logger.error.mock.calls,
      warn: logger.warn.mock.calls,
      debug: logger.debug.mock.calls,
    };
    expect(calls[method]).toEqual([
      [
        expect.stringMatching(
          /^\[toolwright\] Tool "test_run" failed unexpectedly \(call .*, MCP\/internal\):$/,
        ),
        boom,
      ],
    ]);
    for (const other of ['error', 'warn', 'debug'] as const) {
      if (other !== method) expect(calls[other]).toEqual([]);
    }
  });

  it('logs nothing with false, or at a level the logger lacks', async () => {
    const logger = makeLogger();
    await createToolInvoker([failing], { logger, logUnexpectedErrors: false }).invoke(
      'test_run',
      {},
      { transport: 'MCP' },
    );
    await createToolInvoker([failing], { logger, logUnexpectedErrors: 'debug' }).invoke(
      'test_run',
      {},
      { transport: 'MCP' },
    );
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
