/**
 * The fixture app the official MCP conformance suite runs against (`npm run conformance:server`):
 * Express, the fixture tools at `/mcp`, listening on loopback at `$PORT` (default 3333).
 * `npm run test:conformance` starts it through `test/conformance/run.mjs`.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConformanceAppModule } from './conformance.module.js';

const port = Number(process.env.PORT ?? 3333);
const host = process.env.HOST ?? '127.0.0.1';

const app = await NestFactory.create(ConformanceAppModule, {
  logger: ['error', 'warn', 'log'],
});
app.enableShutdownHooks();
await app.listen(port, host);
console.log(`Conformance fixture listening on http://${host}:${port}/mcp`);
