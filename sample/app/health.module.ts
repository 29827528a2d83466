import { Module } from '@nestjs/common';
import { ToolsHealthModule } from 'toolwright';

/**
 * The sample's health checks: `GET /health/live` (200 while the process answers) and
 * `GET /health/ready` (503 once it shuts down and its calls drain, or while the Redis of
 * `npm run sample:cluster` does not answer, pinged at most once a second). Probes need no
 * API key. The cluster's proxy skips an instance that is not ready.
 */
@Module({ imports: [ToolsHealthModule.forRoot({ path: 'health', redisIntervalMs: 1000 })] })
export class HealthModule {}
