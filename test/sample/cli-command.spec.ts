/**
 * The help desk's command line as the guides tell a newcomer to run it: `npm run -s cli -- …`
 * runs the sample from source (no build of the library first), and stdout carries only the
 * command's output, so `npm run -s cli -- list --json | jq` works.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'helpdesk-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `npm <args>` in the repository as a shell would, on a database of its own. */
function npm(args: string[]): Promise<Run> {
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, {
      cwd: process.cwd(),
      env: { ...env, NO_COLOR: '1', HELPDESK_DB: join(dir, 'helpdesk.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The identity of `dist/` (absent: `undefined`): a rebuild removes and recreates it. */
function distIdentity(): string | undefined {
  const stat = statSync('dist', { throwIfNoEntry: false });
  return stat && `${stat.ino}:${stat.birthtimeMs}`;
}

describe('npm run -s cli (the sample from source)', () => {
  it('prints exactly the JSON of `list --json` on stdout, without building the library', async () => {
    const before = distIdentity();
    const { code, stdout, stderr } = await npm(['run', '-s', 'cli', '--', 'list', '--json']);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    // Nothing but the JSON: no npm banner, no log line, one trailing newline.
    const tools = JSON.parse(stdout) as Array<{ name: string }>;
    expect(stdout).toBe(`${JSON.stringify(tools)}\n`);
    expect(tools.map(({ name }) => name)).toContain('helpdesk_get_ticket');
    expect(distIdentity()).toBe(before);
  }, 120_000);

  it('reads the knowledge-base index: the real slugs of the tenant’s articles', async () => {
    const { code, stdout } = await npm(['run', '-s', 'cli', '--', 'read', 'kb://articles']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        '# Knowledge base',
        '',
        '- [Password reset emails](kb://articles/password-reset-emails)',
        '- [VAT rates on invoices](kb://articles/vat-rates-on-invoices)',
        '',
      ].join('\n'),
    );
  }, 120_000);
});
