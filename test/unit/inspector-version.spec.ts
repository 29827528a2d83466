/**
 * Every MCP Inspector command in the README and the guides names the Inspector's version, the
 * same one everywhere: without it, `npx` may run an older copy from its cache (0.15 on an older
 * Node), whose command line refuses a URL ("Arguments cannot be passed to a URL-based MCP
 * server").
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];
const COMMAND = /npx (?:-y )?@modelcontextprotocol\/inspector(@[^\s`]*)?/g;

/** Each Inspector command of the docs: where it is and the version it names (`''` for none). */
function commands(): Array<{ where: string; version: string }> {
  return FILES.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        [...line.matchAll(COMMAND)].map((match) => ({
          where: `${file}:${index + 1}`,
          version: match[1] ?? '',
        })),
      ),
  );
}

describe('the MCP Inspector in the docs', () => {
  it('is run with one named 2.x version everywhere', () => {
    const found = commands();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter(({ version }) => !/^@2\.\d+\.\d+$/.test(version))).toEqual([]);
    expect(new Set(found.map(({ version }) => version)).size).toBe(1);
  });
});
