import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const lib = fileURLToPath(new URL('../../../../lib', import.meta.url));

/**
 * Runs the Vitest specs of the testing guide from a clone of this repository:
 * `npx vitest run --config docs/examples/testing/vitest/vitest.config.ts`. In your own project,
 * the `vitest.config.ts` that `nest new` generates is all you need.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../../..', import.meta.url)),
  // Resolves 'toolwright' to the sources in lib/, as the repository's tsconfig.json paths do.
  resolve: {
    alias: [
      { find: /^toolwright$/, replacement: `${lib}/index.ts` },
      { find: /^toolwright\/(.*)$/, replacement: `${lib}/$1/index.ts` },
    ],
  },
  test: { include: ['docs/examples/testing/vitest/*.spec.ts'] },
});
