/**
 * The suite's process guard (test/process-guard.environment.ts), tried on the fixture files of
 * test/fixtures/process-guard, which Jest runs in a process of its own: an uncaught exception or
 * an unhandled rejection fails the test it came from (a rejection handled too late included,
 * which Jest alone lets pass), or the file when it surfaces after the last test and hook (which
 * Jest alone reports, at best, by crashing), and a rejection handled in time fails nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { basename } from 'node:path';

/** One file of Jest's `--json` report. */
interface FileReport {
  name: string;
  status: 'passed' | 'failed';
  message: string;
  assertionResults: { title: string; status: string; failureMessages: string[] }[];
}

/** Runs the fixture files with the suite's own configuration; each file's report, by name. */
async function runFixtures(): Promise<{ code: number | null; files: Map<string, FileReport> }> {
  const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
  const child = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      jest,
      '--runInBand',
      '--ci',
      '--json',
      '--testMatch',
      '**/test/fixtures/process-guard/*.fixture.ts',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const report = JSON.parse(stdout) as { testResults: FileReport[] };
  return {
    code,
    files: new Map(report.testResults.map((file) => [basename(file.name), file])),
  };
}

describe('the process guard', () => {
  let run: Awaited<ReturnType<typeof runFixtures>>;
  const file = (name: string) => run.files.get(`${name}.fixture.ts`)!;
  const tests = (name: string) =>
    Object.fromEntries(
      file(name).assertionResults.map((test) => [
        test.title,
        { status: test.status, failure: test.failureMessages.join('\n') },
      ]),
    );

  beforeAll(async () => {
    run = await runFixtures();
  }, 60_000);

  it('makes the run fail, and reports on every file', () => {
    expect(run.code).toBe(1);
    expect([...run.files.keys()].sort()).toEqual([
      'after-the-hooks.fixture.ts',
      'after-the-run.fixture.ts',
      'clean.fixture.ts',
      'exception.fixture.ts',
      'rejections.fixture.ts',
    ]);
  });

  it('fails nothing for rejections handled in time', () => {
    expect(file('clean').status).toBe('passed');
  });

  it('fails each test that left a rejection unhandled, one handled too late included, and no other', () => {
    expect(tests('rejections')).toEqual({
      'leaves a rejection unhandled': {
        status: 'failed',
        failure: expect.stringContaining('unhandledRejection: Error: never handled'),
      },
      'handles a rejection only after I/O': {
        status: 'failed',
        failure: expect.stringContaining('unhandledRejection: Error: handled too late'),
      },
      'runs after them, untouched': { status: 'passed', failure: '' },
    });
    // With the stack of the rejection, pointing at where it was made.
    expect(tests('rejections')['handles a rejection only after I/O'].failure).toContain(
      'rejections.fixture.ts:',
    );
  });

  it('fails the test whose timer threw', () => {
    expect(tests('exception')['lets a timer throw']).toEqual({
      status: 'failed',
      failure: expect.stringContaining('uncaughtException: Error: thrown from a timer'),
    });
  });

  it('fails the file when a rejection surfaces after its last hook, or after its result was made', () => {
    expect(file('after-the-hooks')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('unhandledRejection: left by afterAll'),
    });
    expect(file('after-the-run')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('unhandledRejection: after the run'),
    });
  });
});
