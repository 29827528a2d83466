import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { APP_GUARD } from '@nestjs/core';
import { ToolsModule } from '../../lib/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { identifyByAuthorization } from '../fixtures/mcp-http.js';
import { waitFor } from '../fixtures/timing.js';
import {
  ApiKeyGuard,
  GENERATIONS,
  GlobalApiKeyGuard,
  SecureMcpController,
  connectClient,
  expectCancelled,
  mcpTools,
  newSeen,
  recordingHooks,
  restrictedGuard,
  tenantFromHeader,
  textJson,
  type McpTestClient,
} from './support.js';

/** The 2025 era wraps a non-object output schema (and its structured content) as `{ result }`. */
const isLegacy = (generation: string) => generation.startsWith('v1');

describe.each(ADAPTERS)('MCP clients on %s', (adapter) => {
  const apps = new TestApps();
  const seen = newSeen();
  let mcpUrl: string;

  beforeAll(async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: mcpTools(seen),
            context: tenantFromHeader,
            guards: [restrictedGuard],
            hooks: [recordingHooks(seen)],
            // One caller, whose 2025-era cancellation must find its call.
            mcp: { identify: () => 'operator' },
          }),
        ],
      },
      adapter,
    );
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  describe.each(GENERATIONS)('%s', (generation) => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await connectClient(generation, mcpUrl, { 'x-tenant-id': 'acme' });
    });
    afterAll(() => client?.close());

    it('lists the MCP tools with their schemas and annotations', async () => {
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      expect(Object.keys(byName)).toEqual([
        'tenancy_echo',
        'math_square',
        'items_delete',
        'contacts_card',
        'ops_boom',
        'ops_reserve',
        'jobs_run',
        'jobs_wait',
        'tenancy_report',
      ]);

      expect(byName.tenancy_echo).toEqual({
        name: 'tenancy_echo',
        description: 'Echo the text with the tenant the call runs for',
        inputSchema: expect.objectContaining({
          type: 'object',
          properties: { text: { type: 'string', minLength: 1 } },
          required: ['text'],
        }),
        outputSchema: expect.objectContaining({
          type: 'object',
          properties: { text: { type: 'string' }, tenantId: { type: 'string' } },
          required: ['text', 'tenantId'],
        }),
        annotations: { readOnlyHint: true },
      });

      // A non-object output schema: wrapped on the 2025 era, as is on 2026.
      expect(byName.math_square.outputSchema).toEqual(
        isLegacy(generation)
          ? expect.objectContaining({
              type: 'object',
              properties: { result: { type: 'number' } },
              required: ['result'],
            })
          : expect.objectContaining({ type: 'number' }),
      );
      expect(byName.math_square.annotations).toEqual({ readOnlyHint: false });

      // No output schema: none advertised. Annotations default from the semantic method.
      expect(byName.items_delete).not.toHaveProperty('outputSchema');
      expect(byName.items_delete.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
      });
      expect(byName.contacts_card.annotations).toEqual({ readOnlyHint: true });
    });

    it('calls a tool: structuredContent and the JSON text', async () => {
      const result = await client.callTool('tenancy_echo', { text: 'hello' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: 'hello', tenantId: 'acme' });
      expect(result.content).toEqual([
        { type: 'text', text: JSON.stringify({ text: 'hello', tenantId: 'acme' }) },
      ]);
    });

    it('returns a non-object output as the era allows', async () => {
      const result = await client.callTool('math_square', { n: 7 });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '49' }]);
      expect(result.structuredContent).toEqual(isLegacy(generation) ? { result: 49 } : 49);
    });

    it('returns the JSON text without structuredContent when there is no output schema', async () => {
      const result = await client.callTool('items_delete', { id: 'i-1' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      expect(textJson(result)).toEqual({ deleted: 'i-1' });
    });

    it('lets present.mcp supply the content blocks; structuredContent stays', async () => {
      const result = await client.callTool('contacts_card', { name: 'Ada' });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([
        { type: 'text', text: 'Card of Ada' },
        { type: 'text', text: 'Initials: A' },
      ]);
      expect(result.structuredContent).toEqual({ name: 'Ada', initials: 'A' });
    });

    it('answers invalid input with an isError VALIDATION_ERROR envelope', async () => {
      const result = await client.callTool('tenancy_echo', { text: 5 });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const envelope = textJson(result);
      expect(envelope).toEqual({
        error: 'VALIDATION_ERROR',
        message: expect.stringContaining('text'),
        retryable: false,
        details: {
          target: 'input',
          issues: [expect.objectContaining({ path: 'text', code: 'invalid_type' })],
        },
      });
    });

    it('hides an unexpected error: INTERNAL_SERVER_ERROR, no message, no stack', async () => {
      const before = seen.runs.ops_boom ?? 0;
      const result = await client.callTool('ops_boom', {});
      expect(seen.runs.ops_boom).toBe(before + 1);
      expect(result.isError).toBe(true);
      expect(textJson(result)).toEqual({
        error: 'INTERNAL_SERVER_ERROR',
        message: 'Internal server error',
        retryable: false,
      });
      const everything = JSON.stringify(result);
      expect(everything).not.toContain('10.0.0.4');
      expect(everything).not.toContain('secret');
      expect(everything).not.toMatch(/stack|\bat .+:\d+:\d+/);
    });

    it('passes a ToolError through with its hint and details', async () => {
      const result = await client.callTool('ops_reserve', { seat: 'A1' });
      expect(result.isError).toBe(true);
      expect(textJson(result)).toEqual({
        error: 'CONFLICT',
        message: 'Seat A1 is taken',
        retryable: false,
        details: { seat: 'A1' },
        hint: 'Pick another seat from ops_list_seats',
      });
    });

    it('answers an unknown tool with JSON-RPC -32602 naming similar tools', async () => {
      const error: any = await client.callTool('tenancy_ech', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('tenancy_echo');
    });

    it('answers a tool not exposed on MCP with -32602, as if it did not exist', async () => {
      const error: any = await client.callTool('ops_agent_only', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('Unknown tool "ops_agent_only"');
    });

    it('sends progress notifications in order', async () => {
      const updates: Array<{ progress: number; total?: number; message?: string }> = [];
      const result = await client.callTool(
        'jobs_run',
        { steps: 4 },
        { onprogress: (update) => updates.push(update) },
      );
      expect(textJson(result)).toEqual({ steps: 4 });
      expect(updates).toEqual(
        [1, 2, 3, 4].map((step) => ({
          progress: step,
          total: 4,
          message: `step ${step}`,
        })),
      );
    });

    it('sends log notifications on the request stream', async () => {
      const start = client.logs.length;
      await client.callTool('jobs_run', { steps: 2 }, { logLevel: 'debug' });
      expect(client.logs.slice(start)).toEqual([
        { level: 'info', data: { message: 'step 1 done', data: { step: 1 } } },
        { level: 'info', data: { message: 'step 2 done', data: { step: 2 } } },
      ]);
      if (!isLegacy(generation)) {
        // 2026-07-28: logging is opt-in per request, and the level is a threshold.
        const quiet = client.logs.length;
        await client.callTool('jobs_run', { steps: 1 });
        await client.callTool('jobs_run', { steps: 1 }, { logLevel: 'warning' });
        expect(client.logs.slice(quiet)).toEqual([]);
      }
    });

    it('aborts the handler signal when the client cancels', async () => {
      const key = `${adapter}/${generation}`;
      const controller = new AbortController();
      const call = client.callTool('jobs_wait', { key }, { signal: controller.signal });
      expect(await waitFor(() => seen.runs[`jobs_wait:${key}`] === 1)).toBe(true);
      const reason = new Error('user pressed stop');
      controller.abort(reason);
      await expectCancelled(call, generation, reason);
      expect(await waitFor(() => seen.aborts[key] !== undefined)).toBe(true);
      expect(seen.aborts[key]).toEqual({
        aborted: true,
        reason: expect.objectContaining({ name: 'ToolError', code: 'REQUEST_ABORTED' }),
      });
      // The runner still finishes the call exactly once, as aborted.
      expect(
        await waitFor(() =>
          seen.after.some(
            (after) => after.name === 'jobs_wait' && after.call.transport === 'MCP' && !after.ok,
          ),
        ),
      ).toBe(true);
    });

    it('filters the listing by canList and refuses the hidden tool on call', async () => {
      const restricted = await connectClient(generation, mcpUrl, { 'x-tenant-id': 'restricted' });
      try {
        const names = (await restricted.listTools()).tools.map((tool) => tool.name);
        expect(names).not.toContain('tenancy_report');
        expect(names).toContain('tenancy_echo');
        const runs = seen.runs.tenancy_report ?? 0;
        const refused = await restricted.callTool('tenancy_report', {});
        expect(refused.isError).toBe(true);
        expect(textJson(refused)).toMatchObject({ error: 'FORBIDDEN' });
        expect(seen.runs.tenancy_report ?? 0).toBe(runs);

        // Another tenant still sees and calls it.
        const visible = (await client.listTools()).tools.map((tool) => tool.name);
        expect(visible).toContain('tenancy_report');
        const allowed = await client.callTool('tenancy_report', {});
        expect(textJson(allowed)).toEqual({ report: 'quarterly' });
        expect(seen.runs.tenancy_report).toBe(runs + 1);
      } finally {
        await restricted.close();
      }
    });

    it("resolves each request's context from its own headers", async () => {
      const other = await connectClient(generation, mcpUrl, { 'x-tenant-id': 'globex' });
      try {
        const calls = Array.from({ length: 10 }, (_, i) => {
          const [who, tenantId] = i % 2 === 0 ? [client, 'acme'] : [other, 'globex'];
          return who.callTool('tenancy_echo', { text: `n${i}` }).then((result) => ({
            expected: { text: `n${i}`, tenantId },
            got: result.structuredContent,
          }));
        });
        for (const { expected, got } of await Promise.all(calls)) expect(got).toEqual(expected);
      } finally {
        await other.close();
      }
    });

    it('gives afterToolCall hooks source "mcp" and transport "MCP"', async () => {
      const start = seen.after.length;
      await client.callTool('items_delete', { id: 'hooked' });
      const after = seen.after.slice(start).filter((entry) => entry.name === 'items_delete');
      expect(after).toEqual([
        {
          name: 'items_delete',
          ok: true,
          call: expect.objectContaining({
            name: 'items_delete',
            source: 'mcp',
            transport: 'MCP',
            depth: 0,
          }),
        },
      ]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 2025-era cancellation arrives as its own stateless POST and is mapped back to the call.

describe.each(ADAPTERS)('2025-era cancellation across clients (%s)', (adapter) => {
  const apps = new TestApps();
  const seen = newSeen();
  let mcpUrl: string;

  beforeAll(async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: mcpTools(seen),
            // The application tells callers apart by the credential they send.
            mcp: { identify: identifyByAuthorization },
          }),
        ],
      },
      adapter,
    );
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  /** Two v1 clients with the same request ids in flight; A cancels its call. */
  async function race(headersA: Record<string, string>, headersB: Record<string, string>) {
    const [a, b] = await Promise.all([
      connectClient('v1 (2025)', mcpUrl, headersA),
      connectClient('v1 (2025)', mcpUrl, headersB),
    ]);
    const tag = `${Object.values(headersA).join()}-${Math.random()}`;
    const [keyA, keyB] = [`A${tag}`, `B${tag}`];
    try {
      const controller = new AbortController();
      // Same sequence on both clients, so both calls carry the same JSON-RPC id.
      const callA = a.callTool(
        'jobs_wait',
        { key: keyA, giveUpMs: 600 },
        { signal: controller.signal },
      );
      const callB = b.callTool('jobs_wait', { key: keyB, giveUpMs: 600 });
      expect(
        await waitFor(
          () => seen.runs[`jobs_wait:${keyA}`] === 1 && seen.runs[`jobs_wait:${keyB}`] === 1,
        ),
      ).toBe(true);
      const reason = new Error('A gave up');
      controller.abort(reason);
      await expectCancelled(callA, 'v1 (2025)', reason);
      const resultB = await callB;
      return { abortedA: seen.aborts[keyA], abortedB: seen.aborts[keyB], resultB };
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }

  it("cancels only the caller's own call when the credentials differ", async () => {
    const { abortedA, abortedB, resultB } = await race(
      { authorization: 'Bearer alice' },
      { authorization: 'Bearer bob' },
    );
    expect(abortedA).toEqual(expect.objectContaining({ aborted: true }));
    expect(abortedB).toBeUndefined();
    expect(textJson(resultB)).toEqual({ cancelled: false });
  });

  // Two clients of one identity (one credential in two windows) number their requests
  // independently: with both ids in flight, a cancellation is ignored rather than risk the other.
  it("never cancels another client's call when the server cannot tell the clients apart", async () => {
    const { abortedA, abortedB, resultB } = await race(
      { authorization: 'Bearer shared' },
      { authorization: 'Bearer shared' },
    );
    expect(abortedA).toBeUndefined();
    expect(abortedB).toBeUndefined();
    expect(textJson(resultB)).toEqual({ cancelled: false });
  });

  // A header the application does not identify callers by (here `x-api-key`) names nobody: a
  // cancellation from nobody could come from anybody, so it cancels nothing.
  it('cancels nothing when the requests name no caller, whatever else they send', async () => {
    const { abortedA, abortedB, resultB } = await race(
      { 'x-api-key': 'alice' },
      { 'x-api-key': 'bob' },
    );
    expect(abortedA).toBeUndefined();
    expect(abortedB).toBeUndefined();
    expect(textJson(resultB)).toEqual({ cancelled: false });
  });
});

// ---------------------------------------------------------------------------------------------
// Nest guards on the MCP route.

const GUARD_VARIANTS = [
  {
    name: '@UseGuards on an McpEndpoint subclass',
    path: '/secure/mcp',
    status: 401,
    module: (seen: ReturnType<typeof newSeen>) => ({
      imports: [
        ToolsModule.forRoot({
          registry: mcpTools(seen),
          context: tenantFromHeader,
          hooks: [recordingHooks(seen)],
          mcp: { mount: false },
        }),
      ],
      controllers: [SecureMcpController],
      providers: [ApiKeyGuard],
    }),
  },
  {
    name: 'a global APP_GUARD',
    path: '/mcp',
    status: 403,
    module: (seen: ReturnType<typeof newSeen>) => ({
      imports: [
        ToolsModule.forRoot({
          registry: mcpTools(seen),
          context: tenantFromHeader,
          hooks: [recordingHooks(seen)],
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: GlobalApiKeyGuard }],
    }),
  },
] as const;

describe.each(ADAPTERS)('Nest guards on the MCP route (%s)', (adapter) => {
  describe.each(GUARD_VARIANTS)('$name', (variant) => {
    const apps = new TestApps();
    const seen = newSeen();
    let base: string;

    beforeAll(async () => {
      ({ url: base } = await apps.listen(variant.module(seen), adapter));
    });
    afterAll(() => apps.closeAll());

    it('refuses a request without the API key before any MCP handling', async () => {
      const response = await fetch(`${base}${variant.path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'tenancy_echo', arguments: { text: 'x' } },
        }),
        signal: AbortSignal.timeout(5000),
      });
      expect(response.status).toBe(variant.status);
      // Nest's own error body: the guard answered, not the MCP handler.
      expect(await response.json()).toMatchObject({ statusCode: variant.status });
      expect(seen.runs.tenancy_echo).toBeUndefined();
      expect(seen.after).toEqual([]);
    });

    it.each(GENERATIONS)('refuses a %s client without the key', async (generation) => {
      const error: any = await connectClient(generation, `${base}${variant.path}`).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      // v1: StreamableHTTPError.code; v2: SdkHttpError.status.
      expect(error.status ?? error.code).toBe(variant.status);
      expect(seen.runs.tenancy_echo).toBeUndefined();
    });

    it.each(GENERATIONS)('serves a %s client with the key', async (generation) => {
      const client = await connectClient(generation, `${base}${variant.path}`, {
        'x-api-key': 'sesame',
        'x-tenant-id': 'keyed',
      });
      try {
        const runs = seen.runs.tenancy_echo ?? 0;
        const result = await client.callTool('tenancy_echo', { text: 'in' });
        expect(result.structuredContent).toEqual({ text: 'in', tenantId: 'keyed' });
        expect(seen.runs.tenancy_echo).toBe(runs + 1);
      } finally {
        await client.close();
      }
    });
  });
});
