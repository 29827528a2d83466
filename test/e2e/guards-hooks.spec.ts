import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { ToolInvoker, ToolsModule, currentToolCall, type InvokeOptions } from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';
import {
  Recorder,
  RecordingHooks,
  TenantPolicy,
  TenantPolicyGuard,
  TokenGuard,
  VaultClassGuard,
  VaultTools,
  denyTenantObjectGuard,
  recordingHooksObject,
} from '../fixtures/guarded.js';

describe('guards and hooks', () => {
  const apps = new TestApps();
  let recorder: Recorder;
  let app: INestApplication;
  let tools: ToolInvoker;

  beforeAll(async () => {
    recorder = new Recorder();
    app = await apps.init({
      imports: [
        ToolsModule.forRoot({
          registry: [VaultTools],
          guards: [denyTenantObjectGuard, TenantPolicyGuard],
          hooks: [RecordingHooks, recordingHooksObject(recorder)],
        }),
      ],
      providers: [
        { provide: Recorder, useValue: recorder },
        TenantPolicy,
        TenantPolicyGuard,
        VaultClassGuard,
        TokenGuard,
        RecordingHooks,
        VaultTools,
      ],
    });
    tools = app.get(ToolInvoker);
  });
  afterAll(() => apps.closeAll());
  beforeEach(() => {
    recorder.steps.length = 0;
  });

  const as = (tenantId: string): InvokeOptions => ({ transport: 'AGENT', context: { tenantId } });
  const steps = () => recorder.steps.map(({ step }) => step);

  it('runs before hooks, guards, the handler, then after hooks, all inside the call', async () => {
    const result = await tools.invoke<{ callId: string; current: string }>(
      'vault_open',
      {},
      as('acme'),
    );
    expect(result).toEqual({
      ok: true,
      data: { callId: expect.any(String), current: expect.any(String), tenantId: 'acme' },
    });
    if (!result.ok) return;
    // 'before:class:true': the hook's `call` is the one currentToolCall() reports.
    expect(steps()).toEqual([
      'before:class:true',
      'before:object',
      'guard:global-class',
      'guard:class:vault_open',
      'handler',
      'after:class:ok',
      'after:object',
    ]);
    // currentToolCall() is the handler's own call in the handler, every hook and every guard.
    expect(result.data.current).toBe(result.data.callId);
    expect(recorder.steps.map(({ callId }) => callId)).toEqual(
      recorder.steps.map(() => result.data.callId),
    );
    expect(currentToolCall()).toBeUndefined();
  });

  it('resolves hook and guard classes from the container, once', () => {
    expect(RecordingHooks.instances).toBe(1);
    expect(TenantPolicyGuard.instances).toBe(1);
  });

  it('answers FORBIDDEN when a guard object returns false', async () => {
    const result = await tools.invoke('vault_open', {}, as('denied'));
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'FORBIDDEN', retryable: false }),
    });
    expect(steps()).not.toContain('handler');
    expect(steps()).not.toContain('guard:global-class');
    expect(steps()).toContain('after:class:FORBIDDEN');
  });

  it('answers FORBIDDEN when an injected guard class refuses', async () => {
    const result = await tools.invoke('vault_open', {}, as('blocked'));
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'FORBIDDEN' }) });
    expect(steps()).toEqual([
      'before:class:true',
      'before:object',
      'guard:global-class',
      'after:class:FORBIDDEN',
      'after:object',
    ]);
  });

  it('applies a method guard to its tool only, mapping UnauthorizedException', async () => {
    const refused = await tools.invoke('vault_secret', {}, as('acme'));
    expect(refused).toEqual({
      ok: false,
      error: { code: 'UNAUTHORIZED', message: 'Token expired', retryable: false },
    });
    expect(steps()).toEqual([
      'before:class:true',
      'before:object',
      'guard:global-class',
      'guard:class:vault_secret',
      'guard:method',
      'error:class',
      'error:object',
      'after:class:UNAUTHORIZED',
      'after:object',
    ]);

    recorder.steps.length = 0;
    expect(await tools.invoke('vault_secret', { token: 'let-me-in' }, as('acme'))).toEqual({
      ok: true,
      data: { secret: 42 },
    });
    expect(steps()).toContain('handler');

    // The other tools of the class are not behind the method guard.
    recorder.steps.length = 0;
    await tools.invoke('vault_open', {}, as('acme'));
    expect(steps()).not.toContain('guard:method');
  });

  it('maps a NotFoundException from the handler to NOT_FOUND with its message', async () => {
    const result = await tools.invoke('vault_invoice', { id: 'inv_9' }, as('acme'));
    expect(result).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No such invoice', retryable: false },
    });
    expect(steps()).toEqual(
      expect.arrayContaining(['handler', 'error:class', 'after:class:NOT_FOUND']),
    );
  });

  it('maps a 5xx HttpException to INTERNAL_SERVER_ERROR without its message', async () => {
    const result = await tools.invoke('vault_crash', {}, as('acme'));
    expect(result).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(JSON.stringify(result)).not.toContain('10.0.0.4');
  });

  it('builds @UseToolGuards classes nobody provides in the module of the tool class', async () => {
    // VaultClassGuard and TokenGuard inject Recorder, which only VaultModule provides.
    @Module({ providers: [Recorder, TenantPolicy, VaultTools] })
    class VaultModule {}
    const local = await apps.init({ imports: [VaultModule, ToolsModule.forRoot([VaultTools])] });
    const localTools = local.get(ToolInvoker);
    const localRecorder = local.get(Recorder);
    expect(localRecorder).not.toBe(recorder);

    const refused = await localTools.invoke('vault_secret', {}, as('acme'));
    expect(refused).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'UNAUTHORIZED' }),
    });
    expect(await localTools.invoke('vault_secret', { token: 'let-me-in' }, as('acme'))).toEqual({
      ok: true,
      data: { secret: 42 },
    });
    expect(localRecorder.steps.map(({ step }) => step)).toEqual([
      'guard:class:vault_secret',
      'guard:method',
      'guard:class:vault_secret',
      'guard:method',
      'handler',
    ]);
  });
});
