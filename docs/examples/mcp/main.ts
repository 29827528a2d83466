import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { McpAppModule } from './app.module.js';

const port = Number(process.env.PORT ?? 3000);
const app = await NestFactory.create<NestExpressApplication>(McpAppModule);
// Nest's JSON body parser reads the body before the endpoint does: Express allows 100 kB by
// default. Raise it to match the endpoint's own bound (mcp.maxBodyBytes, 4 MiB by default).
app.useBodyParser('json', { limit: '4mb' });
app.enableShutdownHooks();
await app.listen(port, '127.0.0.1');
console.log(`MCP endpoint: http://localhost:${port}/mcp
Credential:   Authorization: Bearer demo-admin-key   (or demo-viewer-key)`);
