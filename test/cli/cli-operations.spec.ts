/**
 * Resources and prompts on the command line: `resources`, `read <uri>`, `prompts` and
 * `prompt <name>` on a Nest application run as a child process, then on a framework-free
 * invoker through `runCliCommand` (binary output on and off a terminal, several contents,
 * every kind of prompt content, what an unknown URI or prompt names).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { parseCliArguments } from '../../lib/cli/cli-arguments.js';
import { runCliCommand, type CliCommand } from '../../lib/cli/cli-commands.js';
import { CliUsageError } from '../../lib/cli/cli-usage.js';
import {
  createToolInvoker,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  ToolError,
  type ToolInvoker,
} from '../../lib/core/index.js';
import { compileFixture, runCli, type CliRun } from './compiled-fixture.js';

const FIXTURE = 'test/fixtures/cli-operations-app.ts';

/** The bytes of the fixture's `kb://logo`: a PNG signature, not valid UTF-8. */
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('resources and prompts on the command line (child process)', () => {
  let compiled: Awaited<ReturnType<typeof compileFixture>> | undefined;
  // Every run starts at once: each one boots its own Nest application.
  const runs = {} as Record<string, Promise<CliRun>>;

  beforeAll(async () => {
    compiled = await compileFixture(FIXTURE);
    const run = (args: string[], stdin?: string) => runCli(compiled!.entry, args, stdin);
    Object.assign(runs, {
      resources: run(['resources']),
      resourcesJson: run(['resources', '--json']),
      read: run(['read', 'kb://handbook']),
      readTemplate: run(['read', 'kb://articles/reset-password']),
      readJson: run(['read', 'kb://articles/vpn-setup', '--json']),
      readContext: run(['read', 'kb://handbook', '--context', '{"tenant":"globex"}']),
      readBinary: run(['read', 'kb://logo']),
      readFailure: run(['read', 'kb://articles/billing']),
      readUnknown: run(['read', 'kb://handbok']),
      readNotOnCli: run(['read', 'kb://internal']),
      prompts: run(['prompts']),
      promptsJson: run(['prompts', '--json']),
      prompt: run(['prompt', 'triage_ticket', '--args', '{"id":"T-1"}']),
      promptStdin: run(
        ['prompt', 'triage_ticket', '--json', '--context', '{"tenant":"globex"}'],
        '{"id":"T-2","tone":"casual"}\n',
      ),
      promptUnknown: run(['prompt', 'triage_tiket']),
      missingUri: run(['read']),
      extraUri: run(['read', 'kb://handbook', 'kb://logo']),
      yes: run(['prompt', 'triage_ticket', '--yes']),
    });
    await Promise.all(Object.values(runs));
  }, 60_000);
  afterAll(async () => {
    await compiled?.dispose();
  });

  it('lists the CLI resources and templates by URI and title (else description), aligned', async () => {
    const { code, stdout, stderr } = await runs.resources;
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'kb://handbook         Support handbook',
        'kb://articles/{slug}  A knowledge-base article',
        'kb://logo             Logo',
        '',
      ].join('\n'),
    );
    expect(stderr).toBe('');
  });

  it('lists their descriptors with --json, without the resource exposed on MCP only', async () => {
    const { code, stdout } = await runs.resourcesJson;
    expect(code).toBe(0);
    expect(stdout.endsWith('\n')).toBe(true);
    const resources = JSON.parse(stdout);
    expect(
      resources.map(({ name, uri, uriTemplate, mimeType }: Record<string, unknown>) => ({
        name,
        uri,
        uriTemplate,
        mimeType,
      })),
    ).toEqual([
      { name: 'handbook', uri: 'kb://handbook', uriTemplate: undefined, mimeType: 'text/markdown' },
      {
        name: 'kb-article',
        uri: undefined,
        uriTemplate: 'kb://articles/{slug}',
        mimeType: 'text/plain',
      },
      { name: 'logo', uri: 'kb://logo', uriTemplate: undefined, mimeType: 'image/png' },
    ]);
    expect(resources[0]).toMatchObject({
      kind: 'resource',
      title: 'Support handbook',
      description: 'The handbook every agent reads first',
    });
  });

  it('reads a resource: its text on stdout, a trailing newline added', async () => {
    const { code, stdout, stderr } = await runs.read;
    expect(code).toBe(0);
    expect(stdout).toBe('# Handbook of acme\n\nBe kind.\n');
    expect(stderr).toBe('');
  });

  it("reads a URI a template matches, the handler's log on stderr", async () => {
    const { code, stdout, stderr } = await runs.readTemplate;
    expect(code).toBe(0);
    expect(stdout).toBe('Reset it from the login page.\n');
    expect(stderr).toBe('[info] reading {"slug":"reset-password"}\n');
  });

  it('prints { contents } as one JSON line with --json', async () => {
    const { code, stdout } = await runs.readJson;
    expect(code).toBe(0);
    expect(stdout).toBe(
      '{"contents":[{"uri":"kb://articles/vpn-setup","mimeType":"text/plain","text":"Install the client, then sign in."}]}\n',
    );
  });

  it('merges --context over the application context for a read', async () => {
    const { code, stdout } = await runs.readContext;
    expect(code).toBe(0);
    // The fixture gives runToolsCli { tenant: 'acme' }; --context overrides it.
    expect(stdout).toBe('# Handbook of globex\n\nBe kind.\n');
  });

  it('writes a lone binary content as its raw bytes when stdout is a pipe', async () => {
    const { code, bytes } = await runs.readBinary;
    expect(code).toBe(0);
    expect(bytes).toEqual(LOGO);
  });

  it('answers a failing read with exit 1 and the JSON envelope on stdout', async () => {
    const { code, stdout } = await runs.readFailure;
    expect(code).toBe(1);
    expect(stdout).toBe(
      [
        '{',
        '  "error": "NOT_FOUND",',
        '  "message": "No article \\"billing\\"",',
        '  "retryable": false,',
        '  "hint": "Read kb://handbook for the list"',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('answers an unknown URI with exit 2 and the closest URI on stderr, nothing on stdout', async () => {
    const { code, stdout, stderr } = await runs.readUnknown;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('No resource at "kb://handbok". Did you mean "kb://handbook"?\n');
  });

  it('does not know a resource exposed on MCP only: exit 2, the CLI resources listed', async () => {
    const { code, stdout, stderr } = await runs.readNotOnCli;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'No resource at "kb://internal". The resources are:\n' +
        '  kb://handbook\n  kb://articles/{slug}\n  kb://logo\n',
    );
  });

  it('lists the CLI prompts by name and description; --json gives their arguments', async () => {
    const { code, stdout } = await runs.prompts;
    expect(code).toBe(0);
    expect(stdout).toBe('triage_ticket  Triage a ticket\n');
    const json = await runs.promptsJson;
    expect(json.code).toBe(0);
    const [prompt, ...others] = JSON.parse(json.stdout);
    expect(others).toEqual([]);
    expect(prompt).toMatchObject({
      kind: 'prompt',
      name: 'triage_ticket',
      description: 'Triage a ticket\nSummarise it and suggest a priority.',
      arguments: [
        { name: 'id', description: 'The ticket id', required: true },
        { name: 'tone', required: false },
      ],
    });
  });

  it('gets a prompt with --args: its description, then each message after its role', async () => {
    const { code, stdout, stderr } = await runs.prompt;
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'Triage T-1',
        '',
        '[user] Triage ticket T-1 for acme.',
        '',
        '[user] <resource kb://handbook>',
        '# Handbook',
        '',
      ].join('\n'),
    );
    expect(stderr).toBe('');
  });

  it('gets a prompt with its arguments on stdin and --context, as JSON with --json', async () => {
    const { code, stdout } = await runs.promptStdin;
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toEqual({
      description: 'Triage T-2',
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: 'Triage ticket T-2 for globex (casual).' },
        },
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: 'kb://handbook', mimeType: 'text/markdown', text: '# Handbook' },
          },
        },
      ],
    });
  });

  it('answers an unknown prompt with exit 2 and the closest names on stderr', async () => {
    const { code, stdout, stderr } = await runs.promptUnknown;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('Unknown prompt "triage_tiket". Did you mean "triage_ticket"?\n');
  });

  it('answers usage errors with exit 2 and what to change on stderr', async () => {
    const expected = {
      missingUri: 'read needs a resource URI: read <uri>.',
      extraUri: 'Unexpected argument "kb://logo". read takes one URI.',
      yes: '--yes is only valid with call.',
    };
    for (const [run, message] of Object.entries(expected)) {
      const { code, stdout, stderr } = await runs[run];
      expect({ run, code, stdout, stderr }).toEqual({
        run,
        code: 2,
        stdout: '',
        stderr: `${message}\nRun "kb --help" for usage.\n`,
      });
    }
  });
});

describe('command line parsing of resources and prompts', () => {
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
    expect(parseCliArguments(['resources'])).toEqual({ command: 'resources', json: false });
    expect(parseCliArguments(['prompts', '--json', '--context', '{"t":1}'])).toEqual({
      command: 'prompts',
      json: true,
      context: { t: 1 },
    });
    expect(parseCliArguments(['read', 'kb://articles/a b', '--json'])).toEqual({
      command: 'read',
      uri: 'kb://articles/a b',
      json: true,
    });
    expect(parseCliArguments(['prompt', 'p_1', '--args', '{"id":"T-1"}'])).toEqual({
      command: 'prompt',
      name: 'p_1',
      json: false,
      args: { from: 'inline', value: { id: 'T-1' } },
    });
    expect(parseCliArguments(['prompt', 'p_1', '--args-file', 'a.json'])).toMatchObject({
      args: { from: 'file', path: 'a.json' },
    });
    expect(parseCliArguments(['prompt', 'p_1'])).toMatchObject({
      args: { from: 'stdin', explicit: false },
    });
  });

  it('refuses what it cannot run, saying what to change', () => {
    expect(usage(['read'])).toBe('read needs a resource URI: read <uri>.');
    expect(usage(['prompt'])).toBe('prompt needs a prompt name: prompt <name>.');
    expect(usage(['read', 'kb://a', 'kb://b'])).toBe(
      'Unexpected argument "kb://b". read takes one URI.',
    );
    expect(usage(['prompt', 'p_1', 'T-1'])).toBe(
      'Unexpected argument "T-1". Pass the prompt\'s arguments as JSON with --args.',
    );
    expect(usage(['resources', 'kb://a'])).toBe('resources takes no argument; got "kb://a".');
    expect(usage(['prompts', 'p_1'])).toBe('prompts takes no argument; got "p_1".');
    expect(usage(['prompts', '--args', '{}'])).toBe('--args is only valid with call and prompt.');
    expect(usage(['read', 'kb://a', '--args-file', 'a.json'])).toBe(
      "--args-file is only valid with call and prompt: read takes a template's variables in the URI.",
    );
    expect(usage(['resources', '-y'])).toBe('--yes is only valid with call.');
    expect(usage(['prompt', 'p_1', '--args', '{}', '--args-file', '-'])).toBe(
      'Give the arguments once: --args or --args-file, not both.',
    );
    expect(usage(['read', 'kb://a', '--context', '"x"'])).toMatch(
      /^--context must be a JSON object/,
    );
    expect(usage(['resorces'])).toBe('Unknown command "resorces". Did you mean "resources"?');
    expect(usage(['zzz'])).toBe(
      'Unknown command "zzz". Use list, describe, call, resources, read, prompts or prompt.',
    );
  });
});

describe('resources and prompts through runCliCommand, without Nest', () => {
  /** A stdout or stderr that keeps what is written: text, and bytes as they are. */
  const sink = (isTTY = false) => {
    const chunks: Buffer[] = [];
    return {
      isTTY,
      write: (chunk: string | Uint8Array) => void chunks.push(Buffer.from(chunk)),
      get bytes() {
        return Buffer.concat(chunks);
      },
      get text() {
        return Buffer.concat(chunks).toString('utf8');
      },
    };
  };
  const run = async (
    invoker: ToolInvoker,
    command: CliCommand,
    options: { tty?: boolean; context?: Record<string, unknown>; program?: string } = {},
  ) => {
    const [stdout, stderr] = [sink(options.tty), sink()];
    const code = await runCliCommand(invoker, command, {
      stdout,
      stderr,
      context: options.context,
      program: options.program,
    });
    return { code, stdout: stdout.text, bytes: stdout.bytes, stderr: stderr.text };
  };

  const PIXEL = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x01]);
  const invoker = createToolInvoker(
    [
      defineResource({
        uri: 'mem://logo',
        name: 'logo',
        mimeType: 'image/jpeg',
        transports: ['CLI'],
        read: () => PIXEL,
      }),
      defineResource({
        uri: 'mem://bundle',
        name: 'bundle',
        transports: ['CLI'],
        read: () => [
          { text: 'first\n', mimeType: 'text/plain' },
          { uri: 'mem://bundle/pixel', blob: PIXEL },
          { uri: 'mem://bundle/last', text: 'last' },
        ],
      }),
      defineResourceTemplate({
        uriTemplate: 'mem://echo/{word}',
        name: 'echo',
        transports: ['CLI'],
        variables: z.object({ word: z.string() }),
        read: ({ input, call, context }) =>
          `${input.word} via ${call.transport}/${call.source} for ${String(context.user)}`,
      }),
      defineResource({
        uri: 'mem://broken',
        name: 'broken',
        transports: ['CLI'],
        read: () => {
          throw new ToolError('SERVICE_UNAVAILABLE', { message: 'Storage is down' });
        },
      }),
      defineResource({
        uri: 'mem://mcp-only',
        name: 'mcp-only',
        read: () => 'hidden',
      }),
      definePrompt({
        name: 'welcome',
        description: 'Welcome a user',
        args: z.object({ who: z.string() }),
        transports: ['CLI'],
        get: ({ input }) => [
          { role: 'user', content: { type: 'text', text: `Welcome ${input.who}\non board.` } },
          {
            role: 'assistant',
            content: { type: 'image', data: PIXEL.toString('base64'), mimeType: 'image/jpeg' },
          },
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: 'mem://logo', mimeType: 'image/jpeg', blob: 'AAEC' },
            },
          },
          { role: 'user', content: { type: 'resource_link', uri: 'mem://bundle', name: 'b' } },
        ],
      }),
      definePrompt({
        name: 'secret',
        description: 'Only for admins',
        args: z.object({}),
        transports: ['CLI'],
        get: () => 'the secret',
      }),
    ],
    {
      guards: [
        {
          canActivate: () => true,
          canList: (descriptor, context) =>
            descriptor.name !== 'secret' || context.role === 'admin',
        },
      ],
    },
  );

  it('writes a lone binary content as raw bytes off a terminal, and as a line on one', async () => {
    const read = { command: 'read', uri: 'mem://logo', json: false } as const;
    const piped = await run(invoker, read);
    expect(piped.code).toBe(0);
    expect(piped.bytes).toEqual(PIXEL);
    const terminal = await run(invoker, read, { tty: true });
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toBe('<binary, 5 bytes, image/jpeg>\n');
  });

  it('shows several contents under "==> uri <==" headers, a binary one as a line even off a terminal', async () => {
    const { code, stdout } = await run(invoker, {
      command: 'read',
      uri: 'mem://bundle',
      json: false,
    });
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        '==> mem://bundle <==',
        'first',
        '',
        '==> mem://bundle/pixel <==',
        '<binary, 5 bytes>',
        '',
        '==> mem://bundle/last <==',
        'last',
        '',
      ].join('\n'),
    );
  });

  it('prints { contents } with --json, the bytes in base64', async () => {
    const { code, stdout } = await run(invoker, { command: 'read', uri: 'mem://logo', json: true });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      contents: [{ uri: 'mem://logo', mimeType: 'image/jpeg', blob: PIXEL.toString('base64') }],
    });
  });

  it('reads through a template with transport CLI, source cli and the merged context', async () => {
    const { code, stdout } = await run(
      invoker,
      { command: 'read', uri: 'mem://echo/hi', json: false, context: { user: 'ann' } },
      { context: { user: 'bob' } },
    );
    expect(code).toBe(0);
    expect(stdout).toBe('hi via CLI/cli for ann\n');
  });

  it('answers a failing read with the envelope on one line with --json, exit 1', async () => {
    const { code, stdout } = await run(invoker, {
      command: 'read',
      uri: 'mem://broken',
      json: true,
    });
    expect(code).toBe(1);
    expect(stdout).toBe(
      '{"error":"SERVICE_UNAVAILABLE","message":"Storage is down","retryable":true}\n',
    );
  });

  it('prints every kind of prompt content readably', async () => {
    const { code, stdout } = await run(invoker, {
      command: 'prompt',
      name: 'welcome',
      json: false,
      input: { who: 'Ann' },
    });
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        '[user] Welcome Ann',
        'on board.',
        '',
        '[assistant] <image image/jpeg, 5 bytes>',
        '',
        '[user] <resource mem://logo>',
        '<binary, 3 bytes, image/jpeg>',
        '',
        '[user] <resource_link mem://bundle>',
        '',
      ].join('\n'),
    );
  });

  it("answers a prompt's invalid arguments with the VALIDATION_ERROR envelope, exit 1", async () => {
    const { code, stdout } = await run(invoker, {
      command: 'prompt',
      name: 'welcome',
      json: true,
      input: {},
    });
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({
      error: 'VALIDATION_ERROR',
      details: { issues: [{ path: 'who' }] },
    });
  });

  it('lists only what the caller may see; --context can show more', async () => {
    const prompts = { command: 'prompts', json: false } as const;
    expect((await run(invoker, prompts)).stdout).toBe('welcome  Welcome a user\n');
    expect((await run(invoker, { ...prompts, context: { role: 'admin' } })).stdout).toBe(
      'welcome  Welcome a user\nsecret   Only for admins\n',
    );
    expect((await run(invoker, { command: 'resources', json: false })).stdout).toBe(
      [
        'mem://logo         logo',
        'mem://bundle       bundle',
        'mem://echo/{word}  echo',
        'mem://broken       broken',
        '',
      ].join('\n'),
    );
  });

  it('suggests only the prompts the caller may see for an unknown prompt', async () => {
    const get = { command: 'prompt', name: 'secrte', json: false, input: {} } as const;
    const anyone = await run(invoker, get);
    expect(anyone).toMatchObject({ code: 2, stdout: '', stderr: 'Unknown prompt "secrte".\n' });
    const admin = await run(invoker, { ...get, context: { role: 'admin' } });
    expect(admin).toMatchObject({
      code: 2,
      stderr: 'Unknown prompt "secrte". Did you mean "secret"?\n',
    });
  });

  it('names the resources for an unknown URI when they are few, else the command that lists them', async () => {
    const read = { command: 'read', uri: 'other://x', json: false } as const;
    const few = await run(invoker, read);
    expect(few).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'No resource at "other://x". The resources are:\n' +
        '  mem://logo\n  mem://bundle\n  mem://echo/{word}\n  mem://broken\n',
    });

    const many = createToolInvoker(
      Array.from({ length: 11 }, (_, index) =>
        defineResource({
          uri: `mem://note-${index}`,
          name: `note-${index}`,
          transports: ['CLI'],
          read: () => `${index}`,
        }),
      ),
    );
    expect(await run(many, read, { program: 'notes' })).toMatchObject({
      code: 2,
      stderr: 'No resource at "other://x". List the 11 resources with "notes resources".\n',
    });

    const none = createToolInvoker([]);
    expect(await run(none, read)).toMatchObject({
      code: 2,
      stderr: 'No resource at "other://x": no resources are available.\n',
    });
  });

  it('says on stderr that no resources or prompts are exposed on CLI, and exits 0', async () => {
    const none = createToolInvoker([]);
    expect(await run(none, { command: 'resources', json: false })).toEqual({
      code: 0,
      stdout: '',
      bytes: Buffer.alloc(0),
      stderr:
        "No resources are exposed on the command line: add 'CLI' to a resource's transports.\n",
    });
    expect(await run(none, { command: 'prompts', json: false })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: "No prompts are exposed on the command line: add 'CLI' to a prompt's transports.\n",
    });
    expect((await run(none, { command: 'prompts', json: true })).stdout).toBe('[]\n');
  });
});
