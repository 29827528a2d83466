import {
  Controller,
  Get,
  Inject,
  Module,
  ServiceUnavailableException,
  type DynamicModule,
  type Type,
} from '@nestjs/common';
import type { ToolsHealthIndicatorResult, ToolsHealthOptions } from './health.types.js';
import { TOOLS_HEALTH_OPTIONS, ToolsHealthIndicator } from './tools-health.indicator.js';

/** A body as `@nestjs/terminus` answers a health check. */
function answer(result: ToolsHealthIndicatorResult) {
  const up = Object.values(result).every((part) => part.status === 'up');
  const body = { status: up ? 'ok' : 'error', info: up ? result : {}, error: up ? {} : result };
  const full = { ...body, details: result };
  if (!up) throw new ServiceUnavailableException(full);
  return full;
}

/** The controller of `GET <path>/live` and `GET <path>/ready`. */
function healthController(path: string): Type {
  @Controller(path)
  class ToolsHealthController {
    constructor(@Inject(ToolsHealthIndicator) private readonly health: ToolsHealthIndicator) {}

    @Get('live')
    live() {
      return answer(this.health.isLive());
    }

    @Get('ready')
    async ready() {
      return answer(await this.health.isReady());
    }
  }
  return ToolsHealthController;
}

/**
 * Liveness and readiness of the tools module: `ToolsHealthIndicator` for the application's
 * `@nestjs/terminus` checks, or, with `path`, routes of its own. Import it next to a global
 * `ToolsModule` (the default).
 *
 * @example
 * @Module({
 *   imports: [
 *     ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } }),
 *     // GET /health/live: 200 while the process answers.
 *     // GET /health/ready: 503 once it shuts down, or while Redis does not answer.
 *     ToolsHealthModule.forRoot({ path: 'health' }),
 *   ],
 * })
 * class AppModule {}
 */
@Module({})
export class ToolsHealthModule {
  /** The indicator, and with `path` the routes `<path>/live` and `<path>/ready`. */
  static forRoot(options: ToolsHealthOptions = {}): DynamicModule {
    return {
      module: ToolsHealthModule,
      providers: [{ provide: TOOLS_HEALTH_OPTIONS, useValue: options }, ToolsHealthIndicator],
      exports: [ToolsHealthIndicator],
      controllers: options.path === undefined ? [] : [healthController(options.path)],
    };
  }
}
