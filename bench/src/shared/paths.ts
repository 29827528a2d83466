import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The bench/ folder: the nearest folder above this file whose package.json is the bench's. */
function findBenchDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'toolwright-bench') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('bench: cannot find bench/package.json above the build.');
    dir = parent;
  }
}

export const BENCH_DIR = findBenchDir();
/** The repository root: the library's package. */
export const REPO_DIR = dirname(BENCH_DIR);
/** Where `bench/run.sh` compiles `bench/src` to. */
export const BUILD_DIR = join(BENCH_DIR, 'node_modules', '.cache', 'toolwright-bench');

/**
 * The library's build (`dist/index.js`, or another of its entry points such as
 * `redis/index.js`) as a URL to `import()`. The compiled bench lives under
 * bench/node_modules/.cache, so a relative import of the build would not reach it.
 */
export function libraryEntry(module = 'index.js'): string {
  // TOOLWRIGHT_DIST: another build of the library (the `reference` targets of BENCH_REFERENCE).
  const entry = join(process.env.TOOLWRIGHT_DIST ?? join(REPO_DIR, 'dist'), module);
  if (!existsSync(entry)) {
    throw new Error(`bench: ${entry} is missing; run \`npm run build\` at the repository root.`);
  }
  return pathToFileURL(entry).href;
}
