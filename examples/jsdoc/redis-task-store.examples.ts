/**
 * The `@example` of `RedisTaskStore`, with its imports: a region at the top level of its own
 * file.
 */
declare const logger: { warn(message: string): void };

//#region RedisTaskStore
import { Redis } from 'ioredis';
import { RedisTaskStore } from 'toolwright/redis';

const redis = new Redis(process.env.REDIS_URL!);
redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
const store = new RedisTaskStore({ redis });
//#endregion

export { store };
