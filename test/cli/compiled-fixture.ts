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
