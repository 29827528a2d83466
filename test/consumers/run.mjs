/**
 * `npm run test:consumers`: the packed package in the four kinds of Nest application that exist,
 * {CommonJS, ESM} × {Nest 11, Nest 12}, end to end. Needs Node 22.12 or later (CommonJS apps
 * `require` the ESM build) and the npm registry (Nest 11 is not among the repository's packages).
 *
 * 1. Packs the package once (`npm pack`, as `npm publish` would; scripts/consumer-app.mjs).
 * 2. Per Nest major, one folder that `npm install`s the tarball beside that major's
 *    `@nestjs/common`, `@nestjs/core` and `@nestjs/platform-express` and the TypeScript its
 *    `nest new` template pins: an ERESOLVE there (peers) fails the run. Two apps share its
 *    node_modules: cjs/ (no `"type"`, as `nest new` generates) and esm/ (`"type": "module"`).
 * 3. Each app is the getting-started code (docs/examples/getting-started/*.ts; a CommonJS app gets
 *    a `bootstrap()` main instead of top-level await), compiled with the app's own tsc:
 *    - cjs on Nest 11: `module` commonjs, `moduleResolution` node (the tsconfig of `nest new`
 *      before the templates moved to nodenext, and of most existing apps);
 *    - cjs on Nest 12: the `nest new` template of @nestjs/schematics 12 (nodenext, CommonJS);
 *    - esm: the Nest 12 ESM template (nodenext) on both majors.
 *    The cjs app also typechecks a file importing every entry point (types.ts) under nodenext,
 *    node16 and commonjs/node, and `require`s toolwright/core, /mcp and /redis at start-up.
 * 4. Starts `node dist/main.js` on a free port and, over MCP with the official client, answers
 *    tools/list and one tools/call; then stops the app. Temporary folders go, also on failure.
 *
 * Builds dist/ first (`npm run build`) only when it is missing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkMcp,
  ensureBuilt,
  inTempDir,
  packTarball,
  root,
  run,
  startApp,
  stopwatch,
} from '../../scripts/consumer-app.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const GETTING_STARTED = join(root, 'docs', 'examples', 'getting-started');
const STARTUP_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 10_000;
const TENANT = { 'x-tenant-id': 'acme' };
const INV_1 = { id: 'inv_1', amount: 120, status: 'open' };

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `test:consumers needs Node 22.12 or later (require of ESM); this is ${process.version}.`,
  );
  process.exit(1);
}

/** What each Nest major's `nest new` installs (@nestjs/schematics 11 and 12 templates). */
const NEST = {
  11: { nest: '^11.1.0', typescript: '^5.7.3' },
  12: { nest: '^12.0.1', typescript: '^6.0.2' },
};

/** The compiler settings both templates share. */
const COMMON = {
  declaration: true,
  removeComments: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  allowSyntheticDefaultImports: true,
  esModuleInterop: true,
  target: 'ES2023',
  types: ['node'],
  sourceMap: true,
  outDir: './dist',
  rootDir: './src',
  skipLibCheck: true,
  strict: true,
  strictPropertyInitialization: false,
};
const NODENEXT = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  isolatedModules: true,
};
/** `module` commonjs resolves `types` and `typesVersions`, not `exports`. TS 6 deprecates it. */
const LEGACY_CJS = (nest) => ({
  module: 'commonjs',
  moduleResolution: 'node',
  ...(nest === 12 && { ignoreDeprecations: '6.0' }),
});

/** A CommonJS main: no top-level await, as in the `nest new` template. */
const CJS_MAIN = `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

// Every entry point whose peers the app has, required at start-up.
for (const entry of ['toolwright/core', 'toolwright/mcp', 'toolwright/redis']) require(entry);

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000));
}
void bootstrap();
`;

/** Typechecked only: every entry point, values and types. */
const TYPES_PROBE = `import { ToolsModule, defineToolRegistry } from 'toolwright';
import { createToolInvoker, ToolError } from 'toolwright/core';
import { createMcpHttpHandler } from 'toolwright/mcp';
import type { AgentToolsOptions } from 'toolwright/ai';
import type { LangChainToolsOptions } from 'toolwright/langchain';
import type { RedisInstanceBusOptions } from 'toolwright/redis';
import { connectMcpClient } from 'toolwright/testing';

export const values = [ToolsModule, defineToolRegistry, createToolInvoker, ToolError, createMcpHttpHandler, connectMcpClient];
export type Options = [AgentToolsOptions, LangChainToolsOptions, RedisInstanceBusOptions];
`;

const { lap, summary } = stopwatch();
await ensureBuilt();

const sources = (await readdir(GETTING_STARTED)).filter((name) => name.endsWith('.ts'));
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

await inTempDir('toolwright-consumers-', async (work) => {
  const tarball = await packTarball(join(work, 'pack'));
  lap('pack');
  for (const nest of [11, 12]) {
    const dir = join(work, `nest${nest}`);
    await install(dir, tarball, nest);
    lap(`install Nest ${nest}`);
    for (const kind of ['cjs', 'esm']) {
      const app = join(dir, kind);
      await createApp(app, nest, kind);
      lap(`compile ${kind} Nest ${nest}`);
      await serveAndCall(app, `${kind} on Nest ${nest}`);
      lap(`serve ${kind} Nest ${nest}`);
    }
  }
});

console.log(summary('test:consumers'));

/** One Nest major's node_modules: the tarball and what `nest new` would install, from npm. */
async function install(dir, tarball, nest) {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), json({ name: `consumer-nest${nest}`, private: true }));
  const { nest: range, typescript } = NEST[nest];
  await run(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      tarball,
      `@nestjs/common@${range}`,
      `@nestjs/core@${range}`,
      `@nestjs/platform-express@${range}`,
      // The client toolwright/testing connects, which the types probe imports.
      '@modelcontextprotocol/client@^2.4.0',
      'reflect-metadata@^0.2.2',
      'rxjs@^7.8.1',
      'zod@^4',
      `typescript@${typescript}`,
      '@types/node@^22',
    ],
    { cwd: dir, timeoutMs: 300_000 },
  );
  const installed = JSON.parse(
    await readFile(join(dir, 'node_modules', '@nestjs', 'core', 'package.json'), 'utf8'),
  );
  assert.equal(Number(installed.version.split('.')[0]), nest, `Nest ${nest} installed`);
}

/** The getting-started app in `app` (cjs or esm), compiled with the app's own tsc. */
async function createApp(app, nest, kind) {
  const tsc = join(app, '..', 'node_modules', 'typescript', 'bin', 'tsc');
  await mkdir(join(app, 'src'), { recursive: true });
  await writeFile(
    join(app, 'package.json'),
    json({ name: `consumer-${kind}`, private: true, type: kind === 'cjs' ? 'commonjs' : 'module' }),
  );
  for (const name of sources) await copyFile(join(GETTING_STARTED, name), join(app, 'src', name));
  if (kind === 'cjs') await writeFile(join(app, 'src', 'main.ts'), CJS_MAIN);
  const module = kind === 'cjs' && nest === 11 ? LEGACY_CJS(nest) : NODENEXT;
  await writeFile(
    join(app, 'tsconfig.json'),
    json({ compilerOptions: { ...COMMON, ...module }, include: ['src'] }),
  );
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
  assert.ok(existsSync(join(app, 'dist', 'main.js')), `${kind} on Nest ${nest}: tsc wrote main.js`);
  if (kind !== 'cjs') return;
  // The entry points' types under every CommonJS setting a Nest app may have.
  await mkdir(join(app, 'probe'));
  await writeFile(join(app, 'probe', 'types.ts'), TYPES_PROBE);
  const settings = {
    nodenext: NODENEXT,
    node16: { module: 'node16', moduleResolution: 'node16' },
    'commonjs/node': LEGACY_CJS(nest),
  };
  await Promise.all(
    Object.entries(settings).map(async ([name, options]) => {
      const config = join(app, `tsconfig.${name.replace('/', '-')}.json`);
      const compilerOptions = { ...COMMON, ...options, rootDir: './probe', noEmit: true };
      await writeFile(config, json({ compilerOptions, files: ['probe/types.ts'] }));
      await run(process.execPath, [tsc, '-p', config], { cwd: app }).catch((error) => {
        throw new Error(`the entry points' types under ${name} (Nest ${nest}): ${error.message}`);
      });
    }),
  );
}

/** Starts the app, asks tools/list and one tools/call over MCP, stops it. */
async function serveAndCall(app, label) {
  const { base, output, stop } = await startApp(app, { startupMs: STARTUP_TIMEOUT_MS });
  try {
    await checkMcp(base, {
      clientName: 'toolwright-consumers',
      headers: TENANT,
      tools: ['billing_get_invoice', 'billing_list_invoices', 'billing_void_invoice'],
      call: { name: 'billing_get_invoice', arguments: { id: 'inv_1' }, structuredContent: INV_1 },
      label,
      ms: CALL_TIMEOUT_MS,
    });
    console.log(`${label}: ok (compiled, served /mcp, tools/list, tools/call)`);
  } catch (error) {
    console.error(`--- ${label}: the app's output ---\n${output()}--- end ---`);
    throw error;
  } finally {
    await stop();
  }
}
