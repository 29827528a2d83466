/**
 * A tool's questions on the command line: `--yes`, the refusal off a terminal (exit 2), prompts
 * answered in a real pseudo-terminal (util-linux `script`), and `runCliCommand` with a fake
 * terminal or an embedding's `ask`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { z } from 'zod';
import { parseCliArguments } from '../../lib/cli/cli-arguments.js';
import { runCliCommand, type CliCommand, type CliCommandIO } from '../../lib/cli/cli-commands.js';
import {
  ToolError,
  createToolInvoker,
  defineRuntimeTool,
  type ToolAsk,
  type ToolQuestion,
} from '../../lib/core/index.js';
import { inputUnavailable } from '../../lib/core/asking.js';
import { deferred, waitFor } from '../fixtures/timing.js';
import { compileFixture } from './compiled-fixture.js';

const FIXTURE = 'test/fixtures/cli-asking-app.ts';
const DOWN = '\x1b[B';
const CTRL_C = '\x03';
const ESCAPE = '\x1b';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface TerminalRun {
  code: number | null;
  /** What the terminal showed (stderr and echoes), without escape sequences. */
  screen: string;
  /** What the program wrote on stdout, redirected to a file. */
  stdout: string;
}

/** The child environment: jest's NODE_OPTIONS (vm modules) is not the fixture's business. */
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  return { ...env, NO_COLOR: '1', TERM: 'xterm' };
}

const children = new Set<ChildProcessWithoutNullStreams>();

function track(child: ChildProcessWithoutNullStreams): ChildProcessWithoutNullStreams {
  children.add(child);
  // The safety net only: a run that hangs is killed, and its test fails on what it lacks.
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  child.stdin.on('error', () => undefined);
  child.on('close', () => {
    clearTimeout(timer);
    children.delete(child);
  });
  return child;
}

/** Runs the fixture CLI with stdin, stdout and stderr piped: no terminal. */
function runPiped(entry: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [entry, ...args], { env: childEnv() }));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the fixture CLI in a pseudo-terminal (`script`): stdin and stderr are the terminal,
 * stdout goes to `stdoutFile`. Each step waits for its text to appear on the terminal, after
 * the text of the step before, then types its keys.
 */
async function runInTerminal(
  entry: string,
  args: string[],
  stdoutFile: string,
  steps: ReadonlyArray<readonly [text: string, keys: string]>,
): Promise<TerminalRun> {
  const command = `${[process.execPath, entry, ...args].map(quote).join(' ')} > ${quote(stdoutFile)}`;
  const child = track(spawn('script', ['-qfec', command, '/dev/null'], { env: childEnv() }));
  let raw = '';
  const screen = () => stripVTControlCharacters(raw);
  let cursor = 0;
  let waiting: { text: string; found: () => void; ended: (error: Error) => void } | undefined;
  const look = () => {
    const at = waiting ? screen().indexOf(waiting.text, cursor) : -1;
    if (!waiting || at < 0) return;
    cursor = at + waiting.text.length;
    const { found } = waiting;
    waiting = undefined;
    found();
  };
  const onOutput = (chunk: string) => {
    raw += chunk;
    look();
  };
  child.stdout.setEncoding('utf8').on('data', onOutput);
  child.stderr.setEncoding('utf8').on('data', onOutput);
  const code = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exit) => {
      child.stdin.destroy();
      waiting?.ended(
        new Error(`The program ended before showing "${waiting.text}". It showed:\n${screen()}`),
      );
      resolve(exit);
    });
  });
  for (const [text, keys] of steps) {
    await new Promise<void>((found, ended) => {
      waiting = { text, found, ended };
      look();
    });
    child.stdin.write(keys);
  }
  return { code: await code, screen: screen(), stdout: await readFile(stdoutFile, 'utf8') };
}

/** Marks a stored promise as handled; its test still awaits it and sees a rejection. */
function stored<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

describe('a tool that asks, on the command line (child process)', () => {
  let dir: string;
  let compiled: Awaited<ReturnType<typeof compileFixture>> | undefined;
  const piped = {} as Record<string, Promise<CliRun>>;
  const terminal = {} as Record<string, Promise<TerminalRun>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwright-cli-asking-'));
    compiled = await compileFixture(FIXTURE);
    const { entry } = compiled;
    const close = ['call', 'tickets_close', '--args', '{"id":"T-1"}'];
    const open = ['call', 'tickets_open', '--json'];
    const pipe = (args: string[]) => stored(runPiped(entry, args));
    Object.assign(piped, {
      yes: pipe([...close, '--yes']),
      confirm: pipe(close),
      elicit: pipe(open),
      elicitYes: pipe([...open, '-y']),
    });
    const tty = (label: string, args: string[], steps: Array<[string, string]>) =>
      (terminal[label] = stored(runInTerminal(entry, args, join(dir, `${label}.out`), steps)));
    tty('accepted', close, [['Close ticket T-1?', 'y\r']]);
    tty('refused', close, [['Close ticket T-1?', 'n\r']]);
    tty('elicited', open, [
      ['Describe the new ticket', ''],
      ['Answer?', '\r'],
      ['Ticket title', 'Pr\r'],
      ['expected string to have >=3 characters', 'inter jam\r'],
      ['Seats affected', '3\r'],
      ['Priority', `${DOWN}\r`],
    ]);
    tty('declined', open, [['Answer?', 'n\r']]);
    tty('interrupted', open, [
      ['Answer?', '\r'],
      ['Ticket title', CTRL_C],
    ]);
    await Promise.allSettled([...Object.values(piped), ...Object.values(terminal)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      [...children].map(
        (child) =>
          new Promise((closed) => {
            child.once('close', closed);
            child.kill('SIGKILL');
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
    await compiled?.dispose();
  });

  describe('off a terminal', () => {
    it('--yes accepts the confirmation without a prompt: the handler saw true, exit 0', async () => {
      const { code, stdout, stderr } = await piped.yes;
      expect(stdout).toBe('closed T-1\n');
      expect(code).toBe(0);
      expect(stderr).not.toContain('Close ticket');
    });

    it('a confirmation without --yes: exit 2, what to do on stderr, nothing on stdout', async () => {
      const { code, stdout, stderr } = await piped.confirm;
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        'Tool "tickets_close" asks "Close ticket T-1?" and needs a yes or no, but stdin and ' +
          'stderr are not both terminals to ask on.\n' +
          'Run it on a terminal, or pass --yes to accept its confirmations.\n',
      );
    });

    it.each(['elicit', 'elicitYes'])(
      'an elicitation (%s): exit 2, what to do on stderr, nothing on stdout',
      async (label) => {
        const { code, stdout, stderr } = await piped[label];
        expect(code).toBe(2);
        expect(stdout).toBe('');
        expect(stderr).toBe(
          'Tool "tickets_open" asks "Describe the new ticket" and needs answers, but stdin and ' +
            'stderr are not both terminals to ask on.\n' +
            'Run it on a terminal to answer (--yes accepts confirmations only).\n',
        );
      },
    );
  });

  describe('on a terminal (a pseudo-terminal driven by keystrokes)', () => {
    it('a confirmation answered y: the handler saw true, exit 0, only the output on stdout', async () => {
      const { code, stdout, screen } = await terminal.accepted;
      expect(code).toBe(0);
      expect(stdout).toBe('closed T-1\n');
      expect(screen).toContain('Close ticket T-1? Yes');
    });

    it('a confirmation answered n: the handler saw false', async () => {
      const { code, stdout, screen } = await terminal.refused;
      expect(code).toBe(0);
      expect(stdout).toBe('kept T-1\n');
      expect(screen).toContain('Close ticket T-1? No');
    });

    it('an elicitation: a text (asked again until it fits), a number and a choice', async () => {
      const { code, stdout, screen } = await terminal.elicited;
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({
        opened: { title: 'Printer jam', seats: 3, priority: 'high' },
      });
      // The choice lists the titles, the default first under the cursor.
      expect(screen).toMatch(/Priority\s+Low\s+❯ Normal\s+High/);
    });

    it('n to "Answer?" declines the elicitation', async () => {
      const { code, stdout } = await terminal.declined;
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ answered: 'decline' });
    });

    it('Ctrl-C in a prompt cancels the elicitation; the tool still answers', async () => {
      const { code, stdout } = await terminal.interrupted;
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ answered: 'cancel' });
    });
  });
});

describe('parsing --yes', () => {
  it('-y and --yes mark a call; they are refused elsewhere', () => {
    expect(parseCliArguments(['call', 'a_b', '-y'])).toMatchObject({ command: 'call', yes: true });
    expect(parseCliArguments(['call', 'a_b', '--yes'])).toMatchObject({ yes: true });
    expect(parseCliArguments(['call', 'a_b'])).not.toHaveProperty('yes');
    expect(() => parseCliArguments(['list', '--yes'])).toThrow('--yes is only valid with call.');
  });
});

describe('runCliCommand with questions, without Nest', () => {
  const Triage = z.object({
    notify: z.boolean().meta({ title: 'Notify watchers' }),
    tags: z.array(z.enum(['hardware', 'network', 'urgent'])).meta({ title: 'Tags' }),
    note: z.string().optional().meta({ title: 'Note' }),
  });
  let confirmed = deferred<boolean>();
  const invoker = createToolInvoker(
    [
      defineRuntimeTool({
        description: 'Close a ticket after the user confirms',
        identity: { serviceName: 'tickets', action: 'close', method: 'POST' },
        input: z.object({ id: z.string() }),
        asks: { confirm: true },
        transports: ['CLI'],
        handler: async ({ input, confirm }) => {
          const yes = await confirm(`Close ticket ${input.id}?`);
          confirmed.resolve(yes);
          return yes ? `closed ${input.id}` : `kept ${input.id}`;
        },
      }),
      defineRuntimeTool({
        description: 'Triage a ticket, asking how',
        identity: { serviceName: 'tickets', action: 'triage', method: 'POST' },
        input: z.object({}),
        asks: { confirm: true, elicit: [Triage] },
        transports: ['CLI'],
        handler: async ({ confirm, elicit }) => {
          const sure = await confirm('Triage now?');
          const answer = await elicit({ message: 'How to triage', schema: Triage });
          return { sure, ...answer };
        },
      }),
      defineRuntimeTool({
        description: 'Needs input from a system that is away',
        identity: { serviceName: 'tickets', action: 'sync', method: 'POST' },
        input: z.object({}),
        transports: ['CLI'],
        handler: () => {
          throw new ToolError('USER_INPUT_UNAVAILABLE', { message: 'The upstream desk is away' });
        },
      }),
    ],
    { logger: { error: () => undefined, warn: () => undefined } },
  );

  const sink = (tty = false) => {
    const out = {
      text: '',
      isTTY: tty,
      columns: 80,
      write: (chunk: string) => void (out.text += chunk),
    };
    return out;
  };

  /** A terminal in memory: keys typed into stdin, prompts read from stderr. */
  const fakeTerminal = () => {
    const modes: boolean[] = [];
    const stdin = Object.assign(new PassThrough(), {
      isTTY: true,
      setRawMode: (mode: boolean) => {
        modes.push(mode);
        return stdin;
      },
    });
    const stderr = sink(true);
    let cursor = 0;
    const shown = async (text: string) => {
      const found = await waitFor(() => {
        const at = stripVTControlCharacters(stderr.text).indexOf(text, cursor);
        if (at >= 0) cursor = at + text.length;
        return at >= 0;
      }, 20_000);
      if (!found) throw new Error(`"${text}" was never shown. Shown:\n${stderr.text}`);
    };
    return { stdin, stderr, modes, shown, type: (keys: string) => void stdin.write(keys) };
  };

  const call = (name: string, extra: Partial<Extract<CliCommand, { command: 'call' }>> = {}) =>
    ({ command: 'call', name, json: true, input: { id: 'T-7' }, ...extra }) as CliCommand;

  it('--yes accepts confirmations itself; the other questions go to the embedding ask', async () => {
    const questions: ToolQuestion[] = [];
    const ask: ToolAsk = (question) => {
      questions.push(question);
      return { action: 'accept', content: { notify: false, tags: ['network'] } };
    };
    const [stdout, stderr] = [sink(), sink()];
    const code = await runCliCommand(invoker, call('tickets_triage', { yes: true }), {
      stdout,
      stderr,
      ask,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout.text)).toEqual({
      sure: true,
      action: 'accept',
      content: { notify: false, tags: ['network'] },
    });
    expect(questions.map(({ kind }) => kind)).toEqual(['elicit']);
  });

  it.each([
    ['no stdin', {}],
    ['stdin a terminal, stderr not', { stdin: fakeTerminal().stdin }],
    ['stderr a terminal, stdin not', { stdin: new PassThrough(), stderr: sink(true) }],
  ] as Array<[string, Partial<CliCommandIO>]>)(
    'without a terminal (%s), a question ends the command with exit 2 and nothing on stdout',
    async (_label, io) => {
      const [stdout, stderr] = [sink(), sink()];
      const code = await runCliCommand(invoker, call('tickets_close'), { stdout, stderr, ...io });
      expect(code).toBe(2);
      expect(stdout.text).toBe('');
      expect((io.stderr as { text?: string } | undefined)?.text ?? stderr.text).toContain(
        'Tool "tickets_close" asks "Close ticket T-7?" and needs a yes or no',
      );
    },
  );

  it('USER_INPUT_UNAVAILABLE for another reason is an ordinary failure: exit 1, the envelope on stdout', async () => {
    const [stdout, stderr] = [sink(), sink()];
    const code = await runCliCommand(invoker, call('tickets_sync', { input: {} }), {
      stdout,
      stderr,
    });
    expect(code).toBe(1);
    expect(JSON.parse(stdout.text)).toMatchObject({
      error: 'USER_INPUT_UNAVAILABLE',
      message: 'The upstream desk is away',
    });
    expect(stderr.text).toBe('');

    // An embedding's ask that cannot ask either: the tool failed, not the command line.
    const [out, err] = [sink(), sink()];
    const refusing: ToolAsk = (question) => {
      throw inputUnavailable(question.call.name);
    };
    await expect(
      runCliCommand(invoker, call('tickets_close'), { stdout: out, stderr: err, ask: refusing }),
    ).resolves.toBe(1);
    expect(JSON.parse(out.text)).toMatchObject({ error: 'USER_INPUT_UNAVAILABLE' });
    expect(err.text).toBe('');
  });

  it('on a terminal: a yes/no, a multiple choice and an optional text left empty', async () => {
    const terminal = fakeTerminal();
    const [stdout] = [sink()];
    const running = runCliCommand(invoker, call('tickets_triage', { input: {} }), {
      stdout,
      stderr: terminal.stderr,
      stdin: terminal.stdin,
    });
    await terminal.shown('Triage now?');
    terminal.type('y\r');
    await terminal.shown('How to triage');
    await terminal.shown('Answer?');
    terminal.type('\r');
    await terminal.shown('Notify watchers');
    terminal.type('n\r');
    await terminal.shown('Tags');
    terminal.type(` ${DOWN}${DOWN} \r`);
    await terminal.shown('Note');
    terminal.type('\r');
    await expect(running).resolves.toBe(0);
    expect(JSON.parse(stdout.text)).toEqual({
      sure: true,
      action: 'accept',
      content: { notify: false, tags: ['hardware', 'urgent'] },
    });
    expect(terminal.modes.at(-1)).toBe(false);
    expect(terminal.stdin.listenerCount('keypress')).toBe(0);
  });

  it('Escape in a prompt cancels the elicitation', async () => {
    const terminal = fakeTerminal();
    const [stdout] = [sink()];
    const running = runCliCommand(invoker, call('tickets_triage', { input: {}, yes: true }), {
      stdout,
      stderr: terminal.stderr,
      stdin: terminal.stdin,
    });
    await terminal.shown('Answer?');
    terminal.type(ESCAPE);
    await expect(running).resolves.toBe(0);
    expect(JSON.parse(stdout.text)).toEqual({ sure: true, action: 'cancel' });
  });

  it("the call's signal closes an open prompt: REQUEST_ABORTED, the question answered cancel", async () => {
    confirmed = deferred<boolean>();
    const terminal = fakeTerminal();
    const controller = new AbortController();
    const [stdout] = [sink()];
    const running = runCliCommand(invoker, call('tickets_close'), {
      stdout,
      stderr: terminal.stderr,
      stdin: terminal.stdin,
      signal: controller.signal,
    });
    await terminal.shown('Close ticket T-7?');
    controller.abort();
    await expect(running).resolves.toBe(1);
    expect(JSON.parse(stdout.text)).toMatchObject({ error: 'REQUEST_ABORTED' });
    // The handler goes on after the call is abandoned: its confirm resolved, so the prompt closed.
    await expect(confirmed.promise).resolves.toBe(false);
    expect(terminal.modes.at(-1)).toBe(false);
    expect(terminal.stdin.listenerCount('keypress')).toBe(0);
  });
});
