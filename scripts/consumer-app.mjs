/**
 * A consumer application of the packed package, built without the network: shared by
 * `npm run check:package` (scripts/check-package.mjs), `npm run test:newcomer`
 * (test/newcomer/run.mjs) and `npm run test:consumers` (test/consumers/run.mjs).
 *
 * `packTarball` runs `npm pack` (so `prepack` trims package.json and `postpack` restores it) and
 * restores package.json itself if the pack failed half-way. `createConsumerApp` extracts the
 * tarball to `<app>/node_modules/toolwright`, as `npm install <tarball>` would, and links every
 * other package the app needs from this repository's node_modules. A linked package resolves its
 * own dependencies from its real path (the repository's node_modules), so one link per package
 * the app or toolwright imports is enough.
 *
 * Temporary directories and child processes registered with `onCleanup` are removed/stopped on
 * SIGINT and SIGTERM too.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { restore, root } from './package-manifest.mjs';

const { AbortSignal, URL, fetch } = globalThis;

export { root };

/** The repository's TypeScript compiler, run with the current Node. */
export const tscBin = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// ---------------------------------------------------------------------------------------------
// Cleanup, also on Ctrl-C.

const cleanups = new Set();

/** Runs `fn` (synchronous) at exit by signal; call the returned function to unregister it. */
export function onCleanup(fn) {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const fn of [...cleanups].reverse()) {
      try {
        fn();
      } catch (error) {
        console.error(error);
      }
    }
    restore();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/**
 * Runs `fn(dir)` in a new temporary directory and removes the directory afterwards, whether `fn`
 * succeeds or fails (or the process is interrupted).
 */
export async function inTempDir(prefix, fn) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const unregister = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  try {
    return await fn(dir);
  } finally {
    unregister();
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Processes.

/**
 * Runs a command to completion; rejects with its output when it exits non-zero or outlives
 * `timeoutMs`.
 */
/**
 * The laps of a run: `lap(label)` records the time since the previous lap; `summary(name)` is
 * the run's closing line, `<name>: ok in <s> on Node <v> (<laps>)`.
 */
export function stopwatch() {
  const laps = [];
  let last = performance.now();
  return {
    lap(label) {
      const now = performance.now();
      laps.push(`${label} ${((now - last) / 1000).toFixed(1)} s`);
      last = now;
    },
    summary: (name) =>
      `${name}: ok in ${(performance.now() / 1000).toFixed(1)} s on Node ${process.versions.node} (${laps.join(', ')})`,
  };
}

/** Builds dist/ (`npm run build`) when it is missing, for a run that packs the package. */
export async function ensureBuilt() {
  if (existsSync(join(root, 'dist', 'index.js'))) return;
  console.log('dist/ is missing: running `npm run build` first.');
  await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']);
}

export function run(command, args, { cwd = root, env, timeoutMs = 120_000 } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const unregister = onCleanup(() => child.kill('SIGKILL'));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      unregister();
      if (code === 0) return resolveRun({ stdout, stderr });
      const how = signal
        ? `was killed (${signal}${signal === 'SIGKILL' ? ', timeout?' : ''})`
        : `exited ${code}`;
      reject(
        new Error(
          `${[command, ...args].join(' ')} ${how}\n${stdout}${stdout && stderr ? '\n' : ''}${stderr}`,
        ),
      );
    });
  });
}

/** A free loopback port. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The package and its consumer.

/**
 * `npm pack` into `destination`; resolves to the tarball's path. package.json is restored
 * before (from a pack that failed earlier) and afterwards, even when this pack failed between
 * `prepack` and `postpack`.
 */
export async function packTarball(destination) {
  await mkdir(destination, { recursive: true });
  // A pack that failed earlier left package.json trimmed, without the scripts that restore it.
  if (!restore()) throw new Error('package.json is not the original (see above)');
  let failure;
  try {
    await run(npm, ['pack', '--pack-destination', destination, '--loglevel', 'error']);
  } catch (error) {
    failure = error;
  }
  // A no-op after a complete pack (postpack restored it); the recovery after a failed one.
  const restored = restore();
  if (failure) throw failure;
  if (!restored) throw new Error('package.json was not restored after npm pack (see above)');
  const tarballs = (await readdir(destination)).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`expected one tarball, found: ${tarballs}`);
  return join(destination, tarballs[0]);
}

/** The packages a consumer of `manifest` needs linked: its dependencies, peers and `extra`. */
export function consumerPackages(manifest, extra = []) {
  return [
    ...new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...extra,
    ]),
  ].sort();
}

/**
 * Creates an ESM application in `dir` with the tarball installed as `toolwright` and `packages`
 * (see `consumerPackages`) linked from the repository; `packages` may be a function of the
 * packed package.json. Resolves to the packed package.json and the package's directory.
 */
export async function createConsumerApp(dir, tarball, packages) {
  const installed = join(dir, 'node_modules', 'toolwright');
  await mkdir(installed, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'toolwright-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
  const names = typeof packages === 'function' ? packages(manifest) : packages;
  for (const name of names) {
    const target = join(root, 'node_modules', name);
    if (!existsSync(target)) {
      throw new Error(`${name} is not installed in ${join(root, 'node_modules')} (npm ci?)`);
    }
    const link = join(dir, 'node_modules', name);
    await mkdir(dirname(link), { recursive: true });
    await symlink(target, link, process.platform === 'win32' ? 'junction' : 'dir');
  }
  return { manifest, installed };
}

// ---------------------------------------------------------------------------------------------
// Running a built app and calling it over MCP.

/** `promise`, or a rejection naming `what` after `ms`. */
export function within(ms, promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts `node dist/main.js` in `app` on a free port (main.ts reads PORT) and waits until it
 * answers HTTP, failing early with its output when it exits. Answers its base URL, its output
 * so far, and `stop()` (SIGTERM, SIGKILL 5 s later).
 */
export async function startApp(app, { startupMs = 30_000 } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/main.js'], {
    cwd: app,
    env: { ...process.env, PORT: String(port), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout.on('data', (chunk) => (output += chunk));
  server.stderr.on('data', (chunk) => (output += chunk));
  let gone = false;
  const exited = new Promise((resolveExit) => server.on('exit', resolveExit)).then(
    () => (gone = true),
  );
  const unregister = onCleanup(() => server.kill('SIGKILL'));
  const stop = async () => {
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    unregister();
  };
  const deadline = performance.now() + startupMs;
  for (;;) {
    if (gone) {
      await stop();
      throw new Error(`the app exited before it served:\n${output}`);
    }
    if (performance.now() >= deadline) {
      await stop();
      throw new Error(`the app did not serve within ${startupMs} ms:\n${output}`);
    }
    try {
      await fetch(base, { signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }
  return { base, output: () => output, stop };
}

/**
 * Connects the official MCP client of the 2026-07-28 era to `<base>/mcp` with `headers`, and
 * checks that `tools/list` answers `tools` and that calling `call.name` with `call.arguments`
 * answers `call.structuredContent`. Each step fails after `ms`.
 */
export async function checkMcp(base, { clientName, headers, tools, call, label, ms = 10_000 }) {
  const client = new Client(
    { name: clientName, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await within(
    ms,
    client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }),
    ),
    'MCP connect',
  );
  try {
    const listed = await within(ms, client.listTools(), 'tools/list');
    assert.deepEqual(
      listed.tools.map((tool) => tool.name).sort(),
      tools,
      `${label}: tools/list answers ${tools.join(', ')}`,
    );
    const result = await within(
      ms,
      client.callTool({ name: call.name, arguments: call.arguments }),
      'tools/call',
    );
    assert.notEqual(result.isError, true, `${label}: tools/call: ${JSON.stringify(result)}`);
    assert.deepEqual(result.structuredContent, call.structuredContent, `${label}: tools/call`);
  } finally {
    await client.close();
  }
}
