// The public surface of `toolwright/redis`, listed by name.
export { RedisInstanceBus } from './redis-instance-bus.js';
export type { RedisInstanceBusOptions } from './redis-instance-bus.js';
export { RedisTaskStore } from './redis-task-store.js';
export type { RedisTaskStoreOptions } from './redis-task-store.js';
