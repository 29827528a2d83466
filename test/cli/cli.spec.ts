import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
// The in-process tests import the framework-free parts directly: the jest process never loads Nest.
import { parseCliArguments } from '../../lib/cli/cli-arguments.js';
import { runCliCommand } from '../../lib/cli/cli-commands.js';
import { readCallArguments } from '../../lib/cli/cli-input.js';
import { CliUsageError } from '../../lib/cli/cli-usage.js';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { compileFixture, runCli, type CliRun } from './compiled-fixture.js';

const FIXTURE = 'test/fixtures/cli-app.ts';

describe('runToolsCli (child process)', () => {
  let dir: string;
  let compiled: Awaited<ReturnType<typeof compileFixture>> | undefined;
  // Every run starts at once: each one boots its own Nest application.
  const runs = {} as Record<string, Promise<CliRun>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwright-cli-'));
    const argsFile = join(dir, 'args.json');
    await writeFile(argsFile, JSON.stringify({ sku: 'A-1', quantity: 2 }));
    compiled = await compileFixture(FIXTURE);
    const run = (args: string[], stdin?: string) => runCli(compiled!.entry, args, stdin);
    Object.assign(runs, {
      list: run(['list']),
      listJson: run(['list', '--json']),
      describe: run(['describe', 'inventory_get']),
      success: run(['call', 'inventory_get', '--json'], '{"sku":"A-1"}\n'),
      failure: run(['call', 'inventory_reserve', '--args', '{"sku":"B-2","quantity":1}']),
      invalid: run(['call', 'inventory_reserve', '--args', '{"sku":"A-1","quantity":0}', '--json']),
      unknown: run(['call', 'inventory_gte', '--args', '{}']),
      malformed: run(['call', 'inventory_get', '--args', '{"sku":']),
      argsFile: run([
        'call',
        'inventory_reserve',
        '--args-file',
        argsFile,
        '--context',
        '{"warehouse":"south"}',
      ]),
    });
    await Promise.all(Object.values(runs));
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await compiled?.dispose();
  });

  it('lists the CLI tools as text; stdout carries only the output, Nest logs go to stderr', async () => {
    const { code, stdout, stderr } = await runs.list;
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'inventory_list     List every item in stock',
        'inventory_get      Fetch one item by SKU',
        'inventory_reserve  Reserve units of an item',
        '',
      ].join('\n'),
    );
    expect(stderr).toContain('inventory fixture loaded');
  });

  it('lists the CLI tools as JSON descriptors with --json', async () => {
    const { code, stdout } = await runs.listJson;
    expect(code).toBe(0);
    const tools = JSON.parse(stdout);
    expect(tools.map(({ name }: { name: string }) => name)).toEqual([
      'inventory_list',
      'inventory_get',
      'inventory_reserve',
    ]);
    expect(tools[1].inputSchema).toMatchObject({
      type: 'object',
      properties: { sku: { type: 'string', minLength: 1 } },
      required: ['sku'],
    });
  });

  it('describes a tool with its JSON Schemas', async () => {
    const { code, stdout } = await runs.describe;
    expect(code).toBe(0);
    expect(stdout).toContain('inventory_get: Fetch one item by SKU\nThe SKU is case-sensitive.\n');
    expect(stdout).toContain('service: inventory  action: get  method: GET\n');
    expect(stdout).toContain('annotations: readOnlyHint\n');
    const [input, output] = stdout
      .split(/^(?:input|output) schema:$/m)
      .slice(1)
      .map((block) => JSON.parse(block));
    expect(input).toMatchObject({ required: ['sku'] });
    expect(output).toMatchObject({ required: ['sku', 'name', 'stock'] });
  });

  it('calls a tool with its arguments on stdin: the data on stdout, exit 0, the handler log on stderr', async () => {
    const { code, stdout, stderr } = await runs.success;
    expect(code).toBe(0);
    expect(stdout).toBe('{"sku":"A-1","name":"Anvil","stock":3}\n');
    expect(stderr).toContain('[info] looking up {"sku":"A-1"}');
  });

  it('answers a tool failure with exit 1 and the JSON envelope on stdout', async () => {
    const { code, stdout } = await runs.failure;
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      error: 'CONFLICT',
      message: 'Not enough B-2 in stock',
      retryable: false,
      details: { sku: 'B-2', requested: 1, available: 0 },
      hint: 'Reserve fewer units',
    });
  });

  it("answers invalid arguments with the runner's VALIDATION_ERROR envelope and exit 1", async () => {
    const { code, stdout } = await runs.invalid;
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toHaveLength(1); // --json: one compact line
    expect(JSON.parse(stdout)).toMatchObject({
      error: 'VALIDATION_ERROR',
      retryable: false,
      details: { target: 'input', issues: [{ path: 'quantity', code: 'too_small' }] },
    });
  });

  it('answers an unknown tool with exit 2 and the closest names on stderr', async () => {
    const { code, stdout, stderr } = await runs.unknown;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Unknown tool "inventory_gte". Did you mean "inventory_get"');
  });

  it('answers malformed JSON with exit 2 and a clear message, before booting the application', async () => {
    const { code, stdout, stderr } = await runs.malformed;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^--args is not valid JSON: /);
    expect(stderr).toContain('Run "inventory --help" for usage.');
    expect(stderr).not.toContain('inventory fixture loaded');
  });

  it('reads the arguments from --args-file, and merges --context over the application context', async () => {
    const { code, stdout } = await runs.argsFile;
    expect(code).toBe(0);
    // The fixture gives runToolsCli { warehouse: 'north' }; --context overrides it.
    expect(stdout).toBe('reserved 2 × A-1 in south\n');
  });
});

describe('command line parsing', () => {
  const usage = (argv: string[]) => {
    try {
      parseCliArguments(argv);
    } catch (error) {
      expect(error).toBeInstanceOf(CliUsageError);
      return (error as Error).message;
    }
    throw new Error(`parsed: ${argv.join(' ')}`);
  };

  it('parses each command', () => {
    expect(parseCliArguments(['list', '--json'])).toEqual({ command: 'list', json: true });
    expect(parseCliArguments(['describe', 'a_b', '--context', '{"t":1}'])).toEqual({
      command: 'describe',
      name: 'a_b',
      json: false,
      context: { t: 1 },
    });
    expect(parseCliArguments(['call', 'a_b', '--args={"x":1}'])).toEqual({
      command: 'call',
      name: 'a_b',
      json: false,
      args: { from: 'inline', value: { x: 1 } },
    });
    expect(parseCliArguments(['call', 'a_b', '--args-file', '-'])).toMatchObject({
      args: { from: 'stdin', explicit: true },
    });
    expect(parseCliArguments(['call', 'a_b'])).toMatchObject({
      args: { from: 'stdin', explicit: false },
    });
    expect(parseCliArguments(['list', '-h'])).toEqual({ command: 'help' });
    expect(parseCliArguments(['help'])).toEqual({ command: 'help' });
  });

  it('refuses what it cannot run, saying what to change', () => {
    expect(usage([])).toBe(
      'A command is required: list, describe, call, resources, read, prompts or prompt.',
    );
    expect(usage(['describe'])).toBe('describe needs a tool name: describe <name>.');
    expect(usage(['call', 'a_b', 'extra'])).toMatch(/^Unexpected argument "extra"/);
    expect(usage(['list', 'a_b'])).toBe('list takes no tool name; got "a_b".');
    expect(usage(['list', '--args', '{}'])).toBe('--args is only valid with call and prompt.');
    expect(usage(['call', 'a_b', '--args', '{}', '--args-file', 'x.json'])).toBe(
      'Give the arguments once: --args or --args-file, not both.',
    );
    expect(usage(['call', 'a_b', '--context', '[1]'])).toMatch(/^--context must be a JSON object/);
    expect(usage(['call', 'a_b', '--verbose'])).toMatch(/--verbose/);
    expect(usage(['call', 'a_b', '--args'])).toMatch(/--args/);
    expect(usage(['describ', 'a_b'])).toBe('Unknown command "describ". Did you mean "describe"?');
  });
});

describe('reading the arguments of a call', () => {
  const stdin = (text: string, isTTY?: boolean) =>
    Object.assign(Readable.from([Buffer.from(text)]), { isTTY });

  it('reads JSON from stdin, and nothing from a terminal or empty input', async () => {
    await expect(
      readCallArguments({ from: 'stdin', explicit: false }, stdin('{"a":1}')),
    ).resolves.toEqual({ a: 1 });
    await expect(
      readCallArguments({ from: 'stdin', explicit: false }, stdin(' \n')),
    ).resolves.toEqual({});
    await expect(
      readCallArguments({ from: 'stdin', explicit: false }, stdin('{"a":1}', true)),
    ).resolves.toEqual({});
    await expect(
      readCallArguments({ from: 'stdin', explicit: true }, stdin('{"a":2}', true)),
    ).resolves.toEqual({ a: 2 });
  });

  it('refuses malformed JSON on stdin and an unreadable file', async () => {
    await expect(
      readCallArguments({ from: 'stdin', explicit: false }, stdin('{"sku": A-1}')),
    ).rejects.toThrow(
      new CliUsageError(
        'stdin is not valid JSON: Unexpected token \'A\', "{"sku": A-1}" is not valid JSON',
      ),
    );
    await expect(
      readCallArguments({ from: 'file', path: '/nonexistent/args.json' }, stdin('')),
    ).rejects.toThrow(/^Cannot read --args-file \/nonexistent\/args.json: ENOENT/);
  });
});

describe('runCliCommand without Nest', () => {
  const sink = () => {
    const out = { text: '', write: (chunk: string) => void (out.text += chunk) };
    return out;
  };
  const invoker = createToolInvoker([
    defineRuntimeTool({
      description: 'Echo the context',
      identity: { serviceName: 'ctx', action: 'echo', method: 'GET' },
      input: z.object({}),
      transports: ['CLI'],
      handler: ({ context, call, reportProgress }) => {
        reportProgress({ progress: 1, total: 2, message: 'halfway' });
        return { context, source: call.source, transport: call.transport };
      },
    }),
  ]);

  it('runs on a framework-free invoker with source cli and transport CLI', async () => {
    const [stdout, stderr] = [sink(), sink()];
    const code = await runCliCommand(
      invoker,
      { command: 'call', name: 'ctx_echo', json: true, context: { b: 2 }, input: {} },
      { stdout, stderr, context: { a: 1, b: 1 } },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout.text)).toEqual({
      context: { a: 1, b: 2 },
      source: 'cli',
      transport: 'CLI',
    });
    expect(stderr.text).toBe('progress 1/2 halfway\n');
  });

  it('says on stderr that no tool is exposed on CLI, and exits 0', async () => {
    const [stdout, stderr] = [sink(), sink()];
    const empty = createToolInvoker([]);
    await expect(
      runCliCommand(empty, { command: 'list', json: false }, { stdout, stderr }),
    ).resolves.toBe(0);
    expect(stdout.text).toBe('');
    expect(stderr.text).toContain("add 'CLI' to a tool's transports");
  });
});
