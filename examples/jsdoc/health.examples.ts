/**
 * The `@example` blocks of the health checks: `ToolsHealthModule` serving its own routes, and
 * `ToolsHealthIndicator` in an application's `@nestjs/terminus` checks (terminus's
 * `HealthCheckService` and `HealthCheck` are stubbed here: the library does not depend on it).
 */
import { Controller, Get, Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ToolsHealthIndicator, ToolsHealthModule, ToolsModule } from 'toolwright';
import type { defineToolRegistry } from 'toolwright/core';
import { RedisInstanceBus } from 'toolwright/redis';

declare const registry: ReturnType<typeof defineToolRegistry>;
declare const redis: Redis;
/** `@nestjs/terminus`'s service, as far as the example uses it. */
declare class HealthCheckService {
  check(indicators: Array<() => Promise<unknown>>): Promise<unknown>;
}
/** `@nestjs/terminus`'s decorator. */
declare function HealthCheck(): MethodDecorator;

export function routes() {
  //#region ToolsHealthModule
  @Module({
    imports: [
      ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } }),
      // GET /health/live: 200 while the process answers.
      // GET /health/ready: 503 once it shuts down, or while Redis does not answer.
      ToolsHealthModule.forRoot({ path: 'health' }),
    ],
  })
  class AppModule {}
  //#endregion
  return AppModule;
}

export function terminus() {
  //#region ToolsHealthIndicator
  @Controller('health')
  class HealthController {
    constructor(
      private readonly health: HealthCheckService,
      private readonly tools: ToolsHealthIndicator,
    ) {}

    @Get('ready')
    @HealthCheck()
    ready() {
      return this.health.check([() => this.tools.isReady('tools')]);
    }
  }
  //#endregion
  return HealthController;
}
