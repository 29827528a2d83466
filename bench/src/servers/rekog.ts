/**
 * `@rekog/mcp-nest` 2.0.5 serving the benchmark tools (see `shared/tools.ts`) the way its README
 * recommends: `@Tool` methods on an `@McpController`, an `McpStrategy` with the default
 * `StreamableHttpTransport()` (stateless, JSON responses, both eras), self-mounted at `/mcp` on
 * Nest's Express adapter, started with `startAllMicroservices()` before `listen()`.
 *
 * The tool methods are generated (51 of them), so the decorators are applied as functions, in the
 * order TypeScript would apply them. The schemas come from the Zod build the library itself
 * loads (it is CommonJS), so its own Zod code path runs.
 *
 * Environment: `PORT` (default 3402; 0 picks a free port), `TOOLS` (default 51), `HOST`.
 */
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import type * as Zod from 'zod';
import {
  ANNOTATIONS,
  answer,
  benchInput,
  benchOutput,
  BENCH_BODY_LIMIT,
  benchTools,
  toolCountFromEnv,
} from '../shared/tools.js';
import { announceReady, exitOnSignals, portFromEnv } from '../shared/ready.js';

const setupStart = performance.now();

const require = createRequire(import.meta.url);
const rekogEntry = require.resolve('@rekog/mcp-nest');
const { z } = createRequire(rekogEntry)('zod') as typeof Zod;

const count = toolCountFromEnv();
const host = process.env.HOST ?? '127.0.0.1';

class BenchTools {}
const proto = BenchTools.prototype as unknown as Record<string, unknown>;
const output = benchOutput(z);
for (const spec of benchTools(count)) {
  Object.defineProperty(proto, spec.name, {
    value: function (input: { text: string }) {
      return answer(input);
    },
    writable: true,
    configurable: true,
  });
  Payload()(proto, spec.name, 0);
  const descriptor = Object.getOwnPropertyDescriptor(proto, spec.name)!;
  Tool({
    name: spec.name,
    description: spec.description,
    parameters: benchInput(z, spec),
    outputSchema: output,
    annotations: { ...ANNOTATIONS },
  })(proto, spec.name, descriptor);
}
McpController()(BenchTools);

const mcp = new McpStrategy({
  name: 'rekog-bench',
  version: '0.0.0',
  transports: [new StreamableHttpTransport()],
});

class AppModule {}
Module({ controllers: [BenchTools] })(AppModule);

const app = await NestFactory.create<NestExpressApplication>(AppModule, {
  logger: ['error', 'warn'],
});
app.useBodyParser('json', { limit: BENCH_BODY_LIMIT });
mcp.setHttpAdapter(app.getHttpAdapter());
app.connectMicroservice({ strategy: mcp });
await app.startAllMicroservices();
exitOnSignals(() => app.close());
await app.listen(portFromEnv(3402), host);
announceReady('rekog-mcp-nest', app.getHttpServer().address(), count, setupStart);
