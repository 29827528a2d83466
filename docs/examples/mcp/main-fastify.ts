import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { McpAppModule } from './app.module.js';

// Fastify's body limit defaults to 1 MiB; it is set on the adapter.
const app = await NestFactory.create<NestFastifyApplication>(
  McpAppModule,
  new FastifyAdapter({ bodyLimit: 4 * 1024 * 1024 }),
);
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
