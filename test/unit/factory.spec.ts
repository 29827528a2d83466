import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  createToolInvoker,
  ToolsConfigurationError,
  type ToolGuard,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { sleep } from '../fixtures/timing.js';

const tenantContext = z.object({ tenantId: z.string() });

describe('createRuntimeToolFactory', () => {
  it('exposes its identity and context schema, frozen', () => {
    const factory = createRuntimeToolFactory({
      serviceName: 'billing',
      scope: 'tenant',
      context: tenantContext,
    });
    expect(factory.serviceName).toBe('billing');
    expect(factory.scope).toBe('tenant');
    expect(factory.context).toBe(tenantContext);
    expect(Object.isFrozen(factory)).toBe(true);
  });

  it('refuses a context that is not a schema', () => {
    expect(() =>
      createRuntimeToolFactory({ serviceName: 'billing', context: { tenantId: 'x' } as any }),
    ).toThrow(new ToolsConfigurationError(CORE_MESSAGES.factoryContext('billing')));
    expect(() => createRuntimeToolFactory({ serviceName: 'billing' } as any)).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.factoryContext('billing')),
    );
  });

  it('defines ordinary runtime tools with the identity and context of the factory', () => {
    const factory = createRuntimeToolFactory({
      serviceName: 'billing',
      scope: 'tenant',
      meta: { team: 'payments' },
      context: tenantContext,
    });
    const tool = factory.define({
      action: 'getInvoice',
      method: 'GET',
      description: 'Fetch one invoice',
      input: z.object({ id: z.string() }),
      handler: () => null,
    });
    expect(tool.kind).toBe('runtime');
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool.name).toBe('billing_get_invoice');
    expect(tool.identity).toStrictEqual({
      serviceName: 'billing',
      action: 'getInvoice',
      method: 'GET',
      scope: 'tenant',
      meta: { team: 'payments' },
    });
    expect(tool.context).toBe(tenantContext);
    expect(tool.annotations).toStrictEqual({ readOnlyHint: true });
  });

  it('leaves scope and meta out of the identity when the factory has none', () => {
    const tool = createRuntimeToolFactory({ serviceName: 'notes', context: z.object({}) }).define({
      action: 'add',
      method: 'POST',
      description: 'x',
      input: z.object({}),
      handler: () => null,
    });
    expect(tool.identity).toStrictEqual({ serviceName: 'notes', action: 'add', method: 'POST' });
  });

  it('does not let a definition override serviceName, scope or context, even through `as any`', () => {
    const factory = createRuntimeToolFactory({
      serviceName: 'billing',
      scope: 'tenant',
      context: tenantContext,
    });
    const other = z.object({ admin: z.boolean() });
    const tool = factory.define({
      action: 'getInvoice',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler: () => null,
      serviceName: 'evil',
      scope: 'global',
      context: other,
      identity: { serviceName: 'evil', action: 'steal', method: 'DELETE', scope: 'global' },
    } as any);
    expect(tool.identity.serviceName).toBe('billing');
    expect(tool.identity.scope).toBe('tenant');
    expect(tool.identity.action).toBe('getInvoice');
    expect(tool.identity.method).toBe('GET');
    expect(tool.name).toBe('billing_get_invoice');
    expect(tool.context).toBe(tenantContext);
  });

  it('replaces (does not merge) the factory meta per tool', () => {
    const factory = createRuntimeToolFactory({
      serviceName: 'billing',
      meta: { team: 'payments', tier: 1 },
      context: tenantContext,
    });
    const common = { method: 'GET' as const, description: 'x', input: z.object({}) };
    const own = factory.define({
      ...common,
      action: 'a',
      meta: { audit: true },
      handler: () => null,
    });
    const inherited = factory.define({ ...common, action: 'b', handler: () => null });
    expect(own.identity.meta).toStrictEqual({ audit: true });
    expect(inherited.identity.meta).toStrictEqual({ team: 'payments', tier: 1 });
  });

  it('passes the other declared fields through', () => {
    const output = z.object({ ok: z.boolean() });
    const tool = createRuntimeToolFactory({
      serviceName: 'billing',
      context: tenantContext,
    }).define({
      name: 'custom',
      action: 'a',
      method: 'PUT',
      description: 'desc',
      input: z.object({}),
      output,
      transports: ['CLI'],
      annotations: { title: 'T' },
      timeoutMs: 50,
      present: { agent: (value) => value },
      handler: () => ({ ok: true }),
    });
    expect(tool.name).toBe('custom');
    expect(tool.output).toBe(output);
    expect(tool.transports).toEqual(['CLI']);
    expect(tool.annotations).toStrictEqual({
      readOnlyHint: false,
      idempotentHint: true,
      title: 'T',
    });
    expect(tool.timeoutMs).toBe(50);
    expect(typeof tool.present?.agent).toBe('function');
  });
});

describe('factory context at call time', () => {
  function countingFactory() {
    const counter = { parses: 0 };
    const context = z.preprocess(
      (value) => {
        counter.parses++;
        return value;
      },
      z.object({ tenantId: z.string() }),
    );
    const factory = createRuntimeToolFactory({ serviceName: 'billing', context });
    return { counter, factory };
  }

  it('parses the context once per call inside the runner, never caching it', async () => {
    const { counter, factory } = countingFactory();
    const tool = factory.define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler: async ({ context }) => {
        await sleep(5);
        return context.tenantId;
      },
    });
    expect(counter.parses).toBe(0); // defining does not parse
    const invoker = createToolInvoker([tool]);
    expect(counter.parses).toBe(0); // compiling does not parse

    const [a, b] = await Promise.all([
      invoker.invoke('billing_whoami', {}, { transport: 'AGENT', context: { tenantId: 'acme' } }),
      invoker.invoke('billing_whoami', {}, { transport: 'AGENT', context: { tenantId: 'globex' } }),
    ]);
    expect(counter.parses).toBe(2);
    expect(a).toEqual({ ok: true, data: 'acme' });
    expect(b).toEqual({ ok: true, data: 'globex' });

    await invoker.invoke(
      'billing_whoami',
      {},
      { transport: 'AGENT', context: { tenantId: 'acme' } },
    );
    expect(counter.parses).toBe(3); // the same context again is parsed again
  });

  it('hands the handler only the declared keys, while hooks see the raw context', async () => {
    const seen: { handler?: unknown; before?: unknown; guard?: unknown } = {};
    const tool = createRuntimeToolFactory({
      serviceName: 'billing',
      context: tenantContext,
    }).define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler: ({ context }) => {
        seen.handler = context;
        return null;
      },
    });
    const guard: ToolGuard = {
      canActivate: ({ context }) => {
        seen.guard = context;
        return true;
      },
    };
    const invoker = createToolInvoker([tool], {
      guards: [guard],
      hooks: { beforeToolCall: ({ context }) => void (seen.before = context) },
    });
    const raw = { tenantId: 'acme', secret: 'do-not-pass', role: 'admin' };
    const result = await invoker.invoke('billing_whoami', {}, { transport: 'MCP', context: raw });
    expect(result.ok).toBe(true);
    expect(seen.handler).toStrictEqual({ tenantId: 'acme' });
    expect(seen.guard).toStrictEqual({ tenantId: 'acme' });
    expect(seen.before).toEqual(raw);
  });

  it('never hands the handler an unparsed context (transforms and defaults apply)', async () => {
    const context = z.object({
      tenantId: z.string().transform((value) => value.toUpperCase()),
      region: z.string().default('eu'),
    });
    const handler = jest.fn(({ context }: { context: unknown }) => context);
    const tool = createRuntimeToolFactory({ serviceName: 'billing', context }).define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler,
    });
    const invoker = createToolInvoker([tool]);
    const raw = { tenantId: 'acme' };
    const result = await invoker.invoke('billing_whoami', {}, { transport: 'MCP', context: raw });
    expect(result).toEqual({ ok: true, data: { tenantId: 'ACME', region: 'eu' } });
    expect(handler.mock.calls[0][0].context).not.toBe(raw);
    expect(raw).toEqual({ tenantId: 'acme' }); // the caller's object is not mutated
  });

  it('answers VALIDATION_ERROR with target "context" for an invalid context, without calling the handler', async () => {
    const handler = jest.fn(() => null);
    const tool = createRuntimeToolFactory({
      serviceName: 'billing',
      context: tenantContext,
    }).define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler,
    });
    const invoker = createToolInvoker([tool]);
    const wrong = await invoker.invoke(
      'billing_whoami',
      {},
      { transport: 'MCP', context: { tenantId: 42 } },
    );
    const missing = await invoker.invoke('billing_whoami', {}, { transport: 'MCP' });
    for (const result of [wrong, missing]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe('VALIDATION_ERROR');
      expect(result.error.retryable).toBe(false);
      expect(result.error.message).toMatch(/^Invalid context: tenantId: /);
      expect(result.error.details).toEqual({
        target: 'context',
        issues: [{ path: 'tenantId', code: 'invalid_type', message: expect.any(String) }],
      });
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it('parses a context schema with async refinements', async () => {
    const context = z
      .object({ tenantId: z.string() })
      .refine(async (value) => value.tenantId !== 'blocked', { message: 'blocked tenant' });
    const tool = createRuntimeToolFactory({ serviceName: 'billing', context }).define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler: ({ context }) => context.tenantId,
    });
    const invoker = createToolInvoker([tool]);
    await expect(
      invoker.invoke('billing_whoami', {}, { transport: 'MCP', context: { tenantId: 'acme' } }),
    ).resolves.toEqual({ ok: true, data: 'acme' });
    const blocked = await invoker.invoke(
      'billing_whoami',
      {},
      { transport: 'MCP', context: { tenantId: 'blocked' } },
    );
    expect(blocked.ok || blocked.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { target: 'context', issues: [{ path: '(root)', message: 'blocked tenant' }] },
    });
  });

  it('merges the caller context over the resolved ambient context before parsing', async () => {
    const context = z.object({ tenantId: z.string(), userId: z.string() });
    const tool = createRuntimeToolFactory({ serviceName: 'billing', context }).define({
      action: 'whoami',
      method: 'GET',
      description: 'x',
      input: z.object({}),
      handler: ({ context }) => context,
    });
    const invoker = createToolInvoker([tool], {
      resolveContext: async () => ({ tenantId: 'ambient', userId: 'u1' }),
    });
    await expect(
      invoker.invoke('billing_whoami', {}, { transport: 'MCP', context: { tenantId: 'explicit' } }),
    ).resolves.toEqual({ ok: true, data: { tenantId: 'explicit', userId: 'u1' } });
    await expect(invoker.invoke('billing_whoami', {}, { transport: 'MCP' })).resolves.toEqual({
      ok: true,
      data: { tenantId: 'ambient', userId: 'u1' },
    });
  });

  it('keeps what a definition declares beyond its identity: scopes, asks, icons and _meta', async () => {
    const factory = createRuntimeToolFactory({ serviceName: 'billing', context: tenantContext });
    const voidInvoice = factory.define({
      action: 'voidInvoice',
      method: 'DELETE',
      description: 'Void an invoice',
      input: z.object({ id: z.string() }),
      scopes: ['billing:write'],
      asks: { confirm: true },
      icons: [{ src: 'https://example.com/void.png', mimeType: 'image/png' }],
      _meta: { 'com.example/owner': 'payments' },
      handler: async ({ confirm }) => ({ voided: await confirm('Void it?') }),
    });
    const invoker = createToolInvoker([voidInvoice]);
    expect(invoker.find('billing_void_invoice', 'AGENT')).toMatchObject({
      scopes: ['billing:write'],
      asks: { confirm: true, elicit: [] },
      icons: [{ src: 'https://example.com/void.png', mimeType: 'image/png' }],
      _meta: { 'com.example/owner': 'payments' },
    });
    // Without the scope the call is refused before the handler asks anything.
    await expect(
      invoker.invoke(
        'billing_void_invoice',
        { id: 'inv_1' },
        { transport: 'AGENT', context: { tenantId: 't1', principal: { scopes: [] } } },
      ),
    ).resolves.toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });
});
