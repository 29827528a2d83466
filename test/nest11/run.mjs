/**
 * `npm run test:nest11`: the repository's own Nest specs (test/e2e and every other spec that loads
 * Nest in Jest's process) against Nest 11, the older of the two majors the peers accept
 * (`^11.1.0 || ^12.0.0`); `npm test` runs them against the repository's Nest 12.
 *
 * 1. Nest 11 comes from the npm registry: the latest 11.x of `@nestjs/common`, `core`,
 *    `platform-express`, `platform-fastify` and `testing`, installed once into a cache outside
 *    the clone (TOOLWRIGHT_NEST11_CACHE, default ~/.cache/toolwright-nest11) and reused while it
 *    holds Nest 11 of all five (delete the folder to take newer 11.x releases). Installed without
 *    peers (`--legacy-peer-deps`): rxjs and reflect-metadata stay the repository's single copies.
 * 2. Jest runs with test/nest11/jest.config.js: the repository's configuration, with every import
 *    of those packages mapped to the cache (see there which specs it selects). The run prints
 *    the Nest it uses, and test/nest11/nest-version.check.ts fails it unless that Nest, as the
 *    specs import it, is 11.
 *
 * Extra arguments go to Jest (a spec path narrows the run, as with `npm test`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PACKAGES = ['common', 'core', 'platform-express', 'platform-fastify', 'testing'];
const RANGE = '^11.1.0';
const INSTALL_TIMEOUT_MS = 300_000;

const cache = resolve(
  process.env.TOOLWRIGHT_NEST11_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'toolwright-nest11'),
);

/** The version of each package in `dir`'s node_modules, or undefined where one is missing. */
function versions(dir) {
  return PACKAGES.map((name) => {
    const manifest = join(dir, 'node_modules', '@nestjs', name, 'package.json');
    return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
  });
}
const allNest11 = (found) => found.every((version) => version?.startsWith('11.'));

function run(command, args, options = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    const timer =
      options.timeoutMs &&
      setTimeout(() => {
        child.kill('SIGTERM');
        reject(new Error(`${command} ${args.join(' ')}: no end after ${options.timeoutMs} ms`));
      }, options.timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolveRun(code ?? (signal ? 1 : 0));
    });
  });
}

/** Installs Nest 11 into a folder of its own, then moves it to `cache` (kept if a concurrent run won). */
async function install() {
  await mkdir(dirname(cache), { recursive: true });
  const tmp = await mkdtemp(`${cache}.tmp-`);
  try {
    // A package.json of its own, so npm never climbs to the project's.
    await writeFile(join(tmp, 'package.json'), '{ "private": true }\n');
    const code = await run(
      npm,
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--legacy-peer-deps',
        '--loglevel=error',
        ...PACKAGES.map((name) => `@nestjs/${name}@${RANGE}`),
      ],
      { cwd: tmp, timeoutMs: INSTALL_TIMEOUT_MS, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (code !== 0) throw new Error(`npm install of Nest 11 failed (exit ${code})`);
    if (!allNest11(versions(tmp))) {
      throw new Error(`npm installed ${versions(tmp).join(', ')}, not Nest 11 of all five`);
    }
    if (allNest11(versions(cache))) return;
    await rm(cache, { recursive: true, force: true });
    // A concurrent run may have filled the cache meanwhile: then its copy stays.
    await rename(tmp, cache).catch((error) => {
      if (!allNest11(versions(cache))) throw error;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const start = performance.now();
if (!allNest11(versions(cache))) {
  console.log(`test:nest11: installing Nest 11 (${RANGE}) into ${cache}`);
  await install();
}
const installed = versions(cache);
const installSeconds = (performance.now() - start) / 1000;
console.log(
  `test:nest11: Nest ${installed[1]} from ${cache} (${PACKAGES.map((name, i) => `@nestjs/${name} ${installed[i]}`).join(', ')}), Node ${process.versions.node}`,
);
if (!allNest11(installed)) {
  console.error(`test:nest11: ${cache} does not hold Nest 11 of all five packages`);
  process.exit(1);
}

// Spec paths narrow the run; the version check stays in it.
const args = process.argv.slice(2);
const narrowed = args.some((arg) => !arg.startsWith('-') && /\.ts$|\//.test(arg));
const code = await run(
  process.execPath,
  [
    join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--config',
    join(root, 'test', 'nest11', 'jest.config.js'),
    ...args,
    ...(narrowed ? ['test/nest11/nest-version.check.ts'] : []),
  ],
  {
    cwd: root,
    env: {
      ...process.env,
      // As `npm test` runs Jest: ESM specs need vm modules, in Jest's workers too.
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules']
        .filter(Boolean)
        .join(' '),
      TOOLWRIGHT_NEST11_DIR: cache,
    },
  },
);
console.log(
  `test:nest11: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${((performance.now() - start) / 1000).toFixed(1)} s on Nest ${installed[1]} (install ${installSeconds.toFixed(1)} s)`,
);
process.exit(code);
