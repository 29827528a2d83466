/** The benchmark targets: each a compiled server entry point under bench/src/servers. */
import { join } from 'node:path';
import { BENCH_DIR } from '../shared/paths.js';
import type { ServerSpec } from './server-process.js';

/**
 * With BENCH_REFERENCE set to another build's `dist` folder (say, of the previous commit), the
 * same toolwright servers run on that build too, as `reference-express` and `reference-fastify`:
 * a change and its baseline measured in the same run.
 */
const REFERENCE = process.env.BENCH_REFERENCE;

export const ALL_TARGETS: readonly ServerSpec[] = [
  {
    id: 'toolwright-express',
    label: 'toolwright (Express)',
    entry: 'servers/toolwright.js',
    env: { ADAPTER: 'express' },
  },
  {
    id: 'toolwright-fastify',
    label: 'toolwright (Fastify)',
    entry: 'servers/toolwright.js',
    env: { ADAPTER: 'fastify' },
  },
  {
    id: 'rekog',
    label: '@rekog/mcp-nest 2.0.5 (Express)',
    entry: 'servers/rekog.js',
    // Nest loads @nestjs/microservices by name from its own folder (the repository's
    // node_modules); bench/ installs it, so that lookup needs bench/node_modules on NODE_PATH.
    env: { NODE_PATH: join(BENCH_DIR, 'node_modules') },
  },
  {
    id: 'sdk',
    label: 'SDK createMcpHandler per request (node:http)',
    entry: 'servers/sdk.js',
  },
  ...(REFERENCE
    ? (['express', 'fastify'] as const).map((adapter) => ({
        id: `reference-${adapter}`,
        label: `reference build (${adapter === 'express' ? 'Express' : 'Fastify'})`,
        entry: 'servers/toolwright.js',
        env: { ADAPTER: adapter, TOOLWRIGHT_DIST: REFERENCE },
      }))
    : []),
];
