/**
 * `ToolErrorFilter` outside HTTP: a WebSocket client gets the envelope as an `exception` event
 * (an internal error's for a name the application's own code got wrong), and in other contexts
 * the error goes on to Nest's own handling (the filter answers nothing).
 */
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { createToolInvoker } from '../../lib/core/index.js';
import { ToolError, ToolErrorFilter } from '../../lib/index.js';
import { makeTool } from './support.js';

const error = new ToolError('NOT_FOUND', { message: 'No invoice inv_9.', hint: 'List first.' });

describe('ToolErrorFilter outside HTTP', () => {
  it('emits the envelope to a WebSocket client as an exception event', () => {
    const emitted: unknown[][] = [];
    const client = { emit: (...args: unknown[]) => void emitted.push(args) };
    const host = new ExecutionContextHost([client, { id: 'inv_9' }]);
    host.setType('ws');
    expect(new ToolErrorFilter().catch(error, host)).toBeUndefined();
    expect(emitted).toEqual([
      [
        'exception',
        {
          status: 'error',
          error: 'NOT_FOUND',
          message: 'No invoice inv_9.',
          retryable: false,
          hint: 'List first.',
        },
      ],
    ]);
  });

  it("emits an internal error's envelope for a name the application's own code got wrong", async () => {
    const invoker = createToolInvoker([makeTool({ service: 'billing', action: 'get_invoice' })]);
    const misspelt = (await invoker
      .invoke('billing_get_invoic', {}, { transport: 'AGENT' })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(misspelt.code).toBe('NOT_FOUND');
    const emitted: unknown[][] = [];
    const host = new ExecutionContextHost([{ emit: (...args: unknown[]) => emitted.push(args) }]);
    host.setType('ws');
    new ToolErrorFilter().catch(misspelt, host);
    expect(emitted).toEqual([
      [
        'exception',
        {
          status: 'error',
          error: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error',
          retryable: false,
        },
      ],
    ]);
  });

  it('answers nothing in an RPC context, so Nest handles the error there', () => {
    const touched: string[] = [];
    const args = new Proxy({}, { get: (_t, key) => void touched.push(String(key)) });
    const host = new ExecutionContextHost([args, args]);
    host.setType('rpc');
    expect(new ToolErrorFilter().catch(error, host)).toBeUndefined();
    expect(touched).toEqual([]);
  });
});
