import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpService } from '../mcp/mcp.service.js';
import { ToolInvoker } from '../tool-invoker.service.js';
import type { ToolsHealthIndicatorResult, ToolsHealthOptions } from './health.types.js';
import { isPingable, SharedServicesCheck, type Pingable } from './redis-readiness.js';

/** Injection token of the options of `ToolsHealthModule.forRoot`. */
export const TOOLS_HEALTH_OPTIONS = Symbol.for('toolwright.healthOptions');

const DEFAULT_KEY = 'toolwright';

/**
 * The health of the tools module, as a `@nestjs/terminus` health indicator reports it (no
 * dependency on terminus: its results have the same shape). Liveness is always up: neither a
 * shutdown nor a Redis outage is a reason to restart a process. Readiness is down once the
 * application starts shutting down (its calls draining), and while the configured Redis (the
 * MCP instance bus, the task store) does not answer, pinged at most once per `redisIntervalMs`.
 *
 * @example
 * @Controller('health')
 * class HealthController {
 *   constructor(
 *     private readonly health: HealthCheckService,
 *     private readonly tools: ToolsHealthIndicator,
 *   ) {}
 *
 *   @Get('ready')
 *   @HealthCheck()
 *   ready() {
 *     return this.health.check([() => this.tools.isReady('tools')]);
 *   }
 * }
 */
@Injectable()
export class ToolsHealthIndicator {
  private shared?: SharedServicesCheck;

  constructor(
    @Inject(ToolInvoker) private readonly invoker: ToolInvoker,
    @Optional() @Inject(McpService) private readonly mcp?: McpService,
    @Optional() @Inject(TOOLS_HEALTH_OPTIONS) private readonly options: ToolsHealthOptions = {},
  ) {}

  /** Liveness: up while the process answers. */
  isLive<Key extends string = 'toolwright'>(key?: Key): ToolsHealthIndicatorResult<Key> {
    return { [key ?? this.options.key ?? DEFAULT_KEY]: { status: 'up' } } as never;
  }

  /**
   * Readiness: down while the application shuts down, or while the configured Redis does not
   * answer; up otherwise.
   */
  async isReady<Key extends string = 'toolwright'>(
    key?: Key,
  ): Promise<ToolsHealthIndicatorResult<Key>> {
    const name = key ?? this.options.key ?? DEFAULT_KEY;
    const draining = this.invoker.draining;
    const shared = this.sharedServices();
    const failure = draining || shared.empty ? undefined : await shared.failure();
    const redis = shared.empty ? {} : { redis: failure === undefined ? 'up' : 'down' };
    const why = draining
      ? 'The application is shutting down: its tool calls are draining.'
      : failure && `Redis does not answer: ${failure}`;
    const health = why
      ? { status: 'down', draining, ...(draining ? {} : redis), message: why }
      : { status: 'up', draining, ...redis };
    return { [name]: health } as never;
  }

  /** The Redis parts of the MCP endpoint's options, checked from the first probe on. */
  private sharedServices(): SharedServicesCheck {
    if (this.shared) return this.shared;
    const options = this.mcp?.options;
    const candidates: unknown[] = [options?.bus, options?.tasks?.store];
    const services = [...new Set(candidates.filter(isPingable))] as Pingable[];
    return (this.shared = new SharedServicesCheck(services, this.options.redisIntervalMs ?? 5000));
  }
}
