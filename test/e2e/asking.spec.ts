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
import { z } from 'zod';
import {
  Tool,
  ToolFactory,
  ToolInvoker,
  ToolsModule,
  type ToolAsk,
  type ToolCall,
} from '../../lib/index.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
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

/** Closes T-8 with the official 2026-era client at `url`, answering yes and "duplicate". */
async function closeOverMcp(url: string) {
  const client = new Client(
    { name: 'desk', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const { message } = request.params as { message: string };
    asked.push(message);
    return message === 'Why?'
      ? { action: 'accept', content: { reason: 'duplicate' } }
      : { action: 'accept' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
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

describe.each(ADAPTERS)('over MCP on %s (2026-07-28 era)', (adapter) => {
  it("the official client answers the method's questions; the key comes from mcp.requestState", async () => {
    const { url } = await apps.listen(
      {
        imports: [
          DeskModule,
          ToolsModule.forRoot({
            registry: [DeskTools],
            mcp: { requestState: { key: 'the key every instance of the desk shares' } },
          }),
        ],
      },
      adapter,
    );
    const { result, asked } = await closeOverMcp(url);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({
      closed: true,
      reason: 'duplicate',
    });
    expect(asked).toEqual(['Close T-8?', 'Why?']);
  });
});

describe('the requestState key of a Nest app', () => {
  it('comes from forRootAsync as mcpRequestState', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const { url } = await apps.listen({
      imports: [
        DeskModule,
        ToolsModule.forRootAsync({
          registry: [DeskTools],
          useFactory: () => ({ mcpRequestState: { key: 'a key from configuration, 32 bytes+' } }),
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

  it('is set once: mcp.requestState and mcpRequestState together are a bootstrap error', async () => {
    await expect(
      apps.listen({
        imports: [
          DeskModule,
          ToolsModule.forRootAsync({
            registry: [DeskTools],
            mcp: { requestState: { key: 'one key of at least thirty-two bytes' } },
            useFactory: () => ({ mcpRequestState: { key: 'another key of thirty-two bytes+' } }),
          }),
        ],
      }),
    ).rejects.toThrow('set the MCP requestState once, in mcp.requestState or in mcpRequestState');
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
});
