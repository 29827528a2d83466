/** Node's `fs`, plus the `globSync` Node 20 lacks (unused by the server scenarios). */
export * from 'node:fs';
export { default } from 'node:fs';

export function globSync() {
  throw new Error(
    'fs.globSync needs Node 22 or later; the conformance `tier-check` is not supported here.',
  );
}
