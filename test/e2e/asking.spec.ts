/**
 * `confirm` and `elicit` on a `@Tool` method of a Nest tool class: declared with `asks`, listed in
 * the manifest, answered through `ToolInvoker.invoke(…, { ask })`, also when the method carries a
 * Nest interceptor; a call without `ask` fails with `USER_INPUT_UNAVAILABLE`.
 */
import 'reflect-metadata';
import { afterEach, expect, it } from '@jest/globals';
import {
  Injectable,
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
import { TestApps } from '../fixtures/apps.js';

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
afterEach(() => apps.closeAll());

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
