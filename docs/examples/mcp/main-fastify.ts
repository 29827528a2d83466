import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { McpAppModule } from './app.module.js';

// The MCP route is registered with bodyLimit: mcp.maxBodyBytes; other routes keep the
// adapter's own (1 MiB by default).
const app = await NestFactory.create<NestFastifyApplication>(McpAppModule, new FastifyAdapter());
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
