/**
 * The Jest configuration of `npm run test:nest11` (test/nest11/run.mjs): the repository's own
 * configuration, with Nest 11 in place of the repository's Nest 12, over the specs that load Nest
 * in Jest's process.
 *
 * - `TOOLWRIGHT_NEST11_DIR` names a folder whose node_modules holds Nest 11's `@nestjs/common`,
 *   `core`, `platform-express`, `platform-fastify` and `testing` (run.mjs installs it, outside the
 *   clone). Every request for those packages, a deep path included (`@nestjs/core/injector/...`),
 *   from a spec, from lib/ or from inside Nest itself, resolves there: Jest's `moduleNameMapper`
 *   applies to every module of the run. So each @nestjs package has one copy, Nest 11's.
 * - `rxjs` and `reflect-metadata` resolve to the repository's copies, from Nest 11 too (run.mjs
 *   installs Nest 11 without its peers, so the folder holds neither): one copy of each, the one
 *   lib/ and the specs use.
 * - The specs: every `*.spec.ts` whose static imports (through test/ and lib/) reach a runtime
 *   import of one of the five packages, and nest-version.check.ts, which fails the run unless
 *   `@nestjs/core` resolves to Nest 11. A spec whose Nest app runs in a child process (spawned
 *   with its own Node, which resolves the repository's Nest 12) is not a Nest 11 test and is not
 *   selected unless it also loads Nest itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import base from '../../jest.config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The packages whose Nest 11 copies replace the repository's. */
export const NEST_PACKAGES = ['common', 'core', 'platform-express', 'platform-fastify', 'testing'];

const nestDir = process.env.TOOLWRIGHT_NEST11_DIR;
if (!nestDir) {
  throw new Error(
    'TOOLWRIGHT_NEST11_DIR is not set: run `npm run test:nest11`, which installs Nest 11 and sets it.',
  );
}
const nestModules = join(resolve(nestDir), 'node_modules');

/** A bare import of one of the five packages, deep paths included. */
const NEST_IMPORT = new RegExp(`^@nestjs/(?:${NEST_PACKAGES.join('|')})(?:/|$)`);
/** Static and dynamic imports; `import type` and `export type` load nothing. */
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The repository file a specifier names (relative, or the `toolwright` aliases), if any. */
function resolveLocal(from, specifier) {
  if (specifier === 'toolwright') return join(root, 'lib', 'index.ts');
  const alias = /^toolwright\/(.+)$/.exec(specifier);
  if (alias) return join(root, 'lib', alias[1], 'index.ts');
  if (!specifier.startsWith('.')) return undefined;
  const path = resolve(dirname(from), specifier).replace(/\.js$/, '');
  for (const candidate of [`${path}.ts`, join(path, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** Whether `file`'s imports, followed through the repository's files, load Nest. */
function loadsNest(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (NEST_IMPORT.test(specifier)) return true;
    const local = resolveLocal(file, specifier);
    if (local && loadsNest(local, seen)) return true;
  }
  return false;
}

function specsUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : specsUnder(path);
    return entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The selected specs, relative to the repository, sorted. */
export const nestSpecs = specsUnder(join(root, 'test'))
  .filter((spec) => loadsNest(spec))
  .map((spec) => relative(root, spec))
  .sort();

/** @type {import('jest').Config} */
export default {
  ...base,
  rootDir: root,
  testMatch: [
    '<rootDir>/test/nest11/nest-version.check.ts',
    ...nestSpecs.map((spec) => `<rootDir>/${spec}`),
  ],
  moduleNameMapper: {
    // `((?:/.*)?)` always takes part in the match: Jest would write an unmatched group as
    // "undefined".
    [`^@nestjs/(${NEST_PACKAGES.join('|')})((?:/.*)?)$`]: `${nestModules}/@nestjs/$1$2`,
    '^rxjs((?:/.*)?)$': '<rootDir>/node_modules/rxjs$1',
    '^reflect-metadata((?:/.*)?)$': '<rootDir>/node_modules/reflect-metadata$1',
    ...base.moduleNameMapper,
  },
};
