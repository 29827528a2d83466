/**
 * The layer rule of eslint.config.js (one `no-restricted-imports` per lib/ folder): an import
 * that points away from core is an error, an import toward core is not. Linted through ESLint's
 * Node API against the repository's own configuration, on virtual files inside each folder.
 * Also the rule beside it: no top-level await in lib/ (a CommonJS application `require`s it).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What eslint.config.js declares per folder: the sibling folders and packages it may import. */
const LAYERS: Record<string, { allowed: string[]; packages: string[] }> = {
  'lib/core': {
    allowed: [],
    packages: ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*'],
  },
  'lib/mcp': { allowed: ['core'], packages: ['@nestjs/*', 'ai', '@langchain/*'] },
  'lib/cli': {
    allowed: ['core'],
    packages: ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*'],
  },
  'lib/ai': {
    allowed: ['core'],
    packages: ['@nestjs/*', '@modelcontextprotocol/*', '@langchain/*'],
  },
  'lib/langchain': { allowed: ['core'], packages: ['@nestjs/*', '@modelcontextprotocol/*', 'ai'] },
  'lib/nest': { allowed: ['core', 'mcp', 'cli'], packages: ['ai', '@langchain/*'] },
  'lib/testing': { allowed: ['core', 'mcp', 'nest'], packages: ['ai', '@langchain/*'] },
  'lib/redis': {
    allowed: ['core'],
    packages: ['@nestjs/*', '@modelcontextprotocol/*', 'ai', '@langchain/*'],
  },
};

/** The rule's message for an import of a folder the layer may not import. */
function folderMessage(folder: string, specifier: string): string {
  const { allowed } = LAYERS[folder];
  const may = allowed.length ? `${allowed.join(', ')} and ` : '';
  return `'${specifier}' import is restricted from being used by a pattern. ${folder} may import ${may}its own files only (every import points toward core).`;
}

/** The rule's message for an import of a package the layer may not import. */
function packageMessage(folder: string, specifier: string): string {
  return `'${specifier}' import is restricted from being used by a pattern. ${folder} must not import ${LAYERS[folder].packages.join(', ')}.`;
}

type Refusal = 'folder' | 'package' | 'self';

/** The rule's message for an import of the package by its own name, from inside lib/. */
function selfMessage(_folder: string, specifier: string): string {
  return `'${specifier}' import is restricted from being used by a pattern. lib/ imports its own files by relative path, never by the package name.`;
}

const MESSAGES: Record<Refusal, (folder: string, specifier: string) => string> = {
  folder: (folder, specifier) => folderMessage(folder, specifier),
  package: (folder, specifier) => packageMessage(folder, specifier),
  self: selfMessage,
};

/** Imports that must be refused, and the refusals each gets. */
const REFUSED: ReadonlyArray<[folder: string, specifier: string, refusals: Refusal[]]> = [
  ['lib/core', '../nest/tools.module.js', ['folder']],
  ['lib/core', '../mcp/index.js', ['folder']],
  ['lib/core', '@nestjs/common', ['package']],
  ['lib/core', '@modelcontextprotocol/server', ['package']],
  ['lib/mcp', '../nest/mcp/mcp.service.js', ['folder']],
  ['lib/mcp', '@nestjs/common', ['package']],
  ['lib/ai', '../nest/index.js', ['folder']],
  ['lib/ai', '../mcp/index.js', ['folder']],
  ['lib/langchain', '../nest/index.js', ['folder']],
  ['lib/langchain', '../mcp/index.js', ['folder']],
  ['lib/cli', '../nest/index.js', ['folder']],
  ['lib/cli', '../mcp/index.js', ['folder']],
  ['lib/nest', '../ai/index.js', ['folder']],
  ['lib/nest', 'ai', ['package']],
  ['lib/langchain', 'ai', ['package']],
  ['lib/core', 'toolwright', ['self']],
  ['lib/mcp', 'toolwright/core', ['self']],
  ['lib/ai', 'toolwright', ['self']],
  ['lib/nest', 'toolwright/mcp', ['self']],
  ['lib/redis', '../mcp/index.js', ['folder']],
  ['lib/redis', '../nest/index.js', ['folder']],
  ['lib/redis', '@modelcontextprotocol/server', ['package']],
  ['lib/core', '../redis/index.js', ['folder']],
  ['lib/mcp', '../redis/index.js', ['folder']],
];

/** Imports toward core, which the rule lets through. */
const ALLOWED: ReadonlyArray<[folder: string, specifier: string]> = [
  ['lib/mcp', '../core/errors.js'],
  ['lib/nest', '../mcp/http-endpoint.js'],
  ['lib/nest/mcp', '../../mcp/http-endpoint.js'],
  ['lib/nest/cli', '../../cli/cli-commands.js'],
  ['lib/ai', '../core/index.js'],
  ['lib/langchain', '../core/index.js'],
  ['lib/cli', '../core/index.js'],
  ['lib/nest', '../core/index.js'],
  ['lib/core', './errors.js'],
  ['lib/ai', 'ai'],
  ['lib/nest/mcp', '@modelcontextprotocol/server'],
  ['lib/core', 'zod'],
  ['lib/redis', '../core/instance-bus.js'],
  ['lib/redis', 'ioredis'],
];

describe('the layer lint rule', () => {
  let eslint: ESLint;

  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  /** The `no-restricted-imports` messages for one import in a file of a folder. */
  async function restricted(folder: string, specifier: string) {
    const code = `import * as imported from '${specifier}';\n\nexport const value = imported;\n`;
    const [result] = await eslint.lintText(code, { filePath: `${folder}/x.ts` });
    // A fatal message (a parse error, an unloadable config) would make "no error" meaningless.
    expect(result.messages.filter((message) => message.fatal)).toEqual([]);
    return result.messages
      .filter((message) => message.ruleId === 'no-restricted-imports')
      .map(({ ruleId, severity, line, message }) => ({ ruleId, severity, line, message }));
  }

  it.each(REFUSED)('refuses, in %s, an import of %s', async (folder, specifier, refusals) => {
    expect(await restricted(folder, specifier)).toEqual(
      refusals.map((refusal) => ({
        ruleId: 'no-restricted-imports',
        severity: 2,
        line: 1,
        message: MESSAGES[refusal](folder, specifier),
      })),
    );
  });

  it.each(ALLOWED)('lets %s import %s', async (folder, specifier) => {
    expect(await restricted(folder, specifier)).toEqual([]);
  });
});

describe('the no-top-level-await lint rule', () => {
  let eslint: ESLint;

  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  const MESSAGE =
    'No top-level await in lib/: CommonJS applications require() the package (ERR_REQUIRE_ASYNC_MODULE). Load lazily inside a function.';

  /** The lines of `code` (a file in lib/core) that the rule refuses. */
  async function refusedLines(code: string): Promise<number[]> {
    const [result] = await eslint.lintText(code, { filePath: 'lib/core/x.ts' });
    expect(result.messages.filter((message) => message.fatal)).toEqual([]);
    return result.messages
      .filter((message) => message.ruleId === 'no-restricted-syntax')
      .map(({ severity, line, message }) => {
        expect({ severity, message }).toEqual({ severity: 2, message: MESSAGE });
        return line;
      });
  }

  it('refuses await at module level: a declaration, a block, an if, for await, an array', async () => {
    const code = [
      "export const api = await import('node:os');",
      'if (api) {',
      '  await Promise.resolve();',
      '}',
      '{',
      '  await Promise.resolve();',
      '}',
      'for await (const item of [Promise.resolve(1)]) void item;',
      'export const list = [await Promise.resolve(1)];',
    ].join('\n');
    expect(await refusedLines(`${code}\n`)).toEqual([1, 3, 6, 8, 9]);
  });

  it('lets await inside functions, methods and arrow functions through', async () => {
    const code = [
      "export async function load() { return await import('node:os'); }",
      'export const arrow = async () => { for await (const item of []) void item; };',
      'export class Loader { async load() { await Promise.resolve(); } }',
      'export const expression = async function () { await Promise.resolve(); };',
    ].join('\n');
    expect(await refusedLines(`${code}\n`)).toEqual([]);
  });
});
