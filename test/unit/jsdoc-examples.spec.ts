/**
 * scripts/sync-jsdoc-examples.mjs, run on fixture copies of lib/ and of the examples in a temp
 * directory: `--check` lists what differs, `--write` rewrites, adds and removes `@example`
 * blocks from the regions, and a key finds its declaration by name, wherever it is declared.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/sync-jsdoc-examples.mjs', import.meta.url));
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp directory holding `files` (paths relative to it, `lib/…` and `examples/…`). */
function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'jsdoc-examples-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Runs the script on a fixture: its exit code and what it printed. */
function sync(dir: string, ...args: string[]) {
  const run = spawnSync(
    process.execPath,
    [script, '--root', join(dir, 'lib'), '--examples', join(dir, 'examples'), ...args],
    { cwd: dir, encoding: 'utf8' },
  );
  return { code: run.status, output: run.stdout + run.stderr };
}

const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

/** A small lib/: two entry points, a `Widget` declared in two files, an internal helper. */
const LIB = {
  'lib/index.ts': [
    "export * from './core/index.js';",
    "export { Widget } from './nest/widget.js';",
    '',
  ].join('\n'),
  'lib/core/index.ts': "export { makeWidget, type Widget } from './widget.js';\n",
  'lib/core/widget.ts': `/**
 * A widget.
 *
 * @example
 * const widget = makeWidget('old');
 */
export interface Widget {
  /**
   * Its name.
   *
   * @example
   * widget.name;
   */
  readonly name: string;
}

/**
 * Makes a widget.
 *
 * @example
 * makeWidget('a');
 */
export function makeWidget(name: string): Widget {
  return { name };
}

/**
 * An internal helper.
 *
 * @example
 * helper();
 */
export function helper(): void {}
`,
  'lib/nest/widget.ts': `/** The injectable widget. */
export class Widget {
  /** Runs it. */
  run(): void {}
}
`,
};

/** Regions for every public example, one of them changed and one of them new. */
const EXAMPLES = `import { makeWidget } from 'toolwright/core';

//#region makeWidget
makeWidget('a');
//#endregion

export function widgets() {
  //#region toolwright/core!Widget
  const widget = makeWidget('new');
  //#endregion
  //#region toolwright/core!Widget.name
  widget.name;
  //#endregion
}

export function nest() {
  //#region toolwright!Widget.run
  @Injectable()
  class Runner {}

  new Widget().run();
  //#endregion
}
`;

describe('sync-jsdoc-examples', () => {
  it('--check lists an @example that differs, one with no region and one missing, and fails', () => {
    const dir = fixture({ ...LIB, 'examples/widgets.examples.ts': EXAMPLES });
    const before = read(dir, 'lib/core/widget.ts');
    const { code, output } = sync(dir, '--check');
    expect(code).toBe(1);
    expect(output).toContain(
      'lib/core/widget.ts:1: the @example of toolwright/core!Widget differs from region examples/widgets.examples.ts:8',
    );
    expect(output).toContain('lib/core/widget.ts:27: an @example of helper has no region');
    expect(output).toContain(
      'lib/nest/widget.ts:3: toolwright!Widget.run lacks the @example of region examples/widgets.examples.ts:17',
    );
    expect(output).not.toContain('makeWidget');
    expect(read(dir, 'lib/core/widget.ts')).toBe(before);
  });

  it('--write rewrites a changed example, removes an unbacked one and adds a missing one', () => {
    const dir = fixture({ ...LIB, 'examples/widgets.examples.ts': EXAMPLES });
    expect(sync(dir, '--write').code).toBe(0);
    expect(read(dir, 'lib/core/widget.ts')).toBe(
      LIB['lib/core/widget.ts']
        .replace("const widget = makeWidget('old');", "const widget = makeWidget('new');")
        .replace(
          '/**\n * An internal helper.\n *\n * @example\n * helper();\n */',
          '/** An internal helper. */',
        ),
    );
    expect(read(dir, 'lib/nest/widget.ts')).toBe(`/** The injectable widget. */
export class Widget {
  /**
   * Runs it.
   *
   * @example
   * @Injectable()
   * class Runner {}
   *
   * new Widget().run();
   */
  run(): void {}
}
`);
    const again = sync(dir);
    expect(again).toEqual({
      code: 0,
      output: expect.stringContaining('every @example matches its compiled region'),
    });
  });

  it('syncs several regions of one key into that many @example blocks, in order', () => {
    const examples = `//#region makeWidget
makeWidget('a');
//#endregion
//#region makeWidget
makeWidget('b');
//#endregion
`;
    const lib = {
      ...LIB,
      'lib/core/widget.ts': LIB['lib/core/widget.ts'].split('\n/**\n * An')[0],
    };
    const dir = fixture({ ...lib, 'examples/widgets.examples.ts': examples });
    expect(sync(dir, '--write').code).toBe(0);
    expect(read(dir, 'lib/core/widget.ts')).toContain(
      " * @example\n * makeWidget('a');\n *\n * @example\n * makeWidget('b');\n */\nexport function makeWidget",
    );
    // The examples of Widget and Widget.name have no region: taken out.
    expect(read(dir, 'lib/core/widget.ts')).toMatch(/^\/\*\* A widget\. \*\/\nexport interface/);
  });

  it('finds a declaration by name after it moves to another file', () => {
    const moved = {
      'lib/core/index.ts': "export { makeWidget } from './make.js';\n",
      'lib/core/make.ts': '/** Makes a widget. */\nexport function makeWidget() {}\n',
    };
    const dir = fixture({
      ...moved,
      'examples/widgets.examples.ts': '//#region makeWidget\nmakeWidget();\n//#endregion\n',
    });
    expect(sync(dir, '--write').code).toBe(0);
    expect(read(dir, 'lib/core/make.ts')).toBe(
      '/**\n * Makes a widget.\n *\n * @example\n * makeWidget();\n */\nexport function makeWidget() {}\n',
    );
  });

  it('fails, in both modes, on a region that names no declaration or an ambiguous one', () => {
    const examples = `//#region makeWidgets
makeWidgets();
//#endregion
//#region Widget
new Widget();
//#endregion
`;
    const dir = fixture({ ...LIB, 'examples/widgets.examples.ts': examples });
    for (const mode of ['--check', '--write']) {
      const { code, output } = sync(dir, mode);
      expect(code).toBe(1);
      expect(output).toContain(
        'examples/widgets.examples.ts:1: region makeWidgets names no declaration: no declaration in lib/ has this name',
      );
      expect(output).toContain(
        'examples/widgets.examples.ts:4: region Widget names no declaration: declared in lib/core/widget.ts, lib/nest/widget.ts; qualify it: toolwright/core!Widget, toolwright!Widget',
      );
    }
  });

  it('refuses a region that would end the comment or read as a JSDoc tag', () => {
    const examples = `//#region makeWidget
makeWidget('lib/**/*.ts');
@internal
//#endregion
`;
    const dir = fixture({ ...LIB, 'examples/widgets.examples.ts': examples });
    const { code, output } = sync(dir, '--write');
    expect(code).toBe(1);
    expect(output).toContain('examples/widgets.examples.ts:2: "*/" would end the JSDoc comment');
    expect(output).toContain(
      'examples/widgets.examples.ts:3: a line starting "@tag" reads as a tag',
    );
  });
});
