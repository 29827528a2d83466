/**
 * The Nest application of a bench server on the adapter `ADAPTER` names, with a JSON body limit
 * and Nest's errors and warnings only. Nest comes from the repository's node_modules (bench/
 * installs none of its own), the copy the library's build resolves.
 */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

export type AdapterName = 'express' | 'fastify';

/** `ADAPTER` from the environment: `express` (the default) or `fastify`. */
export function adapterFromEnv(env: NodeJS.ProcessEnv = process.env): AdapterName {
  const adapter = env.ADAPTER ?? 'express';
  if (adapter !== 'express' && adapter !== 'fastify') {
    throw new Error(`ADAPTER must be "express" or "fastify", got "${adapter}".`);
  }
  return adapter;
}

/** Creates (without initialising) the app of `module` on `adapter`, its JSON bodies up to `bodyLimit` bytes. */
export async function createBenchApp(
  module: object,
  adapter: AdapterName,
  bodyLimit: number,
): Promise<INestApplication> {
  const logger = ['error', 'warn'] as ('error' | 'warn')[];
  if (adapter === 'fastify') {
    return NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter({ bodyLimit }), {
      logger,
    });
  }
  const app = await NestFactory.create<NestExpressApplication>(module, { logger });
  app.useBodyParser('json', { limit: bodyLimit });
  return app;
}
