import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-sample/**',
      'coverage/**',
      'node_modules/**',
      'bench/node_modules/**',
      '.scratch/**',
      '.*scratch*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // A size budget for the library: a file a reader can hold (500 lines, comments included) and
  // functions of at most 80 lines of code.
  {
    files: ['lib/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 500 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  // No top-level await in lib/: a module graph with one cannot be `require`d (Node answers
  // ERR_REQUIRE_ASYNC_MODULE), and CommonJS applications `require` the package.
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'AwaitExpression',
          'ForOfStatement[await=true]',
          'VariableDeclaration[kind="await using"]',
        ].map((node) => ({
          selector: `${node}:not(:function ${node})`,
          message:
            'No top-level await in lib/: CommonJS applications require() the package (ERR_REQUIRE_ASYNC_MODULE). Load lazily inside a function.',
        })),
      ],
    },
  },
  // The layers: every import points toward core. core imports nothing else of ours; mcp, ai,
  // langchain and cli import core (and their own SDK); the Nest glue in nest/ imports them all.
  layer('lib/core', [], ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*']),
  layer('lib/mcp', ['core'], ['@nestjs/*', 'ai', '@langchain/*']),
  layer('lib/cli', ['core'], ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*']),
  layer('lib/ai', ['core'], ['@nestjs/*', '@modelcontextprotocol/*', '@langchain/*']),
  layer('lib/langchain', ['core'], ['@nestjs/*', '@modelcontextprotocol/*', 'ai']),
  layer('lib/nest', ['core', 'mcp', 'cli'], ['ai', '@langchain/*']),
  layer('lib/redis', ['core'], ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*']),
  // The test helpers drive an application through its HTTP pipeline: core, mcp and the Nest glue.
  layer('lib/testing', ['core', 'mcp', 'nest'], ['ai', '@langchain/*']),
);

/**
 * An import rule for one folder of lib/: it may import its own files, the sibling folders in
 * `allowed`, and no package in `packages`.
 */
function layer(folder, allowed, packages) {
  const name = folder.slice('lib/'.length);
  const others = ['core', 'mcp', 'nest', 'cli', 'ai', 'langchain', 'redis', 'testing'].filter(
    (other) => other !== name && !allowed.includes(other),
  );
  const message = `${folder} may import ${allowed.length ? allowed.join(', ') + ' and ' : ''}its own files only (every import points toward core).`;
  return {
    files: [`${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            // A relative import that climbs into another folder of lib/.
            { regex: `^(\\.\\./)+(${others.join('|')})(/|$)`, message },
            ...packages.map((pattern) => ({
              // A package name or scope, matched from the start of the specifier only.
              regex: `^${pattern.replace('/*', '/').replace(/[.]/g, '\\.')}${pattern.endsWith('/*') ? '' : '(/|$)'}`,
              message: `${folder} must not import ${packages.join(', ')}.`,
            })),
            {
              regex: '^@opentelemetry/(?!api$)',
              message: 'lib/ uses the OpenTelemetry API only; the application brings the SDK.',
            },
            {
              regex: '^toolwright(/|$)',
              message: 'lib/ imports its own files by relative path, never by the package name.',
            },
          ],
        },
      ],
    },
  };
}
