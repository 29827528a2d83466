/**
 * `npm run check:package` (after `npm run build`): packs the package as `npm publish` would and
 * checks the tarball from a consumer's side, without the network.
 *
 * 1. The tarball holds LICENSE, README.md, dist/ and lib/ (the declaration maps' sources), and its
 *    package.json keeps only the published fields (scripts/package-manifest.mjs).
 * 2. Every source map (.js.map and .d.ts.map) names sources that are in the tarball or inlined.
 * 3. A consumer app with the tarball installed imports every entry point by name
 *    (consumer/entry-points.mjs) and type-checks a file that imports from each of them
 *    (consumer/types.ts) with module/moduleResolution nodenext, strict, declaration and
 *    skipLibCheck false.
 *
 * The temporary directories are removed at the end, also on failure; package.json is restored
 * even if the pack failed half-way.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  consumerPackages,
  createConsumerApp,
  inTempDir,
  packTarball,
  root,
  run,
  tscBin,
} from './consumer-app.mjs';
import { PUBLISHED_FIELDS, droppedFields } from './package-manifest.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const started = performance.now();
const seconds = (from) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
let packing = '';

if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(1);
}

/** Fields the tarball's package.json must not carry, whatever the repository's holds. */
const REPOSITORY_ONLY = ['scripts', 'devDependencies', 'allowScripts'];

/** The consumer's compiler settings for the type check. */
const TYPES_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2023',
    strict: true,
    declaration: true,
    skipLibCheck: false,
    types: ['node'],
    rootDir: '.',
    outDir: 'out',
  },
  files: ['types.ts'],
};

await inTempDir('toolwright-package-', async (work) => {
  const packStart = performance.now();
  const tarball = await packTarball(join(work, 'pack'));
  packing = seconds(packStart);
  const { stdout: listing } = await run('tar', ['-tzf', tarball]);
  const files = listing
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
  for (const file of ['package.json', 'LICENSE', 'README.md', 'dist/index.js', 'lib/index.ts']) {
    assert.ok(files.includes(file), `the tarball holds ${file}`);
  }
  const strays = files.filter((file) => !/^(dist|lib)\//.test(file) && !/^[^/]+$/.test(file));
  assert.deepEqual(strays, [], 'the tarball holds dist/, lib/ and top-level files only');

  const app = join(work, 'app');
  const { manifest, installed } = await createConsumerApp(app, tarball, (packed) =>
    consumerPackages(packed, ['@types/node']),
  );

  // 1. The published package.json.
  const source = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  for (const field of new Set([...REPOSITORY_ONLY, ...droppedFields(source)])) {
    assert.equal(field in manifest, false, `the packed package.json has no "${field}"`);
  }
  for (const field of Object.keys(manifest)) {
    assert.ok(PUBLISHED_FIELDS.includes(field), `"${field}" is a published field`);
  }
  for (const field of PUBLISHED_FIELDS.filter((name) => name in source)) {
    assert.deepEqual(manifest[field], source[field], `the packed package.json keeps "${field}"`);
  }
  console.log(
    `packed package.json: ok (${Object.keys(manifest).length} fields; left out: ${droppedFields(source).join(', ')})`,
  );

  // 2. Source maps.
  const maps = files.filter((file) => file.endsWith('.map'));
  assert.ok(
    maps.some((file) => file.endsWith('.d.ts.map')),
    'the tarball has declaration maps',
  );
  assert.ok(
    maps.some((file) => /\.js\.map$/.test(file)),
    'the tarball has source maps',
  );
  for (const file of maps) {
    const map = JSON.parse(await readFile(join(installed, file), 'utf8'));
    map.sources.forEach((name, index) => {
      if (typeof map.sourcesContent?.[index] === 'string') return;
      const target = resolve(dirname(join(installed, file)), map.sourceRoot ?? '', name);
      const inside = relative(installed, target);
      assert.ok(
        !inside.startsWith(`..${sep}`) && files.includes(inside.split(sep).join('/')),
        `${file}: its source ${name} is in the tarball or inlined`,
      );
    });
  }
  console.log(`source maps: ok (${maps.length} maps, every source in the tarball or inlined)`);

  // 3. The consumer: runtime imports and types, side by side.
  await copyFile(join(here, 'consumer', 'entry-points.mjs'), join(app, 'entry-points.mjs'));
  await copyFile(join(here, 'consumer', 'types.ts'), join(app, 'types.ts'));
  await writeFile(join(app, 'tsconfig.json'), `${JSON.stringify(TYPES_TSCONFIG, null, 2)}\n`);
  const [imports] = await Promise.all([
    run(process.execPath, ['entry-points.mjs'], { cwd: app }),
    run(process.execPath, [tscBin, '-p', 'tsconfig.json'], { cwd: app }),
  ]);
  process.stdout.write(imports.stdout);
  const emitted = await readdir(join(app, 'out'));
  assert.ok(emitted.includes('types.d.ts'), 'the consumer file compiles with declarations');
  console.log(
    'package types: ok (every entry point under module/moduleResolution nodenext, strict, declaration, skipLibCheck false)',
  );
});

console.log(`check:package: ok in ${seconds(started)} (npm pack ${packing})`);
