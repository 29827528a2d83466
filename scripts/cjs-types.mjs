/**
 * Run by `npm run build` after tsc: writes `dist/<entry>/index.d.cts` beside every entry point's
 * `index.d.ts`, one line, `export * from './index.js'`. The `require` condition of package.json's
 * `exports` names these, so that a CommonJS application compiled with `module` `node16` (which
 * models a Node without require(esm)) sees a CommonJS declaration and typechecks; `nodenext`
 * (TypeScript 5.8 and later) accepts either. At run time both conditions load the same ESM build:
 * Node 22.12 and later `require` it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from './package-manifest.mjs';

const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
for (const [entry, conditions] of Object.entries(manifest.exports)) {
  const types = conditions?.require?.types;
  if (typeof types !== 'string') continue;
  if (!types.endsWith('/index.d.cts')) throw new Error(`${entry}: ${types} is not an index.d.cts`);
  await writeFile(join(root, types), "export * from './index.js';\n");
}
