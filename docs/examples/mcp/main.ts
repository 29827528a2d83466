import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { McpAppModule } from './app.module.js';

const port = Number(process.env.PORT ?? 3000);
const app = await NestFactory.create<NestExpressApplication>(McpAppModule);
// The MCP route reads bodies up to mcp.maxBodyBytes (4 MiB by default); other routes keep
// Express's own limit (100 kB).
app.enableShutdownHooks();
await app.listen(port, '127.0.0.1');
console.log(`MCP endpoint: http://localhost:${port}/mcp
Credential:   Authorization: Bearer demo-admin-key   (or demo-viewer-key)`);
