import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  TOOL_ERROR_STATUS,
  ToolError,
  ToolsConfigurationError,
} from '../../lib/core/index.js';
import {
  isRetryableStatus,
  MAX_REPORTED_ISSUES,
  normalizeError,
  validationError,
} from '../../lib/core/errors.js';

describe('TOOL_ERROR_STATUS', () => {
  it('maps every framework code to the documented status and is frozen', () => {
    expect(TOOL_ERROR_STATUS).toEqual({
      BAD_REQUEST: 400,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      VALIDATION_ERROR: 400,
      RATE_LIMITED: 429,
      REQUEST_TIMEOUT: 408,
      REQUEST_ABORTED: 499,
      INTERNAL_SERVER_ERROR: 500,
      NOT_IMPLEMENTED: 501,
      SERVICE_UNAVAILABLE: 503,
      RECURSION_LIMIT: 508,
      USER_INPUT_UNAVAILABLE: 428,
      INPUT_REQUIRED: 202,
    });
    expect(Object.isFrozen(TOOL_ERROR_STATUS)).toBe(true);
  });
});

describe('ToolsConfigurationError', () => {
  it('is an Error named ToolsConfigurationError, keeping a cause', () => {
    const cause = new Error('root');
    const error = new ToolsConfigurationError('Duplicate tool name "x"', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolsConfigurationError');
    expect(error.message).toBe('Duplicate tool name "x"');
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('ToolsConfigurationError: Duplicate tool name "x"');
    expect(ToolError.is(error)).toBe(false);
  });
});

describe('ToolError', () => {
  it('defaults the message to the code', () => {
    const error = new ToolError('NOT_FOUND');
    expect(error.message).toBe('NOT_FOUND');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.name).toBe('ToolError');
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ToolError);
  });

  it('keeps an explicit message, details, hint and cause', () => {
    const cause = new Error('root cause');
    const error = new ToolError('CONFLICT', {
      message: 'Invoice already paid',
      details: { id: 'inv_1' },
      hint: 'Refresh the invoice',
      cause,
    });
    expect(error.message).toBe('Invoice already paid');
    expect(error.details).toEqual({ id: 'inv_1' });
    expect(error.hint).toBe('Refresh the invoice');
    expect(error.cause).toBe(cause);
  });

  it('has no cause, details or hint when none is given', () => {
    const error = new ToolError('CONFLICT');
    expect(error.cause).toBeUndefined();
    expect(error.details).toBeUndefined();
    expect(error.hint).toBeUndefined();
    expect(Object.hasOwn(error, 'cause')).toBe(false);
  });

  it.each(Object.entries(TOOL_ERROR_STATUS))('defaults the status of %s to %i', (code, status) => {
    expect(new ToolError(code).status).toBe(status);
  });

  it('defaults the status of an unknown code to 500', () => {
    expect(new ToolError('ENTITY_LOCKED').status).toBe(500);
  });

  it.each(['toString', 'constructor', 'hasOwnProperty', '__proto__'])(
    'does not take the status of code %s from Object.prototype',
    (code) => {
      const error = new ToolError(code);
      expect(error.status).toBe(500);
      expect(error.retryable).toBe(false);
    },
  );

  it('keeps an explicit status over the table', () => {
    expect(new ToolError('ENTITY_LOCKED', { status: 423 }).status).toBe(423);
    expect(new ToolError('NOT_FOUND', { status: 410 }).status).toBe(410);
  });

  it.each([
    [408, true],
    [429, true],
    [502, true],
    [503, true],
    [504, true],
    [400, false],
    [401, false],
    [404, false],
    [409, false],
    [499, false],
    [500, false],
    [501, false],
    [505, false],
    [508, false],
  ])('is retryable for status %i: %s', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
    expect(new ToolError('SOME_CODE', { status }).retryable).toBe(retryable);
  });

  it('derives retryable from the code table', () => {
    expect(new ToolError('REQUEST_TIMEOUT').retryable).toBe(true);
    expect(new ToolError('RATE_LIMITED').retryable).toBe(true);
    expect(new ToolError('SERVICE_UNAVAILABLE').retryable).toBe(true);
    expect(new ToolError('INTERNAL_SERVER_ERROR').retryable).toBe(false);
    expect(new ToolError('REQUEST_ABORTED').retryable).toBe(false);
  });

  it('keeps an explicit retryable over the status', () => {
    expect(new ToolError('INTERNAL_SERVER_ERROR', { retryable: true }).retryable).toBe(true);
    expect(new ToolError('SERVICE_UNAVAILABLE', { retryable: false }).retryable).toBe(false);
  });

  describe('ToolError.is', () => {
    it('recognises a ToolError', () => {
      expect(ToolError.is(new ToolError('X'))).toBe(true);
    });

    it('recognises a ToolError of another copy of the package by its brand', () => {
      // What another copy's ToolError looks like to this copy: not an instance, but branded.
      const foreign = Object.create(Error.prototype);
      Object.defineProperty(foreign, Symbol.for('toolwright.ToolError'), { value: true });
      Object.assign(foreign, { code: 'CONFLICT', status: 409, retryable: false, message: 'x' });
      expect(foreign).not.toBeInstanceOf(ToolError);
      expect(ToolError.is(foreign)).toBe(true);
    });

    it('refuses plain errors and look-alikes without the brand', () => {
      expect(ToolError.is(new Error('NOT_FOUND'))).toBe(false);
      expect(ToolError.is({ code: 'NOT_FOUND', status: 404, retryable: false })).toBe(false);
      expect(ToolError.is(Object.create(ToolError.prototype))).toBe(false);
      // A brand under a different symbol (a local Symbol, not the registered one) does not count.
      const local = Object.create(Error.prototype);
      local[Symbol('toolwright.ToolError')] = true;
      expect(ToolError.is(local)).toBe(false);
      // A truthy but non-true brand does not count.
      const truthy = Object.create(Error.prototype);
      truthy[Symbol.for('toolwright.ToolError')] = 1;
      expect(ToolError.is(truthy)).toBe(false);
    });

    it.each([null, undefined, 0, 'ToolError', true])('refuses %p', (value) => {
      expect(ToolError.is(value)).toBe(false);
    });
  });
});

/** A tool whose handler throws `value`. */
const throwing = (value: unknown) =>
  defineRuntimeTool({
    description: 'Throw',
    identity: { serviceName: 'errors', action: 'throw', method: 'POST' },
    input: z.object({}),
    handler: () => {
      throw value;
    },
  });

describe('normalizeError', () => {
  it('keeps a ToolError by identity', () => {
    const error = new ToolError('CONFLICT', { hint: 'retry later' });
    expect(normalizeError(error)).toBe(error);
  });

  it('keeps a branded ToolError of another copy by identity, without calling mapError', async () => {
    const foreign = Object.create(Error.prototype);
    Object.defineProperty(foreign, Symbol.for('toolwright.ToolError'), { value: true });
    Object.assign(foreign, { code: 'CONFLICT', message: 'Taken', retryable: false });
    expect(normalizeError(foreign)).toBe(foreign);
    const mapError = jest.fn(() => new ToolError('BAD_REQUEST'));
    const invoker = createToolInvoker([throwing(foreign)], { mapError });
    expect(await invoker.invoke('errors_throw', {}, { transport: 'AGENT' })).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'Taken', retryable: false },
    });
    expect(mapError).not.toHaveBeenCalled();
  });

  it('lets mapError translate a custom error class (a fake HttpException)', async () => {
    class HttpException extends Error {
      constructor(
        readonly response: string,
        readonly status: number,
      ) {
        super(response);
      }
      getStatus() {
        return this.status;
      }
    }
    const mapError = (error: unknown) =>
      error instanceof HttpException
        ? new ToolError(error.getStatus() === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', {
            message: error.message,
            cause: error,
          })
        : undefined;
    const thrown = new HttpException('No such invoice', 404);
    let seen: unknown;
    const invoke = (value: unknown) =>
      createToolInvoker([throwing(value)], {
        mapError,
        hooks: { afterToolCall: ({ error }) => void (seen = error) },
      }).invoke('errors_throw', {}, { transport: 'AGENT' });
    expect(await invoke(thrown)).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No such invoice', retryable: false },
    });
    expect(seen).toBe(thrown);

    // mapError returning undefined leaves the value to the default rules.
    expect(await invoke(new Error('boom'))).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
  });

  it('turns a ZodError into VALIDATION_ERROR with issues, "(root)" for a top-level issue', () => {
    const zodError = z.string().safeParse(42).error!;
    const error = normalizeError(zodError);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.cause).toBe(zodError);
    expect(error.details).toEqual({
      issues: [{ path: '(root)', code: 'invalid_type', message: expect.any(String) }],
    });
    expect(error.message).toMatch(/^Invalid value: \(root\): /);
  });

  it('turns a thrown ZodError into dotted paths', () => {
    const schema = z.object({
      user: z.object({ name: z.string(), tags: z.array(z.string()) }),
      age: z.number(),
    });
    let thrown: unknown;
    try {
      schema.parse({ user: { name: 1, tags: ['a', 2] }, age: 'x' });
    } catch (error) {
      thrown = error;
    }
    const error = normalizeError(thrown);
    expect(error.code).toBe('VALIDATION_ERROR');
    const issues = error.details!.issues as { path: string; code: string; message: string }[];
    expect(issues.map((issue) => issue.path)).toEqual(['user.name', 'user.tags.1', 'age']);
    expect(issues.every((issue) => issue.code === 'invalid_type')).toBe(true);
    expect(error.message).toContain('user.name: ');
    expect(error.message).toContain('; age: ');
  });

  it('reports at most 20 issues and summarises at most 5 in the message', () => {
    const shape = Object.fromEntries(
      Array.from({ length: 25 }, (_, index) => [`f${index}`, z.string()]),
    );
    const zodError = z.object(shape).safeParse({}).error!;
    expect(zodError.issues).toHaveLength(25);
    const error = normalizeError(zodError);
    const issues = error.details!.issues as { path: string }[];
    expect(MAX_REPORTED_ISSUES).toBe(20);
    expect(issues).toHaveLength(20);
    expect(issues[0].path).toBe('f0');
    expect(issues[19].path).toBe('f19');
    expect(error.message).toContain('f4: ');
    expect(error.message).not.toContain('f5: ');
    expect(error.message).toContain('…and 20 more');
  });

  it('lets mapError see a ZodError first', async () => {
    const zodError = z.string().safeParse(1).error!;
    const invoker = createToolInvoker([throwing(zodError)], {
      mapError: () => new ToolError('BAD_REQUEST'),
    });
    expect(await invoker.invoke('errors_throw', {}, { transport: 'AGENT' })).toEqual({
      ok: false,
      error: { code: 'BAD_REQUEST', message: 'BAD_REQUEST', retryable: false },
    });
  });

  it.each([
    ['an Error', new Error('db at 10.0.0.4 failed')],
    ['a TypeError', new TypeError('x is not a function')],
    ['a string', 'secret string'],
    ['undefined', undefined],
    ['null', null],
    ['a plain object', { code: 'NOT_FOUND', message: 'looks like a failure' }],
  ])('turns %s into INTERNAL_SERVER_ERROR "Internal server error"', (_label, value) => {
    const error = normalizeError(value);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('Internal server error');
    expect(error.details).toBeUndefined();
    expect(error.cause).toBe(value);
  });
});

describe('validationError', () => {
  it('builds VALIDATION_ERROR with the target, issues and a readable summary', () => {
    const zodError = z.object({ name: z.string(), age: z.number() }).safeParse({ age: 'x' }).error!;
    const error = validationError('input', zodError);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.status).toBe(400);
    expect(error.cause).toBe(zodError);
    expect(error.details).toEqual({
      target: 'input',
      issues: [
        { path: 'name', code: 'invalid_type', message: expect.any(String) },
        { path: 'age', code: 'invalid_type', message: expect.any(String) },
      ],
    });
    expect(error.message).toMatch(/^Invalid input: name: .+; age: .+$/);
  });

  it('names the context target', () => {
    const zodError = z.object({ tenantId: z.string() }).safeParse({}).error!;
    const error = validationError('context', zodError);
    expect(error.details!.target).toBe('context');
    expect(error.message).toMatch(/^Invalid context: tenantId: /);
  });
});
