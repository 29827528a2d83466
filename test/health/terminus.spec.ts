/**
 * ToolsHealthIndicator inside the real @nestjs/terminus: a health controller of the application's
 * own checks `tools.isReady()` with `HealthCheckService`, which answers 200 while the tools are
 * ready and 503 with terminus's own error body once the application drains.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { z } from 'zod';
import { defineRuntimeTool, ToolInvoker, ToolsModule } from '../../lib/index.js';
import { ToolsHealthIndicator, ToolsHealthModule } from '../../lib/nest/health/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { Latches, waitFor } from '../fixtures/timing.js';

@Controller('health')
class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(ToolsHealthIndicator) private readonly tools: ToolsHealthIndicator,
  ) {}

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.tools.isReady('tools')]);
  }
}

describe.each(ADAPTERS)('ToolsHealthIndicator in @nestjs/terminus (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('is up, then down with terminus 503 once the application drains', async () => {
    const started = new Latches();
    const release = new Latches();
    const hold = defineRuntimeTool({
      description: 'Hold until released',
      identity: { serviceName: 'health', action: 'hold', method: 'GET' },
      input: z.object({}),
      handler: async () => {
        started.get('call').resolve();
        await release.get('call').promise;
        return null;
      },
    });
    const { app, url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({ registry: [hold], mcp: false }),
          ToolsHealthModule.forRoot(),
          TerminusModule.forRoot({ logger: false }),
        ],
        controllers: [HealthController],
      },
      adapter,
    );
    const up = await fetch(`${url}/health/ready`);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({
      status: 'ok',
      info: { tools: { status: 'up', draining: false } },
    });

    // A call in flight keeps the application draining while the probe runs.
    const call = app.get(ToolInvoker).invoke('health_hold', {}, { transport: 'MCP' });
    await started.get('call').promise;
    const closing = app.close();
    apps.forget(app);
    let down: unknown;
    const answered = await waitFor(async () => {
      const response = await fetch(`${url}/health/ready`);
      down = await response.json();
      return response.status === 503;
    });
    expect(answered).toBe(true);
    expect(down).toMatchObject({
      status: 'error',
      error: { tools: { status: 'down', draining: true } },
    });
    release.get('call').resolve();
    await call;
    await closing;
  });
});
