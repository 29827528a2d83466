/**
 * The `@example` of `RedisInstanceBus`, with its imports: a region at the top level of its own
 * file.
 */
import { ToolsModule } from 'toolwright';
import type { defineToolRegistry } from 'toolwright/core';

declare const registry: ReturnType<typeof defineToolRegistry>;
declare const logger: { warn(message: string): void };

//#region RedisInstanceBus
import { Redis } from 'ioredis';
import { RedisInstanceBus } from 'toolwright/redis';

const redis = new Redis(process.env.REDIS_URL!);
// ioredis reconnects by itself; without a listener it prints each failed attempt as an unhandled error.
redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } });
//#endregion
