import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';

/**
 * A @rekog/mcp-nest v1 tool — `@Tool({ name: 'hello-world', parameters })` on an injectable
 * provider, `(args, context, request)` — as a toolwright tool class.
 */
@ToolFactory({ serviceName: 'greeting' })
@Injectable()
export class GreetingTools {
  @Tool({
    name: 'hello-world', // keep the old name so clients and prompts keep working
    action: 'sayHello',
    method: 'GET',
    description: 'Returns a greeting and simulates a long operation with progress updates',
    input: z.object({ name: z.string().default('World') }), // was `parameters`
    output: z.object({ greeting: z.string() }),
  })
  async sayHello({ input, reportProgress, log, signal }: ToolCall<{ name: string }>) {
    for (let step = 1; step <= 5; step++) {
      await sleep(100, undefined, { signal });
      reportProgress({ progress: step * 20, total: 100 }); // was context.reportProgress
    }
    log.info(`greeted ${input.name}`); // was context.log.info
    return { greeting: `Hello, ${input.name}!` }; // no { content: [...] } wrapping
  }
}
