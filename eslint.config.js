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
  {
    files: ['lib/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*'], message: 'lib/core is framework-free.' },
            { group: ['@modelcontextprotocol/*'], message: 'lib/core is framework-free.' },
            { group: ['ai', '@langchain/*'], message: 'lib/core is framework-free.' },
          ],
        },
      ],
    },
  },
  {
    files: ['lib/ai/**/*.ts', 'lib/langchain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', '../nest/*', '../mcp/*'],
              message: 'The agent adapters work without Nest: import from ../core only.',
            },
          ],
        },
      ],
    },
  },
);
