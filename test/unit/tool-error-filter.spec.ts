/**
 * `ToolErrorFilter` outside HTTP: a WebSocket client gets the envelope as an `exception` event,
 * and in other contexts the error goes on to Nest's own handling (the filter answers nothing).
 */
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ToolError, ToolErrorFilter } from '../../lib/index.js';

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

  it('answers nothing in an RPC context, so Nest handles the error there', () => {
    const touched: string[] = [];
    const args = new Proxy({}, { get: (_t, key) => void touched.push(String(key)) });
    const host = new ExecutionContextHost([args, args]);
    host.setType('rpc');
    expect(new ToolErrorFilter().catch(error, host)).toBeUndefined();
    expect(touched).toEqual([]);
  });
});
