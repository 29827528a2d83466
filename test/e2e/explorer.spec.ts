import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Global, Inject, Injectable, Module, Scope, type ModuleMetadata } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { InvalidClassScopeException } from '@nestjs/core/errors/exceptions/invalid-class-scope.exception.js';
import { z } from 'zod';
import {
  Tool,
  ToolFactory,
  ToolInvoker,
  ToolRequestContext,
  ToolsConfigurationError,
  ToolsModule,
  UseToolGuards,
  type ToolContextResolver,
  type ToolGuard,
  type ToolHooks,
} from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: hook, guard and context-resolver classes of every scope.

/** Records which instance of which class took part in a call. */
@Injectable()
class Ledger {
  readonly entries: { role: string; instance: object }[] = [];

  record(role: string, instance: object): void {
    this.entries.push({ role, instance });
  }
}

@ToolFactory({ serviceName: 'plain' })
@Injectable()
class PlainTools {
  @Tool({ action: 'ping', method: 'GET', description: 'Answer pong', input: z.object({}) })
  ping() {
    return 'pong';
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedHooks implements ToolHooks {
  beforeToolCall(): void {}
}

@Injectable({ scope: Scope.TRANSIENT })
class TransientHooks implements ToolHooks {
  beforeToolCall(): void {}
}

@Injectable({ scope: Scope.REQUEST })
class RequestData {
  constructor(@Inject(REQUEST) readonly request: unknown) {}
}

/** Declared a singleton, but its dependency makes it request-scoped. */
@Injectable()
class RequestDataGuard implements ToolGuard {
  constructor(@Inject(RequestData) readonly data: RequestData) {}

  canActivate(): boolean {
    return true;
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedResolver implements ToolContextResolver {
  resolve() {
    return {};
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedToolGuard implements ToolGuard {
  canActivate(): boolean {
    return true;
  }
}

@UseToolGuards(RequestScopedToolGuard)
@ToolFactory({ serviceName: 'guarded' })
@Injectable()
class GuardedTools {
  @Tool({ action: 'ping', method: 'GET', description: 'Answer pong', input: z.object({}) })
  ping() {
    return 'pong';
  }
}

/** Hook, guard and resolver classes that record the instance they run on. */
@Injectable()
class LedgerHooks implements ToolHooks {
  static built = 0;

  constructor(@Inject(Ledger) private readonly ledger: Ledger) {
    LedgerHooks.built++;
  }

  beforeToolCall(): void {
    this.ledger.record('hook', this);
  }
}

@Injectable()
class LedgerGuard implements ToolGuard {
  static built = 0;

  constructor(@Inject(Ledger) private readonly ledger: Ledger) {
    LedgerGuard.built++;
  }

  canActivate(): boolean {
    this.ledger.record('guard', this);
    return true;
  }
}

@Injectable()
class LedgerResolver implements ToolContextResolver {
  static built = 0;

  constructor(@Inject(Ledger) private readonly ledger: Ledger) {
    LedgerResolver.built++;
  }

  resolve() {
    this.ledger.record('context resolver', this);
    return {};
  }
}

@Injectable()
class LedgerToolGuard implements ToolGuard {
  static built = 0;

  constructor(@Inject(Ledger) private readonly ledger: Ledger) {
    LedgerToolGuard.built++;
  }

  canActivate(): boolean {
    this.ledger.record('tool guard', this);
    return true;
  }
}

@UseToolGuards(LedgerToolGuard)
@ToolFactory({ serviceName: 'ledger' })
@Injectable()
class LedgerTools {
  @Tool({ action: 'ping', method: 'GET', description: 'Answer pong', input: z.object({}) })
  ping() {
    return 'pong';
  }
}

/** Global, so classes built in ToolsModule's context can inject the Ledger. */
@Global()
@Module({ providers: [Ledger], exports: [Ledger] })
class LedgerModule {}

const LEDGER_CLASSES = [LedgerHooks, LedgerGuard, LedgerResolver, LedgerToolGuard];

// ---------------------------------------------------------------------------------------------

describe('hook, guard and context-resolver classes', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  const bootstrapError = async (metadata: ModuleMetadata) => {
    const app = await apps.create(metadata);
    return app.init().then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it.each([
    {
      what: 'a request-scoped hook class',
      options: { hooks: [RequestScopedHooks] },
      providers: [RequestScopedHooks],
      message: MESSAGES.scopedClass('RequestScopedHooks', 'hook', 'is request-scoped'),
    },
    {
      what: 'a transient hook class',
      options: { hooks: [TransientHooks] },
      providers: [TransientHooks],
      message: MESSAGES.scopedClass('TransientHooks', 'hook', 'is transient'),
    },
    {
      what: 'a guard class with a request-scoped dependency',
      options: { guards: [RequestDataGuard] },
      providers: [RequestData, RequestDataGuard],
      message: MESSAGES.scopedClass(
        'RequestDataGuard',
        'guard',
        'depends on a request-scoped provider',
      ),
    },
    {
      what: 'a request-scoped context resolver class',
      options: { context: RequestScopedResolver },
      providers: [RequestScopedResolver],
      message: MESSAGES.scopedClass(
        'RequestScopedResolver',
        'context resolver',
        'is request-scoped',
      ),
    },
  ])(
    'stops bootstrap on $what the application provides',
    async ({ options, providers, message }) => {
      const error = await bootstrapError({
        imports: [ToolsModule.forRoot({ registry: [PlainTools], ...options })],
        providers: [PlainTools, ...providers],
      });
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect((error as Error).message).toBe(message);
      expect((error as Error).cause).toBeInstanceOf(InvalidClassScopeException);
    },
  );

  it('stops bootstrap on a request-scoped @UseToolGuards class the application provides', async () => {
    const error = await bootstrapError({
      imports: [ToolsModule.forRoot({ registry: [GuardedTools] })],
      providers: [GuardedTools, RequestScopedToolGuard],
    });
    expect(error).toBeInstanceOf(ToolsConfigurationError);
    expect((error as Error).message).toBe(
      MESSAGES.scopedClass('RequestScopedToolGuard', 'guard', 'is request-scoped'),
    );
    expect((error as Error).cause).toBeInstanceOf(InvalidClassScopeException);
  });

  const callInRequest = async (app: Awaited<ReturnType<TestApps['init']>>) => {
    const result = await app
      .get(ToolRequestContext)
      .run({ headers: {} }, () =>
        app.get(ToolInvoker).invoke('ledger_ping', {}, { transport: 'AGENT' }),
      );
    expect(result).toEqual({ ok: true, data: 'pong' });
    // The entries of every call so far.
    return app.get(Ledger).entries;
  };

  it('builds the classes nobody provides with DI, once', async () => {
    for (const type of LEDGER_CLASSES) type.built = 0;
    const app = await apps.init({
      imports: [
        LedgerModule,
        ToolsModule.forRoot({
          registry: [LedgerTools],
          hooks: [LedgerHooks],
          guards: [LedgerGuard],
          context: LedgerResolver,
        }),
      ],
      providers: [LedgerTools],
    });
    await callInRequest(app);
    const entries = await callInRequest(app);
    expect(entries.map(({ role }) => role)).toEqual([
      'context resolver',
      'hook',
      'guard',
      'tool guard',
      'context resolver',
      'hook',
      'guard',
      'tool guard',
    ]);
    expect(entries[4].instance).toBe(entries[0].instance);
    expect(entries[5].instance).toBe(entries[1].instance);
    expect(entries.map(({ instance }) => instance.constructor)).toEqual([
      LedgerResolver,
      LedgerHooks,
      LedgerGuard,
      LedgerToolGuard,
      LedgerResolver,
      LedgerHooks,
      LedgerGuard,
      LedgerToolGuard,
    ]);
    expect(LEDGER_CLASSES.map((type) => type.built)).toEqual([1, 1, 1, 1]);
  });

  it('uses the very instances of the singleton classes the application provides', async () => {
    for (const type of LEDGER_CLASSES) type.built = 0;
    const app = await apps.init({
      imports: [
        LedgerModule,
        ToolsModule.forRoot({
          registry: [LedgerTools],
          hooks: [LedgerHooks],
          guards: [LedgerGuard],
          context: LedgerResolver,
        }),
      ],
      providers: [LedgerTools, ...LEDGER_CLASSES],
    });
    const entries = await callInRequest(app);
    expect(entries).toHaveLength(4);
    const byRole = new Map(entries.map(({ role, instance }) => [role, instance]));
    expect(byRole.get('context resolver')).toBe(app.get(LedgerResolver));
    expect(byRole.get('hook')).toBe(app.get(LedgerHooks));
    expect(byRole.get('guard')).toBe(app.get(LedgerGuard));
    expect(byRole.get('tool guard')).toBe(app.get(LedgerToolGuard));
    expect(LEDGER_CLASSES.map((type) => type.built)).toEqual([1, 1, 1, 1]);
  });
});
