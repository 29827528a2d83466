/**
 * Nest enhancers on tool classes and methods (`@UseGuards`, `@UseInterceptors`, `@UsePipes`,
 * `@UseFilters`) run inside the canonical pipeline, on every surface: an unchanged role guard
 * reading the request and `Reflector` metadata (in the guards step, before any interceptor), a
 * guard with a request-scoped dependency, interceptors, a pipe, filters on what the handler and
 * interceptors throw, class before method, no request outside one, and the failure matrix kept
 * (a refusing guard is a refusal, a throwing interceptor an internal error; hooks and the event
 * exactly once; a timeout, a caller's abort and shutdown end the wait on a stalled interceptor).
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Catch,
  Controller,
  Module,
  Get,
  Inject,
  Injectable,
  Scope,
  SetMetadata,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { APP_GUARD, REQUEST, Reflector } from '@nestjs/core';
import { map, Observable, tap } from 'rxjs';
import { z } from 'zod';
import {
  Tool,
  ToolError,
  ToolExecutionContext,
  ToolFactory,
  ToolEvents,
  ToolInvoker,
  ToolsModule,
  runToolsCli,
  type ToolCall,
  type ToolCallEvent,
  type ToolHooks,
} from '../../lib/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { callBody, eraHeaders, listBody, post, toolPayload } from '../fixtures/mcp-http.js';
import { deferred } from '../fixtures/timing.js';

const order: string[] = [];

const Roles = (...roles: string[]) => SetMetadata('roles', roles);

/** An ordinary HTTP role guard, as an application already has it. */
@Injectable()
class RolesGuard implements CanActivate {
  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<string[]>('roles', [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles) return true;
    const request = context.switchToHttp().getRequest<{ headers?: Record<string, string> }>();
    return roles.includes(request?.headers?.['x-role'] ?? '');
  }
}

/** A guard that looks at the tool call it guards, as `ToolExecutionContext` gives it. */
@Injectable()
class InspectCall implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const tool = ToolExecutionContext.create(context);
    order.push(
      `guard ${tool?.name} ${JSON.stringify(tool?.input)} ${JSON.stringify(tool?.context)}`,
    );
    return true;
  }
}

/** A guard that refuses by throwing, as `AuthGuard`s do. */
@Injectable()
class NeedsSignIn implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException('Sign in first.');
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestTenant {
  constructor(@Inject(REQUEST) private readonly request: { headers: Record<string, string> }) {}
  get id() {
    return this.request.headers['x-tenant'];
  }
}

/** A guard with a request-scoped dependency. */
@Injectable()
class TenantGuard implements CanActivate {
  constructor(@Inject(RequestTenant) private readonly tenant: RequestTenant) {}
  canActivate(): boolean {
    return this.tenant.id === 'acme';
  }
}

/** Times each call: what it measured, by tool. */
const timings: { tool?: string; ms: number }[] = [];

@Injectable()
class ClassInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const tool = ToolExecutionContext.create(context);
    order.push(`class interceptor ${context.getType()} ${tool?.name} ${tool?.transport}`);
    if (tool?.principal) order.push(`principal ${tool.principal.subject} ${tool.call.source}`);
    const started = performance.now();
    return next.handle().pipe(
      tap(() => {
        order.push(`timed ${tool?.name}`);
        timings.push({ tool: tool?.name, ms: performance.now() - started });
      }),
    );
  }
}

@Injectable()
class WrapResult implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    order.push('method interceptor');
    return next.handle().pipe(map((data) => ({ wrapped: data })));
  }
}

@Injectable()
class Boom implements NestInterceptor {
  intercept(): never {
    throw new Error('interceptor bug');
  }
}

@Injectable()
class UpperCaseInput implements PipeTransform {
  transform(call: ToolCall<{ text: string }>) {
    return { ...call, input: { text: call.input.text.toUpperCase() } };
  }
}

class SeatTaken extends Error {}

@Catch(SeatTaken)
class SeatTakenFilter implements ExceptionFilter {
  catch(error: SeatTaken, _host: ArgumentsHost) {
    throw new ToolError('CONFLICT', { message: error.message });
  }
}

/** Settled when the stalling interceptor has been subscribed to: the call is under way. */
let stalled = deferred();

/** An interceptor that never lets the call finish. */
@Injectable()
class Stall implements NestInterceptor {
  intercept() {
    return new Observable<never>(() => stalled.resolve());
  }
}

/** An interceptor that throws a domain error, for the method's filter. */
@Injectable()
class SeatCheck implements NestInterceptor {
  intercept(): never {
    throw new SeatTaken('Seat B2 is taken.');
  }
}

/** A global guard: it refuses everything it sees. */
@Injectable()
class DenyAll implements CanActivate {
  canActivate(): boolean {
    order.push('global guard');
    return false;
  }
}

@ToolFactory({ serviceName: 'desk' })
@UseInterceptors(ClassInterceptor)
@Injectable()
class DeskTools {
  @Tool({
    action: 'admin',
    method: 'POST',
    description: 'Admins only',
    input: z.object({}),
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  @Roles('admin')
  @UseGuards(RolesGuard)
  admin() {
    return { ok: true };
  }

  @Tool({
    action: 'signed',
    method: 'POST',
    description: 'Signed-in callers only',
    input: z.object({}),
  })
  @UseGuards(NeedsSignIn)
  signed() {
    return { never: true };
  }

  @Tool({ action: 'tenant', method: 'GET', description: 'Acme only', input: z.object({}) })
  @UseGuards(TenantGuard)
  tenant() {
    return { tenant: 'acme' };
  }

  @Tool({
    action: 'shout',
    method: 'POST',
    description: 'Shout',
    input: z.object({ text: z.string() }),
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  @UseGuards(InspectCall)
  @UsePipes(UpperCaseInput)
  @UseInterceptors(WrapResult)
  shout({ input }: ToolCall<{ text: string }>) {
    order.push('handler');
    return { text: input.text };
  }

  @Tool({ action: 'reserve', method: 'POST', description: 'Reserve', input: z.object({}) })
  @UseFilters(SeatTakenFilter)
  reserve(): never {
    throw new SeatTaken('Seat A1 is taken.');
  }

  @Tool({ action: 'book', method: 'POST', description: 'Book', input: z.object({}) })
  @UseFilters(SeatTakenFilter)
  @UseInterceptors(SeatCheck)
  book() {
    return { never: true };
  }

  @Tool({ action: 'lookup', method: 'GET', description: 'Lookup', input: z.object({}) })
  lookup(): never {
    throw new ToolError('NOT_FOUND', { message: 'No such desk.' });
  }

  @Tool({ action: 'hang', method: 'POST', description: 'Hangs', input: z.object({}) })
  @UseInterceptors(Stall)
  hang() {
    return { never: true };
  }

  @Tool({
    action: 'stall',
    method: 'POST',
    description: 'Stalls',
    input: z.object({}),
    timeoutMs: 20,
  })
  @UseInterceptors(Stall)
  stall() {
    return { never: true };
  }

  @Tool({ action: 'crash', method: 'POST', description: 'Crash', input: z.object({}) })
  @UseInterceptors(Boom)
  crash() {
    return { never: true };
  }
}

@Controller('desk')
class DeskController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get('admin')
  admin() {
    return this.tools.invokeOrThrow('desk_admin', {}, { transport: 'AGENT' });
  }
}

const hookCalls: string[] = [];
const hooks: ToolHooks = {
  onToolError: ({ name }) => void hookCalls.push(`error ${name}`),
  afterToolCall: ({ name }) => void hookCalls.push(`after ${name}`),
};

const metadata = {
  imports: [ToolsModule.forRoot({ registry: [DeskTools], hooks: [hooks], shutdownGraceMs: 50 })],
  controllers: [DeskController],
  providers: [DeskTools, RolesGuard, RequestTenant, TenantGuard],
};

describe.each(ADAPTERS)('Nest enhancers on tools (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  const call = async (
    url: string,
    name: string,
    args: unknown,
    headers: Record<string, string> = {},
  ) =>
    toolPayload(
      await post(`${url}/mcp`, callBody('legacy', name, args), {
        ...eraHeaders('legacy'),
        ...headers,
      }),
    );

  it('runs an unchanged role guard over MCP and in-process, with the request and the metadata', async () => {
    const { url } = await apps.listen(metadata, adapter);
    expect(await call(url, 'desk_admin', {}, { 'x-role': 'admin' })).toEqual({
      isError: false,
      json: { ok: true },
    });
    expect(await call(url, 'desk_admin', {}, { 'x-role': 'clerk' })).toEqual({
      isError: true,
      json: {
        error: 'FORBIDDEN',
        message: 'The call to "desk_admin" was refused by a guard.',
        retryable: false,
      },
    });
    const allowed = await fetch(`${url}/desk/admin`, { headers: { 'x-role': 'admin' } });
    expect({ status: allowed.status, body: await allowed.json() }).toEqual({
      status: 200,
      body: { ok: true },
    });
    const refused = await fetch(`${url}/desk/admin`, { headers: { 'x-role': 'clerk' } });
    expect(refused.status).toBe(403);
    // A Nest guard does not hide a tool from tools/list: it runs when the tool is called.
    const list = await post(`${url}/mcp`, listBody('legacy'), eraHeaders('legacy', 'tools/list'));
    expect(list.messages!.at(-1).result.tools.map((tool: { name: string }) => tool.name)).toContain(
      'desk_admin',
    );
  });

  it('resolves a guard’s request-scoped dependency in the request', async () => {
    const { url } = await apps.listen(metadata, adapter);
    expect(await call(url, 'desk_tenant', {}, { 'x-tenant': 'acme' })).toEqual({
      isError: false,
      json: { tenant: 'acme' },
    });
    expect((await call(url, 'desk_tenant', {}, { 'x-tenant': 'globex' })).json.error).toBe(
      'FORBIDDEN',
    );
  });

  it('runs class then method interceptors around the handler, a pipe on its argument, and a filter', async () => {
    const { url } = await apps.listen(metadata, adapter);
    order.length = 0;
    expect(await call(url, 'desk_shout', { text: 'hi' })).toEqual({
      isError: false,
      json: { wrapped: { text: 'HI' } },
    });
    // The guard runs in the guards step, on the parsed input (before the pipe), then the
    // interceptors wrap the handler; the timing interceptor measures once the handler returned.
    expect(order).toEqual([
      'guard desk_shout {"text":"hi"} {}',
      'class interceptor toolwright desk_shout MCP',
      'method interceptor',
      'handler',
      'timed desk_shout',
    ]);
    const timing = timings.at(-1)!;
    expect(timing.tool).toBe('desk_shout');
    expect(Number.isFinite(timing.ms) && timing.ms >= 0).toBe(true);
    // A filter takes what the handler throws, and what an interceptor throws.
    expect(await call(url, 'desk_reserve', {})).toEqual({
      isError: true,
      json: { error: 'CONFLICT', message: 'Seat A1 is taken.', retryable: false },
    });
    expect(await call(url, 'desk_book', {})).toEqual({
      isError: true,
      json: { error: 'CONFLICT', message: 'Seat B2 is taken.', retryable: false },
    });
  });

  it('keeps the failure matrix for Nest guards: false is a refusal, a thrown HttpException is mapped; hooks and the event once', async () => {
    const { app, url } = await apps.listen(metadata, adapter);
    const events: ToolCallEvent[] = [];
    const subscription = app.get(ToolEvents).events$.subscribe((event) => events.push(event));
    hookCalls.length = 0;
    order.length = 0;
    expect((await call(url, 'desk_admin', {}, { 'x-role': 'clerk' })).json.error).toBe('FORBIDDEN');
    // Refused in the guards step: the interceptors never ran, and a refusal is no error.
    expect(order).toEqual([]);
    expect(hookCalls).toEqual(['after desk_admin']);
    expect(await call(url, 'desk_signed', {})).toEqual({
      isError: true,
      json: { error: 'UNAUTHORIZED', message: 'Sign in first.', retryable: false },
    });
    expect(hookCalls).toEqual(['after desk_admin', 'error desk_signed', 'after desk_signed']);
    await new Promise((resolve) => setImmediate(resolve));
    subscription.unsubscribe();
    expect(events.map(({ name, ok, errorCode }) => ({ name, ok, errorCode }))).toEqual([
      { name: 'desk_admin', ok: false, errorCode: 'FORBIDDEN' },
      { name: 'desk_signed', ok: false, errorCode: 'UNAUTHORIZED' },
    ]);
  });

  it('leaves the logging to toolwright: a ToolError is not logged, an unexpected failure once', async () => {
    const logger = new RecordingLogger();
    const { url } = await apps.listen(metadata, adapter, { logger });
    const booted = logger.lines.length;
    const since = (level: string) =>
      logger.lines.slice(booted).filter((line) => line.level === level);
    expect((await call(url, 'desk_lookup', {})).json).toEqual({
      error: 'NOT_FOUND',
      message: 'No such desk.',
      retryable: false,
    });
    expect([...since('error'), ...since('warn')]).toEqual([]);
    expect((await call(url, 'desk_crash', {})).json.error).toBe('INTERNAL_SERVER_ERROR');
    const errors = since('error');
    expect(errors).toHaveLength(1);
    expect(String(errors[0].args[0])).toContain('Tool "desk_crash" failed unexpectedly');
  });

  it('keeps the failure matrix: a throwing interceptor is an internal error, hooks run exactly once', async () => {
    const { url } = await apps.listen(metadata, adapter);
    hookCalls.length = 0;
    expect(await call(url, 'desk_crash', {})).toEqual({
      isError: true,
      json: { error: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(hookCalls).toEqual(['error desk_crash', 'after desk_crash']);
  });
});

describe.each(ADAPTERS)('Nest enhancers outside a request (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('run with no request (a job, the CLI): the role guard refuses, the rest works', async () => {
    const app = await apps.init(metadata, adapter);
    const tools = app.get(ToolInvoker);
    order.length = 0;
    expect(
      await tools.invoke('desk_shout', { text: 'yo' }, { transport: 'CLI', source: 'cli' }),
    ).toEqual({
      ok: true,
      data: { wrapped: { text: 'YO' } },
    });
    expect(order.slice(0, 2)).toEqual([
      'guard desk_shout {"text":"yo"} {}',
      'class interceptor toolwright desk_shout CLI',
    ]);
    // The call's input and principal, as ToolExecutionContext gives them to an enhancer.
    order.length = 0;
    const principal = { clientId: 'job', subject: 'nightly', scopes: [] };
    await tools.invoke(
      'desk_shout',
      { text: 'p' },
      { transport: 'AGENT', source: 'job', context: { principal } },
    );
    expect(order.slice(0, 3)).toEqual([
      `guard desk_shout {"text":"p"} ${JSON.stringify({ principal })}`,
      'class interceptor toolwright desk_shout AGENT',
      'principal nightly job',
    ]);
    expect(await tools.invoke('desk_admin', {}, { transport: 'AGENT' })).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
  });
});

describe('Nest enhancers from the command line', () => {
  it('run through runToolsCli with no request: the pipe and interceptors apply, the role guard refuses', async () => {
    @Module(metadata)
    class CliModule {}
    const run = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runToolsCli(CliModule, argv, {
        logger: false,
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
      });
      return { code, stdout, stderr };
    };
    const shouted = await run('call', 'desk_shout', '--args', '{"text":"cli"}');
    expect({ code: shouted.code, output: JSON.parse(shouted.stdout) }).toEqual({
      code: 0,
      output: { wrapped: { text: 'CLI' } },
    });
    // Arguments given, so that the command never waits on the test runner's stdin.
    const refused = await run('call', 'desk_admin', '--args', '{}');
    expect({ code: refused.code, output: JSON.parse(refused.stdout) }).toEqual({
      code: 1,
      output: {
        error: 'FORBIDDEN',
        message: 'The call to "desk_admin" was refused by a guard.',
        retryable: false,
      },
    });
  });
});

describe.each(ADAPTERS)('what stays as it was (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('ends the wait on a stalled interceptor at the tool’s timeout', async () => {
    const tools = (await apps.init(metadata, adapter)).get(ToolInvoker);
    expect(await tools.invoke('desk_stall', {}, { transport: 'AGENT' })).toEqual({
      ok: false,
      error: {
        code: 'REQUEST_TIMEOUT',
        message: 'Tool "desk_stall" did not finish within 20 ms.',
        retryable: true,
      },
    });
  });

  it('ends the wait on a stalled interceptor when the caller aborts, and at shutdown', async () => {
    const app = await apps.init(metadata, adapter);
    const tools = app.get(ToolInvoker);
    hookCalls.length = 0;
    stalled = deferred();
    const controller = new AbortController();
    const aborted = tools.invoke(
      'desk_hang',
      {},
      { transport: 'AGENT', signal: controller.signal },
    );
    await stalled.promise;
    controller.abort();
    expect(await aborted).toEqual({
      ok: false,
      error: {
        code: 'REQUEST_ABORTED',
        message: 'The call to "desk_hang" was cancelled.',
        retryable: false,
      },
    });
    expect(hookCalls).toEqual(['after desk_hang']);
    stalled = deferred();
    const running = tools.invoke('desk_hang', {}, { transport: 'AGENT' });
    await stalled.promise;
    await app.close();
    expect(await running).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('runs global enhancers on tool calls only with globalEnhancers: true', async () => {
    const withGlobal = (globalEnhancers: boolean) => ({
      ...metadata,
      imports: [ToolsModule.forRoot({ registry: [DeskTools], globalEnhancers })],
      providers: [...metadata.providers, { provide: APP_GUARD, useClass: DenyAll }],
    });
    order.length = 0;
    const plain = (await apps.init(withGlobal(false), adapter)).get(ToolInvoker);
    expect(await plain.invoke('desk_shout', { text: 'a' }, { transport: 'AGENT' })).toMatchObject({
      ok: true,
    });
    expect(order).not.toContain('global guard');
    const global = (await apps.init(withGlobal(true), adapter)).get(ToolInvoker);
    expect(await global.invoke('desk_shout', { text: 'a' }, { transport: 'AGENT' })).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    expect(order).toContain('global guard');
  });
});
