/**
 * Preloaded with `node --import` before the conformance CLI. Its bundle imports `globSync` from
 * `fs`, which Node 20 lacks (it arrived in Node 22); only its `tier-check` command uses it. On
 * such a Node this registers a resolve hook that hands the bundle an `fs` with a `globSync` that
 * refuses to run. Newer Nodes are left alone.
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./fs-hooks.mjs', import.meta.url);
