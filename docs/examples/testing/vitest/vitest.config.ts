import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Runs the Vitest specs of the testing guide from a clone of this repository:
 * `npx vitest run --config docs/examples/testing/vitest/vitest.config.ts`. In your own project,
 * the `vitest.config.ts` that `nest new` generates is all you need.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../../..', import.meta.url)),
  // Resolves 'toolwright' to lib/ through the paths of the repository's tsconfig.json.
  resolve: { tsconfigPaths: true },
  test: { include: ['docs/examples/testing/vitest/*.spec.ts'] },
});
