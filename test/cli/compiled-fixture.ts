import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * The CLI fixture transpiled once (with `lib/`) to plain JavaScript in a temporary directory, so
 * each child process starts with plain `node`: loading the whole package through tsx's loader
 * costs every spawn about twice the CPU, and the CLI tests spawn a dozen processes. The output
 * matches what tsx runs: legacy decorators, no decorator metadata.
 */
export async function compileFixture(
  fixture: string,
): Promise<{ entry: string; dispose: () => Promise<void> }> {
  const root = process.cwd();
  const out = await mkdtemp(join(tmpdir(), 'toolwright-cli-fixture-'));
  const lib = (await readdir(join(root, 'lib'), { recursive: true }))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join('lib', file));
  await Promise.all(
    [...lib, fixture].map(async (file) => {
      const { outputText } = ts.transpileModule(await readFile(join(root, file), 'utf8'), {
        fileName: file,
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2023,
          experimentalDecorators: true,
          emitDecoratorMetadata: false,
        },
      });
      const target = join(out, file.replace(/\.ts$/, '.js'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, outputText);
    }),
  );
  await writeFile(join(out, 'package.json'), '{ "type": "module" }\n');
  await symlink(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  return {
    entry: join(out, fixture.replace(/\.ts$/, '.js')),
    dispose: () => rm(out, { recursive: true, force: true }),
  };
}

/** How a CLI child process ended: its exit code, stdout (as bytes and text) and stderr. */
export interface CliRun {
  code: number | null;
  /** The raw bytes on stdout: `read` may write binary. */
  bytes: Buffer;
  stdout: string;
  stderr: string;
}

/**
 * Runs a compiled fixture CLI (`entry`, see {@link compileFixture}) as a child process, as a
 * shell would, with `stdin` piped (then closed); killed after a minute as a safety net.
 */
export function runCli(entry: string, args: string[], stdin = ''): Promise<CliRun> {
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: process.cwd(),
      env: { ...env, NO_COLOR: '1' },
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      resolve({ code, bytes, stdout: bytes.toString('utf8'), stderr });
    });
    child.stdin.end(stdin);
  });
}
