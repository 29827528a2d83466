/**
 * `npm run test:newcomer`: what a newcomer does with the published package, end to end.
 *
 * 1. Packs the package (`npm pack`, as `npm publish` would) and installs the tarball in a fresh
 *    ESM app without the network (scripts/consumer-app.mjs, shared with `npm run check:package`).
 * 2. Copies the getting-started code, read from docs/examples/getting-started/*.ts at run time,
 *    into the app's src/ and compiles it with the repository's tsc and the compiler settings
 *    `nest new` generates for Nest 12 (NEST_TSCONFIG below).
 * 3. Starts `node dist/main.js` on a free port (main.ts reads PORT), then:
 *    - over MCP with the official 2026-era client: tools/list and one tools/call;
 *    - over the REST route of invoices.controller.ts: one found invoice and one missing invoice,
 *      which answers 404 with the ToolError envelope.
 * 4. Stops the app and removes the temporary directory, also on failure.
 *
 * Builds dist/ first (`npm run build`) only when it is missing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  checkMcp,
  consumerPackages,
  createConsumerApp,
  inTempDir,
  packTarball,
  root,
  run,
  startApp,
  tscBin,
} from '../../scripts/consumer-app.mjs';

const { AbortSignal, fetch } = globalThis;

const GETTING_STARTED = join(root, 'docs', 'examples', 'getting-started');
const STARTUP_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 10_000;

/**
 * The tsconfig.json of `nest new` for Nest 12 (@nestjs/schematics 12, application template,
 * `strict` at its default), with two changes: `types` without "jest" (the template's tests are
 * not generated here) and `rootDir`, which TypeScript 6 requires when the sources sit in src/
 * (TS5011 otherwise). The app's package.json says `"type": "module"`: ESM.
 */
const NEST_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    resolvePackageJsonExports: true,
    esModuleInterop: true,
    isolatedModules: true,
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2023',
    types: ['node'],
    sourceMap: true,
    outDir: './dist',
    rootDir: './src',
    incremental: true,
    skipLibCheck: true,
    strict: true,
    strictPropertyInitialization: false,
  },
};

/** The template's tsconfig.build.json, which `nest build` compiles. */
const NEST_TSCONFIG_BUILD = {
  extends: './tsconfig.json',
  include: ['src'],
  exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
};

/** The tenant every call runs for: app.module.ts reads it from this header. */
const TENANT = { 'x-tenant-id': 'acme' };

/** What invoices.service.ts holds for acme, as the tools' output schema shows it. */
const INV_1 = { id: 'inv_1', amount: 120, status: 'open' };

// performance.now() counts from the process's start, so the first lap is Node and the imports.
const timings = [];
const lap = (() => {
  let last = 0;
  return (label) => {
    const now = performance.now();
    timings.push(`${label} ${((now - last) / 1000).toFixed(1)} s`);
    last = now;
  };
})();

lap('load');

if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.log('dist/ is missing: running `npm run build` first.');
  await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']);
  lap('build');
}

const sources = (await readdir(GETTING_STARTED)).filter((name) => name.endsWith('.ts'));
const read = (name) => readFile(join(GETTING_STARTED, name), 'utf8');
assert.ok(sources.includes('main.ts'), 'docs/examples/getting-started has main.ts');
assert.match(await read('main.ts'), /process\.env\.PORT/, 'getting-started main.ts reads PORT');
assert.match(await read('app.module.ts'), /x-tenant-id/, 'app.module.ts reads x-tenant-id');
// The controller answers the ToolResult of `invoke`, or the bare data with `invokeOrThrow`.
const controller = await read('invoices.controller.ts');
const restAnswer = /\binvokeOrThrow\b/.test(controller) ? INV_1 : { ok: true, data: INV_1 };

await inTempDir('toolwright-newcomer-', async (work) => {
  const tarball = await packTarball(join(work, 'pack'));
  lap('pack');

  const app = join(work, 'app');
  await createConsumerApp(app, tarball, (packed) =>
    consumerPackages(packed, ['@nestjs/platform-express', '@types/node']),
  );
  await mkdir(join(app, 'src'));
  for (const name of sources) await copyFile(join(GETTING_STARTED, name), join(app, 'src', name));
  await writeFile(join(app, 'tsconfig.json'), `${JSON.stringify(NEST_TSCONFIG, null, 2)}\n`);
  await writeFile(
    join(app, 'tsconfig.build.json'),
    `${JSON.stringify(NEST_TSCONFIG_BUILD, null, 2)}\n`,
  );
  lap('install');

  await run(process.execPath, [tscBin, '-p', 'tsconfig.build.json'], { cwd: app });
  assert.ok(existsSync(join(app, 'dist', 'main.js')), 'tsc wrote dist/main.js');
  lap('compile');

  const { base, output, stop } = await startApp(app, { startupMs: STARTUP_TIMEOUT_MS });
  try {
    lap('start');

    // MCP: the official client of the 2026-07-28 era, with the header the context resolver reads.
    await checkMcp(base, {
      clientName: 'toolwright-newcomer',
      headers: TENANT,
      tools: ['billing_get_invoice', 'billing_list_invoices', 'billing_void_invoice'],
      call: { name: 'billing_get_invoice', arguments: { id: 'inv_1' }, structuredContent: INV_1 },
      label: 'MCP',
      ms: CALL_TIMEOUT_MS,
    });
    console.log('MCP: ok (tools/list, tools/call billing_get_invoice)');

    // REST: the same tool in-process, through the controller.
    const found = await get(`${base}/invoices/inv_1`);
    assert.equal(found.status, 200, `GET /invoices/inv_1 answers 200: ${found.text}`);
    assert.deepEqual(found.body, restAnswer, 'GET /invoices/inv_1 answers the invoice');
    console.log('REST: ok (GET /invoices/inv_1)');

    const missing = await get(`${base}/invoices/inv_404`);
    assert.equal(
      missing.status,
      404,
      `GET /invoices/inv_404 answers 404 (a ToolError reaching Nest's exception layer answers its status): ${missing.status} ${missing.text}`,
    );
    assert.deepEqual(
      missing.body,
      {
        error: 'NOT_FOUND',
        message: 'No invoice inv_404.',
        retryable: false,
        hint: 'Call billing_list_invoices to see the invoice ids.',
      },
      'GET /invoices/inv_404 answers the ToolError envelope',
    );
    console.log('REST: ok (GET /invoices/inv_404 answers 404 with the ToolError envelope)');
    lap('calls');
  } catch (error) {
    console.error(`--- the app's output ---\n${output()}--- end ---`);
    throw error;
  } finally {
    await stop();
  }
});

lap('stop and clean');
console.log(
  `test:newcomer: ok in ${(performance.now() / 1000).toFixed(1)} s (${timings.join(', ')})`,
);

/** GET with the tenant header; the body parsed as JSON. */
async function get(url) {
  const response = await fetch(url, {
    headers: TENANT,
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, text, body };
}
