/**
 * The smaller pieces of toolwright/testing: `bindInstances` (class tools on instances a test
 * built), the in-memory `fetch` (every kind of target, a cancelled request reaching the tool,
 * bodiless answers), `connectMcpClient`'s declared capabilities, and `createTestIssuer`'s checks.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { z } from 'zod';
import {
  Tool,
  ToolFactory,
  ToolsConfigurationError,
  UseToolGuards,
  type ToolCall,
  type ToolGuard,
} from '../../lib/index.js';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import {
  bindInstances,
  connectMcpClient,
  createInMemoryFetch,
  createTestIssuer,
} from '../../lib/testing/index.js';
import { TESTING_MESSAGES } from '../../lib/testing/testing.messages.js';
import { INITIALIZE, RAW_HEADERS, deskTools, endpointOptions } from './fixtures.js';

class Greeter {
  constructor(private readonly greeting: string) {}
  greet(name: string) {
    return `${this.greeting}, ${name}`;
  }
}

class OnlyAda implements ToolGuard {
  constructor(private readonly allowed = 'ada') {}
  canActivate({ input }: { input: unknown }) {
    return (input as { name: string }).name === this.allowed;
  }
}

@ToolFactory({ serviceName: 'greet' })
class GreetTools {
  constructor(private readonly greeter: Greeter) {}

  @Tool({
    action: 'hello',
    method: 'GET',
    description: 'Greet',
    input: z.object({ name: z.string() }),
  })
  hello({ input }: ToolCall<{ name: string }>) {
    return this.greeter.greet(input.name);
  }

  @UseToolGuards(OnlyAda)
  @Tool({
    action: 'vip',
    method: 'GET',
    description: 'Greet a VIP',
    input: z.object({ name: z.string() }),
  })
  vip({ input }: ToolCall<{ name: string }>) {
    return this.greeter.greet(input.name);
  }
}

const AGENT = { transport: 'AGENT' as const };

describe('bindInstances', () => {
  it('runs class tools on the given instance, with its injected dependency', async () => {
    const invoker = createToolInvoker([GreetTools], {
      bind: bindInstances(new GreetTools(new Greeter('Hello'))),
    });
    expect(await invoker.invoke('greet_hello', { name: 'Bo' }, AGENT)).toEqual({
      ok: true,
      data: 'Hello, Bo',
    });
  });

  it('builds guard classes with new, or uses a given guard instance', async () => {
    const built = createToolInvoker([GreetTools], {
      bind: bindInstances(new GreetTools(new Greeter('Hi'))),
    });
    expect(await built.invoke('greet_vip', { name: 'ada' }, AGENT)).toMatchObject({ ok: true });
    expect(await built.invoke('greet_vip', { name: 'bo' }, AGENT)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    const given = createToolInvoker([GreetTools], {
      bind: bindInstances(new GreetTools(new Greeter('Hi')), new OnlyAda('bo')),
    });
    expect(await given.invoke('greet_vip', { name: 'bo' }, AGENT)).toMatchObject({ ok: true });
  });

  it('refuses a tool class it has no instance of, naming the class', () => {
    expect(() =>
      createToolInvoker([GreetTools], { bind: bindInstances(new Greeter('Hi')) }),
    ).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.noInstance('greet_hello', 'GreetTools')),
    );
  });

  it('refuses what is not an instance', () => {
    expect(() => bindInstances(GreetTools as unknown as object)).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.notAnInstance(GreetTools)),
    );
  });

  it('refuses an instance without the tool method', () => {
    const broken = Object.assign(Object.create(GreetTools.prototype) as object, { hello: 1 });
    expect(() => createToolInvoker([GreetTools], { bind: bindInstances(broken) })).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.noMethod('greet_hello', 'GreetTools', 'hello')),
    );
  });
});

describe('createInMemoryFetch', () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((close) => close()));
  });

  const initialize = (fetch: ReturnType<typeof createInMemoryFetch>, path = '/mcp') =>
    fetch(`http://localhost${path}`, {
      method: 'POST',
      headers: RAW_HEADERS,
      body: JSON.stringify(INITIALIZE),
    });

  it('serves a request listener, and a server that does not listen', async () => {
    const invoker = createToolInvoker(deskTools());
    closing.push(() => invoker.close());
    const listener = createMcpHttpHandler(invoker, endpointOptions());
    for (const target of [listener, createServer(listener)]) {
      const answer = await initialize(createInMemoryFetch(target));
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('"protocolVersion":"2025-11-25"');
    }
  });

  it('answers a bodiless status without a body, and other methods 405', async () => {
    const noContent = createInMemoryFetch((_request, response) => response.writeHead(204).end());
    const empty = await noContent('http://localhost/anything', { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const invoker = createToolInvoker(deskTools());
    closing.push(() => invoker.close());
    const fetch = createInMemoryFetch(invoker, { mcp: endpointOptions() });
    const notified = await fetch('http://localhost/mcp', {
      method: 'POST',
      headers: RAW_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notified.status).toBe(202);
    const get = await fetch('http://localhost/mcp', { method: 'GET', headers: RAW_HEADERS });
    expect(get.status).toBe(405);
  });

  it('refuses endpoint options for a target that serves its own endpoint', () => {
    const listener = createMcpHttpHandler(createToolInvoker(deskTools()), endpointOptions());
    expect(() => createInMemoryFetch(listener, { mcp: endpointOptions() })).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.mcpWithoutInvoker()),
    );
  });

  it('cancels the call when the request is aborted, as a client going away does', async () => {
    let seen: (reason: unknown) => void = () => undefined;
    let started: () => void = () => undefined;
    const aborted = new Promise((resolve) => (seen = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    const wait = defineRuntimeTool({
      description: 'Wait until cancelled',
      identity: { serviceName: 'jobs', action: 'wait', method: 'POST' },
      input: z.object({}),
      handler: ({ signal }) =>
        new Promise((resolve) => {
          started();
          signal.addEventListener('abort', () => {
            seen(signal.aborted);
            resolve({});
          });
        }),
    });
    const invoker = createToolInvoker([wait]);
    closing.push(() => invoker.close());
    const fetch = createInMemoryFetch(invoker, { mcp: endpointOptions() });
    const controller = new AbortController();
    const call = fetch('http://localhost/mcp', {
      method: 'POST',
      headers: { ...RAW_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'jobs_wait', arguments: {} },
      }),
      signal: controller.signal,
    });
    call.catch(() => undefined);
    await running;
    controller.abort(new Error('the test gave up'));
    await expect(call).rejects.toThrow('the test gave up');
    expect(await aborted).toBe(true);
  });
});

describe('connectMcpClient', () => {
  it.each(['2026-07-28', '2025-11-25'] as const)(
    'streams the answer: the client sees progress while the tool still runs (%s)',
    async (protocolVersion) => {
      let seen: () => void = () => undefined;
      const progressSeen = new Promise<void>((resolve) => (seen = resolve));
      const relay = defineRuntimeTool({
        description: 'Report progress, then finish only once the client has seen it',
        identity: { serviceName: 'jobs', action: 'relay', method: 'POST' },
        input: z.object({}),
        handler: async ({ reportProgress }) => {
          reportProgress({ progress: 1, total: 2 });
          // A buffered answer would never deliver the progress: this call would never end.
          await progressSeen;
          return { done: true };
        },
      });
      const invoker = createToolInvoker([relay]);
      const client = await connectMcpClient(invoker, { protocolVersion, mcp: endpointOptions() });
      try {
        const result = await client.callTool(
          { name: 'jobs_relay', arguments: {} },
          { onprogress: () => seen() },
        );
        expect(result.isError).toBeFalsy();
      } finally {
        await client.close();
        await invoker.close();
      }
    },
  );

  it.each(['2026-07-28', '2025-11-25'] as const)(
    'declares elicitation only with an answer callback (%s)',
    async (protocolVersion) => {
      const invoker = createToolInvoker(deskTools());
      const client = await connectMcpClient(invoker, {
        protocolVersion,
        headers: { 'x-user': 'ada' },
        mcp: endpointOptions(),
      });
      try {
        const result = await client.callTool({ name: 'desk_close', arguments: { id: 't-2' } });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result.content)).toContain('USER_INPUT_UNAVAILABLE');
      } finally {
        await client.close();
        await invoker.close();
      }
    },
  );

  it('sends the Host of its URL: another host is refused', async () => {
    const invoker = createToolInvoker(deskTools());
    await expect(
      connectMcpClient(invoker, { url: 'http://evil.example/mcp', mcp: endpointOptions() }),
    ).rejects.toThrow(/403/);
    await invoker.close();
  });
});

describe('createTestIssuer', () => {
  it('refuses an issuer or resource that is not a URL', () => {
    expect(() => createTestIssuer({ resource: 'mcp' })).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.resourceNotUrl('mcp')),
    );
    expect(() => createTestIssuer({ resource: 'https://a.example/mcp', issuer: 'me' })).toThrow(
      new ToolsConfigurationError(TESTING_MESSAGES.issuerNotUrl('me')),
    );
  });

  it('verifies its own tokens into the principal described, and refuses others', async () => {
    const issuer = createTestIssuer({ resource: 'https://a.example/mcp' });
    const token = issuer.token({ subject: 'ada', scopes: ['a:read'], claims: { tenant: 'acme' } });
    expect(await issuer.verifyAccessToken(token)).toMatchObject({
      clientId: 'test-client',
      scopes: ['a:read'],
      resource: new URL('https://a.example/mcp'),
      extra: { subject: 'ada', claims: { tenant: 'acme', iss: 'https://issuer.test', sub: 'ada' } },
    });
    await expect(issuer.verifyAccessToken('forged')).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});
