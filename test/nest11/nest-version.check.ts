/**
 * The guard of `npm run test:nest11`: the run fails unless the five Nest packages, as the specs
 * and lib/ import them (through test/nest11/jest.config.js's mapping), are Nest 11, each from the
 * one folder run.mjs installed, and rxjs and reflect-metadata are the repository's single copies.
 * Not a `*.spec.ts`: `npm test` (Nest 12) does not run it.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';

// Jest's own `require` for this file: it resolves through the run's moduleNameMapper.
const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const nestModules = join(resolve(process.env.TOOLWRIGHT_NEST11_DIR ?? ''), 'node_modules');
const PACKAGES = ['common', 'core', 'platform-express', 'platform-fastify', 'testing'];

describe('the Nest of test:nest11', () => {
  it.each(PACKAGES)('@nestjs/%s is Nest 11, from the Nest 11 folder', (name) => {
    const manifest = require.resolve(`@nestjs/${name}/package.json`);
    expect(dirname(manifest)).toBe(join(nestModules, '@nestjs', name));
    const { version } = require(manifest) as { version: string };
    expect(version).toMatch(/^11\./);
  });

  it("lib/ and the specs import that copy of @nestjs/core, not the repository's", () => {
    const fromNest11 = require(join(nestModules, '@nestjs', 'core')) as {
      NestFactory: unknown;
    };
    expect(NestFactory).toBe(fromNest11.NestFactory);
  });

  it.each(['rxjs', 'reflect-metadata'])('%s is the repository’s one copy', (name) => {
    expect(require.resolve(name).startsWith(join(root, 'node_modules', name) + '/')).toBe(true);
  });
});
