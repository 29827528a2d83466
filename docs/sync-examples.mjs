#!/usr/bin/env node
/**
 * Keeps the TypeScript blocks of the guides identical to the files under docs/examples, which
 * `npm run typecheck` compiles. In a guide, a TypeScript block is written as
 *
 *   <!-- example: mcp/main.ts -->
 *
 *   [`examples/mcp/main.ts`](examples/mcp/main.ts)
 *
 *   ```ts
 *   …the file, verbatim…
 *   ```
 *
 * `node docs/sync-examples.mjs` checks every guide: it fails when a block differs from its file,
 * when a marker names a missing file, or when a ts/typescript block has no marker (so it would
 * not be compiled). `node docs/sync-examples.mjs --write` rewrites the blocks from the files.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = dirname(fileURLToPath(import.meta.url));
const write = process.argv.includes('--write');
const MARKER = /^<!-- example: (\S+) -->$/;
const TS_FENCE = /^```(ts|typescript|tsx)\s*$/;

function block(path) {
  const code = readFileSync(join(docs, 'examples', path), 'utf8').replace(/\n+$/, '');
  return [
    `<!-- example: ${path} -->`,
    '',
    `[\`examples/${path}\`](examples/${path})`,
    '',
    '```ts',
    code,
    '```',
  ];
}

/** The index of the line that closes the fence opened at `start`. */
function fenceEnd(lines, start) {
  for (let i = start + 1; i < lines.length; i++) if (lines[i].startsWith('```')) return i;
  return -1;
}

const problems = [];
let rewritten = 0;
for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
  const file = join(docs, name);
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (marker) {
      const path = marker[1];
      const open = lines.findIndex((line, j) => j > i && line.startsWith('```'));
      const close = open === -1 ? -1 : fenceEnd(lines, open);
      if (!existsSync(join(docs, 'examples', path))) {
        problems.push(`${name}:${i + 1}: no file docs/examples/${path}`);
        out.push(lines[i]);
        continue;
      }
      if (close === -1) {
        problems.push(`${name}:${i + 1}: marker for ${path} is not followed by a code block`);
        out.push(lines[i]);
        continue;
      }
      const wanted = block(path);
      const current = lines.slice(i, close + 1);
      if (current.join('\n') !== wanted.join('\n')) {
        changed = true;
        if (!write) problems.push(`${name}:${i + 1}: the block differs from docs/examples/${path}`);
      }
      out.push(...(write ? wanted : current));
      i = close;
      continue;
    }
    if (TS_FENCE.test(lines[i])) {
      problems.push(`${name}:${i + 1}: a TypeScript block without an example marker`);
      const close = fenceEnd(lines, i);
      out.push(...lines.slice(i, close === -1 ? lines.length : close + 1));
      i = close === -1 ? lines.length : close;
      continue;
    }
    if (lines[i].startsWith('```')) {
      // Another language (bash, json, text): exempt, copied as is.
      const close = fenceEnd(lines, i);
      out.push(...lines.slice(i, close === -1 ? lines.length : close + 1));
      i = close === -1 ? lines.length : close;
      continue;
    }
    out.push(lines[i]);
  }
  if (write && changed) {
    writeFileSync(file, out.join('\n'));
    rewritten++;
  }
}

if (write) console.log(`sync-examples: ${rewritten} guide(s) rewritten.`);
if (problems.length > 0) {
  console.error(problems.map((p) => `  ${relative(process.cwd(), docs) || '.'}/${p}`).join('\n'));
  process.exit(1);
}
if (!write) console.log('sync-examples: every TypeScript block matches its compiled example.');
