/**
 * `confirm` and `elicit` on a `@Tool` method of a Nest tool class: declared with `asks`, listed in
 * the manifest, answered through `ToolInvoker.invoke(…, { ask })`, also when the method carries a
 * Nest interceptor; a call without `ask` fails with `USER_INPUT_UNAVAILABLE`; and over MCP on both
 * adapters, the official 2026-era client answering through multi round-trip input.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  Injectable,
  Logger,
  Module,
  UseInterceptors,
  type CallHandler,
  type NestInterceptor,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import {
  Tool,
  ToolFactory,
  ToolInvoker,
  ToolsConfigurationError,
  ToolsModule,
  type ToolAsk,
  type ToolCall,
} from '../../lib/index.js';
import type { ToolsModuleFactoryOptions } from '../../lib/nest/interfaces/tools-module-options.interface.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';

const Reason = z.object({ reason: z.enum(['duplicate', 'solved', 'spam']) });

/** An interceptor that passes the call through: the handler's argument must reach the method as is. */
@Injectable()
class PassThrough implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler) {
    return next.handle();
  }
}

@ToolFactory({ serviceName: 'desk' })
@Injectable()
class DeskTools {
  @Tool({
    action: 'close',
    method: 'POST',
    description: 'Close a ticket, asking for confirmation and a reason',
    input: z.object({ id: z.string() }),
    asks: { confirm: true, elicit: [Reason] },
  })
  @UseInterceptors(PassThrough)
  async close({ input, confirm, elicit }: ToolCall<{ id: string }>) {
    if (!(await confirm(`Close ${input.id}?`))) return { closed: false };
    const answer = await elicit({ message: 'Why?', schema: Reason });
    return { closed: true, reason: answer.action === 'accept' ? answer.content.reason : null };
  }
}

@Module({ providers: [DeskTools, PassThrough], exports: [DeskTools] })
class DeskModule {}

const apps = new TestApps();
afterEach(async () => {
  jest.restoreAllMocks();
  await apps.closeAll();
});

type Generation = 'v1 (2025)' | 'v2 (2026-07-28)';
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/**
 * Closes T-8 with the official client of `generation` at `url`, its user answering each question
 * from `answers` (by default yes, then "duplicate").
 */
async function closeOverMcp(
  url: string,
  generation: Generation = 'v2 (2026-07-28)',
  answers: Answer[] = [
    { action: 'accept' },
    { action: 'accept', content: { reason: 'duplicate' } },
  ],
) {
  const asked: string[] = [];
  const answer = (message: string): Answer => {
    asked.push(message);
    const next = answers.shift();
    if (!next) throw new Error(`no answer scripted for "${message}"`);
    return next;
  };
  const endpoint = new URL(`${url}/mcp`);
  if (generation === 'v1 (2025)') {
    const client = new ClientV1(
      { name: 'desk', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      answer((request.params as { message: string }).message),
    );
    await client.connect(new TransportV1(endpoint));
    const result = await client.callTool({ name: 'desk_close', arguments: { id: 'T-8' } });
    await client.close();
    return { result, asked };
  }
  const client = new Client(
    { name: 'desk', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler(
    'elicitation/create',
    async (request) => answer((request.params as { message: string }).message) as never,
  );
  await client.connect(new StreamableHTTPClientTransport(endpoint));
  const result = await client.callTool({ name: 'desk_close', arguments: { id: 'T-8' } });
  await client.close();
  return { result, asked };
}

it('a tool class method asks through the caller of ToolInvoker.invoke', async () => {
  const app = await apps.create({
    imports: [DeskModule, ToolsModule.forRoot({ registry: [DeskTools], mcp: false })],
  });
  await app.init();
  const tools = app.get(ToolInvoker);
  expect(tools.find('desk_close', 'AGENT')?.asks).toEqual({
    confirm: true,
    elicit: [expect.objectContaining({ required: ['reason'] })],
  });

  const questions: string[] = [];
  const ask: ToolAsk = (question) => {
    questions.push(`${question.kind}: ${question.message}`);
    return question.kind === 'confirm'
      ? { action: 'accept' }
      : { action: 'accept', content: { reason: 'solved' } };
  };
  await expect(
    tools.invoke('desk_close', { id: 'T-7' }, { transport: 'AGENT', ask }),
  ).resolves.toEqual({ ok: true, data: { closed: true, reason: 'solved' } });
  expect(questions).toEqual(['confirm: Close T-7?', 'elicit: Why?']);

  await expect(
    tools.invoke('desk_close', { id: 'T-7' }, { transport: 'AGENT' }),
  ).resolves.toMatchObject({ ok: false, error: { code: 'USER_INPUT_UNAVAILABLE' } });
});

describe.each(ADAPTERS)('over MCP on %s', (adapter) => {
  const listen = () =>
    apps.listen(
      {
        imports: [
          DeskModule,
          ToolsModule.forRoot({
            registry: [DeskTools],
            mcp: {
              requestState: { key: 'the key every instance of the desk shares' },
              // One caller, whose 2025-era answers must find the call that asked.
              identify: () => 'operator',
            },
          }),
        ],
      },
      adapter,
    );
  const data = (result: unknown) =>
    JSON.parse((result as { content: Array<{ text: string }> }).content[0].text);

  it("the official 2026-era client answers the method's questions; the key comes from mcp.requestState", async () => {
    const { url } = await listen();
    const { result, asked } = await closeOverMcp(url);
    expect(result.isError).toBeFalsy();
    expect(data(result)).toEqual({ closed: true, reason: 'duplicate' });
    expect(asked).toEqual(['Close T-8?', 'Why?']);
  });

  describe.each(['v1 (2025)', 'v2 (2026-07-28)'] as const)('the %s client', (generation) => {
    it('accepts both questions', async () => {
      const { url } = await listen();
      const { result, asked } = await closeOverMcp(url, generation, [
        { action: 'accept' },
        { action: 'accept', content: { reason: 'spam' } },
      ]);
      expect(data(result)).toEqual({ closed: true, reason: 'spam' });
      expect(asked).toEqual(['Close T-8?', 'Why?']);
    });

    it('declines the confirmation: the handler sees false and asks nothing more', async () => {
      const { url } = await listen();
      const { result, asked } = await closeOverMcp(url, generation, [{ action: 'decline' }]);
      expect(data(result)).toEqual({ closed: false });
      expect(asked).toEqual(['Close T-8?']);
    });

    it('cancels the elicitation: the handler sees the action, no content', async () => {
      const { url } = await listen();
      const { result } = await closeOverMcp(url, generation, [
        { action: 'accept' },
        { action: 'cancel' },
      ]);
      expect(data(result)).toEqual({ closed: true, reason: null });
    });

    it('declines the elicitation', async () => {
      const { url } = await listen();
      const { result } = await closeOverMcp(url, generation, [
        { action: 'accept' },
        { action: 'decline' },
      ]);
      expect(data(result)).toEqual({ closed: true, reason: null });
    });
  });
});

describe('the requestState key of a Nest app', () => {
  it('comes from forRootAsync as mcp.requestState', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const { url } = await apps.listen({
      imports: [
        DeskModule,
        ToolsModule.forRootAsync({
          registry: [DeskTools],
          useFactory: () => ({
            mcp: { requestState: { key: 'a key from configuration, 32 bytes+' } },
          }),
        }),
      ],
    });
    const { result, asked } = await closeOverMcp(url);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({
      closed: true,
      reason: 'duplicate',
    });
    expect(asked).toEqual(['Close T-8?', 'Why?']);
    expect(warn).not.toHaveBeenCalled();
  });

  it("comes with the route given directly: the route from forRootAsync's factory is a bootstrap error", async () => {
    await expect(
      apps.listen({
        imports: [
          DeskModule,
          ToolsModule.forRootAsync({
            registry: [DeskTools],
            useFactory: () =>
              ({
                mcp: { requestState: { key: 'another key of thirty-two bytes+' }, mount: false },
              }) as ToolsModuleFactoryOptions,
          }),
        ],
      }),
    ).rejects.toThrow(new ToolsConfigurationError(MESSAGES.staticFromFactory(['mcp.mount'])));
  });

  it('without one, bootstrap warns through Nest’s Logger that questions stay on one instance', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await apps.listen({
      imports: [DeskModule, ToolsModule.forRoot({ registry: [DeskTools] })],
    });
    expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringContaining('no requestState key is set'),
    ]);
  });

  it('an application context (the command line) serves no MCP: it warns of nothing', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const context = await NestFactory.createApplicationContext(
      {
        module: class DeskCli {},
        imports: [DeskModule, ToolsModule.forRoot({ registry: [DeskTools] })],
      },
      { logger: false },
    );
    try {
      expect(context.get(ToolInvoker).find('desk_close', 'AGENT')).toBeDefined();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      await context.close();
    }
  });
});
