import { describe, expect, it } from '@jest/globals';
import { normalizeError, ToolError } from '../../lib/core/errors.js';
import {
  toErrorEnvelope,
  toFailure,
  toToolError,
  type ToolFailure,
} from '../../lib/core/result.js';

describe('toFailure', () => {
  it('keeps only code, message and retryable when there are no details or hint', () => {
    const failure = toFailure(new ToolError('NOT_FOUND', { cause: new Error('secret') }));
    expect(failure).toStrictEqual({ code: 'NOT_FOUND', message: 'NOT_FOUND', retryable: false });
    expect(Object.keys(failure).sort()).toEqual(['code', 'message', 'retryable']);
  });

  it('keeps details and hint, and never a stack, a status or a cause', () => {
    const error = new ToolError('CONFLICT', {
      message: 'Invoice already paid',
      details: { id: 'inv_1' },
      hint: 'Refresh first',
      cause: new Error('db at 10.0.0.4 failed'),
    });
    const failure = toFailure(error);
    expect(failure).toStrictEqual({
      code: 'CONFLICT',
      message: 'Invoice already paid',
      retryable: false,
      details: { id: 'inv_1' },
      hint: 'Refresh first',
    });
    expect('stack' in failure).toBe(false);
    expect('cause' in failure).toBe(false);
    const json = JSON.stringify(failure);
    expect(json).not.toContain('stack');
    expect(json).not.toContain('10.0.0.4');
    expect(JSON.parse(json)).toEqual(failure);
  });

  it('carries nothing of an unexpected error through normalization', () => {
    const failure = toFailure(normalizeError(new Error('db at 10.0.0.4 failed')));
    expect(failure).toStrictEqual({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
      retryable: false,
    });
    expect(JSON.stringify(failure)).not.toMatch(/stack|10\.0\.0\.4|cause/);
  });

  it('is a plain object (JSON-safe), not an Error', () => {
    const failure = toFailure(new ToolError('X'));
    expect(Object.getPrototypeOf(failure)).toBe(Object.prototype);
  });
});

describe('toToolError', () => {
  it('returns the very ToolError a failure was made from in this process', () => {
    const error = new ToolError('ENTITY_LOCKED', { status: 423, hint: 'wait' });
    expect(toToolError(toFailure(error))).toBe(error);
  });

  it('rebuilds a ToolError from a failure that crossed a process boundary', () => {
    const failure: ToolFailure = JSON.parse(
      JSON.stringify(
        toFailure(
          new ToolError('RATE_LIMITED', {
            message: 'Slow down',
            details: { retryAfter: 3 },
            hint: 'wait 3 s',
          }),
        ),
      ),
    );
    const error = toToolError(failure);
    expect(ToolError.is(error)).toBe(true);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.status).toBe(429);
    expect(error.message).toBe('Slow down');
    expect(error.retryable).toBe(true);
    expect(error.details).toEqual({ retryAfter: 3 });
    expect(error.hint).toBe('wait 3 s');
  });

  it("keeps a rebuilt failure's retryable flag even when the code table says otherwise", () => {
    const error = toToolError({ code: 'INTERNAL_SERVER_ERROR', message: 'x', retryable: true });
    expect(error.retryable).toBe(true);
    expect(error.details).toBeUndefined();
    expect(error.hint).toBeUndefined();
  });
});

describe('toErrorEnvelope', () => {
  it('renames code to error and keeps details and hint', () => {
    const envelope = toErrorEnvelope({
      code: 'NOT_FOUND',
      message: 'No invoice inv_1',
      retryable: false,
      details: { id: 'inv_1' },
      hint: 'List invoices first',
    });
    expect(envelope).toStrictEqual({
      error: 'NOT_FOUND',
      message: 'No invoice inv_1',
      retryable: false,
      details: { id: 'inv_1' },
      hint: 'List invoices first',
    });
  });

  it('omits details and hint when the failure has none', () => {
    const envelope = toErrorEnvelope({ code: 'FORBIDDEN', message: 'no', retryable: false });
    expect(envelope).toStrictEqual({ error: 'FORBIDDEN', message: 'no', retryable: false });
    expect(Object.keys(envelope)).toEqual(['error', 'message', 'retryable']);
  });
});
